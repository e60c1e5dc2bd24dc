import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { GRAPHQL_PATH } from '../../src/gateway/gateway.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from '../../src/observability/prometheus.ts';
import { listen } from '../../src/server/listen.ts';
import { ANONYMOUS, IDENTITY_HEADER, type Identity, IdentitySigner } from '../../src/shared/identity.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import {
  BASE,
  type ServedSubgraphs,
  sent,
  serveSubgraphs,
  startTestApp,
  type TestApp,
} from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { partialBodyClient, rawClient } from '../helpers/raw-clients.ts';

/**
 * Prepared operations (src/gateway/plugins/use-prepared-operations.ts): a document the gateway
 * has answered through the runtime's pipeline is answered again without it. Two apps over one
 * database, the same requests to both: `fast` with prepared operations, `slow` without. Every
 * answer must be the same (status, headers, body), and `fast` must have answered on the
 * prepared path exactly the requests it may (its counter), so that the comparison is not between
 * two runs of the same pipeline.
 */

const SECRET = 'prepared-operations-secret-0123456789abcdef';

let database: TestDatabase;
let metrics: PrometheusMetrics;
/** The prepared subgraphs' own counter. */
let subgraphMetrics: PrometheusMetrics;
let demo: Record<string, string>;
let east: Record<string, string>;
/** The subgraphs served over HTTP for the distributed gateways, and what serves them. */
const served: ServedSubgraphs[] = [];
/** Each kind's subgraph URLs, by subgraph name. */
const subgraphs: Record<'fast' | 'slow', Record<string, string>> = { fast: {}, slow: {} };

/** A gateway with prepared operations and one without, over the same database, in one form. */
interface Form {
  fast: TestApp;
  slow: TestApp;
}
const forms: Record<'single' | 'distributed', Form> = {} as never;

beforeAll(async () => {
  database = await freshDatabase();
  metrics = createPrometheusMetrics({ maxOperations: 100 });
  subgraphMetrics = createPrometheusMetrics({ maxOperations: 100 });
  const config = { secret: SECRET };
  forms.single = {
    fast: await startTestApp({ database, metrics, config }),
    slow: await startTestApp({ database, config: { ...config, preparedOperations: false } }),
  };
  await seedDemo(database.db, forms.single.fast.config);
  // Each distributed gateway over subgraphs of its own kind, served over HTTP: with prepared
  // operations (counted apart), and without.
  const subgraphsOf = async (prepared: boolean) => {
    const s = await serveSubgraphs({
      database,
      config: { ...config, preparedOperations: prepared },
      ...(prepared ? { metrics: subgraphMetrics } : {}),
    });
    served.push(s);
    subgraphs[prepared ? 'fast' : 'slow'] = s.urls;
    return s.urls;
  };
  forms.distributed = {
    fast: await startTestApp({
      database,
      metrics,
      role: { kind: 'gateway' },
      config: { ...config, subgraphUrls: await subgraphsOf(true) },
    }),
    slow: await startTestApp({
      database,
      role: { kind: 'gateway' },
      config: { ...config, subgraphUrls: await subgraphsOf(false), preparedOperations: false },
    }),
  };
  demo = { 'x-svc-sessionid': await forms.single.fast.sessionFor('demo', 'demo') };
  east = { 'x-svc-sessionid': await forms.single.fast.sessionFor('demo-east-user', 'demo-east') };
}, 60_000);
afterAll(async () => {
  for (const form of Object.values(forms)) {
    await form.fast?.close();
    await form.slow?.close();
  }
  for (const s of served) await s.close();
  await database?.close();
});

async function preparedCount(at: PrometheusMetrics = metrics): Promise<number> {
  const metric = await at.registry.getSingleMetric('assetql_prepared_operations_total')!.get();
  return metric.values[0]?.value ?? 0;
}

/** Requests the gateways counted in `metrics` have sent their subgraphs, so far. */
async function subgraphRequests(): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('assetql_subgraph_request_duration_seconds')!.get();
  return metric.values
    .filter((v) => (v as { metricName?: string }).metricName?.endsWith('_count'))
    .reduce((sum, v) => sum + v.value, 0);
}

/** A POST to the GraphQL endpoint with `body` as it is written (JSON unless a string is given). */
function post(body: unknown, headers: Record<string, string> = {}): () => Request {
  return () =>
    new Request(`${BASE}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
}

/**
 * Sends a request three times to the server with prepared operations and to the one without:
 * the same answer each time, and from the third sending on (a text is kept from its second
 * parse) answered on the prepared path exactly when it may be, as the counter shows.
 */
async function sendThrice(
  fast: () => Promise<Response>,
  slow: () => Promise<Response>,
  counter: PrometheusMetrics,
  expectPrepared: boolean,
) {
  for (let i = 0; i < 3; i++) {
    const before = await preparedCount(counter);
    const a = await sent(await fast());
    const answeredFast = (await preparedCount(counter)) - before;
    const b = await sent(await slow());
    expect(a).toEqual(b);
    // What may be prepared answers data without errors (else the pipeline answers it).
    if (expectPrepared) expect(JSON.parse(a.body).errors).toBeUndefined();
    if (i === 2) expect(answeredFast).toBe(expectPrepared ? 1 : 0);
    else if (!expectPrepared) expect(answeredFast).toBe(0);
  }
}

const PAGE = '{ assets(profile: "well") { all(first: 3) { edges { node { id displayName } } } } }';
const SESSION = 'query Mine { session { authenticated username userGroup } }';
const TWO = 'query A { __typename } query B { session { authenticated } }';
const ISSUES = '{ issues { all(first: 2) { edges { node { id displayName } } } } }';
const PAGE_OF =
  'query($p: ID!, $n: Int) { assets(profile: $p) { all(first: $n) { edges { node { id displayName } } } } }';
const JOINED_OF =
  'query($n: Int) { issues { all(first: $n) { edges { node { id subject { assetReference { asset { id displayName } } } } } } } }';
/** A variable of a custom scalar: the supergraph cannot parse it, the subgraph must (LocalOperation.variablesCoerced). */
const RELATED_OF =
  'query($p: JSONObject) { assets(profile: "well") { all(first: 2) { edges { node { id related(relationship: "facility", params: $p) { __typename } } } } } }';
const RENAME_OF =
  'mutation($id: ID!, $name: String!) { updateAssetFilter(input: { id: $id, displayName: $name }) { assetFilter { id displayName } errors { type message } } }';

/** `{ v: { v: … } }`, `depth` levels deep. */
function deepObject(depth: number): Record<string, unknown> {
  const top: Record<string, unknown> = {};
  let at = top;
  for (let i = 0; i < depth; i++) at = at.v = {} as Record<string, unknown>;
  return top;
}

const BAD_RENAME =
  'mutation { updateAssetFilter(input: { id: "no-such-filter", displayName: "x" }) { assetFilter { id } errors { type message } } }';

/** Each case: a request, and whether its third sending may be answered on the prepared path. */
const cases: { name: string; request: () => Request; prepared: boolean }[] = [
  { name: 'typename', request: post({ query: '{ __typename }' }), prepared: true },
  { name: 'a page of wells', request: post({ query: PAGE }, {}), prepared: true },
  { name: 'the session, named', request: post({ query: SESSION, operationName: 'Mine' }), prepared: true },
  { name: 'one of two operations', request: post({ query: TWO, operationName: 'B' }), prepared: true },
  { name: 'the other of two', request: post({ query: TWO, operationName: 'A' }), prepared: true },
  { name: 'issues', request: post({ query: ISSUES }), prepared: true },
  { name: 'a mutation answering a payload error', request: post({ query: BAD_RENAME }), prepared: true },
  { name: 'empty variables', request: post({ query: PAGE, variables: {} }), prepared: true },
  {
    name: 'null variables and name',
    request: post({ query: PAGE, variables: null, operationName: null }),
    prepared: true,
  },
  // Variables: what the pipeline decides by them is decided again before anything runs.
  {
    name: 'variables the operation does not take',
    request: post({ query: PAGE, variables: { x: 1 } }),
    prepared: true,
  },
  ...(
    [
      ['given', { p: 'well', n: 2 }, true],
      ['on another profile', { p: 'site', n: 1 }, true],
      ['one left out', { p: 'well' }, true],
      ['one null', { p: 'well', n: null }, true],
      ['and one the operation does not take', { p: 'well', n: 1, other: [1, 'two'] }, true],
      ['that do not coerce', { p: 'well', n: 'two' }, false],
      ['a required one missing', { n: 2 }, false],
      ['a required one null', { p: null, n: 2 }, false],
      ['over the page size (the subgraph refuses it)', { p: 'well', n: 100_000 }, false],
      ['a string over the input limit', { p: 'w'.repeat(100_001), n: 1 }, false],
      ['a string with U+0000', { p: 'we\u0000ll', n: 1 }, false],
      ['a lone surrogate', { p: 'we\ud800ll', n: 1 }, false],
      ['a list over the input limit, unused', { p: 'well', n: 1, other: Array(1_001).fill(0) }, false],
      ['an object key over the input limit', { p: 'well', n: 1, ['k'.repeat(100_001)]: 1 }, false],
      ['nested too deep, unused', { p: 'well', n: 1, other: deepObject(40) }, false],
      ['over the variables bytes', { p: 'well', n: 1, other: Array(300).fill('x'.repeat(8_000)) }, false],
    ] as const
  ).map(([name, variables, prepared]) => ({
    name: `variables ${name}`,
    request: post({ query: PAGE_OF, variables }),
    prepared,
  })),
  {
    name: 'variables without a required one',
    request: post({ query: PAGE_OF }),
    prepared: false,
  },
  {
    name: 'variables with a key __proto__',
    request: post(
      `{"query": ${JSON.stringify(PAGE_OF)}, "variables": {"__proto__": {"p": "site"}, "p": "well", "n": 1}}`,
    ),
    prepared: true,
  },
  {
    name: 'variables of a joined operation',
    request: post({ query: JOINED_OF, variables: { n: 4 } }),
    prepared: true,
  },
  {
    name: 'variables of a joined operation that do not coerce',
    request: post({ query: JOINED_OF, variables: { n: 'four' } }),
    prepared: false,
  },
  {
    name: 'variables of a mutation answering a payload error',
    request: post({ query: RENAME_OF, variables: { id: 'no-such-filter', name: 'x' } }),
    prepared: true,
  },
  {
    name: 'a JSONObject variable, null',
    request: post({ query: RELATED_OF, variables: { p: null } }),
    prepared: true,
  },
  {
    name: 'a JSONObject variable that is a list (the subgraph refuses it)',
    request: post({ query: RELATED_OF, variables: { p: [1] } }),
    prepared: false,
  },
  {
    name: 'a JSONObject variable that is a string (the subgraph refuses it)',
    request: post({ query: RELATED_OF, variables: { p: 'x' } }),
    prepared: false,
  },
  // Answered by the pipeline: what the prepared path does not look at, it does not answer.
  { name: 'variables not an object', request: post({ query: PAGE, variables: 'x' }), prepared: false },
  { name: 'variables a list', request: post({ query: PAGE, variables: [] }), prepared: false },
  { name: 'extensions', request: post({ query: PAGE, extensions: {} }), prepared: false },
  { name: 'another parameter', request: post({ query: PAGE, foo: 1 }), prepared: false },
  { name: 'an operation name not in it', request: post({ query: TWO, operationName: 'C' }), prepared: false },
  { name: 'no operation name for two', request: post({ query: TWO }), prepared: false },
  { name: 'a name that is not a string', request: post({ query: PAGE, operationName: 1 }), prepared: false },
  { name: 'not JSON', request: post('{"query": "{ __typename }"'), prepared: false },
  { name: 'a query that is not a string', request: post({ query: 1 }), prepared: false },
  { name: 'a batch', request: post([{ query: '{ __typename }' }]), prepared: false },
  { name: 'a document that does not parse', request: post({ query: '{ __typename' }), prepared: false },
  { name: 'a field that does not exist', request: post({ query: '{ nope }' }), prepared: false },
  // Refused by Yoga's own body bound (a caller in process can send what node's parser refuses).
  {
    name: 'a malformed length',
    request: post({ query: '{ __typename }' }, { 'content-length': '1, 1' }),
    prepared: false,
  },
];

const ACCEPTS: [string | undefined, boolean][] = [
  [undefined, true],
  ['*/*', true],
  ['application/json', true],
  ['application/graphql-response+json', true],
  ['application/graphql-response+json, application/json', true],
  ['application/json;charset=utf-8, application/graphql-response+json', true],
  ['application/*', true],
  ['Application/JSON', true],
  ['text/event-stream', false],
  ['multipart/mixed', false],
  ['text/event-stream, application/json', true],
  // Yoga tries its JSON processor last, so it wins whenever the header accepts JSON at all.
  ['application/json, text/event-stream', true],
  ['application/json; charset=latin1', false],
  ['text/html', false],
];

describe.each(['single', 'distributed'] as const)(
  'prepared operations answer as the pipeline does (%s)',
  (formName) => {
    const check = async (
      request: () => Request,
      expectPrepared: boolean,
      headers: Record<string, string>,
    ) => {
      const withHeaders = () => {
        const r = request();
        for (const [k, v] of Object.entries(headers)) r.headers.set(k, v);
        return r;
      };
      const { fast, slow } = forms[formName];
      await sendThrice(
        () => fast.handle(withHeaders()),
        () => slow.handle(withHeaders()),
        metrics,
        expectPrepared,
      );
    };

    for (const c of cases) {
      it(`signed in: ${c.name}`, async () => {
        // A request with an error result is executed on the prepared path and answered by the
        // pipeline: it is never counted as prepared.
        await check(c.request, c.prepared, demo);
      });
    }

    it('anonymous: the page is refused the same way, by the pipeline after the prepared execution', async () => {
      await check(post({ query: PAGE }), false, {});
      const r = await sent(await forms[formName].fast.handle(post({ query: PAGE })()));
      expect(JSON.parse(r.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    });

    for (const [accept, prepared] of ACCEPTS) {
      it(`accept ${accept ?? '(none)'}`, async () => {
        await check(
          post({ query: '{ __typename }' }),
          prepared,
          accept === undefined ? demo : { ...demo, accept },
        );
      });
    }

    it('a listed CORS origin takes the pipeline (its headers); another origin does not need it', async () => {
      const corsDb = database;
      const withCors = await startTestApp({
        database: corsDb,
        config: { corsOrigins: ['https://app.example'] },
      });
      try {
        const ask = (origin: string) =>
          withCors.handle(post({ query: '{ __typename }' }, { ...demo, origin })());
        for (let i = 0; i < 3; i++) await ask('https://other.example');
        const listed = await ask('https://app.example');
        expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example');
        expect(listed.headers.get('access-control-allow-credentials')).toBe('true');
        const other = await ask('https://other.example');
        expect(other.headers.get('access-control-allow-origin')).toBeNull();
      } finally {
        await withCors.close();
      }
    });
  },
);

describe.each(['single', 'distributed'] as const)(
  'prepared operations keep every per-request check (%s)',
  (formName) => {
    it('answers each caller with its own tenant, under concurrency', async () => {
      const { fast } = forms[formName];
      const query = post({ query: '{ session { username userGroup } }' });
      for (let i = 0; i < 3; i++) await fast.handle(query());
      const before = await preparedCount();
      const beforeSubgraph = await preparedCount(subgraphMetrics);
      const callers = [demo, east, {}];
      const answers = await Promise.all(
        Array.from({ length: 90 }, async (_, i) => {
          const r = query();
          for (const [k, v] of Object.entries(callers[i % 3]!)) r.headers.set(k, v);
          return { i, body: (await (await fast.handle(r)).json()) as { data: { session: unknown } } };
        }),
      );
      for (const { i, body } of answers) {
        expect(body.data.session).toEqual(
          [
            { username: 'demo', userGroup: 'demo' },
            { username: 'demo-east-user', userGroup: 'demo-east' },
            { username: null, userGroup: null },
          ][i % 3],
        );
      }
      expect((await preparedCount()) - before).toBe(90);
      // Distributed, the auth subgraph answered each of them on its own prepared path too.
      expect((await preparedCount(subgraphMetrics)) - beforeSubgraph).toBe(
        formName === 'distributed' ? 90 : 0,
      );

      const pages = await Promise.all(
        [demo, east, demo, east].map(async (h) => {
          const r = post({ query: PAGE }, h)();
          return (await (await fast.handle(r)).json()) as { data: { assets: { all: { edges: unknown[] } } } };
        }),
      );
      expect(pages[0]).toEqual(pages[2]);
      expect(pages[1]).toEqual(pages[3]);
      expect(pages[0]).not.toEqual(pages[1]);
    });

    it("keeps each request's variables its own, under concurrency", async () => {
      const { fast, slow } = forms[formName];
      const page = (n: number, headers: Record<string, string>) =>
        post({ query: PAGE_OF, variables: { p: 'well', n } }, headers)();
      for (let i = 0; i < 3; i++) await fast.handle(page(1, demo));
      const ids = async (app: TestApp, n: number, headers: Record<string, string>) =>
        ((await (await app.handle(page(n, headers))).json()) as any).data.assets.all.edges.map(
          (e: any) => e.node.id,
        );
      const expected = {
        demo: await ids(slow, 5, demo),
        east: await ids(slow, 5, east),
      };
      expect(expected.demo).not.toEqual(expected.east);
      const before = await preparedCount();
      const answers = await Promise.all(
        Array.from({ length: 90 }, async (_, i) => {
          const n = (i % 5) + 1;
          const tenant = i % 2 ? 'east' : 'demo';
          return { n, tenant, got: await ids(fast, n, tenant === 'east' ? east : demo) };
        }),
      );
      for (const { n, tenant, got } of answers)
        expect(got).toEqual(expected[tenant as 'demo' | 'east'].slice(0, n));
      expect((await preparedCount()) - before).toBe(90);
    });

    it('executes no mutation whose variables the pipeline refuses', async () => {
      const { fast, slow } = forms[formName];
      const id = `prepared-variables-${formName}`;
      const created = await fast.graphql<any>(
        `mutation { createAssetFilter(input: { id: "${id}", displayName: "Start", profile: "well",
          filter: { property: { name: "depth", gt: 1 } }, subProfiles: [] }) { errors { type } } }`,
        undefined,
        demo,
      );
      expect(created.body.data.createAssetFilter.errors).toEqual([]);
      const rename = (variables: Record<string, unknown>) =>
        post({ query: RENAME_OF, variables: { id, ...variables } }, demo)();
      for (let i = 0; i < 3; i++) await fast.handle(rename({ name: `Start` }));
      const name = async () =>
        (await fast.graphql<any>(`{ assetFilter(id: "${id}") { displayName } }`, undefined, demo)).body.data
          .assetFilter.displayName;
      for (const refused of [
        { name: 'A', extra: Array(1_001).fill(0) },
        { name: 'B', extra: 'x'.repeat(100_001) },
        { name: 'C', extra: deepObject(40) },
        { name: 'D', id: ['not', 'an', 'id'] },
        { name: 7, extra: null },
        { name: 'E', extra: 'a\u0000b' },
      ]) {
        const before = await preparedCount();
        const sentBefore = await subgraphRequests();
        const a = await sent(await fast.handle(rename(refused)));
        expect(await preparedCount()).toBe(before);
        // Refused before any subgraph is asked, as the pipeline refuses it.
        expect(await subgraphRequests()).toBe(sentBefore);
        expect(a).toEqual(await sent(await slow.handle(rename(refused))));
        // Refused whole, as a request error: no data, nothing run.
        const body = JSON.parse(a.body);
        expect(body.errors.length, a.body).toBeGreaterThan(0);
        expect(body.data ?? null).toBeNull();
        expect(await name()).toBe('Start');
      }
      // The same mutation with variables that pass is answered on the prepared path, and runs.
      const before = await preparedCount();
      const sentBefore = await subgraphRequests();
      const renamed = await sent(await fast.handle(rename({ name: 'Renamed' })));
      expect(JSON.parse(renamed.body).data.updateAssetFilter.assetFilter.displayName).toBe('Renamed');
      expect((await preparedCount()) - before).toBe(1);
      expect((await subgraphRequests()) - sentBefore).toBe(1);
      expect(await name()).toBe('Renamed');
    });

    it('bounds the body, refuses cross-site bodies and oversized variables as before', async () => {
      const { fast } = forms[formName];
      const query = { query: '{ __typename }' };
      for (let i = 0; i < 3; i++) await fast.handle(post(query, demo)());
      const huge = await fast.handle(
        post({ ...query, pad: 'x'.repeat(fast.config.documentLimits.maxBodyBytes) }, demo)(),
      );
      expect(huge.status).toBe(413);
      const crossSite = await fast.handle(
        post(JSON.stringify(query), { ...demo, 'content-type': 'text/plain' })(),
      );
      expect(crossSite.status).toBe(403);
      const deep = { v: {} as Record<string, unknown> };
      let at = deep.v;
      for (let i = 0; i < fast.config.documentLimits.maxVariablesDepth + 2; i++)
        at = at.v = {} as Record<string, unknown>;
      const nested = await sent(await fast.handle(post({ ...query, variables: deep }, demo)()));
      expect(nested.status).toBe(400);
      expect(JSON.parse(nested.body).errors[0].extensions.limit).toBe('maxVariablesDepth');
    });

    it('relays a session change made on the prepared path', async () => {
      const { fast } = forms[formName];
      const username = `prepared-${formName}`;
      await createUser(database.db, fast.config.secret, {
        username,
        groups: ['demo'],
        password: 'a long enough password',
      });
      const signIn = post({
        query: `mutation { signIn(input: { loginUsername: "${username}", password: "a long enough password", clientApplicationType: EXPLORER }) { errors { type } } }`,
      });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const before = await preparedCount();
        const response = await fast.handle(signIn());
        if (i === 2) expect((await preparedCount()) - before).toBe(1);
        expect(response.headers.get('set-cookie')).toMatch(/^svc_sessionid=/);
        ids.push(response.headers.get('x-svc-sessionid')!);
      }
      expect(new Set(ids).size).toBe(3);
      const who = await fast.graphql('{ session { username } }', undefined, { 'x-svc-sessionid': ids[2]! });
      expect(who.body.data).toEqual({ session: { username } });
    });

    it('answers a client that has gone away as the pipeline does, executing nothing for it', async () => {
      const { fast, slow } = forms[formName];
      const rename = post({
        query:
          'mutation { updateAssetFilter(input: { id: "gone-filter", displayName: "x" }) { errors { type } } }',
      });
      for (let i = 0; i < 3; i++) await fast.handle(rename());
      const gone = (app: TestApp) => {
        const controller = new AbortController();
        controller.abort();
        const r = new Request(rename(), { signal: controller.signal });
        for (const [k, v] of Object.entries(demo)) r.headers.set(k, v);
        return app.handle(r);
      };
      const before = await preparedCount();
      const [a, b] = [await gone(fast), await gone(slow)];
      expect(a.status).toBe(b.status);
      expect(a.status).toBe(499);
      expect(await preparedCount()).toBe(before);
    });

    it('survives clients that go away before their answer, over a real socket', async () => {
      const { fast } = forms[formName];
      const server = await listen((request, address) => fast.handle(request, address), 0, '127.0.0.1');
      try {
        const once = rawClient(server.url, JSON.stringify({ query: PAGE }), demo, '"data"');
        const withVariables = rawClient(
          server.url,
          JSON.stringify({ query: PAGE_OF, variables: { p: 'well', n: 3 } }),
          demo,
          '"data"',
        );
        for (let i = 0; i < 3; i++) {
          expect(await once(null)).toContain('HTTP/1.1 200');
          expect(await withVariables(null)).toContain('HTTP/1.1 200');
        }
        const before = await preparedCount();
        await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? once(i) : withVariables(i))));
        // None took the process down: the next client is answered on the prepared path, after
        // whatever of theirs was still running (answered 499, as the pipeline answers them).
        expect(await once(null)).toContain('HTTP/1.1 200');
        expect(await preparedCount()).toBeGreaterThanOrEqual(before + 1);
        // Nor did clients that went away half-way through their body, however long it was.
        const body = JSON.stringify({
          query: PAGE_OF,
          variables: { p: 'well', n: 3, pad: 'x'.repeat(2000) },
        });
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            partialBodyClient(server.url, GRAPHQL_PATH, body, demo, (i * 97) % body.length, 5 + i),
          ),
        );
        expect(await withVariables(null)).toContain('HTTP/1.1 200');
      } finally {
        await server.close(100);
      }
    });
  },
);

describe('what the subgraph refuses is answered alike by both forms', () => {
  // The subgraph's coercion refuses a custom scalar's bad value (the supergraph's lets it
  // through): a request error, 400 in one process and through the distributed gateway alike. A
  // page over the largest size is the resolver's error (200, data null), alike too.
  const refused: [string, Record<string, unknown>, string, number][] = [
    ['a JSONObject that is a list', { p: [1] }, RELATED_OF, 400],
    ['a JSONObject that is a string', { p: 'x' }, RELATED_OF, 400],
    ['a page over the largest size', { p: 'well', n: 100_000 }, PAGE_OF, 200],
  ];
  for (const [name, variables, query, status] of refused)
    it(name, async () => {
      for (const kind of ['slow', 'fast'] as const)
        for (const accept of [undefined, 'application/json', 'application/graphql-response+json']) {
          const headers = { ...demo, ...(accept ? { accept } : {}) };
          const [one, distributed] = await Promise.all(
            [forms.single[kind], forms.distributed[kind]].map(async (app) => {
              const r = await sent(await app.handle(post({ query, variables }, headers)()));
              return {
                status: r.status,
                messages: (JSON.parse(r.body).errors ?? []).map((e: Error) => e.message),
              };
            }),
          );
          expect(one!.status, `${kind}, ${accept}`).toBe(status);
          expect(one!.messages.length).toBeGreaterThan(0);
          expect(distributed, `${kind}, ${accept}`).toEqual(one);
        }
    });
});

describe("a subgraph's prepared operations answer as its Yoga does", () => {
  const signer = new IdentitySigner(SECRET);
  const identity = (username: string | null, userGroup: string | null): Identity => ({
    ...ANONYMOUS,
    ...(username ? { kind: 'session', username, userGroup, clientType: 'EXPLORER' } : {}),
  });
  const to = (kind: 'fast' | 'slow', name: string, body: unknown, headers: Record<string, string>) =>
    fetch(subgraphs[kind][name]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const cases: {
    name: string;
    subgraph: string;
    body: unknown;
    headers: () => Record<string, string>;
    prepared: boolean;
  }[] = [
    {
      name: 'a page, signed in',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo', 'demo')) }),
      prepared: true,
    },
    {
      name: 'the same page, another tenant',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo-east-user', 'demo-east')) }),
      prepared: true,
    },
    {
      name: 'the same page, anonymous (errors)',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity(null, null)) }),
      prepared: false,
    },
    {
      name: 'a forged identity (401)',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => ({ [IDENTITY_HEADER]: `${signer.sign(identity('demo', 'demo'))}x` }),
      prepared: false,
    },
    {
      name: 'no identity (a forwarded session)',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => demo,
      prepared: false,
    },
    {
      name: 'an issue page',
      subgraph: 'issues',
      body: { query: ISSUES },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo', 'demo')) }),
      prepared: true,
    },
    {
      name: 'a payload error',
      subgraph: 'assets',
      body: { query: BAD_RENAME },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo', 'demo')) }),
      prepared: true,
    },
    // With variables: the subgraph's execution coerces, limits and prices them itself.
    ...[
      { name: 'given', variables: { p: 'well', n: 2 }, prepared: true },
      { name: 'another profile', variables: { p: 'site', n: 1 }, prepared: true },
      { name: 'one left out', variables: { p: 'well' }, prepared: true },
      { name: 'one null', variables: { p: 'well', n: null }, prepared: true },
      { name: 'that do not coerce', variables: { p: 'well', n: 'two' }, prepared: false },
      { name: 'a required one missing', variables: { n: 2 }, prepared: false },
      { name: 'over the page size', variables: { p: 'well', n: 100_000 }, prepared: false },
      { name: 'a string over the input limit', variables: { p: 'w'.repeat(100_001), n: 1 }, prepared: false },
    ].map((v) => ({
      name: `variables ${v.name}`,
      subgraph: 'assets',
      body: { query: PAGE_OF, variables: v.variables },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo', 'demo')) }),
      prepared: v.prepared,
    })),
    {
      name: 'variables as a list',
      subgraph: 'assets',
      body: { query: PAGE_OF, variables: ['well', 2] },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo', 'demo')) }),
      prepared: false,
    },
    {
      name: 'an entities request, as the gateway joins an asset with its issues',
      subgraph: 'issues',
      body: {
        query:
          'query($r: [_Any!]!) { _entities(representations: $r) { ... on IssueSubject { issues(first: 3) { edges { node { displayName } } } } } }',
        variables: { r: [{ __typename: 'IssueSubject', type: 'asset', reference: 'well/W-100-1-1' }] },
      },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo', 'demo')) }),
      prepared: true,
    },
    {
      name: 'the same entities, another tenant',
      subgraph: 'issues',
      body: {
        query:
          'query($r: [_Any!]!) { _entities(representations: $r) { ... on IssueSubject { issues(first: 3) { edges { node { displayName } } } } } }',
        variables: { r: [{ __typename: 'IssueSubject', type: 'asset', reference: 'well/W-100-1-1' }] },
      },
      headers: () => ({ [IDENTITY_HEADER]: signer.sign(identity('demo-east-user', 'demo-east')) }),
      prepared: true,
    },
    {
      name: 'variables with a forwarded session (another router): Yoga',
      subgraph: 'assets',
      body: { query: PAGE_OF, variables: { p: 'well', n: 2 } },
      headers: () => demo,
      prepared: false,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await sendThrice(
        () => to('fast', c.subgraph, c.body, c.headers()),
        () => to('slow', c.subgraph, c.body, c.headers()),
        subgraphMetrics,
        c.prepared,
      );
    });
  }

  it('survives requests that go away half-way through their body, and serves the next', async () => {
    const body = JSON.stringify({ query: PAGE });
    const headers = { [IDENTITY_HEADER]: signer.sign(identity('demo', 'demo')) };
    const url = subgraphs.fast.assets!;
    await to('fast', 'assets', { query: PAGE }, headers);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        partialBodyClient(url, '/graphql', body, headers, Math.floor(body.length / 2), 5 + i),
      ),
    );
    const after = await to('fast', 'assets', { query: PAGE }, headers);
    expect(after.status).toBe(200);
    expect(((await after.json()) as { errors?: unknown }).errors).toBeUndefined();
  });
});
