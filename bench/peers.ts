import { createServer } from 'node:http';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { request } from 'undici';
import { SUBGRAPH_NAMES } from '../src/config/index.ts';
import { encodeCursor } from '../src/shared/cursors.ts';
import { hashSessionId } from '../src/shared/session-policy.ts';
import {
  BIN,
  cpus,
  graphql,
  median,
  pinLoadGenerator,
  sample,
  signedInUser,
  signIn,
  startServer,
} from './lib.ts';
import { cpuMs, databaseCpuMs, type Proc, rssSampler, startPinned } from './peers/procs.ts';
import { peerSchemaSql } from './peers/sql.ts';
import { StatementCounter } from './peers/statements.ts';

export const SYSTEMS = [
  'assetql',
  'metrics',
  'tracing',
  'distributed',
  'hive',
  'apollo',
  'postgraphile',
  'bare',
] as const;
export type SystemName = (typeof SYSTEMS)[number];
export const SYSTEM_LABELS: Record<SystemName, string> = {
  assetql: 'assetql (single process)',
  metrics: 'assetql, metrics on (ASSETQL_METRICS_PORT)',
  tracing: 'assetql, tracing on (OTLP to a local sink)',
  distributed: 'assetql distributed (gateway + 3 subgraphs)',
  hive: 'Hive Gateway (no JIT) + our subgraphs',
  apollo: 'Apollo Gateway + our subgraphs',
  postgraphile: 'PostGraphile v5 over views',
  bare: 'bare node:http + pg',
};
export const SHAPES = ['Q1', 'Q2', 'Q2v', 'Q3', 'Q4', 'Q5', 'Q6'] as const;
export type ShapeName = (typeof SHAPES)[number];
export const SHAPE_LABELS: Record<ShapeName | 'Q7', string> = {
  Q1: 'first page of 100 wells, 5 properties',
  Q2: 'same page at a deep cursor',
  Q2v: 'Q2 with its arguments as variables, as client libraries send them',
  Q3: 'one facility, `related` MANY wells + its issues',
  Q4: 'page filtered by two property predicates',
  Q5: '`session` (session resolution only)',
  Q6: 'small mutation (rename a saved filter)',
  Q7: 'CSV export of every well',
};

export interface Cell {
  /** Why the system cannot express the shape. */
  na?: string;
  rps?: number;
  p50?: number;
  p95?: number;
  p99?: number;
  /** The fixed rate the percentiles were taken at (req/s). */
  rate?: number;
  cpuMsPerRequest?: number;
  /** PostgreSQL's CPU per request during the closed loop (every postgres process on the machine). */
  databaseCpuMsPerRequest?: number;
  peakRssMb?: number;
  statements?: number;
  /** The first response, normalised, equals assetql's. */
  same?: boolean;
  failures?: number;
}

export interface ExportCell {
  na?: string;
  rowsPerSecond?: number;
  seconds?: number;
  rows?: number;
  peakRssMb?: number;
}

export interface PeersResult {
  engine: string;
  skipped?: string;
  wells: number;
  deepOffset: number;
  connections: number;
  rounds: number;
  seconds: number;
  cells: Record<SystemName, Record<ShapeName, Cell>>;
  exports: Record<SystemName, ExportCell>;
  statementsMethod: string;
  /**
   * Metrics' and tracing's cost on Q1, paired: three fresh single processes (plain, metrics on,
   * tracing on) warmed alike, then short closed-loop blocks of the plain one and of the cell taking
   * turns, the CPU per request of each pair compared; the median of the pairs' ratios minus one
   * (0.05 = 5% more CPU per request).
   */
  overhead: Partial<Record<'metrics' | 'tracing', { pairs: number; cpu: number; rps: number }>>;
  notes: string[];
  targets: { target: string; value: string; met: boolean | null }[];
}

const GROUP = 'bench';
const FIVE = ['name', 'status', 'depth', 'uwi', 'facilityId'];
const FIVE_GQL = JSON.stringify(FIVE);
const FILTER_ID = 'bench-wells';

/** A page of wells with five properties each, `args` given to `all` (Q1 is `first: 100`). */
export const pageDocument = (args: string) =>
  `{ assets(profile: "well") { all(${args}) { edges { node { id properties(only: ${FIVE_GQL}) } } } } }`;
const CONNECTIONS = 8;
const RATE = 50;
const SESSION_RATE = 300;

interface HttpRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}
type Canonical = unknown;
interface Shape {
  request: HttpRequest;
  canonical: (body: any) => Canonical;
}
interface System {
  name: SystemName;
  procs: Proc[];
  shapes: Partial<Record<ShapeName, Shape>>;
  na: Partial<Record<ShapeName, string>>;
}

const sortKeys = (o: Record<string, unknown> | null | undefined) =>
  o
    ? Object.fromEntries(
        Object.entries(o)
          .filter(([, v]) => v !== null && v !== undefined)
          .sort(([a], [b]) => a.localeCompare(b)),
      )
    : o;
const pageOf = (nodes: { id: string; properties: Record<string, unknown> }[]) =>
  nodes.map((n) => ({ id: n.id, properties: sortKeys(n.properties) }));

/** What the benchmark knows about the data, read once after generation. */
interface World {
  /** The first of `sessions`: the one single requests present. */
  sessionId: string;
  /**
   * One session per load connection (the same user signed in CONNECTIONS times): concurrent
   * clients are different sessions, as in use, so no gateway can answer several of them with one
   * subgraph call (Hive Gateway's in-flight deduplication merges identical subgraph requests
   * whose headers, the signed identity included, are equal).
   */
  sessions: string[];
  deepId: string;
  facilityId: string;
  pgDeepCursor?: string;
}

function graphqlShapes(url: string, w: World): Record<ShapeName, Shape> {
  const post = (query: string, variables?: Record<string, unknown>): HttpRequest => ({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-sessionid': w.sessionId },
    body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
  });
  const page = (args: string) => post(pageDocument(args));
  const edges = (b: any) => pageOf(b.data.assets.all.edges.map((e: any) => e.node));
  return {
    Q1: { request: page('first: 100'), canonical: edges },
    Q2: { request: page(`first: 100, after: "${encodeCursor([w.deepId])}"`), canonical: edges },
    Q2v: {
      request: post(
        `query Wells($profile: ID!, $first: Int, $after: String, $only: [String!]) {
          assets(profile: $profile) { all(first: $first, after: $after) { edges { node { id properties(only: $only) } } } } }`,
        { profile: 'well', first: 100, after: encodeCursor([w.deepId]), only: FIVE },
      ),
      canonical: edges,
    },
    Q3: {
      request: post(`{ assets(profile: "facility") { byId(id: "${w.facilityId}") { id
        related(relationship: "wells") { ... on AssetRelationshipMany { assets { id properties(only: ${FIVE_GQL}) } } }
        issueSubject { issues(first: 10) { edges { node { id displayName status } } } } } } }`),
      canonical: (b: any) => {
        const a = b.data.assets.byId;
        return {
          id: a.id,
          wells: pageOf(a.related.assets).sort((x, y) => x.id.localeCompare(y.id)),
          issues: a.issueSubject.issues.edges.map((e: any) => e.node),
        };
      },
    },
    Q4: {
      request: page(
        'first: 100, filter: { property: { name: "status", equals: "producing" }, and: [{ property: { name: "depth", gt: 2500 } }] }',
      ),
      canonical: edges,
    },
    Q5: {
      request: post('{ session { authenticated username userGroup } }'),
      canonical: (b: any) => sortKeys(b.data.session),
    },
    Q6: {
      request: post(
        `mutation { updateAssetFilter(input: { id: "${FILTER_ID}", displayName: "Deep producing wells" }) { assetFilter { id displayName } errors { type message } } }`,
      ),
      canonical: (b: any) => b.data.updateAssetFilter.assetFilter,
    },
  };
}

function postgraphileShapes(url: string, w: World): System['shapes'] {
  const post = (query: string, variables?: Record<string, unknown>): HttpRequest => ({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
  });
  const nodes = (b: any, k: string) =>
    pageOf(b.data[k].nodes.map((n: any) => ({ id: n.rowId, properties: n.properties })));
  return {
    Q1: {
      request: post('{ allWells(first: 100, orderBy: PRIMARY_KEY_ASC) { nodes { rowId properties } } }'),
      canonical: (b) => nodes(b, 'allWells'),
    },
    Q2: {
      request: post(
        `{ allWells(first: 100, after: "${w.pgDeepCursor}", orderBy: PRIMARY_KEY_ASC) { nodes { rowId properties } } }`,
      ),
      canonical: (b) => nodes(b, 'allWells'),
    },
    Q2v: {
      request: post(
        'query Wells($first: Int, $after: Cursor) { allWells(first: $first, after: $after, orderBy: PRIMARY_KEY_ASC) { nodes { rowId properties } } }',
        { first: 100, after: w.pgDeepCursor },
      ),
      canonical: (b) => nodes(b, 'allWells'),
    },
    Q3: {
      request: post(`{ facilityByRowId(rowId: "${w.facilityId}") { rowId
        wells { nodes { rowId properties } }
        issues(first: 10) { nodes { rowId displayName status } } } }`),
      canonical: (b: any) => {
        const f = b.data.facilityByRowId;
        return {
          id: f.rowId,
          wells: pageOf(f.wells.nodes.map((n: any) => ({ id: n.rowId, properties: n.properties }))),
          issues: f.issues.nodes.map((n: any) => ({
            id: n.rowId,
            displayName: n.displayName,
            status: n.status,
          })),
        };
      },
    },
    Q4: {
      request: post(
        '{ wellsWhere(status: "producing", minDepth: "2500", first: 100) { nodes { rowId properties } } }',
      ),
      canonical: (b) => nodes(b, 'wellsWhere'),
    },
    Q6: {
      request: post(
        `mutation { renameAssetFilter(input: { filterId: "${FILTER_ID}", newName: "Deep producing wells" }) { result { rowId displayName } } }`,
      ),
      canonical: (b: any) => {
        const f = b.data.renameAssetFilter.result;
        return { id: f.rowId, displayName: f.displayName };
      },
    },
  };
}

function bareShapes(base: string, w: World): System['shapes'] {
  const get = (path: string, headers: Record<string, string> = {}): HttpRequest => ({
    url: `${base}${path}`,
    method: 'GET',
    headers,
  });
  const id = (b: any) => b;
  return {
    Q1: { request: get('/page'), canonical: (b) => pageOf(b) },
    Q2: { request: get(`/page?after=${encodeURIComponent(w.deepId)}`), canonical: (b) => pageOf(b) },
    Q2v: { request: get(`/page?after=${encodeURIComponent(w.deepId)}`), canonical: (b) => pageOf(b) },
    Q3: {
      request: get(`/asset?id=${encodeURIComponent(w.facilityId)}`),
      canonical: (b: any) => ({ id: b.id, wells: pageOf(b.wells), issues: b.issues }),
    },
    Q4: { request: get('/filtered'), canonical: (b) => pageOf(b) },
    Q5: { request: get('/session', { 'x-svc-sessionid': w.sessionId }), canonical: (b) => sortKeys(b) },
    Q6: {
      request: {
        ...get(`/rename?id=${FILTER_ID}&name=${encodeURIComponent('Deep producing wells')}`),
        method: 'POST',
      },
      canonical: id,
    },
  };
}

/** An answer as the bench reads it. */
interface Answer {
  ok: boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/**
 * Sends a request with undici's request API, over its keep-alive pools: the load generator's own
 * cost per request is a fraction of `fetch`'s (no Request, Headers, stream or abort-signal objects
 * per call), so that the fixed-rate latencies measure the servers more than the client. With
 * `fetch` the bare server measured 1.84–2.70 ms p95 at 300 req/s, a floor under every system.
 * Every system is sent its requests the same way.
 */
async function send(r: HttpRequest): Promise<Answer> {
  const response = await request(r.url, {
    method: r.method,
    headers: r.headers,
    body: r.body,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  return {
    ok: response.statusCode >= 200 && response.statusCode < 300,
    text: () => response.body.text(),
    json: () => response.body.json(),
  };
}

/** The request as another session presents it (requests without a session stay as they are). */
function asSession(r: HttpRequest, sessionId: string): HttpRequest {
  if (!r.headers['x-svc-sessionid']) return r;
  return { ...r, headers: { ...r.headers, 'x-svc-sessionid': sessionId } };
}

/**
 * Closed loop with autocannon on this process's core for `seconds` (or `amount` requests);
 * each connection is its own session.
 */
async function closedLoop(r: HttpRequest, seconds: number, sessions: readonly string[], amount?: number) {
  let next = 0;
  const result = await autocannon({
    url: r.url,
    method: r.method,
    headers: r.headers,
    body: r.body,
    connections: CONNECTIONS,
    // A number of requests instead of a duration: the smoke run's few, however slow they are.
    ...(amount ? { amount } : { duration: seconds }),
    setupClient(client) {
      client.setHeaders(asSession(r, sessions[next++ % sessions.length]!).headers);
    },
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    bad: result.errors + result.non2xx,
  };
}

/**
 * Starts the six systems over one database: assetql single and distributed, the peers over the
 * same three subgraph processes, PostGraphile and the bare server. Every process on CPU 0.
 */
async function launch(
  env: NodeJS.ProcessEnv,
  w: World,
  identities: string,
  traceSink: string,
): Promise<System[]> {
  const bin = BIN;
  const procs: Proc[] = [];
  const start = async (name: string, script: string, args: string[], e: NodeJS.ProcessEnv) => {
    const p = await startPinned(name, script, args, e);
    procs.push(p);
    return p;
  };
  try {
    const single = await start('assetql', bin, ['serve'], env);
    // The same single process with metrics on, and with tracing on (every request sampled,
    // OTLP/HTTP protobuf to a sink in this process): their overhead, in the same rounds.
    const [metrics, tracing] = await Promise.all([
      start('assetql metrics', bin, ['serve'], { ...env, ASSETQL_METRICS_PORT: '0' }),
      start('assetql tracing', bin, ['serve'], { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: traceSink }),
    ]);
    const subgraphs = await Promise.all(
      SUBGRAPH_NAMES.map((name) => start(`subgraph ${name}`, bin, ['serve', '--subgraph', name], env)),
    );
    const subgraphEnv = {
      ...env,
      ...Object.fromEntries(
        SUBGRAPH_NAMES.map((name, i) => [`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`, subgraphs[i]!.url]),
      ),
      PEER_IDENTITIES: identities,
    };
    const [gateway, hive, apollo, postgraphile, bare] = await Promise.all([
      start('gateway', bin, ['serve', '--gateway'], subgraphEnv),
      start('hive', 'bench/peers/hive-gateway.ts', [], subgraphEnv),
      start('apollo', 'bench/peers/apollo-gateway.ts', [], subgraphEnv),
      start('postgraphile', 'bench/peers/postgraphile.ts', [], env),
      start('bare', 'bench/peers/bare.ts', [], { ...env, PEER_GROUP: GROUP }),
    ]);
    if (!w.pgDeepCursor) {
      // PostGraphile's own cursor for the deep row (its cursors carry the order values).
      const r = await fetch(postgraphile!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ allWells(first: 1, orderBy: PRIMARY_KEY_ASC, condition: { rowId: "${w.deepId}" }) { edges { cursor } } }`,
        }),
      });
      const b = (await r.json()) as any;
      w.pgDeepCursor = b.data?.allWells?.edges?.[0]?.cursor;
      if (!w.pgDeepCursor) throw new Error(`no PostGraphile cursor: ${JSON.stringify(b)}`);
    }
    return [
      { name: 'assetql', procs: [single], shapes: graphqlShapes(single.url, w), na: {} },
      {
        name: 'metrics',
        procs: [metrics],
        shapes: { Q1: graphqlShapes(metrics.url, w).Q1 },
        na: OVERHEAD_ONLY,
      },
      {
        name: 'tracing',
        procs: [tracing],
        shapes: { Q1: graphqlShapes(tracing.url, w).Q1 },
        na: OVERHEAD_ONLY,
      },
      {
        name: 'distributed',
        procs: [gateway!, ...subgraphs],
        shapes: graphqlShapes(gateway!.url, w),
        na: {},
      },
      { name: 'hive', procs: [hive!, ...subgraphs], shapes: graphqlShapes(hive!.url, w), na: {} },
      { name: 'apollo', procs: [apollo!, ...subgraphs], shapes: graphqlShapes(apollo!.url, w), na: {} },
      {
        name: 'postgraphile',
        procs: [postgraphile!],
        shapes: postgraphileShapes(postgraphile!.url, w),
        na: {
          Q5: 'no session store: PostGraphile authenticates by JWT or pgSettings per request, not by our sessions',
        },
      },
      { name: 'bare', procs: [bare!], shapes: bareShapes(bare!.url, w), na: {} },
    ];
  } catch (e) {
    await Promise.all(procs.map((p) => p.stop()));
    throw e;
  }
}

/** Metrics' and tracing's overhead is measured on Q1 alone. */
const OVERHEAD_ONLY: System['na'] = {
  Q2: 'overhead measured on Q1',
  Q2v: 'overhead measured on Q1',
  Q3: 'overhead measured on Q1',
  Q4: 'overhead measured on Q1',
  Q5: 'overhead measured on Q1',
  Q6: 'overhead measured on Q1',
};

/**
 * Where the tracing cell sends its spans: an OTLP/HTTP endpoint that reads each export and
 * answers 200, as a collector on the same host would, counting what it got.
 */
async function startTraceSink() {
  let exports = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => ({ exports, bytes }),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

async function stopAll(systems: System[]) {
  const procs = new Set(systems.flatMap((s) => s.procs));
  await Promise.all([...procs].map((p) => p.stop()));
}

/**
 * Against the peers: assetql single-process and distributed, Hive Gateway and Apollo Gateway
 * over our subgraphs, PostGraphile v5 and a bare node:http + pg server, over the same tables
 * and data; throughput, latency at a fixed rate, CPU and memory per request, SQL statements.
 */
export async function peersBench(options: { quick: boolean; smoke?: boolean }): Promise<PeersResult> {
  const step = (what: string) => process.stderr.write(`bench: peers: ${what}\n`);
  const postgres = Boolean(process.env.DATABASE_URL);
  const smoke = options.smoke ?? false;
  // BENCH_PEERS_WELLS overrides the size, for trying the scenario out.
  const n = Number(process.env.BENCH_PEERS_WELLS) || (smoke ? 400 : options.quick ? 100_000 : 1_000_000);
  const rounds = smoke ? 1 : options.quick ? 2 : 3;
  const seconds = smoke ? 1 : options.quick ? 2 : 6;
  const rateSeconds = smoke ? 0.3 : options.quick ? 1.5 : 5;
  // The smoke run sends a few requests per connection where the others run for `seconds`, and
  // measures only every system on Q1 and every shape on assetql: each step still runs, for
  // every system and every shape, in a third of the time (the answers are compared for all).
  const amount = smoke ? CONNECTIONS * 3 : undefined;
  // BENCH_PEERS_SYSTEMS and BENCH_PEERS_SHAPES (comma-separated names) measure only those cells,
  // for trying a change out: the answers are still compared for all; the overheads and exports
  // are measured only in a whole run.
  const only = (name: string) => process.env[name]?.split(',').map((x) => x.trim()) ?? undefined;
  const onlySystems = only('BENCH_PEERS_SYSTEMS');
  const onlyShapes = only('BENCH_PEERS_SHAPES');
  const partial = Boolean(onlySystems || onlyShapes);
  const measured = (s: System, q: ShapeName) =>
    (!smoke || q === 'Q1' || s.name === 'assetql') &&
    (!onlySystems || onlySystems.includes(s.name)) &&
    (!onlyShapes || onlyShapes.includes(q));
  const empty = () =>
    Object.fromEntries(SYSTEMS.map((s) => [s, Object.fromEntries(SHAPES.map((q) => [q, {}]))])) as Record<
      SystemName,
      Record<ShapeName, Cell>
    >;
  const result: PeersResult = {
    engine: postgres ? 'postgres' : 'pglite',
    wells: n,
    deepOffset: Math.floor(n * 0.9),
    connections: CONNECTIONS,
    rounds,
    seconds,
    cells: empty(),
    exports: Object.fromEntries(SYSTEMS.map((s) => [s, {}])) as Record<SystemName, ExportCell>,
    statementsMethod: '',
    overhead: {},
    notes: [],
    targets: [],
  };
  if (!postgres) {
    result.skipped = 'measured only on PostgreSQL (set DATABASE_URL); PGlite serves one connection at a time';
    return result;
  }
  // The load generator on CPU 1, every server on CPU 0.
  if (cpus.pin && !pinLoadGenerator())
    result.notes.push('taskset unavailable: the load generator was not pinned');

  const server = await startServer({
    ASSETQL_DEMO_DATA: 'false',
    ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: 1_000_000, seconds: 60 } }),
  });
  let systems: System[] = [];
  const traceSink = await startTraceSink();
  const db = new pg.Client({ connectionString: server.env.DATABASE_URL });
  try {
    step(`generating ${n} wells`);
    await server.cli(['demo', 'generate', '--assets', String(n), '--group', GROUP]);
    const sessionId = await signedInUser(server, GROUP);
    const sessions = [sessionId];
    while (sessions.length < CONNECTIONS) sessions.push(await signIn(server.url));
    await db.connect();
    const nth = async (profile: string, offset: number) =>
      (
        await db.query(
          'select id from assets where user_group = $1 and profile = $2 order by id offset $3 limit 1',
          [GROUP, profile, offset],
        )
      ).rows[0].id as string;
    const facilities = (
      await db.query(`select count(*)::int as n from assets where user_group = $1 and profile = 'facility'`, [
        GROUP,
      ])
    ).rows[0].n as number;
    const w: World = {
      sessionId,
      sessions,
      deepId: await nth('well', result.deepOffset - 1),
      facilityId: await nth('facility', Math.floor(facilities / 2)),
    };
    const auth = { 'x-svc-sessionid': sessionId };
    // Two issues about the facility (Q3), and the saved filter Q6 renames.
    for (const title of ['Pump jack vibration', 'Flare stack inspection']) {
      const r = await graphql(
        server.url,
        `mutation($s: IssueSubjectInput) { createIssue(input: { displayName: "${title}", subject: $s }) { errors { type message } } }`,
        { s: { type: 'asset', reference: `facility/${w.facilityId}` } },
        auth,
      );
      if (r.body.errors || r.body.data.createIssue.errors.length) throw new Error(JSON.stringify(r.body));
    }
    const created = await graphql(
      server.url,
      `mutation { createAssetFilter(input: { id: "${FILTER_ID}", displayName: "Deep wells", profile: "well",
        filter: { property: { name: "depth", gt: 2500 } }, subProfiles: [] }) { errors { type message } } }`,
      {},
      auth,
    );
    if (created.body.errors || created.body.data.createAssetFilter.errors.length)
      throw new Error(JSON.stringify(created.body));
    await db.query(peerSchemaSql(GROUP));
    // BENCH_CHANGE_LOG=off: the change log's triggers off, to measure what the log costs a write
    // (Q6 with it on, then off, in runs of their own; docs/events.md). Never how assetql runs.
    if (process.env.BENCH_CHANGE_LOG === 'off')
      for (const table of ['asset_filters', 'assets', 'asset_views', 'asset_profiles'])
        for (const what of ['logged_insert', 'logged_update', 'logged_delete'])
          await db.query(`alter table ${table} disable trigger ${table}_${what}`);
    await db.query('analyze');
    const identities = JSON.stringify(
      Object.fromEntries(
        sessions.map((id) => [
          id,
          {
            kind: 'session',
            username: 'bencher',
            userGroup: GROUP,
            clientType: 'EXPLORER',
            sessionHash: hashSessionId(id).toString('hex'),
            clientIp: null,
          },
        ]),
      ),
    );

    step('starting the systems');
    systems = await launch(server.env, w, identities, traceSink.url);
    const bySystem = Object.fromEntries(systems.map((s) => [s.name, s])) as Record<SystemName, System>;

    // Same data: every system's first response, normalised, against assetql's.
    step('checking the answers');
    const reference: Partial<Record<ShapeName, string>> = {};
    for (const q of SHAPES) {
      for (const s of systems) {
        const cell = result.cells[s.name][q];
        const shape = s.shapes[q];
        if (!shape) {
          cell.na = s.na[q] ?? 'cannot express this shape';
          continue;
        }
        if (process.env.BENCH_DEBUG) step(`check ${q} ${s.name}`);
        const r = await send(shape.request);
        const text = await r.text();
        let canonical: string;
        try {
          canonical = JSON.stringify(shape.canonical(JSON.parse(text)));
        } catch (e) {
          throw new Error(`${s.name} ${q}: ${(e as Error).message}: ${text.slice(0, 800)}`);
        }
        reference[q] ??= canonical;
        cell.same = canonical === reference[q];
        if (!cell.same)
          step(`${s.name} ${q} differs: ${canonical.slice(0, 300)} vs ${reference[q]!.slice(0, 300)}`);
      }
    }

    // Warm-up, then interleaved rounds (the order of systems rotates), medians.
    step('warm-up');
    for (const s of smoke ? [] : systems)
      for (const q of SHAPES) {
        const shape = s.shapes[q];
        if (shape) await closedLoop(shape.request, 1, sessions);
      }
    const acc: Record<
      string,
      {
        rps: number[];
        p50: number[];
        p95: number[];
        p99: number[];
        cpu: number[];
        db: number[];
        rss: number[];
        failures: number;
      }
    > = {};
    for (let round = 0; round < rounds; round++) {
      for (const q of SHAPES) {
        const order = systems.map((_, i) => systems[(i + round) % systems.length]!);
        for (const s of order) {
          const shape = s.shapes[q];
          if (!shape || !measured(s, q)) continue;
          const dead = s.procs.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
          if (dead) {
            result.cells[s.name][q].na = `${dead.name} exited during the run`;
            if (!result.notes.some((x) => x.startsWith(`${dead.name} exited`)))
              result.notes.push(
                `${dead.name} exited during the run: ${dead.tail().split('\n').slice(-6).join(' ').slice(0, 600)}`,
              );
            continue;
          }
          step(`round ${round + 1}: ${q} ${s.name}`);
          const pids = [...new Set(s.procs.map((p) => p.child.pid!))];
          const rss = rssSampler(pids);
          const cpu0 = pids.reduce((t, p) => t + cpuMs(p), 0);
          const db0 = databaseCpuMs();
          const closed = await closedLoop(shape.request, seconds, sessions, amount);
          const cpu1 = pids.reduce((t, p) => t + cpuMs(p), 0);
          const db1 = databaseCpuMs();
          const rate = q === 'Q5' ? SESSION_RATE : RATE;
          let turn = 0;
          const fixed = await sample({
            request: () => send(asSession(shape.request, sessions[turn++ % sessions.length]!)),
            seconds: rateSeconds,
            rate,
            warmupSeconds: smoke ? 0 : 1,
          });
          rss.stop();
          const key = `${s.name}/${q}`;
          acc[key] ??= {
            rps: [],
            p50: [],
            p95: [],
            p99: [],
            cpu: [],
            db: [],
            rss: [],
            failures: 0,
          };
          const a = acc[key];
          a.rps.push(closed.rps);
          a.cpu.push(closed.requests ? (cpu1 - cpu0) / closed.requests : Number.NaN);
          a.db.push(closed.requests ? (db1 - db0) / closed.requests : Number.NaN);
          a.p50.push(fixed.p50);
          a.p95.push(fixed.p95);
          a.p99.push(fixed.p99);
          a.rss.push(rss.peak());
          a.failures += closed.bad + fixed.failures;
        }
      }
    }
    for (const s of systems)
      for (const q of SHAPES) {
        const a = acc[`${s.name}/${q}`];
        if (!a || result.cells[s.name][q].na) continue;
        Object.assign(result.cells[s.name][q], {
          rps: median(a.rps),
          p50: median(a.p50),
          p95: median(a.p95),
          p99: median(a.p99),
          rate: q === 'Q5' ? SESSION_RATE : RATE,
          cpuMsPerRequest: median(a.cpu),
          databaseCpuMsPerRequest: median(a.db),
          peakRssMb: Math.max(...a.rss),
          failures: a.failures,
        });
      }

    if (partial) {
      result.notes.push(
        `a partial run (BENCH_PEERS_SYSTEMS=${onlySystems ?? 'all'}, BENCH_PEERS_SHAPES=${onlyShapes ?? 'all'}): overheads and exports not measured`,
      );
      return result;
    }

    // Metrics' and tracing's cost, paired: a whole-cell comparison above sets blocks seconds
    // apart against each other, and on a shared core one block's neighbourhood moves its CPU per
    // request by ±10–30%; a pair's two blocks share theirs. The three processes compared are
    // started for this alone and warmed alike: against the single process above, which has by
    // now served every shape, a process that served only Q1 looked 27% dearer with nothing on
    // (its heap and code had not grown to the same load). Order alternates within pairs.
    const twins = await Promise.all([
      startPinned('overhead plain', BIN, ['serve'], server.env),
      startPinned('overhead metrics', BIN, ['serve'], { ...server.env, ASSETQL_METRICS_PORT: '0' }),
      startPinned('overhead tracing', BIN, ['serve'], {
        ...server.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: traceSink.url,
      }),
    ]);
    try {
      const twin = (p: Proc) => ({ procs: [p], request: graphqlShapes(p.url, w).Q1.request });
      const [plainTwin, metricsTwin, tracingTwin] = twins.map(twin) as [
        ReturnType<typeof twin>,
        ReturnType<typeof twin>,
        ReturnType<typeof twin>,
      ];
      const measure = async (s: ReturnType<typeof twin>, seconds: number) => {
        const pids = [...new Set(s.procs.map((p) => p.child.pid!))];
        const cpu0 = pids.reduce((t, p) => t + cpuMs(p), 0);
        const closed = await closedLoop(s.request, seconds, sessions);
        const cpu1 = pids.reduce((t, p) => t + cpuMs(p), 0);
        return { cpu: (cpu1 - cpu0) / Math.max(1, closed.requests), rps: closed.rps };
      };
      step('overhead: warming three fresh processes alike');
      for (const t of [plainTwin, metricsTwin, tracingTwin]) await measure(t, smoke ? 0.5 : 5);
      for (const [cell, other] of [
        ['metrics', metricsTwin],
        ['tracing', tracingTwin],
      ] as const) {
        const pairs = smoke ? 1 : options.quick ? 8 : 16;
        const block = smoke ? 0.5 : 1.5;
        const cpuRatios: number[] = [];
        const rpsRatios: number[] = [];
        for (let i = 0; i < pairs; i++) {
          step(`overhead ${cell}: pair ${i + 1}/${pairs}`);
          let a: { cpu: number; rps: number };
          let b: { cpu: number; rps: number };
          if (i % 2) {
            b = await measure(other, block);
            a = await measure(plainTwin, block);
          } else {
            a = await measure(plainTwin, block);
            b = await measure(other, block);
          }
          cpuRatios.push(b.cpu / a.cpu);
          rpsRatios.push(b.rps / a.rps);
        }
        result.overhead[cell] = { pairs, cpu: median(cpuRatios) - 1, rps: median(rpsRatios) - 1 };
      }
    } finally {
      await Promise.all(twins.map((p) => p.stop()));
    }

    // Q7: the CSV export of every well.
    step('exports');
    const exportRounds = smoke || options.quick ? 1 : 2;
    const csv = async (s: System, url: string) => {
      const pids = [...new Set(s.procs.map((p) => p.child.pid!))];
      const rss = rssSampler(pids);
      const started = performance.now();
      const res = await fetch(url);
      if (res.status !== 200 || !res.body) throw new Error(`${s.name} export answered ${res.status}`);
      let lines = 0;
      const sink = new Writable({
        write(chunk: Buffer, _e, done) {
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
          done();
        },
      });
      await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), sink);
      const secondsTaken = (performance.now() - started) / 1000;
      rss.stop();
      return { seconds: secondsTaken, rows: lines - 1, peakRssMb: rss.peak() };
    };
    const exportLink = async (base: string) => {
      const r = await fetch(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({
          query: `query($p: [String!]) { assetProfiles { byId(profile: "well") { assetsExport(properties: $p, isExcel: false) { csvFileDownloadUrl(exportName: "peers") } } } }`,
          variables: { p: FIVE },
        }),
      });
      const b = (await r.json()) as any;
      const link = b.data?.assetProfiles?.byId?.assetsExport?.csvFileDownloadUrl;
      if (!link) throw new Error(`no export link: ${JSON.stringify(b)}`);
      return new URL(new URL(link).pathname + new URL(link).search, base).toString();
    };
    const exportRuns: Record<string, { seconds: number; rows: number; peakRssMb: number }[]> = {};
    for (let r = 0; r < exportRounds; r++) {
      for (const name of ['assetql', 'distributed', 'bare'] as const) {
        const s = bySystem[name];
        step(`export ${r + 1}: ${name}`);
        const url = name === 'bare' ? `${s.procs[0]!.url}/export` : await exportLink(s.procs[0]!.url);
        exportRuns[name] ??= [];
        exportRuns[name].push(await csv(s, url));
      }
    }
    for (const s of SYSTEMS) {
      const runs = exportRuns[s];
      if (!runs) {
        result.exports[s] = {
          na:
            s === 'postgraphile'
              ? 'no file export: PostGraphile serves GraphQL only'
              : s === 'metrics' || s === 'tracing'
                ? 'overhead measured on Q1'
                : 'the export link is served by our gateway and assets subgraph, not the peer gateway',
        };
        continue;
      }
      const secs = median(runs.map((x) => x.seconds));
      result.exports[s] = {
        seconds: secs,
        rows: runs[0]!.rows,
        rowsPerSecond: runs[0]!.rows / secs,
        peakRssMb: Math.max(...runs.map((x) => x.peakRssMb)),
      };
    }
    await stopAll(systems);
    systems = [];

    // SQL statements per request: a second start of every system through a counting proxy.
    step('counting SQL statements');
    const counter = new StatementCounter();
    const direct = new URL(server.env.DATABASE_URL!);
    const port = await counter.start(direct);
    const proxied = new URL(direct);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(port);
    try {
      systems = await launch(
        { ...server.env, DATABASE_URL: proxied.toString() },
        w,
        identities,
        traceSink.url,
      );
      const per = smoke ? 2 : 10;
      for (const s of systems)
        for (const q of SHAPES) {
          const shape = s.shapes[q];
          if (!shape || !measured(s, q)) continue;
          try {
            for (let i = 0; i < (smoke ? 1 : 3); i++) await (await send(shape.request)).text();
            // The fewest of three windows: a process's own background statements (assetql's
            // change-notice probe every 3 s) fall into one window now and then, and counted
            // as the requests' they made Q3's 3.0 statements read 3.3 in one run.
            const counts: number[] = [];
            for (let window = 0; window < (smoke ? 1 : 3); window++) {
              await new Promise((r) => setTimeout(r, 100));
              const before = counter.count;
              for (let i = 0; i < per; i++) await (await send(shape.request)).text();
              counts.push((counter.count - before) / per);
            }
            result.cells[s.name][q].statements = Math.min(...counts);
          } catch (e) {
            step(`counting ${q} ${s.name} failed: ${(e as Error).message}`);
          }
        }
    } finally {
      await stopAll(systems);
      systems = [];
      await counter.close();
    }
    result.statementsMethod =
      'pg_stat_statements is not loaded on this server (shared_preload_libraries is empty), so a TCP proxy in front of PostgreSQL counted Query and Execute messages (BEGIN/COMMIT included), the fewest per request of three windows of 10 sequential requests per cell after 3 warm-ups (a background statement of a process falls into a window now and then), in a separate start of every system';
    result.notes.push(
      `Every load connection is a session of its own (${CONNECTIONS} sessions of the benchmark user), as concurrent clients are in use. Peers map the presented session to its identity from a table and sign it per request with the shared secret as our gateway does; they skip session resolution (a cached lookup of microseconds in our gateway).`,
      'The installed @graphql-hive/gateway-runtime (2.12.1) has no `jit` option in its types or code, so only Hive Gateway without JIT is measured.',
      `Q3's facility has ${'the generator\u2019s'} about 20 wells (one facility per 20 wells), not 50.`,
      `Q5 percentiles at ${SESSION_RATE} req/s (the target's rate); other shapes at ${RATE} req/s.`,
      `Metrics and tracing cells: the single process with ASSETQL_METRICS_PORT set (never scraped during the run), and with OTEL_EXPORTER_OTLP_ENDPOINT set (every request sampled, batched OTLP/HTTP protobuf to a sink in the load generator's process, which received ${traceSink.received().exports} exports, ${(traceSink.received().bytes / 1e6).toFixed(1)} MB).`,
    );
    result.targets = targetsOf(result);
    return result;
  } finally {
    await stopAll(systems);
    await traceSink.close();
    await db.end().catch(() => {});
    await server.close();
  }
}

function targetsOf(r: PeersResult): PeersResult['targets'] {
  const out: PeersResult['targets'] = [];
  const c = r.cells;
  const ratio = (q: ShapeName, peer: SystemName) =>
    (c.assetql[q].rps ?? Number.NaN) / (c[peer][q].rps ?? Number.NaN);
  for (const q of ['Q1', 'Q3', 'Q4'] as const) {
    for (const [peer, want] of [
      ['hive', 1.5],
      ['apollo', 3],
      ['bare', 0.5],
    ] as const) {
      const x = ratio(q, peer);
      out.push({
        target: `${q}: assetql ≥ ${want}× ${SYSTEM_LABELS[peer]}`,
        value: `${x.toFixed(2)}×`,
        met: Number.isFinite(x) ? x >= want : null,
      });
    }
  }
  // Beside each, what the bare server reaches against PostGraphile in the same run: on a machine
  // whose cores PostgreSQL shares, the most any server doing the same SQL can reach.
  for (const q of ['Q1', 'Q2', 'Q2v', 'Q4', 'Q6'] as const) {
    const x = ratio(q, 'postgraphile');
    const bare = (c.bare[q].rps ?? Number.NaN) / (c.postgraphile[q].rps ?? Number.NaN);
    out.push({
      target: `${q}: assetql ≥ 1.2× ${SYSTEM_LABELS.postgraphile}`,
      value: `${x.toFixed(2)}× (bare server: ${bare.toFixed(2)}×)`,
      met: Number.isFinite(x) ? x >= 1.2 : null,
    });
  }
  const q2 = (c.assetql.Q2.p50 ?? Number.NaN) / (c.assetql.Q1.p50 ?? Number.NaN);
  out.push({ target: 'Q2 p50 within 1.2× of Q1', value: `${q2.toFixed(2)}×`, met: q2 <= 1.2 });
  const st = c.assetql.Q3.statements ?? Number.NaN;
  out.push({ target: 'Q3 in ≤ 3 SQL statements', value: `${st}`, met: st <= 3 });
  const p95 = c.assetql.Q5.p95 ?? Number.NaN;
  out.push({ target: `Q5 p95 < 2 ms at ${SESSION_RATE} req/s`, value: `${p95.toFixed(2)} ms`, met: p95 < 2 });
  for (const cell of ['metrics', 'tracing'] as const) {
    const paired = r.overhead?.[cell];
    const cost = paired?.cpu ?? Number.NaN;
    out.push({
      target: `Q1: ${cell} on costs < 5% more CPU per request (median of ${paired?.pairs ?? 0} paired blocks)`,
      value: `${(cost * 100).toFixed(1)}% (req/s ${((paired?.rps ?? Number.NaN) * 100).toFixed(1)}%)`,
      met: Number.isFinite(cost) ? cost < 0.05 : null,
    });
  }
  for (const q of SHAPES) {
    const x = (c.distributed[q].rps ?? Number.NaN) / (c.assetql[q].rps ?? Number.NaN);
    out.push({ target: `${q}: distributed ≥ 0.7× single process`, value: `${x.toFixed(2)}×`, met: x >= 0.7 });
  }
  return out;
}

export function peersMarkdown(r: PeersResult): string {
  if (r.skipped) return `### Against the peers\n\nSkipped: ${r.skipped}.\n`;
  const f = (x: number | undefined, d = 1) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
  const lines = [
    `### Against the peers (${r.engine}, ${r.wells.toLocaleString('en')} wells)`,
    '',
    `Throughput: closed loop, ${r.connections} connections, median of ${r.rounds} interleaved rounds of ${r.seconds} s. Latency: at a fixed rate (Q5: 300 req/s, others 50 req/s). CPU: user + system time of the system's processes per request during the closed loop. DB CPU: the same of every PostgreSQL process on the machine (the system's statements, and anything else PostgreSQL did meanwhile). RSS: peak of the system's processes, summed.`,
    '',
    '| shape | system | req/s | × assetql | p50 ms | p95 ms | p99 ms | CPU ms/req | DB CPU ms/req | peak RSS MB | SQL/req | same data |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const q of SHAPES) {
    for (const s of SYSTEMS) {
      const c = r.cells[s]?.[q];
      if (!c) continue; // a result recorded before this system was measured
      if (c.na) {
        lines.push(`| ${q} | ${SYSTEM_LABELS[s]} | n/a: ${c.na} | | | | | | | | | |`);
        continue;
      }
      const rel = (c.rps ?? Number.NaN) / (r.cells.assetql[q].rps ?? Number.NaN);
      lines.push(
        `| ${q} | ${SYSTEM_LABELS[s]} | ${f(c.rps, 0)} | ${f(rel, 2)} | ${f(c.p50, 2)} | ${f(c.p95, 2)} | ${f(c.p99, 2)} | ${f(c.cpuMsPerRequest, 2)} | ${f(c.databaseCpuMsPerRequest, 2)} | ${f(c.peakRssMb, 0)} | ${f(c.statements, 1)} | ${c.same === undefined ? '–' : c.same ? 'yes' : '**no**'}${c.failures ? ` (${c.failures} failed)` : ''} |`,
      );
    }
  }
  lines.push('', `Shapes: ${SHAPES.map((q) => `${q} ${SHAPE_LABELS[q]}`).join('; ')}.`, '');
  lines.push('| Q7: CSV export of every well | rows/s | seconds | peak RSS MB |', '|---|---|---|---|');
  for (const s of SYSTEMS) {
    const e = r.exports[s];
    if (!e) continue;
    lines.push(
      e.na
        ? `| ${SYSTEM_LABELS[s]} | n/a: ${e.na} | | |`
        : `| ${SYSTEM_LABELS[s]} | ${f(e.rowsPerSecond, 0)} | ${f(e.seconds, 2)} | ${f(e.peakRssMb, 0)} |`,
    );
  }
  lines.push('', '| target | measured | met |', '|---|---|---|');
  for (const t of r.targets)
    lines.push(`| ${t.target} | ${t.value} | ${t.met === null ? '–' : t.met ? 'yes' : '**no**'} |`);
  lines.push('', `SQL statements: ${r.statementsMethod}.`, '');
  for (const n of r.notes) lines.push(`- ${n}`);
  lines.push('');
  return lines.join('\n');
}
