import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import { parsedJsonBody } from '../../shared/request-body.ts';
import type { Plugin } from '../http.ts';
import { type PreparedContext, type PreparedOperations, regularMediaType } from '../prepared-operations.ts';
import type { CorrelationContext } from './use-correlation-id.ts';
import { type DirectSubgraph, runDirect } from './use-direct-execution.ts';
import type { MetricsContext } from './use-metrics.ts';
import type { IdentityContext } from './use-session-identity.ts';

export interface PreparedOperationsOptions {
  /** The gateway's GraphQL path. */
  graphqlPath: string;
  /** Operations direct execution has noted (gateway/prepared-operations.ts). */
  operations: PreparedOperations<DirectSubgraph>;
  /** The CORS policy the runtime applies: a request it would answer with CORS headers takes the runtime's path. */
  cors: false | ((request: Request) => unknown);
  /** An answer of the runtime's own class (the server adapter writes its string body as it is). */
  respond(body: string, init: ResponseInit): Response;
  relayHeaders: Parameters<typeof runDirect>[3]['relayHeaders'];
  metrics?: Metrics;
}

type Context = CorrelationContext & IdentityContext & MetricsContext & PreparedContext;

/**
 * Prepared operations: a request for an operation the gateway has answered before through the
 * runtime's whole pipeline, which one subgraph answers alone (in this process or over HTTP) and
 * which takes no variables (gateway/prepared-operations.ts), is executed and answered here, without the
 * pipeline (Yoga's request handling, the runtime's context, envelop's hooks, result processing).
 *
 * The innermost of the gateway's HTTP hooks, so every request still has its body bounded and
 * read, its CSRF check, its session resolved, its tenant's turn and the headers every answer
 * gets; and the operation is executed exactly as direct execution executes it (its input
 * limits, cost, response budget and masking are the subgraph's). Only a request the pipeline
 * would answer as a plain JSON document of data without errors is answered here; anything else
 * (variables, other parameters, an `Accept` asking for a stream, a CORS origin) goes through the
 * pipeline as before, and a result with errors is handed to it after execution, to be shaped by
 * its hooks without being executed again.
 */
export function usePreparedOperations(options: PreparedOperationsOptions): Plugin<Context> {
  const metrics = options.metrics ?? NO_METRICS;
  return {
    async onHttpRequest(request, context, next) {
      if (context.pathname !== options.graphqlPath || request.method !== 'POST') return next(request);
      const body = parsedJsonBody(request);
      if (!body || !('params' in body)) return next(request);
      const { query, operationName } = plainParams(body.params) ?? {};
      if (query === undefined) return next(request);
      const mediaType = regularMediaType(request.headers.get('accept'));
      if (!mediaType) return next(request);
      if (options.cors && request.headers.has('origin') && options.cors(request)) return next(request);
      if (!yogaReadsLength(request.headers.get('content-length'))) return next(request);
      const prepared = options.operations.find(query, operationName ?? null);
      if (!prepared) return next(request);

      // A client that has gone away is answered as the pipeline answers it (the runtime's fetch
      // rejects, and the masked-errors hook answers 499): before, nothing is executed for it.
      request.signal.throwIfAborted();
      const { result } = await runDirect(
        prepared.subgraph,
        { document: prepared.document, operationName: prepared.operationName },
        context,
        options,
      );
      request.signal.throwIfAborted();
      const seen = context.metricsSeen;
      if (seen) {
        seen.requested = operationName;
        seen.executed = prepared.name;
      }
      if (result.errors?.length || result.extensions?.http) {
        context.preparedResult = result;
        return next(request);
      }
      metrics.preparedOperation();
      // As Yoga writes a result without errors: its own serialiser when it has one (a compiled one).
      const stringify = (result as { stringify?: (r: unknown) => string }).stringify ?? JSON.stringify;
      return options.respond(stringify(result), {
        status: 200,
        headers: { 'Content-Type': `${mediaType}; charset=utf-8` },
      });
    },
  };
}

/**
 * Yoga's own body bound (graphql-yoga 5's `useLimitRequestBodySize`, on by default): it refuses a
 * `Content-Length` that is not one decimal number (400) or is over 25,000,000 (413). Such a
 * request takes the pipeline, for its refusal; node's HTTP parser refuses most of them first.
 */
const YOGA_MAX_BODY_BYTES = 25_000_000;
function yogaReadsLength(length: string | null): boolean {
  return length === null || (/^\d+$/.test(length) && Number(length) <= YOGA_MAX_BODY_BYTES);
}

/**
 * The query text and operation name of parameters that hold nothing else the pipeline would
 * have to look at: no variables (or none given: `null`, `{}`), no extensions, no other field.
 */
function plainParams(
  params: Record<string, unknown>,
): { query: string; operationName: string | undefined | null } | undefined {
  let query: string | undefined;
  let operationName: string | null | undefined;
  for (const key in params) {
    const value = params[key];
    if (key === 'query') {
      if (typeof value !== 'string') return undefined;
      query = value;
    } else if (key === 'operationName') {
      if (value !== null && value !== undefined && typeof value !== 'string') return undefined;
      operationName = value;
    } else if (key === 'variables') {
      if (value === null || value === undefined) continue;
      if (typeof value !== 'object' || Array.isArray(value)) return undefined;
      for (const _ in value) return undefined;
    } else {
      return undefined;
    }
  }
  return query === undefined ? undefined : { query, operationName };
}
