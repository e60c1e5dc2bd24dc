import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLORER_PATH } from '../../src/gateway/gateway.ts';
import { listen } from '../../src/server/listen.ts';
import {
  IDENTITY_HEADER,
  type Identity,
  IdentitySigner,
  REQUEST_ID_HEADER,
} from '../../src/shared/identity.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { newSessionId } from '../../src/shared/session-policy.ts';
import { createIssuesSubgraph } from '../../src/subgraphs/issues/index.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { partialBodyClient } from '../helpers/raw-clients.ts';

let t: TestApp;
let demoSession: string;

beforeAll(async () => {
  t = await startTestApp();
  demoSession = await t.sessionFor('demo', 'demo');
});
afterAll(() => t.close());

const SESSION = `{ session { authenticated username userGroup expiresAt } }`;

interface SessionView {
  authenticated: boolean | null;
  username: string | null;
  userGroup: string | null;
  expiresAt: string | null;
}

const get = (path: string, init: RequestInit = {}) => t.handle(new Request(`${BASE}${path}`, init));

describe('gateway: GraphQL errors', () => {
  it('reports a document that does not validate with message and locations (spec §7.1)', async () => {
    const r = await t.graphql(`{\n  session {\n    noSuchField\n  }\n}`);
    expect(r.body.data ?? null).toBeNull();
    expect(r.body.errors).toHaveLength(1);
    const [error] = r.body.errors!;
    expect(error!.message).toMatch(/noSuchField/);
    expect(error!.locations).toEqual([{ line: 3, column: 5 }]);
  });

  it('reports a syntax error with message and locations', async () => {
    const r = await t.graphql(`{ session { username }`);
    expect(r.body.data ?? null).toBeNull();
    expect(r.body.errors).toHaveLength(1);
    const [error] = r.body.errors!;
    expect(error!.message).toMatch(/Syntax Error/);
    expect(error!.locations).toEqual([{ line: 1, column: 23 }]);
  });
});

describe('gateway: sessions', () => {
  it('answers an anonymous caller with authenticated false and nulls', async () => {
    const r = await t.graphql<{ session: SessionView }>(SESSION);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data!.session).toEqual({
      authenticated: false,
      username: null,
      userGroup: null,
      expiresAt: null,
    });
  });

  it('resolves a session sent in x-svc-sessionid', async () => {
    const r = await t.graphql<{ session: SessionView }>(SESSION, {}, { 'x-svc-sessionid': demoSession });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data!.session).toMatchObject({ authenticated: true, username: 'demo', userGroup: 'demo' });
    expect(new Date(r.body.data!.session.expiresAt!).getTime()).toBeGreaterThan(t.clock.now().getTime());
  });

  it('resolves a session sent in the svc_sessionid cookie', async () => {
    const r = await t.graphql<{ session: SessionView }>(
      SESSION,
      {},
      { cookie: `other=1; svc_sessionid=${demoSession}` },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data!.session).toMatchObject({ authenticated: true, username: 'demo', userGroup: 'demo' });
    expect(r.body.data!.session.expiresAt).not.toBeNull();
  });

  it.each([
    ['malformed', 'not a session id!'],
    ['too short', 'abc'],
    ['unknown', newSessionId()],
  ])('treats a %s session id as anonymous, without an error', async (_what, id) => {
    const attempts: Record<string, string>[] = [
      { 'x-svc-sessionid': id },
      { cookie: `svc_sessionid=${encodeURIComponent(id)}` },
    ];
    for (const headers of attempts) {
      const r = await t.graphql<{ session: SessionView }>(SESSION, {}, headers);
      expect(r.status).toBe(200);
      expect(r.body.errors).toBeUndefined();
      expect(r.body.data!.session).toEqual({
        authenticated: false,
        username: null,
        userGroup: null,
        expiresAt: null,
      });
    }
  });
});

describe('gateway: caching', () => {
  it('marks GraphQL answers no-store, signed in or not, errors included', async () => {
    for (const headers of [{}, { 'x-svc-sessionid': demoSession }] as Record<string, string>[]) {
      for (const query of [SESSION, '{ nope }']) {
        const r = await get('/api/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ query }),
        });
        expect(r.headers.get('cache-control'), query).toBe('no-store');
      }
    }
  });
});

describe('gateway: request ids', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  it('puts a generated x-request-id on every response', async () => {
    const a = await t.graphql(`{ __typename }`);
    const b = await t.graphql(`{ __typename }`);
    expect(a.headers.get(REQUEST_ID_HEADER)).toMatch(UUID);
    expect(b.headers.get(REQUEST_ID_HEADER)).toMatch(UUID);
    expect(a.headers.get(REQUEST_ID_HEADER)).not.toBe(b.headers.get(REQUEST_ID_HEADER));
    expect((await get('/healthz')).headers.get(REQUEST_ID_HEADER)).toMatch(UUID);
  });

  it('echoes a plain client-sent x-request-id', async () => {
    const r = await t.graphql(`{ __typename }`, {}, { [REQUEST_ID_HEADER]: 'abc-123' });
    expect(r.headers.get(REQUEST_ID_HEADER)).toBe('abc-123');
  });

  it.each([
    ['with spaces', 'abc 123'],
    ['over 255 characters', 'a'.repeat(256)],
    ['with other characters', 'abc;123'],
  ])('replaces a client-sent x-request-id %s', async (_what, sent) => {
    const r = await t.graphql(`{ __typename }`, {}, { [REQUEST_ID_HEADER]: sent });
    const id = r.headers.get(REQUEST_ID_HEADER);
    expect(id).not.toBe(sent);
    expect(id).toMatch(UUID);
  });

  it('accepts a client-sent x-request-id of exactly 255 characters', async () => {
    const sent = 'b'.repeat(255);
    const r = await t.graphql(`{ __typename }`, {}, { [REQUEST_ID_HEADER]: sent });
    expect(r.headers.get(REQUEST_ID_HEADER)).toBe(sent);
  });
});

describe('subgraphs: identity from the gateway only', () => {
  const DEMO: Identity = {
    kind: 'session',
    username: 'demo',
    userGroup: 'demo',
    clientType: 'EXPLORER',
    sessionHash: null,
  };
  const QUERY = `{ issues { all(first: 1) { edges { node { id } } } } }`;
  let issues: ReturnType<typeof createIssuesSubgraph>;

  beforeAll(() => {
    issues = createIssuesSubgraph({
      db: t.database.db,
      signer: new IdentitySigner(t.config.secret),
      log: createLogger('silent'),
      clock: t.clock,
    });
  });

  async function ask(identity: string | undefined) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (identity !== undefined) headers[IDENTITY_HEADER] = identity;
    const response = await issues.fetch(
      new Request('http://issues.subgraph.test/graphql', {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: QUERY }),
      }),
    );
    const body = (await response.json()) as {
      data?: unknown;
      errors?: { message: string; extensions?: Record<string, unknown> }[];
    };
    return { status: response.status, body };
  }

  it('refuses an identity signed with a different secret', async () => {
    const forger = new IdentitySigner(randomBytes(32).toString('base64url'));
    const r = await ask(await forger.sign(DEMO));
    expect(r.status).toBe(401);
    expect(r.body.data ?? null).toBeNull();
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it.each([
    ['garbage', 'garbage'],
    ['an unsigned token', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJkZW1vIn0.'],
    ['an empty value', ''],
  ])('refuses %s as identity', async (_what, value) => {
    const r = await ask(value);
    expect(r.status).toBe(401);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('answers a correctly signed identity', async () => {
    const signer = new IdentitySigner(t.config.secret);
    const r = await ask(await signer.sign(DEMO));
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data).toEqual({ issues: { all: { edges: [] } } });
  });

  it('treats a request without identity as anonymous: issues answers UNAUTHENTICATED', async () => {
    const r = await ask(undefined);
    expect(r.status).toBe(200);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('gateway: routes and headers', () => {
  it('answers /healthz and /readyz', async () => {
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('answers unknown paths with 404', async () => {
    for (const path of ['/nope', '/api/graphql/extra', '/graphql', '/__runtime/healthz']) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      await r.body?.cancel();
    }
  });

  it('redirects / to the explorer', async () => {
    const r = await get('/', { redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe(EXPLORER_PATH);
  });

  it('sets security headers on GraphQL responses', async () => {
    const ok = await t.graphql(`{ __typename }`);
    const bad = await t.graphql(`{ nope }`);
    for (const r of [ok, bad]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
    }
  });
});

// Last: it drops a table, so nothing may run after it against this database.
describe('gateway: unexpected errors', () => {
  it('masks an unexpected error and quotes the request id', async () => {
    const demo = { 'x-svc-sessionid': demoSession };
    const before = await t.graphql(`{ issues { all(first: 1) { edges { node { id } } } } }`, {}, demo);
    expect(before.body.errors).toBeUndefined();

    await sql`drop table issues`.execute(t.database.db);
    const r = await t.graphql<{ issues: unknown }>(
      `{ issues { all(first: 1) { edges { node { id } } } } }`,
      {},
      demo,
    );
    const requestId = r.headers.get(REQUEST_ID_HEADER);
    expect(requestId).toBeTruthy();
    expect(r.body.errors).toHaveLength(1);
    const [error] = r.body.errors!;
    expect(error!.message).toBe('Unexpected error.');
    expect(error!.message).not.toMatch(/issues|relation|table|sql/i);
    expect(error!.extensions).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', requestId });
    expect(JSON.stringify(r.body)).not.toMatch(/relation|does not exist|stack/i);
  });
});

describe('gateway: clients that go away', () => {
  it('does not log a client that closes its connection mid-request as a server error', async () => {
    const lines: string[] = [];
    const app = await startTestApp({
      log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
    });
    try {
      const aborted = new AbortController();
      // A body that starts and never ends: the gateway is reading it when the client leaves,
      // and the server adapter then aborts the request and errors its body, as here.
      let sending: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          sending = controller;
          controller.enqueue(new TextEncoder().encode('{"query":"{ __typename'));
        },
      });
      const answer = app.handle(
        new Request(`${BASE}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          duplex: 'half',
          signal: aborted.signal,
        } as RequestInit),
      );
      await new Promise((r) => setTimeout(r, 20));
      aborted.abort();
      sending!.error(new DOMException('The client closed the connection.', 'AbortError'));
      const response = await answer;
      expect(response.status).toBe(499);
      const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(logged.filter((l) => l.level >= 50)).toEqual([]);
      expect(logged.some((l) => l.msg === 'client closed the connection before the answer')).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('does not log a client that leaves half-way through its body, over a real socket, as the database (#36)', async () => {
    const lines: string[] = [];
    const app = await startTestApp({
      log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
    });
    const server = await listen((request, address) => app.handle(request, address), 0, '127.0.0.1');
    try {
      const body = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(20_000) } });
      // Each leaves 300 ms after its part of the body: long after the server began reading it,
      // however busy the machine (20 ms was not always enough for the request to reach it at all).
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          partialBodyClient(server.url, '/api/graphql', body, {}, 100 * (i + 1), 300),
        ),
      );
      // Every one of them is given up on (the adapter errors the body once the socket closes):
      // within 15 s however busy the machine.
      const closed = () =>
        lines.filter(
          (l) => (JSON.parse(l) as { msg: string }).msg === 'client closed the connection before the answer',
        ).length;
      for (const deadline = Date.now() + 15_000; closed() < 10 && Date.now() < deadline; )
        await new Promise((r) => setTimeout(r, 50));
      const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(logged.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
      expect(logged.filter((l) => l.msg === 'client closed the connection before the answer').length).toBe(
        10,
      );
      const after = await app.graphql('{ __typename }');
      expect(after.status).toBe(200);
    } finally {
      await server.close(100);
      await app.close();
    }
  });

  it('does not log a client that leaves while the pipeline executes its operation as a fault (#36)', async () => {
    const lines: string[] = [];
    const app = await startTestApp({
      // Every request through the runtime's pipeline door, none through the fast door.
      config: { preparedOperations: false },
      log: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
    });
    const { seedDemo } = await import('../../src/demo/seed.ts');
    await seedDemo(app.database.db, app.config);
    const demoSession = await app.sessionFor('demo', 'demo');
    try {
      const query =
        '{ assets(profile: "well") { all(first: 1000) { edges { node { id displayName properties related(relationship: "facility") { __typename } } } } } }';
      // One at a time, each left a little later than the one before: some before execution,
      // most while their subgraph resolves.
      for (let i = 0; i < 24; i++) {
        const controller = new AbortController();
        const answer = app.handle(
          new Request(`${BASE}/api/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-svc-sessionid': demoSession },
            body: JSON.stringify({ query }),
            signal: controller.signal,
          }),
        );
        setTimeout(() => controller.abort(), 2 * i);
        await answer.catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 100));
      const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(logged.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
