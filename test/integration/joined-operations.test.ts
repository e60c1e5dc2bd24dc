import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from '../../src/observability/prometheus.ts';
import { listen } from '../../src/server/listen.ts';
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
 * Joined operations (src/gateway/joined-operations.ts): a query one subgraph answers but for
 * fields another adds to its entities (an asset's issues) is executed as two direct requests
 * instead of through the runtime's query planner. Two gateways over one database, in each form,
 * the same requests to both: `fast` joins, `slow` leaves everything to the planner. Every answer
 * must be the same (status, headers, body text), and `fast` must have joined exactly the
 * requests it may (its counter), so that the comparison is not between two runs of the planner.
 */

const SECRET = 'joined-operations-secret-0123456789abcdef';

let database: TestDatabase;
let demo: Record<string, string>;
let east: Record<string, string>;
const served: ServedSubgraphs[] = [];

interface Form {
  fast: TestApp;
  slow: TestApp;
  /** Where `fast`'s gateway counts its joined operations. */
  counter: PrometheusMetrics;
}
const forms: Record<'single' | 'distributed', Form> = {} as never;
/** Single process, with a cost limit that the two requests of a page of wells with issues pass one by one, not together. */
let tight: Form;

/** The facility with two issues, and wells with one each. */
let facility: string;
let wells: string[];

beforeAll(async () => {
  database = await freshDatabase();
  const config = { secret: SECRET };
  const counters = {
    single: createPrometheusMetrics({ maxOperations: 100 }),
    distributed: createPrometheusMetrics({ maxOperations: 100 }),
    tight: createPrometheusMetrics({ maxOperations: 100 }),
  };
  forms.single = {
    fast: await startTestApp({ database, metrics: counters.single, config }),
    slow: await startTestApp({ database, config: { ...config, joinedOperations: false } }),
    counter: counters.single,
  };
  await seedDemo(database.db, forms.single.fast.config);
  const subgraphs = await serveSubgraphs({ database, config });
  served.push(subgraphs);
  forms.distributed = {
    fast: await startTestApp({
      database,
      role: { kind: 'gateway' },
      metrics: counters.distributed,
      config: { ...config, subgraphUrls: subgraphs.urls },
    }),
    slow: await startTestApp({
      database,
      role: { kind: 'gateway' },
      config: { ...config, subgraphUrls: subgraphs.urls, joinedOperations: false },
    }),
    counter: counters.distributed,
  };
  const tightConfig = { ...config, documentLimits: { maxCost: TIGHT_COST } };
  tight = {
    fast: await startTestApp({ database, metrics: counters.tight, config: tightConfig }),
    slow: await startTestApp({ database, config: { ...tightConfig, joinedOperations: false } }),
    counter: counters.tight,
  };
  demo = { 'x-svc-sessionid': await forms.single.fast.sessionFor('demo', 'demo') };
  east = { 'x-svc-sessionid': await forms.single.fast.sessionFor('demo-east-user', 'demo-east') };

  const ids = async (profile: string, n: number) =>
    (
      await database.db
        .selectFrom('assets')
        .select('id')
        .where('user_group', '=', 'demo')
        .where('profile', '=', profile)
        .orderBy('id')
        .limit(n)
        .execute()
    ).map((r) => r.id);
  facility = (await ids('facility', 1))[0]!;
  wells = await ids('well', 3);
  const subjects = [
    ['Pump jack vibration', `facility/${facility}`],
    ['Flare stack inspection', `facility/${facility}`],
    ...wells.map((w, i) => [`Well check ${i}`, `well/${w}`]),
  ];
  for (const [title, reference] of subjects) {
    const r = await forms.single.slow.graphql(
      'mutation($s: IssueSubjectInput) { createIssue(input: { displayName: $t, subject: $s }) { errors { type message } } }'.replace(
        '$t',
        JSON.stringify(title),
      ),
      { s: { type: 'asset', reference } },
      demo,
    );
    expect((r.body as any).data.createIssue.errors).toEqual([]);
  }
}, 120_000);
afterAll(async () => {
  for (const form of [...Object.values(forms), tight]) {
    await form?.fast.close();
    await form?.slow.close();
  }
  for (const s of served) await s.close();
  await database?.close();
});

/** How many requests the gateway counted, by outcome. */
const joined = (counter: PrometheusMetrics) => outcomes(counter, 'assetql_joined_operations_total');

type Outcome = 'answered' | 'declined' | 'unjoined';

const sendThrice = (form: Alike, request: () => Request, outcome: Outcome): Promise<Sent> =>
  alikeThrice(form, joined, request, outcome);

const ISSUES =
  'issues(first: 10) { edges { cursor node { id displayName status } } pageInfo { hasNextPage endCursor } }';
const byId = (selection: string, id = () => facility) =>
  `{ assets(profile: "facility") { byId(id: "${id()}") { ${selection} } } }`;

interface Case {
  name: string;
  query: () => string;
  variables?: () => Record<string, unknown>;
  headers?: () => Record<string, string>;
  outcome: Outcome;
  /** What the answer must hold besides being the same on both (that the case tests something). */
  check?: (body: any) => void;
}

const cases: Case[] = [
  {
    name: 'a facility, its wells and its issues (the peers bench Q3)',
    query: () =>
      byId(`id related(relationship: "wells") { ... on AssetRelationshipMany { assets { id properties(only: ["name", "status"]) } } }
        issueSubject { ${ISSUES} }`),
    outcome: 'answered',
    check: (b) => {
      expect(b.data.assets.byId.related.assets.length).toBeGreaterThan(0);
      expect(b.data.assets.byId.issueSubject.issues.edges.map((e: any) => e.node.displayName)).toEqual([
        'Flare stack inspection',
        'Pump jack vibration',
      ]);
    },
  },
  {
    name: 'the other subgraph’s field first, the key fields and __typename around it, in the client’s order',
    query: () => byId(`issueSubject { ${ISSUES} __typename reference type } __typename id`),
    outcome: 'answered',
    check: (b) => {
      expect(Object.keys(b.data.assets.byId.issueSubject)).toEqual([
        'issues',
        '__typename',
        'reference',
        'type',
      ]);
      expect(Object.keys(b.data.assets.byId)).toEqual(['issueSubject', '__typename', 'id']);
    },
  },
  {
    name: 'aliases at every level, __typename inside the other subgraph’s part',
    query: () =>
      `{ a: assets(profile: "facility") { f: byId(id: "${facility}") { s: issueSubject { t: type list: issues(first: 1) { __typename edges { n: node { i: id } } } all: issues { edges { node { id } } } } } } }`,
    outcome: 'answered',
    check: (b) => {
      expect(b.data.a.f.s.list.edges).toHaveLength(1);
      expect(b.data.a.f.s.all.edges).toHaveLength(2);
    },
  },
  {
    name: 'a page of wells, each with its issues (entities in a list)',
    query: () =>
      `{ assets(profile: "well") { all(first: 40) { edges { node { id issueSubject { issues(first: 3) { edges { node { displayName } } } } } } } } }`,
    outcome: 'answered',
    check: (b) => {
      const withIssues = b.data.assets.all.edges.filter(
        (e: any) => e.node.issueSubject.issues.edges.length > 0,
      );
      expect(withIssues.length).toBeGreaterThanOrEqual(3);
    },
  },
  {
    name: 'issues with the assets they are about (the issues subgraph at the root)',
    query: () =>
      '{ issues { all(first: 20) { edges { node { id subject { type reference assetReference { profile id asset { id displayName } } } } } } } }',
    outcome: 'answered',
    check: (b) => {
      const found = b.data.issues.all.edges.filter((e: any) => e.node.subject?.assetReference?.asset);
      expect(found.length).toBeGreaterThanOrEqual(5);
    },
  },
  {
    name: 'variables in both parts',
    query: () =>
      `query($id: ID!, $n: Int) { assets(profile: "facility") { byId(id: $id) { id issueSubject { issues(first: $n) { edges { node { id } } } } } } }`,
    variables: () => ({ id: facility, n: 1 }),
    outcome: 'answered',
    check: (b) => expect(b.data.assets.byId.issueSubject.issues.edges).toHaveLength(1),
  },
  {
    name: 'a variable left out',
    query: () =>
      `query($id: ID!, $n: Int) { assets(profile: "facility") { byId(id: $id) { id issueSubject { issues(first: $n) { edges { node { id } } } } } } }`,
    variables: () => ({ id: facility }),
    outcome: 'answered',
  },
  {
    name: 'an asset that does not exist: nothing to fetch',
    query: () => byId(`id issueSubject { ${ISSUES} }`, () => 'no-such-facility'),
    outcome: 'answered',
    check: (b) => expect(b.data.assets.byId).toBeNull(),
  },
  {
    name: 'another tenant’s facility',
    query: () => byId(`id issueSubject { ${ISSUES} }`),
    headers: () => east,
    outcome: 'answered',
    check: (b) => expect(b.data.assets.byId).toBeNull(),
  },
  // Declined: executed by the planner, which reports what went wrong.
  {
    name: 'anonymous',
    query: () => byId(`id issueSubject { ${ISSUES} }`),
    headers: () => ({}),
    outcome: 'declined',
    check: (b) => expect(b.errors[0].extensions.code).toBe('UNAUTHENTICATED'),
  },
  {
    name: 'an error in the other subgraph’s part',
    query: () =>
      byId('id issueSubject { issues(first: 10, after: "not a cursor") { edges { node { id } } } }'),
    outcome: 'declined',
    check: (b) => expect(b.errors[0].extensions.code).toBe('BAD_USER_INPUT'),
  },
  {
    name: 'an error in the root subgraph’s part',
    query: () =>
      `{ assets(profile: "well") { all(first: 5, after: "not a cursor") { edges { node { issueSubject { ${ISSUES} } } } } } }`,
    outcome: 'declined',
    check: (b) => expect(b.errors).toBeDefined(),
  },
  {
    name: 'a variable that does not coerce',
    query: () =>
      `query($id: ID!, $n: Int) { assets(profile: "facility") { byId(id: $id) { id issueSubject { issues(first: $n) { edges { node { id } } } } } } }`,
    variables: () => ({ id: facility, n: 'ten' }),
    outcome: 'unjoined',
    check: (b) => expect(b.errors[0].message).toContain('$n'),
  },
  // Not joined: left to the planner whole.
  {
    name: 'the other subgraph’s field in a fragment',
    query: () =>
      `query { assets(profile: "facility") { byId(id: "${facility}") { issueSubject { ...I } } } } fragment I on IssueSubject { ${ISSUES} }`,
    outcome: 'unjoined',
  },
  {
    name: 'the other subgraph’s field in an inline fragment',
    query: () => byId(`issueSubject { ... on IssueSubject { ${ISSUES} } }`),
    outcome: 'unjoined',
  },
  {
    name: 'the other subgraph’s field under a directive',
    query: () => byId(`issueSubject { issues(first: 2) @include(if: true) { edges { node { id } } } }`),
    outcome: 'unjoined',
  },
  {
    name: 'a directive on the way to the entity',
    query: () => byId(`issueSubject @skip(if: false) { ${ISSUES} }`),
    outcome: 'unjoined',
  },
  {
    name: 'a response key used twice in the entity’s selection',
    query: () => byId(`issueSubject { type type ${ISSUES} }`),
    outcome: 'unjoined',
  },
  {
    name: 'the entity field asked twice under one response key',
    query: () => byId(`issueSubject { type } issueSubject { ${ISSUES} }`),
    outcome: 'unjoined',
  },
  {
    name: 'a field two subgraphs answer at the root',
    query: () =>
      `{ session { authenticated } assets(profile: "facility") { byId(id: "${facility}") { id } } }`,
    outcome: 'unjoined',
  },
  {
    name: 'a key field’s response key taken by another field',
    query: () => byId(`issueSubject { type: reference ${ISSUES} }`),
    outcome: 'unjoined',
  },
  {
    name: 'a key field asked by the client under its own name and under an alias',
    query: () => byId(`issueSubject { type kind: type ${ISSUES} reference }`),
    outcome: 'answered',
    check: (b) => expect(b.data.assets.byId.issueSubject).toMatchObject({ type: 'asset', kind: 'asset' }),
  },
  {
    name: 'a response key named __proto__',
    query: () => byId(`issueSubject { __proto__: type ${ISSUES} }`),
    outcome: 'unjoined',
  },
  {
    name: 'a directive beside the other subgraph’s field',
    query: () => byId(`issueSubject { type @skip(if: true) ${ISSUES} }`),
    outcome: 'unjoined',
  },
  {
    name: 'two places of the entity (the planner fetches both at once)',
    query: () =>
      `{ assets(profile: "facility") { a: byId(id: "${facility}") { issueSubject { ${ISSUES} } } b: byId(id: "${facility}") { issueSubject { ${ISSUES} } } } }`,
    outcome: 'unjoined',
  },
  {
    name: 'a variable used only in a fragment of the root’s part, and a variable the operation does not define',
    query: () =>
      `query($only: [String!]) { assets(profile: "facility") { byId(id: "${facility}") {
         related(relationship: "wells") { ...R } issueSubject { ${ISSUES} } } } }
       fragment R on AssetRelationshipMany { assets { id properties(only: $only) } }`,
    variables: () => ({ only: ['name'], junk: 'x'.repeat(10_000) }),
    check: (b) => {
      expect(b.errors).toBeUndefined();
      expect(Object.keys(b.data.assets.byId.related.assets[0].properties)).toEqual(['name']);
    },
    outcome: 'answered',
  },
  {
    name: 'a list sized 0 over nested lists beside it (priced as the runtime prices it)',
    query: () =>
      `{ x: assets(profile: "well") { all(first: 0) { edges { node { related { ... on AssetRelationshipMany { assets { related { ... on AssetRelationshipMany { assets { related { ... on AssetRelationshipMany { assets { id } } } } } } } } } } } } }
         assets(profile: "facility") { byId(id: "${facility}") { issueSubject { ${ISSUES} } } } }`,
    outcome: 'declined',
    check: (b) => expect(b.errors[0].extensions.limit).toBe('maxCost'),
  },
  {
    name: 'introspection beside it',
    query: () =>
      `{ __schema { queryType { name } } assets(profile: "facility") { byId(id: "${facility}") { issueSubject { ${ISSUES} } } } }`,
    outcome: 'unjoined',
  },
];

for (const formName of ['single', 'distributed'] as const) {
  describe(`joined operations, ${formName}`, () => {
    for (const c of cases) {
      it(c.name, async () => {
        const last = await sendThrice(
          forms[formName],
          () => post(c.query(), c.variables?.(), c.headers?.() ?? demo),
          c.outcome,
        );
        c.check?.(JSON.parse(last.body));
      });
    }

    it('answers each tenant its own, under 80 concurrent requests', async () => {
      const { fast, slow } = forms[formName];
      const query = `{ assets(profile: "well") { all(first: 40) { edges { node { id issueSubject { ${ISSUES} } } } } } }`;
      const expected = {
        demo: await sent(await slow.handle(post(query, undefined, demo))),
        east: await sent(await slow.handle(post(query, undefined, east))),
      };
      expect(expected.demo.body).not.toEqual(expected.east.body);
      const before = await joined(forms[formName].counter);
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
      expect((await joined(forms[formName].counter)).answered - before.answered).toBe(80);
    });

    it('survives clients that go away mid-request, over a real socket', async () => {
      const { fast } = forms[formName];
      const server = await listen((request, address) => fast.handle(request, address), 0, '127.0.0.1');
      try {
        const query = `{ assets(profile: "well") { all(first: 200) { edges { node { id issueSubject { ${ISSUES} } } } end: __typename } } }`;
        const once = rawClient(server.url, JSON.stringify({ query }), demo, '"end":"');
        expect(await once(null)).toContain('HTTP/1.1 200');
        await Promise.all(Array.from({ length: 40 }, (_, i) => once(i % 10)));
        const before = await joined(forms[formName].counter);
        const answer = await once(null);
        expect(answer).toContain('HTTP/1.1 200');
        expect(answer).not.toContain('"errors"');
        // (What the clients that left asked for may still be finishing.)
        expect((await joined(forms[formName].counter)).answered).toBeGreaterThanOrEqual(before.answered + 1);
      } finally {
        await server.close(100);
      }
    });
  });
}

/**
 * The runtime's demand control prices each request of a plan and refuses the operation once their
 * sum is over `maxCost`. It prices `_entities` as one item; the join prices it by the
 * representations it is given, as the subgraphs do, so it may find a sum over the limit that the
 * runtime does not: it then declines, and the planner answers. Either way the answer is the
 * planner's.
 */
const TIGHT_COST = 310;
describe('joined operations and the cost limit', () => {
  const wellsWithIssues = (n: number) =>
    `{ assets(profile: "well") { all(first: ${n}) { edges { node { id issueSubject { issues(first: 5) { edges { node { id } } } } } } } } }`;

  it('answers what fits', async () => {
    const last = await sendThrice(tight, () => post(wellsWithIssues(5), undefined, demo), 'answered');
    expect(JSON.parse(last.body).data.assets.all.edges).toHaveLength(5);
  });

  it('leaves a sum over the limit to the planner, which refuses it alike', async () => {
    // The root subgraph's request alone is within the limit (a page of 100 costs 302).
    const alone = await tight.fast.graphql(
      '{ assets(profile: "well") { all(first: 100) { edges { node { id issueSubject { type reference } } } } } }',
      {},
      demo,
    );
    expect((alone.body as any).errors).toBeUndefined();
    const last = await sendThrice(tight, () => post(wellsWithIssues(100), undefined, demo), 'declined');
    expect(JSON.parse(last.body).errors[0].extensions).toMatchObject({
      limit: 'maxCost',
      maximum: TIGHT_COST,
    });
  });

  it('leaves a sum only its own pricing finds over the limit to the planner, which answers it', async () => {
    // 24 wells: 74 for the page, 24 × 12 for their issues by the join's pricing, 12 by the runtime's.
    const last = await sendThrice(tight, () => post(wellsWithIssues(24), undefined, demo), 'declined');
    expect(JSON.parse(last.body).data.assets.all.edges).toHaveLength(24);
  });
});

/**
 * The response budget (`maxFields`) is each request's: the join's two requests must each count
 * what the planner's count (the entity's `__typename` and key fields included), or it would answer
 * pages the planner refuses. Pages of wells with their issues, around the limit, answered alike.
 */
describe('joined operations and the response budget', () => {
  let budget: Form;
  beforeAll(async () => {
    const counter = createPrometheusMetrics({ maxOperations: 100 });
    const config = { secret: SECRET, documentLimits: { maxFields: 100, maxAliases: 200 } };
    budget = {
      fast: await startTestApp({ database, metrics: counter, config }),
      slow: await startTestApp({ database, config: { ...config, joinedOperations: false } }),
      counter,
    };
  });
  afterAll(async () => {
    await budget?.fast.close();
    await budget?.slow.close();
  });

  it('answers and refuses the same requests as the planner, around the limit', async () => {
    const outcomes = new Set<string>();
    // The planner adds to the root's request what the join does not need (the facility's
    // __typename and key, the relationship's __typename): near the limit only it can tell.
    for (let k = 70; k <= 95; k++) {
      const ids = Array.from({ length: k }, (_, i) => `i${i}: id`).join(' ');
      const query = byId(
        `${ids} related(relationship: "wells") { ... on AssetRelationshipMany { assets { id } } } issueSubject { issues(first: 1) { edges { node { id } } } }`,
      );
      for (let i = 0; i < 2; i++) {
        const a = await sent(await budget.fast.handle(post(query, undefined, demo)));
        const b = await sent(await budget.slow.handle(post(query, undefined, demo)));
        expect(a, `${k} ids`).toEqual(b);
        outcomes.add(JSON.parse(a.body).errors?.[0]?.extensions?.code ?? 'data');
      }
    }
    // The sweep crosses the limit.
    expect(outcomes).toEqual(new Set(['data', 'RESPONSE_TOO_LARGE']));
  });
});
