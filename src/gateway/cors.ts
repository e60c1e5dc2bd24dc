import type { CORSOptions } from 'graphql-yoga';
import { SESSION_HEADER } from '../shared/session-policy.ts';

/**
 * The CORS policy for `ASSETQL_CORS_ORIGINS`: a listed origin is granted credentials (the session
 * cookie) and may read `x-svc-sessionid`, the header a header client takes its session from; any
 * other origin, and every origin when none is listed, gets no CORS header at all, so the browser
 * refuses it, as the Fetch standard intends, rather than being answered `null` with credentials.
 * No `Vary: Origin` is needed: GraphQL answers are `no-store`, and browsers key their preflight
 * cache by origin.
 */
export function corsPolicy(origins: readonly string[]): false | ((request: Request) => CORSOptions) {
  if (origins.length === 0) return false;
  const listed = new Set(origins.map((o) => new URL(o).origin));
  return (request) => {
    const origin = request.headers.get('origin');
    if (!origin || !listed.has(origin)) return false;
    return { origin: [origin], credentials: true, exposedHeaders: [SESSION_HEADER] };
  };
}
