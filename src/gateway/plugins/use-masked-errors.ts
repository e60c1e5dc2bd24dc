import { isClientGone, isDatabaseUnavailable } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';
import { unexpectedError, withRequestId } from '../../shared/mask-error.ts';
import type { Plugin } from '../http.ts';
import type { CorrelationContext } from './use-correlation-id.ts';

/**
 * A failure outside GraphQL (the session store out of reach, a bug here) answered rather than
 * thrown, masked (src/shared/mask-error.ts) with the request's correlation id to quote; a client
 * that went away answered 499, and not as a fault. What a GraphQL result's errors show is shaped
 * with the result (src/execution/shape.ts).
 */
export function useMaskedErrors(options: { log: Logger }): Plugin<CorrelationContext> {
  const { log } = options;
  return {
    async onHttpRequest(request, context, next) {
      try {
        return await next(request);
      } catch (err) {
        const { requestId } = context;
        if (isClientGone(err) || (!isDatabaseUnavailable(err) && request.signal.aborted)) {
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
  };
}
