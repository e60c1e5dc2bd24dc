import type { ExecutionResult } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import { eventStream, HEARTBEAT_MS } from '../../execution/event-stream.ts';
import type { Plugin } from '../http.ts';

/**
 * Subscriptions over GraphQL over SSE (distinct connections mode) with each event's id: a
 * subgraph puts an event's id (a change's cursor) in its result's `extensions.eventId`, which the
 * runtime's planner does not carry to the client's result; this plugin takes it from the
 * subgraph's events as they pass (the runtime's subgraph hook, whatever the transport) and writes
 * it as the SSE event's `id:`, so that a client that reconnects sends it back as
 * `Last-Event-ID` (forwarded to subgraphs by gateway.ts). Events are written as Yoga writes them
 * (`event: next`, `data:`, then `event: complete`), with a comment every `heartbeatMs`. A
 * subscription's subgraph request is aborted when its client goes.
 */
export function useEventStream(options: { heartbeatMs?: number } = {}): Plugin {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  /** The ids of a request's subscription events, in the order the subgraph sent them. */
  const ids = new WeakMap<Request, (string | undefined)[]>();
  return {
    onSubgraphExecute({ executionRequest, setExecutionRequest }) {
      if (executionRequest.operationType !== 'subscription') return;
      const request = (executionRequest.context as { request?: Request } | undefined)?.request;
      if (!request) return;
      // The client's going ends the subgraph's stream at once (its HTTP request is aborted), not
      // at the stream's next event, when the runtime would otherwise next look.
      // (The server adapter's signals are its own kind, which AbortSignal.any does not take.)
      const gone = new AbortController();
      for (const signal of [request.signal, executionRequest.signal]) {
        if (signal?.aborted) gone.abort(signal.reason);
        else signal?.addEventListener('abort', () => gone.abort(signal.reason), { once: true });
      }
      setExecutionRequest({ ...executionRequest, signal: gone.signal });
      const queue: (string | undefined)[] = [];
      ids.set(request, queue);
      return ({ result }) => {
        if (!isAsyncIterable(result)) return;
        return {
          onNext({ result: event }) {
            const id = (event as ExecutionResult).extensions?.eventId;
            queue.push(typeof id === 'string' ? id : undefined);
          },
        };
      };
    },
    onResultProcess({ request, result, acceptableMediaTypes, setResultProcessor }) {
      if (!isAsyncIterable(result) || !acceptableMediaTypes.includes('text/event-stream')) return;
      const queue = ids.get(request) ?? [];
      setResultProcessor(
        (r, fetchAPI) => eventStream(r as AsyncIterable<ExecutionResult>, queue, fetchAPI, heartbeatMs),
        'text/event-stream',
      );
    },
  };
}
