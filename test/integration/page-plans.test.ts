import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from '../../src/observability/prometheus.ts';
import { listen } from '../../src/server/listen.ts';
import { encodeCursor } from '../../src/shared/cursors.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { type Alike, sendThrice as alikeThrice, outcomes, post } from '../helpers/alike.ts';
import {
  type Sent,
  type ServedSubgraphs,
  sent,
  serveSubgraphs,
  startTestApp,
  type TestApp,
} from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { rawClient } from '../helpers/raw-clients.ts';

/**
 * Planned pages (src/subgraphs/assets/page-plans.ts): a query for a page of assets' ids and
 * properties is answered by one statement instead of resolver by resolver. Two apps over one
 * database, in each form, the same requests to both: `fast` with planned queries, `slow`
 * without. Every answer must be the same (status, headers, body text), and `fast` must have
 * answered by the plan exactly the requests it may (its counter), so that the comparison is not
 * between two runs of the resolvers.
 */

const SECRET = 'page-plans-secret-0123456789abcdef0123';

let database: TestDatabase;
let metrics: PrometheusMetrics;
/** What the served subgraphs of the distributed `fast` gateway count. */
let subgraphMetrics: PrometheusMetrics;
let demo: Record<string, string>;
let east: Record<string, string>;
const served: ServedSubgraphs[] = [];

interface Form {
  fast: TestApp;
  slow: TestApp;
  /** Where the assets subgraph of `fast` counts its planned queries. */
  counter: PrometheusMetrics;
}
const forms: Record<'single' | 'distributed', Form> = {} as never;
/** Single process, with a response budget a page of 100 does not fit. */
let tight: { fast: TestApp; slow: TestApp; counter: PrometheusMetrics };

beforeAll(async () => {
  database = await freshDatabase();
  metrics = createPrometheusMetrics({ maxOperations: 100 });
  subgraphMetrics = createPrometheusMetrics({ maxOperations: 100 });
  const config = { secret: SECRET };
  forms.single = {
    fast: await startTestApp({ database, metrics, config }),
    slow: await startTestApp({ database, config: { ...config, plannedQueries: false } }),
    counter: metrics,
  };
  await seedDemo(database.db, forms.single.fast.config);
  const subgraphsOf = async (planned: boolean) => {
    const s = await serveSubgraphs({
      database,
      config: { ...config, plannedQueries: planned },
      ...(planned ? { metrics: subgraphMetrics } : {}),
    });
    served.push(s);
    return s.urls;
  };
  forms.distributed = {
    fast: await startTestApp({
      database,
      role: { kind: 'gateway' },
      config: { ...config, subgraphUrls: await subgraphsOf(true) },
    }),
    slow: await startTestApp({
      database,
      role: { kind: 'gateway' },
      config: { ...config, subgraphUrls: await subgraphsOf(false) },
    }),
    counter: subgraphMetrics,
  };
  const tightMetrics = createPrometheusMetrics({ maxOperations: 100 });
  // A page of ten ids is charged 2 + 2 × 10 fields (`all`, `edges`, then `node` and `id` per edge).
  const tightConfig = { ...config, documentLimits: { maxFields: 22 } };
  tight = {
    fast: await startTestApp({ database, metrics: tightMetrics, config: tightConfig }),
    slow: await startTestApp({ database, config: { ...tightConfig, plannedQueries: false } }),
    counter: tightMetrics,
  };
  demo = { 'x-svc-sessionid': await forms.single.fast.sessionFor('demo', 'demo') };
  east = { 'x-svc-sessionid': await forms.single.fast.sessionFor('demo-east-user', 'demo-east') };

  // 240 more wells, some without a status or a depth (the profile has no default for them), and
  // one stored with a JSON null, which writers never store but the read rule covers.
  const wells = Array.from({ length: 240 }, (_, i) => ({
    id: `PW-${String(i).padStart(3, '0')}`,
    properties: {
      name: `Planned ${i}`,
      ...(i % 3 ? { status: ['producing', 'shut-in', 'drilling'][i % 3] } : {}),
      ...(i % 4 ? { depth: 500 + i * 10.5 } : {}),
      ...(i % 7 === 0 ? { abandoned: true } : {}),
    },
  }));
  const upserted = await forms.single.slow.graphql(
    'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } } }',
    { input: { profile: 'well', assets: wells } },
    demo,
  );
  expect((upserted.body as any).data.upsertAssets.errors).toEqual([]);
  await database.db
    .updateTable('assets')
    .set({ properties: JSON.stringify({ name: 'Stored null', status: null, abandoned: null }) as never })
    .where('user_group', '=', 'demo')
    .where('profile', '=', 'well')
    .where('id', '=', 'PW-005')
    .execute();
  // Properties that are not an object at all, as no writer stores them: read as none, alike.
  for (const [id, value] of [
    ['PW-006', 'null'],
    ['PW-007', '[1, 2]'],
    ['PW-008', '"text"'],
  ] as const)
    await database.db
      .updateTable('assets')
      .set({ properties: value as never })
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .where('id', '=', id)
      .execute();
}, 90_000);
afterAll(async () => {
  // The rows no writer would store go before the database's own checks on close.
  await database?.db
    .deleteFrom('assets')
    .where('user_group', '=', 'demo')
    .where('id', 'in', ['PW-006', 'PW-007', 'PW-008'])
    .execute();
  for (const form of [...Object.values(forms), tight]) {
    await form?.fast.close();
    await form?.slow.close();
  }
  for (const s of served) await s.close();
  await database?.close();
});

/** How many requests the assets subgraph counted, by outcome. */
const planned = (counter: PrometheusMetrics) =>
  outcomes(counter, 'assetql_planned_queries_total', { subgraph: 'assets' });

type Outcome = 'answered' | 'declined' | 'unplanned';

const sendThrice = (form: Alike, request: () => Request, outcome: Outcome): Promise<Sent> =>
  alikeThrice(form, planned, request, outcome);

const ONLY = '["name", "status", "depth", "uwi", "facilityId", "abandoned", "no such property", "name"]';
const page = (args: string, node = `id properties(only: ${ONLY})`) =>
  `{ assets(profile: "well") { all${args ? `(${args})` : ''} { edges { node { ${node} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  headers?: () => Record<string, string>;
  outcome: Outcome;
  /** What the answer must hold besides being the same on both (that the case tests something). */
  check?: (body: any) => void;
}

const edgesOf = (body: any) => body.data.assets.all.edges as { node: { id: string; properties?: any } }[];

const cases: Case[] = [
  {
    name: 'a page of 100 wells, properties by name',
    query: page('first: 100'),
    outcome: 'answered',
    check: (b) => {
      expect(edgesOf(b)).toHaveLength(100);
      expect(b.data.assets.all.pageInfo.hasNextPage).toBe(true);
      // The default of `abandoned`, no key for what is neither stored nor defaulted.
      const stored = edgesOf(b).find((e) => e.node.id === 'PW-005')!.node.properties;
      expect(stored).toEqual({ name: 'Stored null', status: null, abandoned: false });
      for (const id of ['PW-006', 'PW-007', 'PW-008'])
        expect(edgesOf(b).find((e) => e.node.id === id)!.node.properties).toEqual({ abandoned: false });
      expect(Object.keys(edgesOf(b).find((e) => e.node.id === 'PW-001')!.node.properties)).toEqual([
        'name',
        'status',
        'depth',
        'abandoned',
      ]);
    },
  },
  {
    name: 'every property, defaults applied',
    query: page('first: 30', 'id properties'),
    outcome: 'answered',
    check: (b) => expect(edgesOf(b).every((e) => e.node.properties.abandoned !== undefined)).toBe(true),
  },
  { name: 'ids only', query: page('first: 7', 'id'), outcome: 'answered' },
  { name: 'no arguments (the default page)', query: page('', 'id'), outcome: 'answered' },
  {
    name: 'after a cursor',
    query: page(`first: 50, after: "${encodeCursor(['PW-100'])}"`),
    outcome: 'answered',
    check: (b) => expect(edgesOf(b)[0]!.node.id).toBe('PW-101'),
  },
  {
    name: 'backwards, before a cursor',
    query: page(`last: 5, before: "${encodeCursor(['PW-100'])}"`),
    outcome: 'answered',
    check: (b) => {
      expect(edgesOf(b).map((e) => e.node.id)).toEqual(['PW-095', 'PW-096', 'PW-097', 'PW-098', 'PW-099']);
      // Both ways on: wells before these, and the cursor's own after them.
      expect(b.data.assets.all.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    },
  },
  { name: 'the last page', query: page('last: 3'), outcome: 'answered' },
  { name: 'an empty page', query: page('first: 0'), outcome: 'answered' },
  {
    name: 'a literal filter',
    query: page(
      'first: 100, filter: { property: { name: "status", equals: "producing" }, and: [{ property: { name: "depth", gt: 1000 } }] }',
    ),
    outcome: 'answered',
    check: (b) => expect(edgesOf(b).length).toBeGreaterThan(5),
  },
  {
    name: 'a filter nothing matches',
    query: page(
      'first: 10, filter: { property: { name: "status", equals: "abandoned" }, and: [{ property: { name: "depth", gt: 1000000 } }] }',
    ),
    outcome: 'answered',
    check: (b) =>
      expect(b.data.assets.all).toEqual({
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      }),
  },
  {
    name: 'aliases, __typename at every level, cursors, two lists of edges',
    query: `query Named { __typename a: assets(profile: "site") { __typename list: all(first: 4) { __typename
      one: edges { __typename c: cursor node { __typename key: id p: properties(only: ["operator", "name"]) } }
      two: edges { cursor n: node { id } } info: pageInfo { __typename endCursor hasNextPage } } } }`,
    outcome: 'answered',
    check: (b) => expect(b.data.a.list.one[0].node.p.operator).toBeDefined(),
  },
  {
    name: 'variables for every argument',
    query: `query($p: ID!, $n: Int, $after: String, $only: [String!], $f: AssetFilter) {
      assets(profile: $p) { all(first: $n, after: $after, filter: $f) { edges { cursor node { id properties(only: $only) } } } } }`,
    variables: {
      p: 'well',
      n: 20,
      after: encodeCursor(['PW-010']),
      only: ['depth', 'abandoned'],
      f: { property: { name: 'depth', gt: 600 } },
    },
    outcome: 'answered',
  },
  {
    name: 'variables left out and null',
    query: `query($n: Int = 3, $only: [String!]) { assets(profile: "well") { all(first: $n) { edges { node { id properties(only: $only) } } } } }`,
    variables: { only: null },
    outcome: 'answered',
  },
  {
    name: "another group's page, for its own user",
    query: page('first: 100'),
    headers: () => east,
    outcome: 'answered',
    check: (b) => expect(edgesOf(b).some((e) => e.node.id.startsWith('PW-'))).toBe(false),
  },
  // Declined: the resolvers report these.
  { name: 'not signed in', query: page('first: 5'), headers: () => ({}), outcome: 'declined' },
  {
    name: 'no such profile',
    query: '{ assets(profile: "no-such") { all { edges { node { id } } } } }',
    outcome: 'declined',
    check: (b) => expect(b.data.assets).toBeNull(),
  },
  { name: 'a page too large', query: page('first: 1001'), outcome: 'declined' },
  { name: 'a bad cursor', query: page('first: 5, after: "not a cursor"'), outcome: 'declined' },
  {
    name: 'a cursor PostgreSQL could not compare',
    query: page(`first: 5, after: "${encodeCursor(['PW\u0000'])}"`),
    outcome: 'declined',
    check: (b) => expect(b.errors[0].extensions.code).toBe('BAD_USER_INPUT'),
  },
  { name: 'both directions', query: page('first: 5, last: 5'), outcome: 'declined' },
  {
    name: 'a filter on an unknown property',
    query: page('first: 5, filter: { property: { name: "nope", equals: 1 } }'),
    outcome: 'declined',
  },
  {
    name: 'a variable of the wrong type',
    query: 'query($n: Int) { assets(profile: "well") { all(first: $n) { edges { node { id } } } } }',
    variables: { n: 'many' },
    // The gateway refuses it before any subgraph sees it.
    outcome: 'unplanned',
  },
  // Not planned: execution answers them.
  { name: 'another field of the asset', query: page('first: 5', 'id displayName'), outcome: 'unplanned' },
  {
    name: 'a fragment',
    query:
      '{ assets(profile: "well") { all(first: 5) { edges { node { ...F } } } } } fragment F on Asset { id }',
    outcome: 'unplanned',
  },
  { name: 'an inline fragment', query: page('first: 5', '... on Asset { id }'), outcome: 'unplanned' },
  { name: 'a directive', query: page('first: 5', 'id @include(if: true)'), outcome: 'unplanned' },
  {
    name: 'one response key twice',
    query:
      '{ assets(profile: "well") { all(first: 5) { edges { node { id } } edges { node { properties } } } } }',
    outcome: 'unplanned',
  },
  {
    name: 'two pages',
    query:
      '{ assets(profile: "well") { a: all(first: 2) { edges { node { id } } } b: all(last: 2) { edges { node { id } } } } }',
    outcome: 'unplanned',
  },
  { name: 'another root field', query: '{ assets(profile: "well") { profile } }', outcome: 'unplanned' },
];

describe.each(['single', 'distributed'] as const)('planned pages, %s', (formName) => {
  it.each(cases)('$name: the same answer as the resolvers', async (c) => {
    const form = forms[formName];
    const last = await sendThrice(form, () => post(c.query, c.variables, c.headers?.() ?? demo), c.outcome);
    if (c.outcome === 'answered') expect(JSON.parse(last.body).errors).toBeUndefined();
    if (c.outcome === 'declined' && !c.check) expect(JSON.parse(last.body).errors).toBeDefined();
    c.check?.(JSON.parse(last.body));
  });

  it('answers one document with other variables each time, and its literals alike', async () => {
    const form = forms[formName];
    const query = `query($p: ID!, $n: Int, $only: [String!]) { assets(profile: $p) {
      all(first: $n, filter: { property: { name: "name", contains: "a" } }) { edges { node { id properties(only: $only) } } } } }`;
    const bodies = new Set<string>();
    for (const variables of [
      { p: 'well', n: 3, only: ['name'] },
      { p: 'site', n: 2, only: ['operator'] },
      { p: 'well', n: 5, only: ['status', 'depth'] },
      { p: 'facility', n: 1, only: null },
    ]) {
      const last = await sendThrice(form, () => post(query, variables, demo), 'answered');
      expect(JSON.parse(last.body).errors).toBeUndefined();
      bodies.add(last.body);
    }
    expect(bodies.size).toBe(4);
  });

  it('answers each tenant its own page, under 80 concurrent requests', async () => {
    const { fast, slow } = forms[formName];
    const query = page('first: 100');
    const expected = {
      demo: await sent(await slow.handle(post(query, undefined, demo))),
      east: await sent(await slow.handle(post(query, undefined, east))),
    };
    expect(expected.demo.body).not.toEqual(expected.east.body);
    const before = await planned(forms[formName].counter);
    const answers = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const who = i % 2 ? 'east' : 'demo';
        return {
          who,
          got: await sent(await fast.handle(post(query, undefined, who === 'east' ? east : demo))),
        };
      }),
    );
    for (const { who, got } of answers) expect(got).toEqual(expected[who as 'demo' | 'east']);
    expect((await planned(forms[formName].counter)).answered - before.answered).toBe(80);
  });

  it('survives clients that go away before their page, over a real socket', async () => {
    const { fast } = forms[formName];
    const server = await listen((request, address) => fast.handle(request, address), 0, '127.0.0.1');
    try {
      const once = rawClient(server.url, JSON.stringify({ query: page('first: 1000') }), demo, '"pageInfo"');
      expect(await once(null)).toContain('HTTP/1.1 200');
      await Promise.all(Array.from({ length: 40 }, (_, i) => once(i % 10)));
      const before = await planned(forms[formName].counter);
      expect(await once(null)).toContain('HTTP/1.1 200');
      // (What the clients that left asked for may still be finishing.)
      expect((await planned(forms[formName].counter)).answered).toBeGreaterThanOrEqual(before.answered + 1);
    } finally {
      await server.close(100);
    }
  });
});

describe('planned pages and the response budget', () => {
  const ids = (n: number) => `{ assets(profile: "well") { all(first: ${n}) { edges { node { id } } } } }`;

  it('answers a page that fits exactly', async () => {
    const last = await sendThrice(tight, () => post(ids(10), undefined, demo), 'answered');
    expect(JSON.parse(last.body).data.assets.all.edges).toHaveLength(10);
  });

  it('leaves one more row to the resolvers, which refuse it alike', async () => {
    const last = await sendThrice(tight, () => post(ids(11), undefined, demo), 'declined');
    expect(JSON.parse(last.body).errors[0].extensions.code).toBe('RESPONSE_TOO_LARGE');
  });
});

// PGlite runs one statement at a time on the JavaScript thread: no other connection can hold a
// lock, and no timer cancels a statement.
describe.runIf(process.env.DATABASE_URL)('a planned page whose statement fails (PostgreSQL)', () => {
  it('is answered as the resolvers answer it, and not run again', async () => {
    const timed = async () =>
      Object.assign(await openDatabase({ url: database.url! }, { statementTimeoutMs: 300 }), {
        url: database.url,
      });
    const counter = createPrometheusMetrics({ maxOperations: 100 });
    const fast = await startTestApp({
      database: await timed(),
      metrics: counter,
      config: { secret: SECRET },
    });
    const slow = await startTestApp({
      database: await timed(),
      config: { secret: SECRET, plannedQueries: false },
    });
    // Another connection holds the assets table: the page's statement waits past its timeout,
    // while the session and the profile, in other tables, are read as always.
    const holder = await database.pool.connect();
    try {
      const query = page('first: 5');
      // Warm: the session, the profile, the plan.
      for (const app of [fast, slow])
        expect((await app.handle(post(query, undefined, demo))).status).toBe(200);
      await holder.query('begin');
      await holder.query('lock table assets in access exclusive mode');
      const before = await planned(counter);
      const a = await sent(await fast.handle(post(query, undefined, demo)));
      const after = await planned(counter);
      const b = await sent(await slow.handle(post(query, undefined, demo)));
      expect(a).toEqual(b);
      expect(JSON.parse(a.body).errors.map((e: any) => e.extensions.code)).toEqual(['TIMEOUT']);
      expect({
        answered: after.answered - before.answered,
        declined: after.declined - before.declined,
      }).toEqual({
        answered: 1,
        declined: 0,
      });
    } finally {
      await holder.query('rollback').catch(() => {});
      holder.release();
      await fast.close();
      await slow.close();
    }
  });
});
