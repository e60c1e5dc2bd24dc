/**
 * The bounds that hold while an operation runs, where the static cost cannot see
 * (docs/security.md): fields resolved per request, related assets per request, the statement
 * timeout, and the timeout on every gateway→subgraph request.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { IDENTITY_HEADER, type Identity, IdentitySigner } from '../../src/shared/identity.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

const SECRET = 'bounds-test-secret-0123456789abcdefghijklm';
const DEMO: Identity = {
  kind: 'session',
  username: 'demo',
  userGroup: 'demo',
  clientType: 'EXPLORER',
  sessionHash: null,
};
const signer = new IdentitySigner(SECRET);

let database: TestDatabase;

beforeAll(async () => {
  database = await freshDatabase();
  const seeding = await startTestApp({ database, config: { secret: SECRET } });
  await seedDemo(database.db, seeding.config);
  await seeding.close();
}, 60_000);
afterAll(() => database?.close());

/** A single-process app on the shared database with some document limits set. */
async function appWith(documentLimits: Record<string, number>) {
  const app = await startTestApp({ database, config: { secret: SECRET, documentLimits } });
  return { app, headers: { 'x-svc-sessionid': await app.sessionFor('demo', 'demo') } };
}

function expectStopped(
  body: { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] },
  limit: string,
  maximum: number,
) {
  expect(body.data ?? null).toBeNull();
  expect(body.errors, JSON.stringify(body)).toHaveLength(1);
  expect(body.errors![0]!.extensions).toMatchObject({ code: 'RESPONSE_TOO_LARGE', limit, maximum });
}

const WELLS = `query($n: Int) { assets(profile: "well") { all(first: $n) { edges { cursor node { id displayName properties } } } } }`;

describe('fields resolved per request', () => {
  let t: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    t = await appWith({ maxFields: 100 });
  });
  afterAll(() => t.app.close());

  it('stops a response with more fields than maxFields with RESPONSE_TOO_LARGE, and serves a smaller one', async () => {
    // 2 fields per edge and 3 per node: the demo's 24 wells are 120 fields and more.
    const big = await t.app.graphql(WELLS, { n: 50 }, t.headers);
    expectStopped(big.body, 'maxFields', 100);
    const small = await t.app.graphql<any>(WELLS, { n: 5 }, t.headers);
    expect(small.body.errors).toBeUndefined();
    expect(small.body.data.assets.all.edges).toHaveLength(5);
  });

  it('applies when the operation is planned across subgraphs too', async () => {
    const planned = await startTestApp({
      database,
      config: { secret: SECRET, documentLimits: { maxFields: 100 }, directExecution: false },
    });
    try {
      const headers = { 'x-svc-sessionid': await planned.sessionFor('demo', 'demo') };
      expectStopped((await planned.graphql(WELLS, { n: 50 }, headers)).body, 'maxFields', 100);
    } finally {
      await planned.close();
    }
  });
});

describe('related assets per request', () => {
  let t: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    t = await appWith({ maxRelated: 10 });
  });
  afterAll(() => t.app.close());

  it('stops a request reaching more related assets than maxRelated, and serves one within it', async () => {
    const fanOut = `query($n: Int) { assets(profile: "facility") { all(first: $n) { edges { node { id
      related(relationship: "wells") { ... on AssetRelationshipMany { assets { id } } } } } } } }`;
    // Four wells per facility: ten facilities reach forty.
    expectStopped((await t.app.graphql(fanOut, { n: 10 }, t.headers)).body, 'maxRelated', 10);
    const one = await t.app.graphql<any>(fanOut, { n: 1 }, t.headers);
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.assets.all.edges[0].node.related.assets).toHaveLength(4);
  });
});

describe('the statement timeout', () => {
  // PGlite runs each statement on the JavaScript thread, where no timer can interrupt it; the
  // timeout is PostgreSQL's (docs/security.md).
  it.runIf(process.env.DATABASE_URL)(
    'cancels a statement running past ASSETQL_STATEMENT_TIMEOUT_MS with TIMEOUT',
    async () => {
      // Enough wells that a filter nothing matches must read for a while.
      await sql`insert into assets (user_group, profile, id, properties, lookup, observation, geometry, is_deleted, modified_at)
        select a.user_group, a.profile, a.id || '-copy-' || g, a.properties, a.lookup, a.observation, a.geometry, a.is_deleted, a.modified_at
        from assets a, generate_series(1, 4000) g where a.profile = 'well' and a.user_group = 'demo'`.execute(
        database.db,
      );
      const slow = await openDatabase({ url: database.url! }, { statementTimeoutMs: 20 });
      const subgraph = await startTestApp({
        database: Object.assign(slow, { url: database.url }),
        role: { kind: 'subgraph', name: 'assets' },
        config: { secret: SECRET },
      });
      try {
        const response = await subgraph.handle(
          new Request('http://assets.subgraph.test/graphql', {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/graphql-response+json',
              [IDENTITY_HEADER]: await signer.sign(DEMO),
            },
            body: JSON.stringify({
              query: `{ assets(profile: "well") { all(first: 10, filter: { property: { name: "name", contains: "no such well", caseInsensitive: true } }) { edges { node { id } } } } }`,
            }),
          }),
        );
        const body = (await response.json()) as { errors?: { extensions?: Record<string, unknown> }[] };
        expect(
          body.errors?.map((e) => e.extensions?.code),
          JSON.stringify(body),
        ).toEqual(['TIMEOUT']);
      } finally {
        await subgraph.close();
        await slow.close();
        await sql`delete from assets where id like '%-copy-%'`.execute(database.db);
      }
    },
    60_000,
  );
});

describe('the upstream timeout', () => {
  /** A stand-in for every subgraph, served by `handle`, and its URL. */
  async function fakeSubgraph(handle: RequestListener): Promise<{ server: Server; url: string }> {
    const server = createServer(handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` };
  }

  /** The gateway's configuration with every subgraph at `url`. */
  const reaching = (url: string, upstreamTimeoutMs: number) => ({
    secret: SECRET,
    upstreamTimeoutMs,
    subgraphUrls: { assets: url, auth: url, issues: url, events: url },
  });

  let hung: Server;
  const held: import('node:http').ServerResponse[] = [];
  let gateway: TestApp;
  let planned: TestApp;

  beforeAll(async () => {
    // Subgraphs that take every request and never answer.
    let url: string;
    ({ server: hung, url } = await fakeSubgraph((_request, response) => {
      held.push(response);
    }));
    const config = reaching(url, 300);
    gateway = await startTestApp({ database, role: { kind: 'gateway' }, config });
    planned = await startTestApp({
      database,
      role: { kind: 'gateway' },
      config: { ...config, directExecution: false },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await planned?.close();
    for (const response of held) response.destroy();
    await new Promise((resolve) => hung.close(resolve));
  });

  it('answers GATEWAY_TIMEOUT when a subgraph does not answer, sent whole or planned', async () => {
    const headers = { 'x-svc-sessionid': await gateway.sessionFor('demo', 'demo') };
    for (const app of [gateway, planned]) {
      const r = await app.graphql(
        `{ assets(profile: "well") { all(first: 1) { edges { node { id } } } } }`,
        {},
        headers,
      );
      expect(r.body.data?.assets ?? null).toBeNull();
      expect(
        r.body.errors?.map((e) => e.extensions?.code),
        JSON.stringify(r.body),
      ).toContain('GATEWAY_TIMEOUT');
    }
  }, 20_000);

  it("answers GATEWAY_TIMEOUT when a subgraph's answer starts but never ends", async () => {
    // Headers and the first bytes of the body at once, then nothing: the timeout covers the body.
    const { server: trickle, url } = await fakeSubgraph((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"data":{"assets":');
      held.push(response);
    });
    const app = await startTestApp({ database, role: { kind: 'gateway' }, config: reaching(url, 300) });
    try {
      const started = Date.now();
      const r = await app.graphql(
        `{ assets(profile: "well") { all(first: 1) { edges { node { id } } } } }`,
        {},
        { 'x-svc-sessionid': await gateway.sessionFor('demo', 'demo') },
      );
      expect(
        r.body.errors?.map((e) => e.extensions?.code),
        JSON.stringify(r.body),
      ).toContain('GATEWAY_TIMEOUT');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await app.close();
      for (const response of held) response.destroy();
      await new Promise((resolve) => trickle.close(resolve));
    }
  }, 20_000);

  it('answers an error, at once, when a subgraph cuts its answer half-way, and serves the next request', async () => {
    // Headers and half a body, then the connection closed: the exchange fails, nothing waits for
    // the timeout, and the gateway's pool serves the next request over a new connection.
    let cut = true;
    const { server: cutting, url } = await fakeSubgraph((_request, response) => {
      if (!cut) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"data":{"assets":null}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"data":{"assets":', () => response.socket?.destroy());
    });
    const app = await startTestApp({
      database,
      role: { kind: 'gateway' },
      config: reaching(url, 10_000),
    });
    try {
      const session = await gateway.sessionFor('demo', 'demo');
      const query = `{ assets(profile: "well") { all(first: 1) { edges { node { id } } } } }`;
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => app.graphql(query, {}, { 'x-svc-sessionid': session })),
      );
      for (const r of answers) {
        expect(r.body.data?.assets ?? null, JSON.stringify(r.body)).toBeNull();
        expect(r.body.errors?.length, JSON.stringify(r.body)).toBeGreaterThan(0);
        expect(JSON.stringify(r.body)).not.toContain('GATEWAY_TIMEOUT');
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      cut = false;
      const next = await app.graphql(query, {}, { 'x-svc-sessionid': session });
      expect(next.body, JSON.stringify(next.body)).toEqual({ data: { assets: null } });
    } finally {
      await app.close();
      await new Promise((resolve) => cutting.close(resolve));
    }
  }, 20_000);
});
