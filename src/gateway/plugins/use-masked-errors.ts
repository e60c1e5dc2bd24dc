import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { isGraphQLError, unexpectedError, withRequestId } from '../../shared/mask-error.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';

/**
 * Errors as the client sees them, past the masking every part shares (src/shared/mask-error.ts,
 * which the runtime's `maskedErrors` applies): masked errors quote the request's correlation id,
 * request errors get their status, nothing quotes server internals, and a failure outside
 * GraphQL (the session store out of reach, a bug here) is answered rather than thrown.
 */
export function useMaskedErrors(options: { log: Logger }): Plugin<CorrelationContext> {
  const { log } = options;
  return {
    async onHttpRequest(request, context, next) {
      try {
        return await next(request);
      } catch (err) {
        const { requestId } = context;
        if (!isDatabaseUnavailable(err) && request.signal.aborted) {
          // The client went away (closed its connection) before its answer: nobody to tell.
          log.debug({ requestId }, 'client closed the connection before the answer');
          return new Response(null, { status: 499 });
        }
        // The database out of reach (the session could not be read): say so, and when to retry.
        const error = unexpectedError(err, log.child({ requestId }), 'request failed');
        return Response.json(
          { errors: [withRequestId(error, requestId)] },
          error.extensions.code === 'SERVICE_UNAVAILABLE'
            ? { status: 503, headers: { 'retry-after': '5' } }
            : { status: 500 },
        );
      }
    },
    onExecutionResult({ result, setResult, context }) {
      const { requestId } = context as Partial<CorrelationContext>;
      if (!requestId || !result || !('errors' in result) || !result.errors?.length) return;
      // No `data` at all (variables that do not coerce): a request error, which GraphQL over
      // HTTP answers with 400 for application/graphql-response+json (200 for legacy JSON).
      const requestError = !('data' in result) || result.data === undefined;
      const errors = result.errors.map((e) => {
        if (!isGraphQLError(e)) return e;
        if (e.extensions?.code === 'INTERNAL_SERVER_ERROR') return withRequestId(e, requestId);
        if (requestError && !e.extensions?.http) {
          return new GraphQLError(e.message, {
            nodes: e.nodes,
            source: e.source,
            positions: e.positions,
            path: e.path,
            originalError: e.originalError,
            extensions: { ...e.extensions, http: { status: 400, spec: true } },
          });
        }
        return e;
      });
      setResult({ ...result, errors } as unknown as typeof result);
    },
    // Yoga puts the JSON parser's own message (quoting the body) under originalError.
    onResultProcess({ result }) {
      for (const one of Array.isArray(result) ? result : [result]) {
        const errors = (one as { errors?: readonly { extensions?: Record<string, unknown> }[] }).errors;
        for (const error of errors ?? []) if (error.extensions) delete error.extensions.originalError;
      }
    },
  };
}
