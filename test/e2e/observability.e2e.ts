/**
 * Metrics and traces of real `assetql serve` processes (docs/operations.md#metrics, #traces):
 * a scripted set of requests, then the Prometheus text scraped from each process's metrics port,
 * and the spans a local OTLP/HTTP receiver got, in the single-process and the distributed form.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp.ts';
import { lastOutput, type Served, serve, serveEnv, stop } from '../helpers/processes.ts';

const SECRET = 'observability-e2e-secret-0123456789abcdefgh';
const REQUEST_ID_ATTRIBUTE = 'assetql.request_id';

const children: Served[] = [];
const databases: TestDatabase[] = [];
const dataDirs: string[] = [];
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await Promise.all(children.map((c) => stop(c.child)));
  await receiver?.close();
  for (const d of databases) await d.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** Where the processes of one form keep their data: a database of their own, or a data dir. */
async function storage(): Promise<Record<string, string>> {
  if (process.env.DATABASE_URL) {
    const database = await freshDatabase();
    databases.push(database);
    return { DATABASE_URL: database.url! };
  }
  const dir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-obs-'));
  dataDirs.push(dir);
  return { DATA_DIR: dir };
}

/** Metrics and traces on: a free metrics port, OTLP/JSON to the receiver, spans sent at once. */
const observed = (extra: Record<string, string> = {}) => ({
  ASSETQL_METRICS_PORT: '0',
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  // Metrics or logs exported over OTLP would reach the receiver within the run, which counts
  // anything but traces as rejected: spans only.
  OTEL_METRIC_EXPORT_INTERVAL: '200',
  OTEL_BLRP_SCHEDULE_DELAY: '200',
  ...extra,
});

async function start(name: string, args: string[], env: Record<string, string>) {
  const served = await serve(name, args, env);
  children.push(served);
  const metricsUrl = served.output.join('').match(/^assetql metrics at (\S+)/m)?.[1];
  if (!metricsUrl) throw new Error(`${name} printed no metrics line\n${lastOutput(served)}`);
  return { ...served, metricsUrl };
}

async function graphql(
  url: string,
  query: string,
  options: {
    variables?: unknown;
    operationName?: string;
    session?: string;
    requestId?: string;
    headers?: Record<string, string>;
  } = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...options.headers,
      'content-type': 'application/json',
      ...(options.session ? { 'x-svc-sessionid': options.session } : {}),
      ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
    },
    body: JSON.stringify({ query, variables: options.variables, operationName: options.operationName }),
  });
  return { response, body: (await response.json()) as any };
}

const SIGN_IN = `mutation SignIn($password: String!) {
  signIn(input: { loginUsername: "demo", password: $password, clientApplicationType: EXPLORER }) { errors { type } } }`;
const WELLS = `query Wells { assetProfiles { byId(profile: "well") { assets(first: 3) { edges { node { id } } } } } }`;
const EXPORT = `query ExportWells { assetProfiles { byId(profile: "well") {
  assetsExport(properties: ["name"]) { csvFileDownloadUrl(exportName: "wells") } } } }`;

/** The value of one sample of the Prometheus text: `name` with exactly these labels among its own. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const own = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => own[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const scrape = async (url: string) => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
};

/** Signs in as the demo user; the session ID. */
async function signIn(url: string): Promise<string> {
  const { response, body } = await graphql(url, SIGN_IN, { variables: { password: 'demo' } });
  expect(body.data.signIn.errors).toEqual([]);
  return response.headers.get('x-svc-sessionid')!;
}

describe('the single process', () => {
  let api: string;
  let metricsUrl: string;
  let exportedBytes = 0;
  const wellsRequestIds: string[] = [];
  let session = '';

  beforeAll(async () => {
    const env = serveEnv(SECRET, {
      ...(await storage()),
      ASSETQL_DEMO_DATA: 'true',
      ASSETQL_METRICS_MAX_OPERATIONS: '6',
      ASSETQL_DOCUMENT_LIMITS: JSON.stringify({ maxAliases: 3 }),
      ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: 3, seconds: 600 } }),
      ...observed(),
    });
    const served = await start('single', [], env);
    api = served.url;
    metricsUrl = served.metricsUrl;

    // The script: a failed and a successful sign-in, queries, a refusal, an export, a sign-in
    // over the address's limit, and more operation names than the metrics label.
    const wrong = await graphql(api, SIGN_IN, { variables: { password: 'wrong' } });
    expect(wrong.body.data.signIn.errors[0].type).toBe('NOT_AUTHORIZED');
    session = await signIn(api);
    for (let i = 0; i < 3; i++) {
      wellsRequestIds.push(`wells-${i}`);
      const { body } = await graphql(api, WELLS, { session, requestId: wellsRequestIds[i] });
      expect(body.data.assetProfiles.byId.assets.edges.length).toBe(3);
    }
    const aliases = ['a', 'b', 'c', 'd'].map((a) => `${a}: assetProfiles { __typename }`).join(' ');
    const refused = await graphql(api, `query TooMany { ${aliases} }`, { operationName: 'TooMany' });
    expect(refused.body.errors[0].extensions.limit).toBe('maxAliases');
    const exported = await graphql(api, EXPORT, { session });
    const link = new URL(exported.body.data.assetProfiles.byId.assetsExport.csvFileDownloadUrl);
    const download = await fetch(new URL(link.pathname, api));
    expect(download.status).toBe(200);
    exportedBytes = (await download.arrayBuffer()).byteLength;
    expect(exportedBytes).toBeGreaterThan(0);
    for (const expected of ['NOT_AUTHORIZED', 'LIMIT_EXCEEDED']) {
      const { body } = await graphql(api, SIGN_IN, { variables: { password: 'wrong' } });
      expect(body.data.signIn.errors[0].type).toBe(expected);
    }
    for (let i = 1; i <= 6; i++) await graphql(api, `query N${i} { __typename }`);
  }, 120_000);

  it('counts requests by operation name and outcome, capping the names', async () => {
    const text = await scrape(metricsUrl);
    const requests = (operation: string, outcome: string) =>
      sample(text, 'assetql_graphql_request_duration_seconds_count', { operation, outcome });
    expect(requests('SignIn', 'ok')).toBe(4);
    expect(requests('Wells', 'ok')).toBe(3);
    expect(requests('TooMany', 'refused')).toBe(1);
    expect(requests('ExportWells', 'ok')).toBe(1);
    // Six names labelled at most: SignIn, Wells, TooMany, ExportWells, N1, N2; then `other`.
    expect(requests('N1', 'ok')).toBe(1);
    expect(requests('N2', 'ok')).toBe(1);
    expect(requests('N3', 'ok')).toBeUndefined();
    expect(requests('other', 'ok')).toBe(4);
    expect(
      sample(text, 'assetql_graphql_request_duration_seconds_sum', { operation: 'Wells' }),
    ).toBeGreaterThan(0);
  });

  it('times subgraph requests by subgraph and outcome', async () => {
    const text = await scrape(metricsUrl);
    const subgraph = (name: string, outcome: string) =>
      sample(text, 'assetql_subgraph_request_duration_seconds_count', { subgraph: name, outcome });
    expect(subgraph('auth', 'ok')).toBe(4);
    // Wells ×3 and ExportWells; and the six `{ __typename }` operations, which the direct planner
    // hands to the first subgraph that can answer them alone.
    expect(subgraph('assets', 'ok')).toBe(10);
    expect(subgraph('assets', 'error')).toBeUndefined();
  });

  it('counts sign-ins by outcome, and rate-limit and document-limit refusals', async () => {
    const text = await scrape(metricsUrl);
    expect(sample(text, 'assetql_sign_ins_total', { outcome: 'success' })).toBe(1);
    expect(sample(text, 'assetql_sign_ins_total', { outcome: 'NOT_AUTHORIZED' })).toBe(2);
    expect(sample(text, 'assetql_sign_ins_total', { outcome: 'LIMIT_EXCEEDED' })).toBe(1);
    expect(sample(text, 'assetql_refusals_total', { kind: 'rate_limit', limit: 'signIn' })).toBe(1);
    expect(sample(text, 'assetql_refusals_total', { kind: 'document_limit', limit: 'maxAliases' })).toBe(1);
  });

  it('counts session-cache hits and misses, one per request with a session', async () => {
    const text = await scrape(metricsUrl);
    const hits = sample(text, 'assetql_session_cache_lookups_total', { result: 'hit' }) ?? 0;
    const misses = sample(text, 'assetql_session_cache_lookups_total', { result: 'miss' }) ?? 0;
    expect(hits + misses).toBe(4);
    expect(misses).toBeGreaterThanOrEqual(1);
  });

  it('counts export streams and their bytes', async () => {
    let text = await scrape(metricsUrl);
    // The stream's end is recorded as its last byte goes out; the scrape may come first.
    for (let i = 0; i < 50 && !sample(text, 'assetql_export_streams_ended_total'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = await scrape(metricsUrl);
    }
    expect(sample(text, 'assetql_export_streams_started_total', { format: 'CSV' })).toBe(1);
    expect(sample(text, 'assetql_export_streams_ended_total', { format: 'CSV', end: 'done' })).toBe(1);
    expect(sample(text, 'assetql_export_bytes_total', { format: 'CSV' })).toBe(exportedBytes);
  });

  it('reports the database pool and the process', async () => {
    const text = await scrape(metricsUrl);
    expect(sample(text, 'assetql_db_pool_connections', { state: 'max' })).toBeGreaterThan(0);
    expect(sample(text, 'assetql_db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'assetql_db_pool_connections', { state: 'waiting' })).toBe(0);
    expect(sample(text, 'assetql_db_pool_wait_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('serves metrics on their own port only', async () => {
    expect((await fetch(new URL('/metrics', api))).status).toBe(404);
    expect((await fetch(new URL('/other', metricsUrl))).status).toBe(404);
    expect(new URL(metricsUrl).hostname).toBe('127.0.0.1');
  });

  it('sends one trace per request: gateway, subgraph and SQL spans, with the correlation id', async () => {
    // The first request goes through the runtime's pipeline; the last, the same operation again,
    // is answered as a prepared one (docs/performance.md#prepared-operations), in spans of our
    // own: both traces show the same request, operation, subgraph call and SQL.
    for (const [requestId, prepared] of [
      [wellsRequestIds[0]!, false],
      [wellsRequestIds[2]!, true],
    ] as const) {
      const trace = await traceOf(requestId);
      const names = trace.map((s) => s.name);
      expect(names).toContain('POST /api/graphql');
      expect(names).toContain('graphql.operation Wells');
      expect(names).toContain('subgraph.execute (assets)');
      expect(names.some((n) => n.startsWith('pg.query'))).toBe(true);
      expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['assetql']));
      // One tree: every span but the root has its parent in the trace.
      const ids = new Set(trace.map((s) => s.spanId));
      const roots = trace.filter((s) => !ids.has(s.parentSpanId));
      expect(roots.map((s) => s.name)).toEqual(['POST /api/graphql']);
      expect(roots[0]!.attributes[REQUEST_ID_ATTRIBUTE]).toBe(requestId);
      expect(Boolean(roots[0]!.attributes['assetql.prepared_operation'])).toBe(prepared);
      // The pipeline's parse and validate happen only on its own path.
      expect(names.includes('graphql.parse')).toBe(!prepared);
    }
    expect(receiver.rejected).toBe(0);
  });

  it("continues a client's trace on the prepared path, and makes none the client's sampling declined", async () => {
    const client = '0af7651916cd43dd8448eb211c80319c';
    const parent = 'b7ad6b7169203331';
    const traced = await graphql(api, WELLS, {
      session,
      requestId: 'wells-traceparent',
      headers: { traceparent: `00-${client}-${parent}-01` },
    });
    expect(traced.body.data.assetProfiles.byId.assets.edges.length).toBe(3);
    const trace = await traceOf('wells-traceparent');
    const root = trace.find((s) => s.name === 'POST /api/graphql')!;
    expect(root.traceId).toBe(client);
    expect(root.parentSpanId).toBe(parent);
    expect(root.attributes['assetql.prepared_operation']).toBe(true);

    const declined = await graphql(api, WELLS, {
      session,
      requestId: 'wells-unsampled',
      headers: { traceparent: `00-${'1'.repeat(32)}-${parent}-00` },
    });
    expect(declined.body.data.assetProfiles.byId.assets.edges.length).toBe(3);
    // Spans of a later request arrive, none of the unsampled one's.
    await graphql(api, WELLS, { session, requestId: 'wells-after' });
    await traceOf('wells-after');
    expect(receiver.spans.filter((s) => s.traceId === '1'.repeat(32))).toEqual([]);
  });

  it('traces a request answered with errors at the fast door once, with them', async () => {
    // Anonymous, the page is refused by its resolver: answered at the fast door, errors and all.
    const refused = await graphql(api, WELLS, { requestId: 'wells-anonymous' });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const spans = await receiver.waitFor((all) =>
      all.some(
        (s) => s.attributes[REQUEST_ID_ATTRIBUTE] === 'wells-anonymous' && s.name === 'POST /api/graphql',
      ),
    );
    const traceId = spans.find((s) => s.attributes[REQUEST_ID_ATTRIBUTE] === 'wells-anonymous')!.traceId;
    // Spans of a later request arrive after every span of this one.
    await graphql(api, WELLS, { session, requestId: 'wells-after-anonymous' });
    await traceOf('wells-after-anonymous');
    const trace = receiver.spans.filter((s) => s.traceId === traceId);
    const names = trace.map((s) => s.name).sort();
    expect(names.filter((n) => n === 'POST /api/graphql')).toHaveLength(1);
    expect(names.filter((n) => n.startsWith('graphql.operation'))).toEqual(['graphql.operation Wells']);
    expect(names).toContain('subgraph.execute (assets)');
    expect(names).not.toContain('graphql.parse');
    const operation = trace.find((s) => s.name === 'graphql.operation Wells')!;
    expect(operation.attributes['hive.graphql.error.count']).toBe(1);
    expect(trace.find((s) => s.name === 'POST /api/graphql')!.attributes['assetql.prepared_operation']).toBe(
      true,
    );
  });

  /** The spans of the request with this correlation id, once its SQL's have arrived. */
  async function traceOf(requestId: string) {
    const spans = await receiver.waitFor((all) =>
      all.some((s) => s.attributes[REQUEST_ID_ATTRIBUTE] === requestId && s.name === 'POST /api/graphql'),
    );
    const traceId = spans.find((s) => s.attributes[REQUEST_ID_ATTRIBUTE] === requestId)!.traceId;
    await receiver.waitFor((all) => all.some((s) => s.traceId === traceId && s.name.startsWith('pg.query')));
    return receiver.spans.filter((s) => s.traceId === traceId);
  }
});

describe('the distributed form', () => {
  let gateway: Awaited<ReturnType<typeof start>>;
  const subgraphs: Record<string, Awaited<ReturnType<typeof start>>> = {};

  beforeAll(async () => {
    const base = serveEnv(SECRET, { ...(await storage()), ...observed() });
    // The first subgraph owns the embedded database (and loads the demo data); the others attach.
    for (const name of SUBGRAPH_NAMES) {
      subgraphs[name] = await start(`subgraph ${name}`, ['--subgraph', name], {
        ...base,
        ASSETQL_DEMO_DATA: name === 'assets' ? 'true' : 'false',
      });
    }
    gateway = await start('gateway', ['--gateway'], {
      ...base,
      ...Object.fromEntries(
        SUBGRAPH_NAMES.map((name) => [`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`, subgraphs[name]!.url]),
      ),
    });
  }, 120_000);

  it('carries one trace from the gateway through a subgraph process to its SQL, prepared or not', async () => {
    const session = await signIn(gateway.url);
    // By the third time, the gateway answers the operation as a prepared one (its document is
    // kept once seen twice).
    for (let i = 0; i < 3; i++) {
      const { body } = await graphql(gateway.url, WELLS, { session, requestId: `distributed-trace-${i}` });
      expect(body.data.assetProfiles.byId.assets.edges.length).toBe(3);
    }
    await expectOneTrace('distributed-trace-0', false);
    await expectOneTrace('distributed-trace-2', true);
    expect(receiver.rejected).toBe(0);
  });

  async function expectOneTrace(requestId: string, prepared: boolean) {
    const traced = (s: { attributes: Record<string, unknown> }) =>
      s.attributes[REQUEST_ID_ATTRIBUTE] === requestId;
    await receiver.waitFor((all) => all.some((s) => traced(s) && s.service === 'assetql-gateway'));
    const traceId = receiver.spans.find((s) => traced(s) && s.service === 'assetql-gateway')!.traceId;
    // Each process exports its spans in the order they end, but the two processes' exports arrive
    // in any order: wait for the last span each ends (its server span) and for the SQL's.
    const arrived = (service: string, name: (n: string) => boolean) => (all: typeof receiver.spans) =>
      all.some((s) => s.traceId === traceId && s.service === service && name(s.name));
    await receiver.waitFor(arrived('assetql-gateway', (n) => n === 'POST /api/graphql'));
    await receiver.waitFor(arrived('assetql-assets', (n) => n === 'POST /graphql'));
    await receiver.waitFor(arrived('assetql-assets', (n) => n.startsWith('pg.query')));
    const trace = receiver.spans.filter((s) => s.traceId === traceId);
    const server = trace.find((s) => s.service === 'assetql-assets' && s.name === 'POST /graphql');
    expect(server, trace.map((s) => `${s.service} ${s.name}`).join('\n')).toBeDefined();
    expect(server!.attributes[REQUEST_ID_ATTRIBUTE]).toBe(requestId);
    // The subgraph's span is a child of the gateway's call to it (W3C traceparent over HTTP).
    const parent = trace.find((s) => s.spanId === server!.parentSpanId);
    expect(parent?.service).toBe('assetql-gateway');
    expect(parent?.name).toBe('subgraph.execute (assets)');
    const root = trace.find((s) => s.name === 'POST /api/graphql');
    expect(root?.service).toBe('assetql-gateway');
    expect(Boolean(root?.attributes['assetql.prepared_operation'])).toBe(prepared);
  }

  it('serves metrics from every process', async () => {
    await graphql(gateway.url, SIGN_IN, { variables: { password: 'wrong' } });
    const [atGateway, atAuth, atAssets, atIssues] = await Promise.all(
      [gateway, subgraphs.auth!, subgraphs.assets!, subgraphs.issues!].map((p) => scrape(p.metricsUrl)),
    );
    // The three Wells requests of the trace test, prepared or not.
    expect(
      sample(atGateway!, 'assetql_subgraph_request_duration_seconds_count', { subgraph: 'assets' }),
    ).toBe(3);
    expect(sample(atGateway!, 'assetql_subgraph_request_duration_seconds_count', { subgraph: 'auth' })).toBe(
      2,
    );
    expect(
      sample(atGateway!, 'assetql_graphql_request_duration_seconds_count', { operation: 'SignIn' }),
    ).toBe(2);
    expect(sample(atGateway!, 'assetql_session_cache_lookups_total', { result: 'miss' })).toBe(1);
    expect(sample(atAuth!, 'assetql_sign_ins_total', { outcome: 'success' })).toBe(1);
    expect(sample(atAuth!, 'assetql_sign_ins_total', { outcome: 'NOT_AUTHORIZED' })).toBe(1);
    for (const text of [atGateway!, atAuth!, atAssets!, atIssues!]) {
      expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'assetql_db_pool_connections', { state: 'max' })).toBeGreaterThan(0);
    }
  });
});
