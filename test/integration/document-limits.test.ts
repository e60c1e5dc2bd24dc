import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_DOCUMENT_LIMITS, loadConfig } from '../../src/config/index.ts';
import { SUBGRAPH_MAX_BODY_BYTES } from '../../src/execution/request-body.ts';
import { GRAPHQL_PATH } from '../../src/gateway/gateway.ts';
import { ANONYMOUS, IDENTITY_HEADER, IdentitySigner } from '../../src/shared/identity.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';

/** Small limits, so each can be crossed by a short document. */
const LIMITS = {
  maxDepth: 5,
  maxAliases: 3,
  maxDirectives: 2,
  maxCost: 400,
  maxTokens: 200,
  maxBodyBytes: 4096,
  maxBatch: 2,
  maxVariablesBytes: 1024,
  maxVariablesDepth: 6,
};

let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({ config: { documentLimits: LIMITS } });
  headers = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
});
afterAll(() => t.close());

interface Refusal {
  status: number;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

function post(body: BodyInit, extra: Record<string, string> = {}): Promise<Response> {
  return t.handle(
    new Request(`${BASE}${GRAPHQL_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...extra },
      body,
      duplex: 'half',
    } as RequestInit),
  );
}

/** Each limit's refusal: HTTP 400 (whatever the Accept header), BAD_USER_INPUT, the limit named. */
function expectRefused(r: Refusal, limit: string) {
  expect(r.status).toBe(400);
  expect(r.body.data ?? null).toBeNull();
  const error = r.body.errors?.find((e) => e.extensions?.limit === limit);
  expect(error, JSON.stringify(r.body)).toBeDefined();
  expect(error!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit });
  expect(error!.extensions!.maximum).toBe(LIMITS[limit as keyof typeof LIMITS]);
  expect(JSON.stringify(r.body)).not.toMatch(/originalError|stack|at .*\.ts:\d+/);
}

describe('document limits at the gateway', () => {
  it('refuses a query nested deeper than maxDepth, and serves one at the limit', async () => {
    const ok = await t.graphql(`{ issues { all(first: 1) { edges { node { id } } } } }`, {}, headers);
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    const deep = await t.graphql(
      `{ issues { all(first: 1) { edges { node { subject { assetReference { id } } } } } } }`,
      {},
      headers,
    );
    expectRefused(deep, 'maxDepth');
    expect(deep.body.errors![0]!.message).toBe('The query is nested 7 levels deep; at most 5 are allowed.');
  });

  it('counts the levels inside fragments', async () => {
    const r = await t.graphql(
      `{ issues { all(first: 1) { ...E } } } fragment E on IssuesConnection { edges { node { subject { type } } } }`,
      {},
      headers,
    );
    expectRefused(r, 'maxDepth');
  });

  it('refuses more aliases than maxAliases', async () => {
    const r = await t.graphql(
      `{ a: session { username } b: session { username } c: config { __typename } d: session { userGroup } }`,
    );
    expectRefused(r, 'maxAliases');
    const ok = await t.graphql(
      `{ a: session { username } b: session { username } c: config { __typename } }`,
    );
    expect(ok.body.errors).toBeUndefined();
  });

  it('refuses more directives than maxDirectives', async () => {
    const r = await t.graphql(
      `query($x: Boolean = true) { session { username @include(if: $x) userGroup @include(if: $x) expiresAt @skip(if: false) } }`,
    );
    expectRefused(r, 'maxDirectives');
  });

  it('refuses a query whose cost, lists counted by their page size, is over maxCost', async () => {
    // 1 for Issues, 1 for the connection, 2 per edge (edge, node): 502 for a page of 250.
    const r = await t.graphql(
      `query($n: Int) { issues { all(first: $n) { edges { node { id displayName } } } } }`,
      { n: 250 },
      headers,
    );
    expectRefused(r, 'maxCost');
    expect(r.body.errors![0]!.message).toBe('The query costs 502; at most 400 is allowed.');
    const ok = await t.graphql(
      `query($n: Int) { issues { all(first: $n) { edges { node { id displayName } } } } }`,
      { n: 10 },
      headers,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
  });

  it('refuses a document of more than maxTokens tokens before parsing it all', async () => {
    const r = await t.graphql(`{ session { ${'username '.repeat(250)} } }`);
    expectRefused(r, 'maxTokens');
  });

  it('refuses a body over maxBodyBytes with 413, declared or streamed', async () => {
    const big = JSON.stringify({ query: '{ session { username } }', variables: { pad: 'x'.repeat(5000) } });
    const declared = await post(big, { 'content-length': String(big.length) });
    expect(declared.status).toBe(413);
    const streamed = await post(
      new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(1000)));
          controller.close();
        },
      }),
      {},
    );
    expect(streamed.status).toBe(413);
    const body = (await streamed.json()) as Refusal['body'];
    expect(body.errors?.[0]?.extensions).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      limit: 'maxBodyBytes',
      maximum: 4096,
    });
    const get = await t.handle(
      new Request(
        `${BASE}${GRAPHQL_PATH}?query=${encodeURIComponent(`{ session { ${'username '.repeat(600)}} }`)}`,
      ),
    );
    expect(get.status).toBe(413);
  });

  it('serves up to maxBatch operations in one array, and refuses more', async () => {
    const one = { query: '{ session { authenticated } }' };
    const two = await post(JSON.stringify([one, one]));
    expect(two.status).toBe(200);
    expect(await two.json()).toEqual([
      { data: { session: { authenticated: false } } },
      { data: { session: { authenticated: false } } },
    ]);
    const three = await post(JSON.stringify([one, one, one]));
    expect(three.status).toBe(413);
    const body = (await three.json()) as Refusal['body'];
    expect(body.errors?.[0]?.message).toBe('Batching is limited to 2 operations per request.');
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('refuses variables over maxVariablesBytes or nested deeper than maxVariablesDepth', async () => {
    const q = 'query($p: String!) { __type(name: $p) { name } }';
    expectRefused(await t.graphql(q, { p: 'x'.repeat(1100) }), 'maxVariablesBytes');
    let deep: unknown = 1;
    for (let i = 0; i < 7; i++) deep = { a: deep };
    expectRefused(await t.graphql(q, { p: deep }), 'maxVariablesDepth');
    const ok = await t.graphql(q, { p: 'Query' });
    expect(ok.body).toEqual({ data: { __type: { name: 'Query' } } });
  });

  it('runs nothing of a refused mutation', async () => {
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('issues')
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const create = (alias: string) =>
      `${alias}: createIssue(input: { displayName: "limit" }) { errors { type } issue { id } }`;
    const r = await t.graphql(`mutation { ${['a', 'b', 'c', 'd'].map(create).join(' ')} }`, {}, headers);
    expectRefused(r, 'maxAliases');
    expect(await count()).toBe(before);
  });
});

describe('the body bound at a subgraph reached over HTTP', () => {
  const SECRET = 'document-limits-secret-0123456789abcdef';
  let subgraph: TestApp;
  beforeAll(async () => {
    subgraph = await startTestApp({
      role: { kind: 'subgraph', name: 'auth' },
      config: { documentLimits: LIMITS, secret: SECRET },
    });
  });
  afterAll(() => subgraph?.close());

  const send = (body: BodyInit, extra: Record<string, string> = {}) =>
    subgraph.handle(
      new Request(`${BASE}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...extra },
        body,
        duplex: 'half',
      } as RequestInit),
    );

  it("reads a body within its own bound, which a router's requests fit, and refuses one over it with the gateway's 413", async () => {
    // Over the client's maxBodyBytes (4096 here), and its maxVariablesBytes (1024), as a router's
    // entity fetch for many assets is: its representations are priced by their number instead.
    const large = JSON.stringify({
      query: 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
      variables: {
        r: Array.from({ length: 100 }, (_, i) => ({ __typename: 'User', id: `user-${i}-padding` })),
      },
    });
    expect(large.length).toBeGreaterThan(4096);
    const served = await send(large);
    const entities = ((await served.json()) as { data: { _entities: unknown[] } }).data._entities;
    expect(entities).toHaveLength(100);
    // Variables of a client's own, the same size, are held to maxVariablesBytes (#36, finding 2).
    const padded = await send(
      JSON.stringify({ query: '{ session { authenticated } }', variables: { pad: 'x'.repeat(5000) } }),
    );
    expect(padded.status).toBe(400);
    expect(((await padded.json()) as Refusal['body']).errors?.[0]?.extensions?.limit).toBe(
      'maxVariablesBytes',
    );
    const declared = await send(large, { 'content-length': String(SUBGRAPH_MAX_BODY_BYTES + 1) });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as Refusal['body']).errors?.[0]?.extensions).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      limit: 'maxBodyBytes',
      maximum: SUBGRAPH_MAX_BODY_BYTES,
    });
    // The same answer when the request carries an identity (read before Yoga, for its prepared
    // early door: src/subgraph-server/), whether or not the token verifies.
    const over = { 'content-length': String(SUBGRAPH_MAX_BODY_BYTES + 1) };
    for (const token of ['not a token', new IdentitySigner(SECRET).sign(ANONYMOUS)]) {
      const withIdentity = await send(large, { ...over, [IDENTITY_HEADER]: token });
      expect(withIdentity.status).toBe(413);
      expect(await withIdentity.json()).toEqual(await (await send(large, over)).json());
    }
    const broken = await send('{"query": ');
    expect(((await broken.json()) as Refusal['body']).errors?.[0]).toMatchObject({
      message: 'POST body sent invalid JSON.',
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

describe('defaults', () => {
  let d: TestApp;
  beforeAll(async () => {
    d = await startTestApp();
  });
  afterAll(() => d.close());

  it('are the documented ones, and ASSETQL_DOCUMENT_LIMITS overrides them one by one', () => {
    expect(d.config.documentLimits).toEqual(DEFAULT_DOCUMENT_LIMITS);
    const c = loadConfig({}, { ASSETQL_DOCUMENT_LIMITS: '{"maxDepth":12}' });
    expect(c.documentLimits).toEqual({ ...DEFAULT_DOCUMENT_LIMITS, maxDepth: 12 });
    expect(() => loadConfig({}, { ASSETQL_DOCUMENT_LIMITS: '{"maxDepth":0}' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { ASSETQL_DOCUMENT_LIMITS: '{"depth":10}' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { ASSETQL_DOCUMENT_LIMITS: 'maxDepth=10' })).toThrow(ConfigError);
  });

  it('let the explorer introspect the schema', async () => {
    const r = await d.graphql(
      `{ __schema { queryType { name } types { name fields { name type { name ofType { name ofType { name ofType { name } } } } } } } }`,
    );
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
  });
});

describe('introspection', () => {
  const production = {
    ASSETQL_ENV: 'production',
    ASSETQL_BASE_URL: 'https://assets.example.com',
    ASSETQL_SECRET: 'x'.repeat(40),
    DATABASE_URL: 'postgres://db/assetql',
  };

  it('is off in production unless ASSETQL_INTROSPECTION enables it, and on elsewhere', () => {
    expect(loadConfig({}, production).introspection).toBe(false);
    expect(loadConfig({}, { ...production, ASSETQL_INTROSPECTION: 'true' }).introspection).toBe(true);
    expect(loadConfig({}, { ...production, ASSETQL_ENV: 'staging' }).introspection).toBe(true);
    expect(loadConfig({}, {}).introspection).toBe(true);
  });

  it('when off, refuses __schema and __type and hides field suggestions', async () => {
    const off = await startTestApp({ config: { introspection: false } });
    try {
      for (const q of ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }']) {
        const r = await off.graphql(q);
        expect(r.status).toBe(400);
        expect(r.body.data ?? null).toBeNull();
        expect(r.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(r.body.errors?.[0]?.message).toMatch(/introspection has been disabled/);
      }
      const typo = await off.graphql('{ sesion { username } }');
      expect(typo.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
      const ok = await off.graphql('{ session { authenticated } }');
      expect(ok.body).toEqual({ data: { session: { authenticated: false } } });
    } finally {
      await off.close();
    }
  });
});
