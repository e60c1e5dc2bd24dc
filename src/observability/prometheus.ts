import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import client from 'prom-client';
import type { Metrics, OperationOutcome } from '../shared/metrics.ts';

/** The Prometheus side of {@link Metrics}: one registry per process, scraped at `/metrics`. */
export interface PrometheusMetrics extends Metrics {
  readonly registry: client.Registry;
  /** Reports a pool's connections (in use, idle, waiting, its maximum) and times its checkouts. */
  observePool(pool: pg.Pool, max: number): void;
}

export interface PrometheusOptions {
  /** Distinct operation names labelled; later ones count as `other` (ASSETQL_METRICS_MAX_OPERATIONS). */
  maxOperations: number;
}

/** Latency buckets, in seconds: from a cached lookup (1 ms) to a request at its limits (10 s). */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Pool waits are usually nothing; the tail is what matters (5 s is the pool's timeout). */
const WAIT_SECONDS = [0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/**
 * Builds the process's registry: Node's default metrics (memory, event-loop lag, handles, GC)
 * and assetql's own (docs/operations.md#metrics). Label values come from fixed sets, but for the
 * operation name, which is capped at `maxOperations` distinct names per process.
 */
export function createPrometheusMetrics(options: PrometheusOptions): PrometheusMetrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const operations = new client.Histogram({
    name: 'assetql_graphql_request_duration_seconds',
    help: 'GraphQL requests at the gateway by operation name and outcome (ok, error, refused), and their time',
    labelNames: ['operation', 'outcome'] as const,
    buckets: SECONDS,
    registers,
  });
  const prepared = new client.Counter({
    name: 'assetql_prepared_operations_total',
    help: 'GraphQL requests answered as prepared operations, without the per-request pipeline: at the gateway (also counted in assetql_graphql_request_duration_seconds), or at a subgraph for our gateway',
    registers,
  });
  const planned = new client.Counter({
    name: 'assetql_planned_queries_total',
    help: 'Queries a subgraph has a plan for, by whether the plan answered them (answered) or left them to field-by-field execution (declined)',
    labelNames: ['subgraph', 'outcome'] as const,
    registers,
  });
  const joined = new client.Counter({
    name: 'assetql_joined_operations_total',
    help: 'Queries the gateway joins from direct subgraph requests, by whether they were answered so (answered) or left to the query planner (declined), and why (reason: cost, errors, budget, shape)',
    labelNames: ['outcome', 'reason'] as const,
    registers,
  });
  const readings = new client.Counter({
    name: 'assetql_readings_stored_total',
    help: 'Readings (one value of one key at one time) stored, by source (mqtt, graphql)',
    labelNames: ['source'] as const,
    registers,
  });
  const deadLetters = new client.Counter({
    name: 'assetql_mqtt_dead_letters_total',
    help: 'MQTT messages of readings refused to the dead-letter topic, by reason (unknown-asset, unknown-profile, wrong-type, too-large, bad-json, bad-input, too-old)',
    labelNames: ['reason'] as const,
    registers,
  });
  const subgraphs = new client.Histogram({
    name: 'assetql_subgraph_request_duration_seconds',
    help: 'Requests from the gateway to each subgraph by outcome (error: a failure or any error in the result), and their time',
    labelNames: ['subgraph', 'outcome'] as const,
    buckets: SECONDS,
    registers,
  });
  const sessions = new client.Counter({
    name: 'assetql_session_cache_lookups_total',
    help: 'Session IDs resolved by the session resolver, by whether its cache held them (hit) or the database was read (miss)',
    labelNames: ['result'] as const,
    registers,
  });
  const exportsStarted = new client.Counter({
    name: 'assetql_export_streams_started_total',
    help: 'Export downloads that started streaming, by format',
    labelNames: ['format'] as const,
    registers,
  });
  const exportsEnded = new client.Counter({
    name: 'assetql_export_streams_ended_total',
    help: 'Export downloads ended, by format and how (done, aborted, idle, failed)',
    labelNames: ['format', 'end'] as const,
    registers,
  });
  const exportBytes = new client.Counter({
    name: 'assetql_export_bytes_total',
    help: 'Bytes of export downloads sent, by format',
    labelNames: ['format'] as const,
    registers,
  });
  const signIns = new client.Counter({
    name: 'assetql_sign_ins_total',
    help: 'Password sign-ins by outcome: success, or the failure type the client was given',
    labelNames: ['outcome'] as const,
    registers,
  });
  const refusals = new client.Counter({
    name: 'assetql_refusals_total',
    help: 'Requests refused by a rate limit (rate_limit, by action), a document limit (document_limit, by limit) or trusted documents (trusted_document, by code)',
    labelNames: ['kind', 'limit'] as const,
    registers,
  });
  const poolWait = new client.Histogram({
    name: 'assetql_db_pool_wait_seconds',
    help: 'Time waited for a pooled database connection',
    buckets: WAIT_SECONDS,
    registers,
  });

  const named = new Set<string>();
  const operationLabel = (name: string | null | undefined) => {
    if (!name) return 'anonymous';
    if (!GRAPHQL_NAME.test(name)) return 'invalid';
    if (named.has(name)) return name;
    if (named.size >= options.maxOperations) return 'other';
    named.add(name);
    return name;
  };

  return {
    registry,
    operation(name: string | null | undefined, outcome: OperationOutcome, seconds: number) {
      operations.observe({ operation: operationLabel(name), outcome }, seconds);
    },
    preparedOperation() {
      prepared.inc();
    },
    plannedQuery(subgraph, outcome) {
      planned.inc({ subgraph, outcome });
    },
    joinedOperation(outcome, reason) {
      joined.inc({ outcome, reason: reason ?? '' });
    },
    subgraphRequest(subgraph, outcome, seconds) {
      subgraphs.observe({ subgraph, outcome }, seconds);
    },
    sessionLookup(result) {
      sessions.inc({ result });
    },
    exportStarted(format) {
      exportsStarted.inc({ format });
    },
    exportBytes(format, bytes) {
      exportBytes.inc({ format }, bytes);
    },
    exportEnded(format, end) {
      exportsEnded.inc({ format, end });
    },
    signIn(outcome) {
      signIns.inc({ outcome });
    },
    refusal(kind, limit) {
      refusals.inc({ kind, limit });
    },
    poolWait(seconds) {
      poolWait.observe(seconds);
    },
    readingsStored(source, count) {
      readings.inc({ source }, count);
    },
    deadLetter(reason) {
      deadLetters.inc({ reason });
    },
    observePool(pool, max) {
      new client.Gauge({
        name: 'assetql_db_pool_connections',
        help: 'Database pool connections by state: in_use, idle, waiting (requests queued for one), max',
        labelNames: ['state'] as const,
        registers,
        collect() {
          this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
          this.set({ state: 'max' }, max);
        },
      });
      timeCheckouts(pool, (seconds) => poolWait.observe(seconds));
    },
  };
}

/**
 * Times every checkout of the pool, callback or promise style: Kysely checks out with a promise,
 * `pool.query` (the rate limiter, the lock helpers) with a callback.
 */
function timeCheckouts(pool: pg.Pool, observe: (seconds: number) => void) {
  const connect = pool.connect.bind(pool) as (
    callback?: (err: Error | undefined, client: pg.PoolClient, done: () => void) => void,
  ) => Promise<pg.PoolClient> | undefined;
  const timed = (callback?: (err: Error | undefined, client: pg.PoolClient, done: () => void) => void) => {
    const start = performance.now();
    const seen = () => observe((performance.now() - start) / 1000);
    if (callback)
      return connect((err, c, done) => {
        seen();
        callback(err, c, done);
      });
    const promise = connect()!;
    promise.then(seen, seen);
    return promise;
  };
  pool.connect = timed as typeof pool.connect;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `GET /metrics` (Prometheus text format) on a port of its own; anything else is 404. */
export async function serveMetrics(
  registry: client.Registry,
  port: number,
  host: string,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
