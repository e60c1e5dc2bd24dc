import { Readable } from 'node:stream';
import type { ExecutionResult } from 'graphql';

/**
 * How a subscription's events are written over GraphQL over SSE (distinct connections mode), by
 * either door that answers one (src/execution/README.md): as Yoga writes them (`event: next`,
 * `data:`, then `event: complete`), each event's `id:` its cursor, a comment every `heartbeatMs`.
 */

/**
 * Marks the Node stream of an event stream written here, which the server hands to the socket
 * as it is (src/server/listen.ts): it owns its end, and needs no owner around it.
 */
export const OWN_EVENT_STREAM = Symbol.for('assetql.eventStream');

/** The Node stream of an event stream written here, behind a response's body, if it is one. */
export function ownEventStream(body: unknown): Readable | undefined {
  const b = body as (Partial<Readable> & { [OWN_EVENT_STREAM]?: boolean }) | null;
  return b?.[OWN_EVENT_STREAM] === true && typeof b.once === 'function' ? (b as Readable) : undefined;
}

/** How often an idle event stream sends a comment, so that proxies and clients keep it open. */
export const HEARTBEAT_MS = 12_000;
/** Heartbeats a stream may find its client reading nothing before the connection is cut. */
const STALLED_BEATS = 2;

/**
 * The stream as a Node `Readable` that the server adapter pipes to the socket as it is: an event is
 * pushed as it comes, once, where a web `ReadableStream` took it through three more streams on its
 * way out (the adapter's, the owner's, the adapter's reader), which cost a stream's server more than
 * the socket's own write at a thousand clients. Nothing is read ahead of a slow client: when the
 * socket's buffer is full, the next event is asked for once the socket drains. A failing source
 * destroys the body, and the server cuts the connection (src/server/listen.ts): the client sees a
 * broken stream, and resumes from its last id.
 */
export function eventStream(
  results: AsyncIterable<ExecutionResult>,
  ids: (string | undefined)[],
  fetchAPI: { Response: new (body?: BodyInit | null, init?: ResponseInit) => Response },
  heartbeatMs: number = HEARTBEAT_MS,
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
  (body as unknown as Record<symbol, boolean>)[OWN_EVENT_STREAM] = true;
  // A comment first: some clients wait for a first byte before they show the stream.
  body.push(':\n\n');
  // A client that reads nothing leaves events waiting in the body (its socket full): after two
  // beats of that the connection is cut, as a client that went away; it resumes from its last id.
  // Its stream's own bound (SLOW_CONSUMER) frees the stream's slot, not the socket.
  let stalled = 0;
  heartbeat = setInterval(() => {
    if (ended) return;
    if (body.readableLength === 0) {
      stalled = 0;
      body.push(':\n\n');
    } else if (++stalled >= STALLED_BEATS)
      body.destroy(new Error('the client read nothing for two heartbeats'));
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
