import { describe, expect, it } from 'vitest';
import { Api } from './api.ts';
import { backoff, type ChangeEvent, ChangeStream, type LiveState } from './live.ts';

describe('waiting between reconnections', () => {
  it('doubles up to the longest wait, half of it random', () => {
    const none = () => 0;
    const all = () => 0.999999;
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoff(a, 1000, 30_000, none))).toEqual([
      500, 1000, 2000, 4000, 8000, 15_000, 15_000,
    ]);
    expect(backoff(2, 1000, 30_000, all)).toBe(4000);
    expect(backoff(80, 1000, 30_000, all)).toBe(30_000);
  });
});

/** An SSE response of `events` (each `[id, data]`), or an error's. */
function stream(events: string[]): Response {
  return new Response(events.join(''), { headers: { 'content-type': 'text/event-stream' } });
}
const next = (id: string, data: object) => `id: ${id}\nevent: next\ndata: ${JSON.stringify(data)}\n\n`;
const change = (cursor: string, entityId: string): ChangeEvent => ({
  cursor,
  kind: 'UPDATED',
  entityId,
  version: 2,
  at: '2026-11-29T07:00:00Z',
  actor: { kind: 'USER', name: 'demo' },
  before: { properties: { status: 'a' } },
  after: { properties: { status: 'b' } },
});

describe('following the change log', () => {
  it('starts after the newest change, resumes from the last cursor read, and stops when the session is gone', async () => {
    const asked: { query: string; variables: Record<string, unknown>; accept: string }[] = [];
    const answers: (() => Response)[] = [
      () => Response.json({ data: { changes: { edges: [{ cursor: 'c0' }] } } }),
      () =>
        stream([
          ':\n\n',
          next('c1', { data: { changes: change('c1', 'W-1') } }),
          next('c2', { data: { changes: change('c2', 'W-2') } }),
        ]),
      () => new Response('', { status: 502 }),
      () =>
        stream([
          next('c3', { data: { changes: change('c3', 'W-3') } }),
          next('x', { errors: [{ message: 'slow', extensions: { code: 'SLOW_CONSUMER', cursor: 'c3' } }] }),
        ]),
      () =>
        stream([
          next('x', { errors: [{ message: 'ended', extensions: { code: 'SESSION_ENDED' } }] }),
          'event: complete\ndata:\n\n',
        ]),
      () => Response.json({ data: { session: { authenticated: false } } }),
    ];
    const api = new Api('/api/graphql', async (_input, init) => {
      const body = JSON.parse(String(init?.body));
      asked.push({ ...body, accept: new Headers(init?.headers).get('accept') ?? '' });
      const answer = answers.shift();
      if (!answer) throw new Error('asked once too often');
      return answer();
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const states: LiveState[] = [];
    let ended!: () => void;
    const sessionEnded = new Promise<void>((resolve) => {
      ended = resolve;
    });
    const live = new ChangeStream({
      api,
      filter: { entities: ['ASSET'], profiles: ['well'] },
      signal: controller.signal,
      onChange: (c) => seen.push(c.entityId!),
      onState: (s) => states.push(s),
      onSessionEnded: ended,
      delays: { first: 2, max: 8 },
    });
    await live.begin();
    expect(live.cursor).toBe('c0');
    live.start();
    await sessionEnded;
    expect(seen).toEqual(['W-1', 'W-2', 'W-3']);
    const streams = asked.filter((a) => a.accept === 'text/event-stream');
    expect(streams.map((s) => s.variables.after)).toEqual(['c0', 'c2', 'c2', 'c3']);
    expect(streams.every((s) => /subscription ConsoleChanges/.test(s.query))).toBe(true);
    expect(streams[0]!.variables.filter).toEqual({ entities: ['ASSET'], profiles: ['well'] });
    expect(asked.at(-1)!.query).toMatch(/session \{ authenticated \}/);
    await new Promise((r) => setTimeout(r, 20));
    expect(states.at(-1)).toBe('stopped');
    expect(states).toContain('live');
    expect(states).toContain('reconnecting');
    expect(answers).toEqual([]);
    controller.abort();
  });

  it('ends its stream when the page’s signal aborts', async () => {
    let cancelled = false;
    const controller = new AbortController();
    const api = new Api('/api/graphql', async (_input, init) => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(':\n\n'));
          init?.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const states: LiveState[] = [];
    const live = new ChangeStream({
      api,
      filter: {},
      signal: controller.signal,
      onChange: () => undefined,
      onState: (s) => states.push(s),
      onSessionEnded: () => undefined,
    });
    live.start();
    await new Promise((r) => setTimeout(r, 20));
    expect(states).toEqual(['connecting', 'live']);
    controller.abort();
    await new Promise((r) => setTimeout(r, 20));
    expect(states).toEqual(['connecting', 'live']);
    expect(cancelled || controller.signal.aborted).toBe(true);
  });
});
