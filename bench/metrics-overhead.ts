// `node bench/metrics-overhead.ts [requests]`: the CPU cost of metrics on Q1 (the first page of
// 100 wells, 5 properties), measured in one process, where a loaded machine disturbs it least:
// two apps over one embedded database, one with metrics and one without, take turns serving
// blocks of Q1 in process (no HTTP, no load generator), and each block's CPU time
// (process.cpuUsage) is charged to its app. Prints the median CPU per request of each and the
// difference. The peers benchmark measures the same over HTTP, between processes (docs/performance.md).
import { loadConfig } from '../src/config/index.ts';
import { seedDemo } from '../src/demo/seed.ts';
import { createPrometheusMetrics } from '../src/observability/prometheus.ts';
import { createApp } from '../src/server/app.ts';
import { createLogger } from '../src/shared/logger.ts';
import { openDatabase } from '../src/storage/database.ts';
import { migrateToLatest } from '../src/storage/migrate.ts';

const requests = Number(process.argv[2]) || 200;
const BLOCKS = 12;
const database = await openDatabase({ memory: true });
await migrateToLatest(database.db);
const config = loadConfig({ logLevel: 'silent', env: 'demo', demoData: true }, {});
await seedDemo(database.db, config);
const log = createLogger('silent');
const metrics = createPrometheusMetrics({ maxOperations: config.metricsMaxOperations });
metrics.observePool(database.pool, 10);
const apps = {
  off: await createApp(config, { kind: 'single' }, { database, log, migrate: false }),
  on: await createApp(config, { kind: 'single' }, { database, log, migrate: false, metrics }),
};
const signIn = await apps.off.handle(
  new Request('http://localhost:4000/api/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type } } }`,
    }),
  }),
);
const session = signIn.headers.get('x-svc-sessionid')!;
const body = JSON.stringify({
  query: `query Q1 { assets(profile: "well") { all(first: 100) { edges { node { id properties(only: ["name", "status", "depth", "uwi", "facilityId"]) } } } } }`,
});
const q1 = (app: typeof apps.on) =>
  app
    .handle(
      new Request('http://localhost:4000/api/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-sessionid': session },
        body,
      }),
    )
    .then(async (r) => {
      const text = await r.text();
      if (!text.startsWith('{"data":{"assets"')) throw new Error(text.slice(0, 300));
    });

const perRequest: Record<'on' | 'off', number[]> = { on: [], off: [] };
for (const name of ['off', 'on'] as const) for (let i = 0; i < 50; i++) await q1(apps[name]); // warm-up
for (let block = 0; block < BLOCKS; block++) {
  for (const name of block % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
    const start = process.cpuUsage();
    for (let i = 0; i < requests; i++) await q1(apps[name]);
    const used = process.cpuUsage(start);
    perRequest[name].push((used.user + used.system) / 1000 / requests);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const off = median(perRequest.off);
const on = median(perRequest.on);

// What metrics add to one Q1 request, timed alone: the recording calls a request makes (its
// latency, its subgraph call, its session lookup, two pool checkouts) on the same registry.
// A bound that the machine's load moves far less than the A/B difference above.
const calls = 200_000;
const recordStart = process.cpuUsage();
for (let i = 0; i < calls; i++) {
  metrics.operation('Q1', 'ok', 0.003);
  metrics.subgraphRequest('assets', 'ok', 0.002);
  metrics.sessionLookup('hit');
  metrics.poolWait(0.00001);
  metrics.poolWait(0.00001);
}
const recorded = process.cpuUsage(recordStart);
const recordingMs = (recorded.user + recorded.system) / 1000 / calls;
process.stdout.write(
  `${JSON.stringify({
    requestsPerBlock: requests,
    blocks: BLOCKS,
    cpuMsPerRequest: { off, on },
    overheadPercent: ((on - off) / off) * 100,
    recordingMsPerRequest: recordingMs,
    recordingPercentOfQ1: (recordingMs / off) * 100,
  })}\n`,
);
await apps.on.close();
await apps.off.close();
await database.close();
