import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { HEARTBEAT_MS } from '../../src/execution/event-stream.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { NO_METRICS } from '../../src/shared/metrics.ts';
import {
  BASE,
  type ServedSubgraphs,
  serveSubgraphs,
  startDemoApp,
  startTestApp,
  type TestApp,
} from '../helpers/app.ts';
import { freshDatabase } from '../helpers/database.ts';
import { SseReader } from '../helpers/sse.ts';

// Live changes over GraphQL over SSE (#38): delivered once, in order, resumed after a cursor or
// a Last-Event-ID with no gap and no duplicate, only the session's group's, ended when the
// session ends, and bounded; through the one-process server, and through the gateway of the
// distributed form, whose events subgraph streams to it over HTTP.

const SECRET = 'change-stream-test-secret-0123456789abcdef';

interface Opened {
  response: Response;
  reader: SseReader;
  abort(): void;
}

/** Opens a stream of `query` over SSE on `t`, as a client that may go away (`abort`). */
async function openStream(
  t: TestApp,
  query: string,
  headers: Record<string, string>,
  variables: Record<string, unknown>,
): Promise<Opened> {
  const controller = new AbortController();
  const response = await t.handle(
    new Request(`${BASE}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query, variables }),
      signal: controller.signal,
    }),
  );
  const reader = new SseReader(response);
  return {
    response,
    reader,
    // As a client that goes away: its request's signal fires, and its body is cancelled.
    abort: () => {
      controller.abort();
      void reader.cancel();
    },
  };
}

describe.each(['one process', 'distributed'] as const)('change subscriptions over SSE, %s (#38)', (form) => {
  let t: TestApp;
  let demo: Record<string, string>;
  let east: Record<string, string>;
  let subgraphs: ServedSubgraphs | undefined;

  beforeAll(async () => {
    if (form === 'one process') {
      ({ app: t, demo, east } = await startDemoApp());
      return;
    }
    const database = await freshDatabase();
    const config = { secret: SECRET };
    subgraphs = await serveSubgraphs({ database, config });
    t = await startTestApp({
      database,
      role: { kind: 'gateway' },
      config: { ...config, subgraphUrls: subgraphs.urls },
    });
    await seedDemo(database.db, t.config);
    demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
    east = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo-east') };
  });
  afterAll(async () => {
    await t.close();
    await subgraphs?.close();
    if (subgraphs) await t.database.close();
  });

  const STREAM = `subscription($after: String, $filter: ChangeFilter) {
  changes(after: $after, filter: $filter) { cursor kind entity entityId version asset { id displayName } } }`;

  /** Opens a stream: without a cursor, of the changes committed from now on. */
  const subscribe = (
    headers: Record<string, string>,
    variables: Record<string, unknown> = {},
    query = STREAM,
  ) => openStream(t, query, headers, variables);

  const UPSERT = `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }`;
  async function write(id: string, name: string, headers = demo) {
    const r = await t.graphql<any>(
      UPSERT,
      { input: { profile: 'site', assets: [{ id, properties: { name } }] } },
      headers,
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.upsertAssets.errors).toEqual([]);
  }

  /** The change data of `n` next events, each checked to carry its cursor as its SSE id. */
  async function changes(s: Opened, n: number) {
    const events = await s.reader.take(n);
    return events.map((e) => {
      expect(e.data.errors).toBeUndefined();
      expect(e.id).toBe(e.data.data.changes.cursor);
      return e.data.data.changes;
    });
  }

  it('delivers each change as it commits, with its cursor as the event id and the asset through federation', async () => {
    const s = await subscribe(demo);
    expect(s.response.status).toBe(200);
    expect(s.response.headers.get('content-type')).toBe('text/event-stream');
    await write('LIVE-1', 'Live one');
    await write('LIVE-1', 'Live one, renamed');
    const [created, updated] = await changes(s, 2);
    expect(created).toMatchObject({ kind: 'CREATED', entity: 'ASSET', entityId: 'LIVE-1', version: 1 });
    expect(updated).toMatchObject({ kind: 'UPDATED', entityId: 'LIVE-1', version: 2 });
    expect(updated.asset).toEqual({ id: 'LIVE-1', displayName: 'Live one, renamed' });
    s.abort();
  });

  // On PostgreSQL, where a transaction of another connection runs beside the app's (PGlite has one
  // session): the log's end a resuming reader reads stops before it, and a stream opened without a
  // cursor once got what had committed a moment before it opened (CI saw the demo seed's last view).
  it.runIf(process.env.DATABASE_URL)(
    'delivers to a stream opened without a cursor only what commits after it opened, whatever runs beside it',
    async () => {
      const holder = await t.database.pool.connect();
      try {
        await holder.query('begin');
        await holder.query('select pg_current_xact_id()');
        await write('BEFORE-OPEN', 'Committed before the stream opened');
        const s = await subscribe(demo, { filter: { ids: ['BEFORE-OPEN', 'AFTER-OPEN'] } });
        await write('AFTER-OPEN', 'Committed after');
        // Held back until the transaction beside ends, then read in order: the first is the first owed.
        await holder.query('commit');
        const [first] = await changes(s, 1);
        expect(first.entityId).toBe('AFTER-OPEN');
        expect(await s.reader.quiet(300)).toBe(true);
        s.abort();
      } finally {
        await holder.query('rollback').catch(() => {});
        holder.release();
      }
    },
  );

  it('resumes after a cursor, or after the Last-Event-ID a client reconnects with: no gap, no duplicate', async () => {
    const first = await subscribe(demo);
    await write('RESUME-1', 'a');
    const [a] = await changes(first, 1);
    first.abort();
    // Missed while away.
    await write('RESUME-2', 'b');
    await write('RESUME-3', 'c');
    for (const resumed of [
      await subscribe({ ...demo, 'last-event-id': a.cursor }),
      await subscribe(demo, { after: a.cursor }),
    ]) {
      const [b, c] = await changes(resumed, 2);
      expect([b.entityId, c.entityId]).toEqual(['RESUME-2', 'RESUME-3']);
      resumed.abort();
    }
    // Replayed, then live, in one stream: the seam holds nothing twice.
    const again = await subscribe({ ...demo, 'last-event-id': a.cursor });
    const [b] = await changes(again, 1);
    expect(b.entityId).toBe('RESUME-2');
    await write('RESUME-4', 'd');
    const [c, d] = await changes(again, 2);
    expect([c.entityId, d.entityId]).toEqual(['RESUME-3', 'RESUME-4']);
    expect(await again.reader.quiet(300)).toBe(true);
    again.abort();
  });

  it('resumes a GET, as a browser EventSource reconnects', async () => {
    const s = await subscribe(demo);
    await write('GET-1', 'a');
    const [a] = await changes(s, 1);
    s.abort();
    await write('GET-2', 'b');
    const url = new URL(`${BASE}/api/graphql`);
    url.searchParams.set('query', 'subscription { changes { cursor entityId } }');
    const response = await t.handle(
      new Request(url, { headers: { accept: 'text/event-stream', 'last-event-id': a.cursor, ...demo } }),
    );
    expect(response.status).toBe(200);
    const reader = new SseReader(response);
    const [e] = await reader.take(1);
    expect(e!.data.data.changes.entityId).toBe('GET-2');
    expect(e!.id).toBe(e!.data.data.changes.cursor);
    await reader.cancel();
  });

  it("keeps to the caller's group, and to its filter", async () => {
    const ofEast = await subscribe(east);
    const views = await subscribe(demo, { filter: { entities: ['VIEW'] } });
    const ofDemo = await subscribe(demo, { filter: { ids: ['GROUP-2'] } });
    await write('GROUP-1', 'demo only');
    await write('GROUP-2', 'demo only too');
    await write('GROUP-3', 'east', east);
    const [e] = await changes(ofEast, 1);
    expect(e.entityId).toBe('GROUP-3');
    const [d] = await changes(ofDemo, 1);
    expect(d.entityId).toBe('GROUP-2');
    expect(await ofEast.reader.quiet(300)).toBe(true);
    expect(await views.reader.quiet(100)).toBe(true);
    for (const s of [ofEast, views, ofDemo]) s.abort();
  });

  it('ends the stream within a second of sign-out, with SESSION_ENDED as its last event', async () => {
    const session = await t.sessionFor('demo', 'demo');
    const headers = { 'x-svc-sessionid': session };
    const s = await subscribe(headers);
    await write('END-1', 'x');
    await changes(s, 1);
    const out = await t.graphql<any>('mutation { signOut { errors { type } } }', {}, headers);
    expect(out.body.errors).toBeUndefined();
    const started = Date.now();
    const end = await s.reader.next(2_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(end!.data.errors[0].extensions.code).toBe('SESSION_ENDED');
    expect(end!.data.data).toBeNull();
    expect((await s.reader.next(1_000))?.event).toBe('complete');
    // Nothing of the group reaches it after.
    await write('END-2', 'y');
    expect(await s.reader.next(500)).toBeUndefined();
  });

  it('refuses the anonymous, bad cursors, oversized filters and a session past its stream limit', async () => {
    const refusal = async (headers: Record<string, string>, variables: Record<string, unknown> = {}) => {
      const s = await subscribe(headers, variables);
      const e = await s.reader.next();
      s.abort();
      return e!.data.errors?.[0]?.extensions?.code;
    };
    expect(await refusal({})).toBe('UNAUTHENTICATED');
    expect(await refusal(demo, { after: 'not-a-cursor' })).toBe('BAD_USER_INPUT');
    expect(await refusal({ ...demo, 'last-event-id': 'WyJ4Il0' })).toBe('BAD_USER_INPUT');
    const ids = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    expect(await refusal(demo, { filter: { ids } })).toBe('BAD_USER_INPUT');

    const session = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
    const open = await Promise.all(Array.from({ length: 20 }, () => subscribe(session)));
    expect(await refusal(session)).toBe('TOO_MANY_STREAMS');
    // A client that goes away lets go of its stream (over HTTP between the gateway and the
    // subgraph, as soon as the subgraph sees its connection close): the session opens as many
    // again. The streams the session gets are kept and only the refused ones are asked again, so
    // that the test's own tries do not hold slots. Quiet, the release takes well under a second;
    // in CI's two passes on two cores it has taken over ten, and once over twenty, as if a stream
    // were then let go only when a heartbeat (every 12 s) found the connection gone, and the first
    // write to a closed socket can still succeed. The bound here is two heartbeats and a margin:
    // what it shows is that every slot comes back.
    for (const s of open) s.abort();
    const deadline = Date.now() + 2 * HEARTBEAT_MS + 8_000;
    const again: Opened[] = [];
    for (;;) {
      const tries = await Promise.all(Array.from({ length: 20 - again.length }, () => subscribe(session)));
      const firsts = await Promise.all(tries.map((s) => s.reader.next(150).catch(() => undefined)));
      for (const [i, s] of tries.entries()) {
        if (firsts[i] === undefined) again.push(s);
        else s.abort();
      }
      if (again.length === 20) break;
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
    await write('LIMIT-1', 'x');
    for (const s of again) expect((await changes(s, 1))[0].entityId).toBe('LIMIT-1');
    for (const s of again) s.abort();
  }, 60_000);

  it('delivers every change of concurrent writers exactly once and in cursor order, across a reconnect', async () => {
    const s = await subscribe(demo, {
      filter: { profiles: ['site'], ids: Array.from({ length: 100 }, (_, i) => `MANY-${i}`) },
    });
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 25; i++) await write(`MANY-${w * 25 + i}`, `n${i}`);
    });
    const got: { cursor: string; entityId: string }[] = [];
    // Half, then the client drops and comes back with the last id it read.
    got.push(...(await changes(s, 50)));
    s.abort();
    const resumed = await subscribe(
      { ...demo, 'last-event-id': got.at(-1)!.cursor },
      { filter: { profiles: ['site'], ids: Array.from({ length: 100 }, (_, i) => `MANY-${i}`) } },
    );
    await Promise.all(writers);
    got.push(...(await changes(resumed, 50)));
    expect(await resumed.reader.quiet(300)).toBe(true);
    resumed.abort();
    expect(new Set(got.map((g) => g.entityId)).size).toBe(100);
    const log = await t.graphql<any>(
      'query($ids: [ID!]) { changes(order: OLDEST_FIRST, first: 500, filter: { ids: $ids }) { edges { cursor } } }',
      { ids: got.map((g) => g.entityId) },
      demo,
    );
    expect(got.map((g) => g.cursor)).toEqual(
      log.body.data.changes.edges.map((e: { cursor: string }) => e.cursor),
    );
  });
});

describe('change subscriptions over graphql-ws, one process (#38)', () => {
  let t: TestApp;
  let demo: Record<string, string>;
  let server: Listening;
  let url: string;

  beforeAll(async () => {
    let east: Record<string, string>;
    ({ app: t, demo, east } = await startDemoApp());
    void east;
    server = await listen((request, address) => t.handle(request, address), 0, '127.0.0.1');
    server.upgrades((request, socket, head) => t.upgrade(request, socket, head));
    url = `${server.url.replace('http', 'ws')}/api/graphql`;
  });
  afterAll(async () => {
    await server.close(100);
    await t.close();
  });

  const client = (session: string) =>
    createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-svc-sessionid': session },
      retryAttempts: 0,
    });

  /** The results of `query` over `c`, as they come. */
  function results(c: Client, query: string, variables: Record<string, unknown> = {}) {
    const got: any[] = [];
    let done = false;
    let failed: unknown;
    let wake: (() => void) | undefined;
    const stop = c.subscribe(
      { query, variables },
      {
        next: (r) => {
          got.push(r);
          wake?.();
        },
        error: (e) => {
          failed = e;
          done = true;
          wake?.();
        },
        complete: () => {
          done = true;
          wake?.();
        },
      },
    );
    return {
      stop,
      get done() {
        return done;
      },
      async take(n: number, ms = 5_000) {
        const deadline = Date.now() + ms;
        while (got.length < n) {
          if (failed) throw failed;
          if (done || Date.now() > deadline) throw new Error(`${got.length} of ${n} results`);
          await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, 50);
          });
        }
        return got.splice(0, n);
      },
    };
  }

  const write = async (id: string) => {
    const r = await t.graphql<any>(
      'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
      { input: { profile: 'site', assets: [{ id, properties: { name: id } }] } },
      demo,
    );
    expect(r.body.errors).toBeUndefined();
  };

  it('runs queries and subscriptions through the same pipeline, resumes after a cursor, and ends at sign-out', async () => {
    const session = await t.sessionFor('demo', 'demo');
    const c = client(session);
    try {
      const [who] = await results(c, '{ session { username userGroup } }').take(1);
      expect(who.data.session).toEqual({ username: 'demo', userGroup: 'demo' });
      const live = results(c, 'subscription { changes { cursor entityId asset { displayName } } }');
      // A stream opened without a cursor delivers what commits after the server opened it: on a
      // loaded machine that can take longer than any fixed wait, so probes are written until one
      // arrives, and the change looked for is written after that.
      for (let i = 0; ; i++) {
        await write(`WS-PROBE-${i}`);
        const arrived = await live.take(1, 1_000).then(
          () => true,
          (e: Error) => {
            if (i >= 10 || live.done) throw e;
            return false;
          },
        );
        if (arrived) break;
      }
      await write('WS-1');
      let first = (await live.take(1))[0];
      while (first.data.changes.entityId.startsWith('WS-PROBE-')) first = (await live.take(1))[0];
      expect(first.data.changes).toMatchObject({ entityId: 'WS-1', asset: { displayName: 'WS-1' } });
      live.stop();
      await write('WS-2');
      const resumed = results(c, 'subscription($after: String) { changes(after: $after) { entityId } }', {
        after: first.data.changes.cursor,
      });
      expect((await resumed.take(1))[0].data.changes.entityId).toBe('WS-2');
      // The pipeline's refusals are the socket's too.
      const [anonymousQuery] = await results(
        createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 }),
        'subscription { changes { entityId } }',
      ).take(1);
      expect(anonymousQuery.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      const out = await t.graphql<any>(
        'mutation { signOut { errors { type } } }',
        {},
        { 'x-svc-sessionid': session },
      );
      expect(out.body.errors).toBeUndefined();
      const [end] = await resumed.take(1, 2_000);
      expect(end.errors[0].extensions.code).toBe('SESSION_ENDED');
    } finally {
      await c.dispose();
    }
  });

  it('holds a socket to 20 operations at once, however many come in one write', async () => {
    const { WebSocket: Ws } = await import('ws');
    const session = await t.sessionFor('demo', 'demo');
    const ws = new Ws(url, 'graphql-transport-ws');
    const messages: any[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(String(m))));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { 'x-svc-sessionid': session } }));
    await new Promise<void>((r) => {
      const check = () => (messages.some((m) => m.type === 'connection_ack') ? r() : setTimeout(check, 10));
      check();
    });
    // Thirty subscribes in one go: ws hands them over one after another, before any is run.
    for (let i = 0; i < 30; i++)
      ws.send(
        JSON.stringify({
          id: `op-${i}`,
          type: 'subscribe',
          payload: { query: 'subscription { changes { entityId } }' },
        }),
      );
    await new Promise((r) => setTimeout(r, 500));
    const refused = messages.filter(
      (m) => m.type === 'error' && m.payload[0]?.extensions?.code === 'TOO_MANY_OPERATIONS',
    );
    expect(refused).toHaveLength(10);
    ws.close();
  });

  it('refuses a socket a page of another origin opens', async () => {
    const { WebSocket: Ws } = await import('ws');
    const status = await new Promise<number>((resolve) => {
      const ws = new Ws(url, 'graphql-transport-ws', { headers: { origin: 'https://elsewhere.example' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(status).toBe(403);
  });
});

describe('change subscriptions the events subgraph streams alone, at the fast door (#38)', () => {
  let t: TestApp;
  let demo: Record<string, string>;
  let doors = 0;
  const DIRECT = 'subscription($after: String) { changes(after: $after) { cursor entityId } }';

  beforeAll(async () => {
    t = await startTestApp({ metrics: { ...NO_METRICS, preparedOperation: () => void doors++ } });
    await seedDemo(t.database.db, t.config);
    demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
  });
  afterAll(() => t.close());

  const open = (headers: Record<string, string>, variables: Record<string, unknown> = {}) =>
    openStream(t, DIRECT, headers, variables);
  async function write(id: string) {
    const r = await t.graphql<any>(
      'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
      { input: { profile: 'site', assets: [{ id, properties: { name: id } }] } },
      demo,
    );
    expect(r.body.data.upsertAssets.errors).toEqual([]);
  }

  it('answers as the pipeline does: events with their ids, resumption by Last-Event-ID, refusals, and release', async () => {
    // The pipeline validates a document and keeps it once seen twice; the next requests take the door.
    for (let i = 0; i < 2; i++) (await open(demo)).abort();
    const before = doors;
    const live = await open(demo);
    expect(live.response.headers.get('content-type')).toBe('text/event-stream');
    expect(doors).toBe(before + 1);
    for (const id of ['DOOR-1', 'DOOR-2', 'DOOR-3']) await write(id);
    const events = await live.reader.take(3);
    expect(events.map((e) => e.data.data.changes.entityId)).toEqual(['DOOR-1', 'DOOR-2', 'DOOR-3']);
    for (const e of events) expect(e.id).toBe(e.data.data.changes.cursor);
    live.abort();

    const resumed = await open({ ...demo, 'last-event-id': events[0]!.id! });
    expect((await resumed.reader.take(2)).map((e) => e.data.data.changes.entityId)).toEqual([
      'DOOR-2',
      'DOOR-3',
    ]);
    resumed.abort();

    // A refusal and an answer that is not a stream go on to the pipeline, which answers them.
    for (const [headers, variables, code] of [
      [{}, {}, 'UNAUTHENTICATED'],
      [demo, { after: 'not-a-cursor' }, 'BAD_USER_INPUT'],
    ] as const) {
      const refused = await open(headers, variables);
      const e = await refused.reader.next();
      refused.abort();
      expect(e!.data.errors?.[0]?.extensions?.code).toBe(code);
    }

    // A client that goes lets go of its stream at once: a session opens 20 (its limit) again and again.
    const session = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
    for (let round = 0; round < 3; round++) {
      const streams = await Promise.all(Array.from({ length: 20 }, () => open(session)));
      for (const s of streams) expect(s.response.status).toBe(200);
      await write(`DOOR-R${round}`);
      const got = await Promise.all(streams.map((s) => s.reader.take(1)));
      for (const [e] of got) expect(e!.data.data.changes.entityId).toBe(`DOOR-R${round}`);
      for (const s of streams) s.abort();
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
