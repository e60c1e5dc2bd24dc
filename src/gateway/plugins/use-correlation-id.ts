import { correlationIdFrom, REQUEST_ID_HEADER } from '../../shared/identity.ts';
import type { Plugin } from '../http.ts';

export interface CorrelationContext {
  /** The request's correlation id: the client's, or one made here. */
  requestId: string;
}

/**
 * One correlation id per request, made at the edge: a client's `x-request-id` is kept when short
 * and plain (Hono's rule), otherwise one is made. It goes to every subgraph the request reaches
 * and back to the client on every answer, and masked errors quote it. Hive's own `useRequestId`
 * is off: it would send the subgraphs a second UUID whenever the client sent none.
 */
export function useCorrelationId(): Plugin<CorrelationContext> {
  return {
    onHttpRequest(request, context, next) {
      context.requestId = correlationIdFrom(request.headers.get(REQUEST_ID_HEADER));
      return next(request);
    },
    onHttpResponse(headers, context) {
      headers.set(REQUEST_ID_HEADER, context.requestId);
    },
    // Planned operations' subgraph requests; direct execution sends it itself.
    onFetch({ context, options, setOptions }) {
      const { requestId } = context as Partial<CorrelationContext>;
      if (requestId)
        setOptions({ ...options, headers: { ...options.headers, [REQUEST_ID_HEADER]: requestId } });
    },
  };
}
