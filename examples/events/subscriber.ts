/**
 * A Node client that follows a group's changes over GraphQL over SSE and never misses one
 * (docs/events.md, "Subscriptions"): it keeps the id of the last event it handled and, whenever
 * the stream ends (a dropped connection, a server restart, SLOW_CONSUMER, SHUTTING_DOWN), opens
 * it again with that id as `Last-Event-ID`, so every change arrives once, in order.
 *
 *   ASSETQL_URL=http://localhost:4000/api/graphql ASSETQL_SESSION=<x-svc-sessionid> node examples/events/subscriber.ts
 *
 * prints each change as a JSON line. Errors that resuming cannot cure (SESSION_ENDED: sign in
 * again; CURSOR_EXPIRED: read the log from its start) stop it.
 */

export interface Change {
  cursor: string;
  kind: string;
  entity: string;
  profile: string | null;
  entityId: string | null;
  version: number;
}

export interface FollowOptions {
  /** The GraphQL endpoint, e.g. `http://localhost:4000/api/graphql`. */
  url: string;
  /** A session ID (or API key) sent as `x-svc-sessionid`. */
  session: string;
  /** Where to resume: the last event id handled before (kept by the caller across runs). */
  lastEventId?: string;
  /** The subscription's filter (`ChangeFilter`). */
  filter?: Record<string, unknown>;
  /** Handles one change; the next is not read until it returns. */
  onChange(change: Change, id: string): void | Promise<void>;
  /** Stops following. */
  signal?: AbortSignal;
}

const QUERY = `subscription($filter: ChangeFilter) {
  changes(filter: $filter) { cursor kind entity profile entityId version } }`;

/** Errors after which opening the stream again cannot help. */
const FINAL = new Set(['SESSION_ENDED', 'CURSOR_EXPIRED', 'UNAUTHENTICATED', 'BAD_USER_INPUT']);

/** Follows the changes until `signal` fires or a final error; resolves with the last id handled. */
export async function follow(options: FollowOptions): Promise<string | undefined> {
  let lastEventId = options.lastEventId;
  for (let failures = 0; !options.signal?.aborted; ) {
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'x-svc-sessionid': options.session,
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        body: JSON.stringify({ query: QUERY, variables: { filter: options.filter } }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (!response.ok || !response.body) throw new Error(`the stream answered ${response.status}`);
      for await (const event of events(response.body)) {
        if (event.event !== 'next') continue;
        const result = JSON.parse(event.data) as {
          data?: { changes: Change };
          errors?: { extensions?: { code?: string } }[];
        };
        const code = result.errors?.[0]?.extensions?.code;
        if (code && FINAL.has(code)) throw Object.assign(new Error(`stream ended: ${code}`), { final: true });
        if (code) break; // SLOW_CONSUMER, SHUTTING_DOWN: resume at once.
        await options.onChange(result.data!.changes, event.id ?? result.data!.changes.cursor);
        lastEventId = event.id ?? result.data!.changes.cursor;
        failures = 0;
      }
    } catch (e) {
      if ((e as { final?: boolean }).final || options.signal?.aborted) {
        if (options.signal?.aborted) break;
        throw e;
      }
      failures++;
    }
    // Back off a little after failures, up to 5 s.
    await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** Math.min(failures, 6))));
  }
  return lastEventId;
}

/** The events of an SSE body: `id`, `event`, `data`. */
async function* events(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ id?: string; event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) yield { ...(id ? { id } : {}), event, data: data.join('\n') };
    }
  }
}

if (import.meta.main) {
  const url = process.env.ASSETQL_URL ?? 'http://localhost:4000/api/graphql';
  const session = process.env.ASSETQL_SESSION;
  if (!session) {
    process.stderr.write('set ASSETQL_SESSION to a session ID or API key\n');
    process.exit(1);
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const last = await follow({
    url,
    session,
    lastEventId: process.env.ASSETQL_LAST_EVENT_ID,
    signal: stop.signal,
    onChange: (change) => void process.stdout.write(`${JSON.stringify(change)}\n`),
  });
  process.stderr.write(`stopped; resume with ASSETQL_LAST_EVENT_ID=${last ?? ''}\n`);
}
