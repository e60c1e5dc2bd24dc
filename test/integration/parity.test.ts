import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/shared/cursors.ts';
import { type Sent, sent } from '../helpers/app.ts';
import {
  byId,
  deepObject,
  FILTERED,
  ISSUES,
  PAGE,
  PAGE_OF,
  pageOf,
  post,
  q,
  RELATED_OF,
  RENAME_OF,
  ROUTES,
  type RouteName,
  type Routes,
  SESSION,
  startRoutes,
  type Tally,
  TWO,
} from '../helpers/routes.ts';

/**
 * One pipeline, every route (src/execution/README.md). Every request below is sent down every
 * way the service can answer it, each forced by the flags that turn the others off, three times
 * each (a text is kept from its second parse, and the fast doors take it from the third), and
 * every answer must be the reference's: the same status, headers and body, `locations` included.
 * The reference is the runtime's query planner over the subgraphs' resolvers, with nothing else
 * on. Counters show each route took what it should, so that no comparison is between two runs of
 * one path.
 *
 * Hostile, cross-tenant, signed-out, aborted, over-limit and bad-variables requests are rows like
 * any other; the findings of the review that merged the fast paths into one pipeline are marked
 * (#36).
 */

let routes: Routes;
let served: Routes['served'];
let demo: Record<string, string>;
let east: Record<string, string>;
let facility: string;
/** A session signed out before any route saw it. */
let revoked: Record<string, string>;

beforeAll(async () => {
  routes = await startRoutes(Object.keys(ROUTES) as RouteName[]);
  ({ served, demo, east, facility } = routes);
  const reference = served.reference!.app;
  revoked = { 'x-svc-sessionid': await reference.sessionFor('demo', 'demo') };
  const out = await reference.graphql<any>('mutation { signOut { errors { type } } }', {}, revoked);
  expect(out.body.data.signOut.errors).toEqual([]);
}, 180_000);
afterAll(() => routes?.close());

interface Row {
  name: string;
  body: () => unknown;
  /** Who asks @default demo */
  as?: 'demo' | 'east' | 'anonymous' | 'revoked';
  /** The client has gone before the request is handled. */
  aborted?: boolean;
  headers?: Record<string, string>;
  /** Taken at the fast doors from the third sending @default true */
  door?: boolean;
  /** How the joined route takes it, when it does. */
  join?: 'answered' | 'declined';
  /** How the assets subgraph's page plan takes it, when it has one. */
  page?: 'answered' | 'declined';
  /** What the answer must hold besides being the same everywhere (that the row tests something). */
  check?: (answer: { status: number; body: any; text: string }) => void;
  /**
   * A defect of the runtime's query planner that shows only across processes, where the subgraph
   * validates what the planner sends it: the distributed forms' answer instead of the reference's.
   */
  distributedPlanner?: (answer: { status: number; body: any }) => void;
}

const byFacility = (selection: string) => byId(selection, facility);
const errorsOf = (a: { body: any }) => (a.body.errors ?? []) as any[];

const rows: Row[] = [
  // What one subgraph answers alone: the direct route.
  { name: 'typename', body: q('{ __typename }') },
  { name: 'a page of wells', body: q(PAGE) },
  { name: 'the session, named', body: q(SESSION, undefined, 'Mine') },
  { name: 'one of two operations', body: q(TWO, undefined, 'B') },
  { name: 'the other of two', body: q(TWO, undefined, 'A') },
  { name: 'issues', body: q('{ issues { all(first: 2) { edges { node { id displayName } } } } }') },
  {
    name: 'a mutation answering a payload error',
    body: q(
      'mutation { updateAssetFilter(input: { id: "no-such-filter", displayName: "x" }) { errors { type } } }',
    ),
    check: (a) => expect(a.body.data.updateAssetFilter.errors[0].type).toBe('NOT_FOUND'),
  },
  { name: 'empty variables', body: q(PAGE, {}) },
  { name: 'null variables and name', body: q(PAGE, null, null) },
  { name: 'variables the operation does not take', body: q(PAGE, { x: 1 }) },
  { name: 'variables given', body: q(PAGE_OF, { p: 'well', n: 2 }) },
  { name: 'variables on another profile', body: q(PAGE_OF, { p: 'site', n: 1 }) },
  { name: 'a variable left out', body: q(PAGE_OF, { p: 'well' }) },
  { name: 'a variable null', body: q(PAGE_OF, { p: 'well', n: null }) },
  {
    name: 'a variable named __proto__',
    body: () =>
      `{"query": ${JSON.stringify(PAGE_OF)}, "variables": {"__proto__": {"p": "site"}, "p": "well", "n": 1}}`,
  },
  { name: 'a JSONObject variable, null', body: q(RELATED_OF, { p: null }) },
  {
    name: 'the session, signed out',
    body: q(SESSION, undefined, 'Mine'),
    as: 'anonymous',
    check: (a) => expect(a.body.data.session.authenticated).toBe(false),
  },
  {
    name: 'a page, signed out: refused by the resolver',
    body: q(PAGE),
    as: 'anonymous',
    check: (a) => expect(errorsOf(a)[0].extensions.code).toBe('UNAUTHENTICATED'),
  },
  {
    name: "another tenant's page",
    body: q(PAGE),
    as: 'east',
    check: (a) => expect(JSON.stringify(a.body)).not.toMatch(/"W-/),
  },
  {
    name: 'a page, by a session signed out before',
    body: q(PAGE),
    as: 'revoked',
    check: (a) => expect(errorsOf(a)[0].extensions.code).toBe('UNAUTHENTICATED'),
  },
  {
    name: 'the session, by a session signed out before',
    body: q(SESSION),
    as: 'revoked',
    check: (a) => expect(a.body.data.session.authenticated).toBe(false),
  },
  {
    name: 'a page, the client gone before it is handled: nothing runs',
    body: q(PAGE),
    aborted: true,
    door: false,
    check: (a) => expect(a.status).toBe(499),
  },
  {
    name: 'a mutation, the client gone before it is handled: nothing runs',
    body: q(RENAME_OF, { id: 'gone-filter', name: 'x' }),
    aborted: true,
    door: false,
    check: (a) => expect(a.status).toBe(499),
  },
  {
    name: 'a non-null argument made null by its variable’s explicit null',
    body: q('query($p: ID = "well") { assets(profile: $p) { all(first: 1) { edges { node { id } } } } }', {
      p: null,
    }),
    check: (a) => expect(errorsOf(a)[0].locations).toEqual([{ line: 1, column: 42 }]),
  },
  {
    name: 'a field error keeps its locations (#36, finding 5)',
    body: q(
      '{ assets(profile: "well") { all(first: 2) { edges { node { id related(relationship: "nosuch") { __typename } } } } } }',
    ),
    check: (a) => {
      expect(errorsOf(a)).toHaveLength(2);
      for (const e of errorsOf(a)) expect(e.locations).toEqual([{ line: 1, column: 63 }]);
    },
  },
  {
    name: 'thirty failing aliases under a page: errors are bounded (#36)',
    body: () => ({
      query: `{ assets(profile: "well") { all(first: 1000) { edges { node { ${Array.from({ length: 30 }, (_, i) => `a${i}: related(relationship: "nosuch") { __typename }`).join(' ')} } } } } }`,
    }),
    check: (a) => {
      expect(a.body.data).toBeNull();
      expect(errorsOf(a).map((e) => e.extensions.limit)).toEqual(['maxErrors']);
    },
  },
  // Refused before anything runs (admission): the same refusal whichever door.
  ...(
    [
      ['that do not coerce', { p: 'well', n: 'two' }],
      ['a required one missing', { n: 2 }],
      ['a required one null', { p: null, n: 2 }],
      ['a string over the input limit', { p: 'w'.repeat(100_001), n: 1 }],
      ['a string with U+0000', { p: 'we\u0000ll', n: 1 }],
      ['a lone surrogate', { p: 'we\ud800ll', n: 1 }],
      ['a list over the input limit, unused', { p: 'well', n: 1, other: Array(1_001).fill(0) }],
      ['an object key over the input limit', { p: 'well', n: 1, ['k'.repeat(100_001)]: 1 }],
      ['nested too deep, unused', { p: 'well', n: 1, other: deepObject(40) }],
      ['over the variables bytes', { p: 'well', n: 1, other: Array(300).fill('x'.repeat(8_000)) }],
    ] as const
  ).map(
    ([name, variables]): Row => ({
      name: `variables ${name}`,
      body: q(PAGE_OF, variables),
      check: (a) => {
        expect(a.status).toBe(400);
        expect(a.body.data ?? null).toBeNull();
      },
    }),
  ),
  {
    name: 'variables that do not coerce, under application/json: 400 (#36, finding 4)',
    body: q(PAGE_OF, { p: 'well', n: 'two' }),
    headers: { accept: 'application/json' },
    check: (a) => expect(a.status).toBe(400),
  },
  {
    name: 'a JSONObject variable that is a list, under application/json: the gateway refuses it (#36, finding 4)',
    body: q(RELATED_OF, { p: [1] }),
    headers: { accept: 'application/json' },
    check: (a) => {
      expect(a.status).toBe(400);
      expect(errorsOf(a)[0].message).toMatch(/JSONObject cannot represent/);
      expect(errorsOf(a)[0].extensions).toBeUndefined();
    },
  },
  {
    name: 'a JSONObject variable that is a string',
    body: q(RELATED_OF, { p: 'x' }),
    check: (a) => expect(a.status).toBe(400),
  },
  {
    name: 'a filter holding 100,000 failing items, signed out: 51 errors (#36, finding 1)',
    body: q(FILTERED, {
      f: {
        and: Array.from({ length: 100 }, () => ({
          and: Array.from({ length: 1_000 }, () => ({ bogus: 1 })),
        })),
      },
    }),
    as: 'anonymous',
    check: (a) => {
      expect(a.status).toBe(400);
      expect(errorsOf(a)).toHaveLength(51);
      expect(a.text.length).toBeLessThan(20_000);
    },
  },
  {
    name: 'a page over the largest size (the resolver refuses it)',
    body: q(PAGE_OF, { p: 'well', n: 100_000 }),
  },
  { name: 'variables without a required one', body: q(PAGE_OF) },
  {
    name: 'a mutation whose variables do not coerce',
    body: q(RENAME_OF, { id: ['not', 'an', 'id'], name: 'x' }),
  },
  // What the fast doors do not look at: the pipeline answers it.
  { name: 'variables not an object', body: q(PAGE, 'x'), door: false },
  { name: 'variables a list', body: q(PAGE, []), door: false },
  { name: 'extensions', body: () => ({ query: PAGE, extensions: {} }), door: false },
  { name: 'another parameter', body: () => ({ query: PAGE, foo: 1 }), door: false },
  { name: 'an operation name not in it', body: q(TWO, undefined, 'C'), door: false },
  { name: 'no operation name for two', body: q(TWO), door: false },
  { name: 'a name that is not a string', body: q(PAGE, undefined, 1), door: false },
  { name: 'not JSON', body: () => '{"query": "{ __typename }"', door: false },
  { name: 'a query that is not a string', body: () => ({ query: 1 }), door: false },
  { name: 'a batch', body: () => [{ query: '{ __typename }' }, { query: SESSION }], door: false },
  { name: 'a document that does not parse', body: q('{ __typename'), door: false },
  { name: 'a field that does not exist', body: q('{ nope }'), door: false },
  {
    name: 'a malformed length',
    body: q('{ __typename }'),
    headers: { 'content-length': '1, 1' },
    door: false,
  },
  { name: 'introspection', body: q('{ __schema { queryType { name } } }'), door: false },
  {
    name: 'two subgraphs at the root',
    body: q(`{ session { authenticated } assets(profile: "facility") { byId(id: "F-1") { id } } }`),
    door: false,
  },
  ...(
    [
      ['*/*', true],
      ['application/json', true],
      ['application/graphql-response+json', true],
      ['application/json;charset=utf-8, application/graphql-response+json', true],
      ['Application/JSON', true],
      ['text/event-stream', false],
      ['multipart/mixed', false],
      ['application/json, text/event-stream', true],
      ['application/json; charset=latin1', false],
      ['text/html', false],
    ] as const
  ).map(([accept, door]): Row => ({ name: `accept ${accept}`, body: q(SESSION), headers: { accept }, door })),
  // Joined: one subgraph's answer and one entity fetch of another's.
  {
    name: 'a facility, its wells and its issues (the peers bench Q3)',
    body: () => ({
      query:
        byFacility(`id related(relationship: "wells") { ... on AssetRelationshipMany { assets { id properties(only: ["name", "status"]) } } }
        issueSubject { ${ISSUES} }`),
    }),
    join: 'answered',
    check: (a) =>
      expect(a.body.data.assets.byId.issueSubject.issues.edges.map((e: any) => e.node.displayName)).toEqual([
        'Flare stack inspection',
        'Pump jack vibration',
      ]),
  },
  {
    name: 'joined: the key fields and __typename around the other subgraph’s field, in the client’s order',
    body: () => ({ query: byFacility(`issueSubject { ${ISSUES} __typename reference type } __typename id`) }),
    join: 'answered',
  },
  {
    name: 'joined: aliases at every level',
    body: () => ({
      query: `{ a: assets(profile: "facility") { f: byId(id: "${facility}") { s: issueSubject { t: type list: issues(first: 1) { __typename edges { n: node { i: id } } } } } } }`,
    }),
    join: 'answered',
  },
  {
    name: 'joined: a page of wells, each with its issues',
    body: q(
      '{ assets(profile: "well") { all(first: 40) { edges { node { id issueSubject { issues(first: 3) { edges { node { displayName } } } } } } } } }',
    ),
    join: 'answered',
  },
  {
    name: 'joined: issues with the assets they are about',
    body: q(
      '{ issues { all(first: 20) { edges { node { id subject { type reference assetReference { profile id asset { id displayName } } } } } } } }',
    ),
    join: 'answered',
  },
  {
    name: 'joined: variables in both parts',
    body: () => ({
      query:
        'query($id: ID!, $n: Int) { assets(profile: "facility") { byId(id: $id) { id issueSubject { issues(first: $n) { edges { node { id } } } } } } }',
      variables: { id: facility, n: 1 },
    }),
    join: 'answered',
  },
  {
    name: "joined: another tenant's facility",
    body: () => ({ query: byFacility(`id issueSubject { ${ISSUES} }`) }),
    as: 'east',
    join: 'answered',
    check: (a) => expect(a.body.data.assets.byId).toBeNull(),
  },
  {
    name: 'joined, declined: signed out',
    body: () => ({ query: byFacility(`id issueSubject { ${ISSUES} }`) }),
    as: 'anonymous',
    join: 'declined',
    check: (a) => expect(errorsOf(a)[0].extensions.code).toBe('UNAUTHENTICATED'),
  },
  {
    name: 'joined, declined: an error in the other subgraph’s part',
    body: () => ({
      query: byFacility(
        'id issueSubject { issues(first: 10, after: "not a cursor") { edges { node { id } } } }',
      ),
    }),
    join: 'declined',
  },
  {
    name: 'joined: a variable that does not coerce is refused before',
    body: () => ({
      query:
        'query($id: ID!, $n: Int) { assets(profile: "facility") { byId(id: $id) { id issueSubject { issues(first: $n) { edges { node { id } } } } } } }',
      variables: { id: facility, n: 'ten' },
    }),
    check: (a) => expect(a.status).toBe(400),
  },
  {
    name: 'joined: a filter holding 100,000 failing items, signed out (#36, finding 1)',
    body: q(
      'query($f: AssetFilter) { assets(profile: "well") { all(first: 2, filter: $f) { edges { node { id issueSubject { issues(first: 1) { edges { node { id } } } } } } } } }',
      {
        f: {
          and: Array.from({ length: 100 }, () => ({
            and: Array.from({ length: 1_000 }, () => ({ bogus: 1 })),
          })),
        },
      },
    ),
    as: 'anonymous',
    check: (a) => expect(errorsOf(a)).toHaveLength(51),
  },
  {
    name: 'joined: a variable left out',
    body: () => ({
      query:
        'query($id: ID!, $n: Int) { assets(profile: "facility") { byId(id: $id) { id issueSubject { issues(first: $n) { edges { node { id } } } } } } }',
      variables: { id: facility },
    }),
    join: 'answered',
  },
  {
    name: 'joined: an asset that does not exist, nothing to fetch',
    body: () => ({ query: byId(`id issueSubject { ${ISSUES} }`, 'no-such-facility') }),
    join: 'answered',
    check: (a) => expect(a.body.data.assets.byId).toBeNull(),
  },
  {
    name: 'joined: a key field asked under its own name and under an alias',
    body: () => ({ query: byFacility(`issueSubject { type kind: type ${ISSUES} reference }`) }),
    join: 'answered',
  },
  {
    name: 'joined, declined: an error in the root subgraph’s part',
    body: q(
      `{ assets(profile: "well") { all(first: 5, after: "not a cursor") { edges { node { issueSubject { ${ISSUES} } } } } } }`,
    ),
    join: 'declined',
  },
  ...(
    [
      ['an inline fragment', `issueSubject { ... on IssueSubject { ${ISSUES} } }`],
      ['a directive on it', 'issueSubject { issues(first: 2) @include(if: true) { edges { node { id } } } }'],
      ['a directive on the way', `issueSubject @skip(if: false) { ${ISSUES} }`],
      ['a response key twice', `issueSubject { type type ${ISSUES} }`],
      ['the entity asked twice', `issueSubject { type } issueSubject { ${ISSUES} }`],
      ['a key field’s response key taken', `issueSubject { type: reference ${ISSUES} }`],
      ['a response key named __proto__', `issueSubject { __proto__: type ${ISSUES} }`],
      ['a directive beside it', `issueSubject { type @skip(if: true) ${ISSUES} }`],
    ] as const
  ).map(
    ([name, selection]): Row => ({
      name: `not joined: ${name}`,
      body: () => ({ query: byFacility(selection) }),
      door: false,
      // Hive's planner adds the entity's key fields beside the client's `type: reference`, which
      // conflict: one process executes its request as it is, a subgraph process refuses it.
      ...(selection.startsWith('issueSubject { type: reference')
        ? {
            distributedPlanner: (a: { body: any }) =>
              expect(errorsOf(a)[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED'),
          }
        : {}),
    }),
  ),
  {
    name: 'not joined: the other subgraph’s field in a fragment',
    body: () => ({
      query: `query { assets(profile: "facility") { byId(id: "${facility}") { issueSubject { ...I } } } } fragment I on IssueSubject { ${ISSUES} }`,
    }),
    door: false,
  },
  {
    name: 'not joined: two places of the entity',
    body: () => ({
      query: `{ assets(profile: "facility") { a: byId(id: "${facility}") { issueSubject { ${ISSUES} } } b: byId(id: "${facility}") { issueSubject { ${ISSUES} } } } }`,
    }),
    door: false,
  },
  {
    name: 'joined, declined for its price: a list sized 0 over nested lists beside it',
    body: () => ({
      query: `{ x: assets(profile: "well") { all(first: 0) { edges { node { related { ... on AssetRelationshipMany { assets { related { ... on AssetRelationshipMany { assets { related { ... on AssetRelationshipMany { assets { id } } } } } } } } } } } } }
         assets(profile: "facility") { byId(id: "${facility}") { issueSubject { ${ISSUES} } } } }`,
    }),
    join: 'declined',
    check: (a) => expect(errorsOf(a)[0].extensions.limit).toBe('maxCost'),
  },
  // Planned pages: one statement for a page of ids and properties.
  {
    name: 'a page of 60 wells, properties by name',
    body: q(pageOf('first: 60')),
    page: 'answered',
    check: (a) => {
      const stored = a.body.data.assets.all.edges.find((e: any) => e.node.id === 'PW-005');
      expect(stored.node.properties).toEqual({ name: 'Stored null', status: null, abandoned: false });
    },
  },
  {
    name: 'page: every property, defaults applied',
    body: q(pageOf('first: 30', 'id properties')),
    page: 'answered',
  },
  {
    name: 'page: after a cursor',
    body: q(pageOf(`first: 20, after: "${encodeCursor(['PW-010'])}"`)),
    page: 'answered',
  },
  {
    name: 'page: backwards, before a cursor',
    body: q(pageOf(`last: 5, before: "${encodeCursor(['PW-020'])}"`)),
    page: 'answered',
  },
  { name: 'page: an empty page', body: q(pageOf('first: 0')), page: 'answered' },
  {
    name: 'page: a literal filter',
    body: q(
      pageOf(
        'first: 100, filter: { property: { name: "status", equals: "producing" }, and: [{ property: { name: "depth", gt: 600 } }] }',
      ),
    ),
    page: 'answered',
  },
  {
    name: 'page: variables for every argument',
    body: q(
      `query($p: ID!, $n: Int, $after: String, $only: [String!], $f: AssetFilter) {
        assets(profile: $p) { all(first: $n, after: $after, filter: $f) { edges { cursor node { id properties(only: $only) } } } } }`,
      {
        p: 'well',
        n: 20,
        after: encodeCursor(['PW-010']),
        only: ['depth', 'abandoned'],
        f: { property: { name: 'depth', gt: 600 } },
      },
    ),
    page: 'answered',
  },
  { name: 'page: ids only', body: q(pageOf('first: 7', 'id')), page: 'answered' },
  { name: 'page: no arguments (the default page)', body: q(pageOf('', 'id')), page: 'answered' },
  { name: 'page: the last page', body: q(pageOf('last: 3')), page: 'answered' },
  {
    name: "page: another group's, for its own user",
    body: q(pageOf('first: 100')),
    as: 'east',
    page: 'answered',
  },
  {
    name: 'page: aliases, __typename at every level, cursors, two lists of edges',
    body: q(`query Named { __typename a: assets(profile: "site") { __typename list: all(first: 4) { __typename
      one: edges { __typename c: cursor node { __typename key: id p: properties(only: ["operator", "name"]) } }
      two: edges { cursor n: node { id } } info: pageInfo { __typename endCursor hasNextPage } } } }`),
    page: 'answered',
  },
  ...[
    { p: 'well', n: 3, only: ['name'] },
    { p: 'site', n: 2, only: ['operator'] },
    { p: 'facility', n: 1, only: null },
  ].map(
    (variables): Row => ({
      name: `page: one document, literals and variables (${variables.p})`,
      body: q(
        `query($p: ID!, $n: Int, $only: [String!]) { assets(profile: $p) {
          all(first: $n, filter: { property: { name: "name", contains: "a" } }) { edges { node { id properties(only: $only) } } } } }`,
        variables,
      ),
      page: 'answered',
    }),
  ),
  {
    name: 'page, declined: no such profile',
    body: q('{ assets(profile: "no-such") { all { edges { node { id } } } } }'),
    page: 'declined',
  },
  {
    name: 'page, declined: a filter on an unknown property',
    body: q(pageOf('first: 5, filter: { property: { name: "nope", equals: 1 } }')),
    page: 'declined',
  },
  { name: 'page, not planned: another field of the asset', body: q(pageOf('first: 5', 'id displayName')) },
  {
    name: 'page, not planned: a fragment',
    body: q(
      '{ assets(profile: "well") { all(first: 5) { edges { node { ...F } } } } } fragment F on Asset { id }',
    ),
  },
  { name: 'page, not planned: a directive', body: q(pageOf('first: 5', 'id @include(if: true)')) },
  {
    name: 'page, not planned: two pages',
    body: q(
      '{ assets(profile: "well") { a: all(first: 2) { edges { node { id } } } b: all(last: 2) { edges { node { id } } } } }',
    ),
  },
  { name: 'page, declined: signed out', body: q(pageOf('first: 5')), as: 'anonymous', page: 'declined' },
  {
    name: 'page, declined: a bad cursor',
    body: q(pageOf('first: 5, after: "not a cursor"')),
    page: 'declined',
  },
  { name: 'page, declined: both directions', body: q(pageOf('first: 5, last: 5')), page: 'declined' },
  { name: 'page, declined: a page too large', body: q(pageOf('first: 1001')), page: 'declined' },
  {
    name: 'page, declined: a cursor PostgreSQL could not compare',
    body: q(pageOf(`first: 5, after: "${encodeCursor(['PW\u0000'])}"`)),
    page: 'declined',
    check: (a) => expect(errorsOf(a)[0].extensions.code).toBe('BAD_USER_INPUT'),
  },
];

/** The three sendings of `row` to one route, and what its counters counted for each. */
async function sendThrice(name: RouteName, row: Row): Promise<{ answers: Sent[]; counts: Tally[] }> {
  const who = row.as ?? 'demo';
  const caller = { demo, east, anonymous: {}, revoked }[who];
  const headers = { ...caller, ...row.headers };
  const answers: Sent[] = [];
  const counts: Tally[] = [];
  for (let i = 0; i < 3; i++) {
    const before = await routes.tally(name);
    const signal = row.aborted ? AbortSignal.abort() : undefined;
    answers.push(await sent(await served[name]!.app.handle(post(row.body(), headers, signal))));
    const after = await routes.tally(name);
    counts.push(
      Object.fromEntries(
        Object.entries(after).map(([k, v]) => [k, v - before[k as keyof Tally]]),
      ) as unknown as Tally,
    );
  }
  return { answers, counts };
}

/** The reference's answers, by row, sent once for every route compared with it. */
const references = new Map<Row, Promise<{ answers: Sent[]; counts: Tally[] }>>();
function reference(row: Row) {
  let answers = references.get(row);
  if (!answers) {
    answers = sendThrice('reference', row);
    references.set(row, answers);
  }
  return answers;
}

describe.each(Object.keys(ROUTES).filter((n) => n !== 'reference') as RouteName[])(
  'the %s route',
  (route) => {
    it.each(rows)('answers as the reference: $name', async (row) => {
      const expected = await reference(row);
      for (const a of expected.answers) expect(a).toEqual(expected.answers[0]);
      const got = await sendThrice(route, row);
      if (process.env.PARITY_DEBUG)
        console.log(
          route,
          row.name,
          '\nREF',
          expected.answers[0]!.status,
          expected.answers[0]!.body.slice(0, 1500),
          '\nGOT',
          got.answers[0]!.status,
          got.answers[0]!.body.slice(0, 1500),
        );
      const last = got.answers[2]!;
      if (row.distributedPlanner && route.startsWith('distributed')) {
        row.distributedPlanner({ status: last.status, body: JSON.parse(last.body) });
        return;
      }
      for (let i = 0; i < 3; i++) expect(got.answers[i], `sending ${i + 1}`).toEqual(expected.answers[0]);
      row.check?.({ status: last.status, body: last.body ? JSON.parse(last.body) : null, text: last.body });
      // Each route took what it should: the fast door at the latest from the third sending on (a
      // text other rows sent before is known from the first), but for a join it declines.
      const fast = route === 'fast' || route === 'distributed fast';
      const door = (row.door ?? true) && row.join !== 'declined';
      if (fast && door) expect(got.counts[2]!.door).toBe(1);
      else expect(got.counts.map((c) => c.door)).toEqual([0, 0, 0]);
      if (route === 'joined' || fast)
        expect(got.counts.map((c) => [c.joined, c.declined])).toEqual(
          Array(3).fill([row.join === 'answered' ? 1 : 0, row.join === 'declined' ? 1 : 0]),
        );
      if ((route === 'pages' || fast) && row.page)
        expect(got.counts.map((c) => [c.paged, c.unpaged])).toEqual(
          Array(3).fill([row.page === 'answered' ? 1 : 0, row.page === 'declined' ? 1 : 0]),
        );
    });
  },
);
