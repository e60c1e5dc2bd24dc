import { expect } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from '../../src/observability/prometheus.ts';
import { BASE, serveSubgraphs, startTestApp, type TestApp } from './app.ts';
import { freshDatabase, type TestDatabase } from './database.ts';

/**
 * The ways the service can answer a request, each forced by the flags that turn the others off,
 * over one database with the demo tenant and a few fixtures: for tests that send the same
 * requests down every route and expect the same answers (test/integration/parity*.test.ts).
 */

export const SECRET = 'parity-secret-0123456789abcdef0123456789';

/** A way to answer, by its flags: single process unless `distributed`. */
export const ROUTES = {
  reference: { directExecution: false, preparedOperations: false, plannedQueries: false },
  direct: { joinedOperations: false, preparedOperations: false, plannedQueries: false },
  joined: { preparedOperations: false, plannedQueries: false },
  pages: { directExecution: false, preparedOperations: false },
  fast: {},
  'distributed reference': { directExecution: false, preparedOperations: false, plannedQueries: false },
  'distributed fast': {},
} as const;
export type RouteName = keyof typeof ROUTES;

export interface Served {
  app: TestApp;
  /** The gateway's counters (and, in one process, its subgraphs'). */
  metrics: PrometheusMetrics;
  /** A distributed gateway's subgraphs: their ports, and their counters. */
  subgraphs?: { urls: Record<string, string>; metrics: PrometheusMetrics };
}

export interface Routes {
  database: TestDatabase;
  served: Partial<Record<RouteName, Served>>;
  /** Headers of a signed-in demo user in group `demo`, and of another in `demo-east`. */
  demo: Record<string, string>;
  east: Record<string, string>;
  /** The facility with two issues (its three first wells have one each). */
  facility: string;
  /** What a route counted so far: fast-door answers, joins, planned pages, early-door answers. */
  tally(name: RouteName): Promise<Tally>;
  close(): Promise<void>;
}

export interface Tally {
  door: number;
  early: number;
  joined: number;
  declined: number;
  paged: number;
  unpaged: number;
}

/**
 * Serves `names` over one new database, each with `config` beside its own flags, and loads the
 * demo tenant and the fixtures: issues about a facility and three wells, and sixty planted wells
 * some of whose properties are missing (one stored with a JSON null, as no writer stores it).
 */
export async function startRoutes(
  names: readonly RouteName[],
  config: Record<string, unknown> = {},
  /** Routes whose database (and fixtures) these share; closed with them, not by these. */
  on?: Routes,
): Promise<Routes> {
  const database = on?.database ?? (await freshDatabase());
  const closers: (() => Promise<void>)[] = [];
  const served: Partial<Record<RouteName, Served>> = {};
  for (const name of names) served[name] = await serve(database, name, config, closers);
  const tally = async (name: RouteName): Promise<Tally> => {
    const { metrics, subgraphs } = served[name]!;
    const pages = subgraphs?.metrics ?? metrics;
    return {
      door: await counted(metrics, 'assetql_prepared_operations_total'),
      early: subgraphs ? await counted(subgraphs.metrics, 'assetql_prepared_operations_total') : 0,
      joined: await counted(metrics, 'assetql_joined_operations_total', { outcome: 'answered' }),
      declined: await counted(metrics, 'assetql_joined_operations_total', { outcome: 'declined' }),
      paged: await counted(pages, 'assetql_planned_queries_total', {
        subgraph: 'assets',
        outcome: 'answered',
      }),
      unpaged: await counted(pages, 'assetql_planned_queries_total', {
        subgraph: 'assets',
        outcome: 'declined',
      }),
    };
  };
  const close = async () => {
    for (const c of closers.reverse()) await c();
    if (!on) await database.close();
  };
  if (on) return { ...on, served, tally, close };
  const first = served[names[0]!]!.app;
  await seedDemo(database.db, first.config);
  const demo = { 'x-svc-sessionid': await first.sessionFor('demo', 'demo') };
  const east = { 'x-svc-sessionid': await first.sessionFor('demo-east-user', 'demo-east') };
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
  const facility = (await ids('facility', 1))[0]!;
  const wells = await ids('well', 3);
  for (const [title, reference] of [
    ['Pump jack vibration', `facility/${facility}`],
    ['Flare stack inspection', `facility/${facility}`],
    ...wells.map((w, i) => [`Well check ${i}`, `well/${w}`]),
  ]) {
    const r = await first.graphql<any>(
      'mutation($t: String!, $s: IssueSubjectInput) { createIssue(input: { displayName: $t, subject: $s }) { errors { type } } }',
      { t: title, s: { type: 'asset', reference } },
      demo,
    );
    expect(r.body.data.createIssue.errors).toEqual([]);
  }
  const planted = Array.from({ length: 60 }, (_, i) => ({
    id: `PW-${String(i).padStart(3, '0')}`,
    properties: {
      name: `Planned ${i}`,
      ...(i % 3 ? { status: ['producing', 'shut-in', 'drilling'][i % 3] } : {}),
      ...(i % 4 ? { depth: 500 + i * 10.5 } : {}),
    },
  }));
  const upserted = await first.graphql<any>(
    'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } } }',
    { input: { profile: 'well', assets: planted } },
    demo,
  );
  expect(upserted.body.data.upsertAssets.errors).toEqual([]);
  await database.db
    .updateTable('assets')
    .set({ properties: JSON.stringify({ name: 'Stored null', status: null, abandoned: null }) as never })
    .where('user_group', '=', 'demo')
    .where('id', '=', 'PW-005')
    .execute();
  return { database, served, demo, east, facility, tally, close };
}

async function serve(
  database: TestDatabase,
  name: RouteName,
  config: Record<string, unknown>,
  closers: (() => Promise<void>)[],
): Promise<Served> {
  const metrics = createPrometheusMetrics({ maxOperations: 100 });
  const flags = { secret: SECRET, ...ROUTES[name], ...config };
  if (!name.startsWith('distributed')) {
    const app = await startTestApp({ database, metrics, config: flags });
    closers.push(() => app.close());
    return { app, metrics };
  }
  const subgraphMetrics = createPrometheusMetrics({ maxOperations: 100 });
  const subgraphs = await serveSubgraphs({ database, config: flags, metrics: subgraphMetrics });
  const app = await startTestApp({
    database,
    metrics,
    role: { kind: 'gateway' },
    config: { ...flags, subgraphUrls: subgraphs.urls },
  });
  closers.push(
    () => app.close(),
    () => subgraphs.close(),
  );
  return { app, metrics, subgraphs: { urls: subgraphs.urls, metrics: subgraphMetrics } };
}

/** The value of a counter's series matching `labels`, summed (0 before the first). */
export async function counted(
  counter: PrometheusMetrics,
  metric: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const values = (await counter.registry.getSingleMetric(metric)!.get()).values;
  return values
    .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
    .reduce((sum, v) => sum + v.value, 0);
}

/** A POST to the gateway with `body` as it is written (JSON unless a string). */
export function post(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Request {
  return new Request(`${BASE}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** `{ v: { v: … } }`, `depth` levels deep. */
export function deepObject(depth: number): Record<string, unknown> {
  const top: Record<string, unknown> = {};
  let at = top;
  for (let i = 0; i < depth; i++) at = at.v = {} as Record<string, unknown>;
  return top;
}

/** Requests the parity tests send, by what they ask. */
export const PAGE = '{ assets(profile: "well") { all(first: 3) { edges { node { id displayName } } } } }';
export const PAGE_OF =
  'query($p: ID!, $n: Int) { assets(profile: $p) { all(first: $n) { edges { node { id displayName } } } } }';
export const SESSION = 'query Mine { session { authenticated username userGroup } }';
export const TWO = 'query A { __typename } query B { session { authenticated } }';
export const ISSUES =
  'issues(first: 10) { edges { cursor node { id displayName status } } pageInfo { hasNextPage endCursor } }';
export const RELATED_OF =
  'query($p: JSONObject) { assets(profile: "well") { all(first: 2) { edges { node { id related(relationship: "facility", params: $p) { __typename } } } } } }';
export const RENAME_OF =
  'mutation($id: ID!, $name: String!) { updateAssetFilter(input: { id: $id, displayName: $name }) { assetFilter { id displayName } errors { type message } } }';
export const FILTERED =
  'query($f: AssetFilter) { assets(profile: "well") { all(first: 2, filter: $f) { edges { node { id } } } } }';
export const ONLY = '["name", "status", "depth", "abandoned", "no such property", "name"]';
export const pageOf = (args: string, node = `id properties(only: ${ONLY})`) =>
  `{ assets(profile: "well") { all${args ? `(${args})` : ''} { edges { node { ${node} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
export const byId = (selection: string, id: string) =>
  `{ assets(profile: "facility") { byId(id: "${id}") { ${selection} } } }`;

/** A request's body: `query`, with `variables` and `operationName` when given. */
export const q = (query: string, variables?: unknown, operationName?: unknown) => () => ({
  query,
  ...(variables !== undefined ? { variables } : {}),
  ...(operationName !== undefined ? { operationName } : {}),
});
