import type { Plugin } from '../http.ts';

const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
  ['cross-origin-opener-policy', 'same-origin'],
];

export interface SecurityHeadersOptions {
  /** The path whose answers no cache may keep: GraphQL's. */
  noStore: string;
}

/**
 * Headers on every answer (unless it sets its own) that keep browsers from sniffing, framing or
 * leaking it; and `cache-control: no-store` on GraphQL answers, which carry tenant data and
 * session changes, so that no shared or browser cache keeps them.
 */
export function useSecurityHeaders(options: SecurityHeadersOptions): Plugin {
  return {
    onHttpResponse(headers, context) {
      for (const [name, value] of SECURITY_HEADERS) if (!headers.has(name)) headers.set(name, value);
      if (context.pathname === options.noStore) headers.set('cache-control', 'no-store');
    },
  };
}
