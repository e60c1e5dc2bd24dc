import { Readable } from 'node:stream';
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import type { Plugin } from '../http.ts';

/** How often an idle event stream sends a comment, so that proxies and clients keep it open. */
export const HEARTBEAT_MS = 12_000;

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
        (r, fetchAPI) => sse(r as AsyncIterable<ExecutionResult>, queue, fetchAPI, heartbeatMs),
        'text/event-stream',
      );
    },
  };
}

/**
 * The stream as a Node `Readable` that the server adapter pipes to the socket as it is: an event is
 * pushed as it comes, once, where a web `ReadableStream` took it through three more streams on its
 * way out (the adapter's, the owner's, the adapter's reader), which cost a stream's server more than
 * the socket's own write at a thousand clients. Nothing is read ahead of a slow client: when the
 * socket's buffer is full, the next event is asked for once the socket drains. A failing source
 * destroys the body, and the server cuts the connection (src/server/listen.ts): the client sees a
 * broken stream, and resumes from its last id.
 */
function sse(
  results: AsyncIterable<ExecutionResult>,
  ids: (string | undefined)[],
  fetchAPI: { Response: typeof Response },
  heartbeatMs: number,
): Response {
  const iterator = results[Symbol.asyncIterator]();
  let heartbeat: NodeJS.Timeout | undefined;
  let pumping = false;
  let ended = false;
  const end = () => {
    ended = true;
    clearInterval(heartbeat);
  };
  const body = new Readable({
    read() {
      if (!pumping && !ended) void pump();
    },
    destroy(error, callback) {
      // The client went (the adapter destroys the body when the socket closes), or the source failed.
      if (!ended) {
        end();
        Promise.resolve(iterator.return?.()).catch(() => {});
      }
      callback(error);
    },
  });
  async function pump(): Promise<void> {
    pumping = true;
    try {
      for (;;) {
        const next = await iterator.next();
        if (ended) return;
        if (next.done) {
          end();
          body.push('event: complete\ndata:\n\n');
          body.push(null);
          return;
        }
        // A result that carries its id (the direct route: the subgraph's own result) says it;
        // else one id per subgraph event, one result per subgraph event, in order.
        const own = next.value.extensions?.eventId;
        const id = typeof own === 'string' ? own : ids.shift();
        const line = id && !/[\r\n]/.test(id) ? `id: ${id}\n` : '';
        if (!body.push(`${line}event: next\ndata: ${serialised(next.value)}\n\n`)) return;
      }
    } catch (e) {
      end();
      body.destroy(e as Error);
    } finally {
      pumping = false;
    }
  }
  // A comment first: some clients wait for a first byte before they show the stream.
  body.push(':\n\n');
  heartbeat = setInterval(() => {
    if (!ended && body.readableLength === 0) body.push(':\n\n');
  }, heartbeatMs);
  return new fetchAPI.Response(body as unknown as BodyInit, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // Proxies that buffer (nginx) pass events on at once.
      'x-accel-buffering': 'no',
    },
  });
}

/** A result as written, once for every stream that writes the same result (a shared event's). */
const written = new WeakMap<ExecutionResult, string>();
function serialised(result: ExecutionResult): string {
  let text = written.get(result);
  if (text === undefined) {
    text = JSON.stringify(withoutInternals(result));
    written.set(result, text);
  }
  return text;
}

/** What Yoga keeps to itself of a result: the HTTP hints in `extensions`, and the event id. */
function withoutInternals(result: ExecutionResult): ExecutionResult {
  const errors = result.errors?.map((e) => {
    const json = e.toJSON();
    if (!json.extensions) return json;
    const { http: _h, unexpected: _u, ...extensions } = json.extensions as Record<string, unknown>;
    return { ...json, extensions: Object.keys(extensions).length ? extensions : undefined };
  });
  const { http: _http, eventId: _id, ...extensions } = (result.extensions ?? {}) as Record<string, unknown>;
  return {
    ...result,
    ...(errors ? { errors: errors as never } : {}),
    extensions: Object.keys(extensions).length ? extensions : undefined,
  } as ExecutionResult;
}
