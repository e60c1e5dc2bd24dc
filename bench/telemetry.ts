import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import pg from 'pg';
import { lttb } from '../src/subgraphs/assets/telemetry/lttb.ts';
import { rebuildRollups } from '../src/subgraphs/assets/telemetry/store.ts';
import { startMosquitto } from '../test/helpers/mosquitto.ts';
import { graphql, percentile, pinLoadGenerator, type Server, signedInUser, startServer } from './lib.ts';
import { cpuMs, databaseCpuMs } from './peers/procs.ts';

/**
 * Telemetry (#39, docs/telemetry.md), on PostgreSQL: readings in through `recordObservations`
 * batches and over MQTT at QoS 1 into 10,000 assets; then, over 10,000,000 stored readings, the
 * questions a chart asks, each beside the same question asked of the raw readings with `date_bin`
 * (what a user without rollups would write), and the ratio.
 */
export interface TelemetryBenchResult {
  skipped?: string;
  assets: number;
  /** Batches of 10,000 observations: each asset's last 10 s (1,000 assets a batch), and one of each asset. */
  graphql: { buffered: IngestFigure; spread: IngestFigure };
  /** Messages of a device's last 10 s (ten observations), and of one observation. */
  mqtt: { buffered: MqttFigure; single: MqttFigure };
  stored: number;
  queries: QueryFigure[];
}

export interface IngestFigure {
  requests: number;
  readings: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
}

export interface MqttFigure {
  messages: number;
  readings: number;
  /** From the first publication to the last reading stored. */
  seconds: number;
  perSecond: number;
  publishedPerSecond: number;
}

export interface QueryFigure {
  name: string;
  target: string;
  ours: { p50: number; p95: number };
  baseline: { p50: number; p95: number };
  /** The baseline's p50 over ours. */
  ratio: number;
  runs: number;
}

const GROUP = 'telemetry';
const NO_INGEST: IngestFigure = { requests: 0, readings: 0, seconds: 0, perSecond: 0, p50Ms: 0 };
const NO_MQTT: MqttFigure = { messages: 0, readings: 0, seconds: 0, perSecond: 0, publishedPerSecond: 0 };
const KEYS = ['pressure', 'rate', 'temperature', 'flow'];

export async function telemetryBench(options: {
  quick: boolean;
  smoke: boolean;
}): Promise<TelemetryBenchResult> {
  const { quick, smoke } = options;
  const empty: TelemetryBenchResult = {
    assets: 0,
    graphql: { buffered: NO_INGEST, spread: NO_INGEST },
    mqtt: { buffered: NO_MQTT, single: NO_MQTT },
    stored: 0,
    queries: [],
  };
  if (!process.env.DATABASE_URL)
    return {
      ...empty,
      skipped: 'measured on PostgreSQL only (set DATABASE_URL): the figures are for a server',
    };
  const assets = smoke ? 200 : quick ? 2_000 : 10_000;
  // A Mosquitto of the bench's own, as docs/telemetry.md configures one (anonymous here).
  const broker = await startMosquitto();
  const server = await startServer({
    ASSETQL_DEMO_DATA: 'false',
    ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: 10_000, seconds: 60 } }),
    ASSETQL_MQTT_URL: `mqtt://127.0.0.1:${broker.port}`,
    ASSETQL_MQTT_CLIENT_ID: `bench-${process.pid}`,
  });
  pinLoadGenerator();
  const db = new pg.Client({ connectionString: server.env.DATABASE_URL });
  try {
    await db.connect();
    await prepare(server, assets);
    const session = await signedInUser(server, GROUP);
    const headers = { 'x-svc-sessionid': session };
    const ids = (
      await db.query<{ id: string }>(
        `select id from assets where user_group = $1 and profile = 'well' order by id`,
        [GROUP],
      )
    ).rows.map((r) => r.id);
    const result: TelemetryBenchResult = { ...empty, assets: ids.length };
    const seconds = smoke ? 2 : quick ? 5 : 15;
    result.graphql = {
      buffered: await graphqlIngest(server, headers, ids, seconds, 10),
      spread: await graphqlIngest(server, headers, ids, seconds, 1),
    };
    result.mqtt = {
      buffered: await mqttIngest(broker.port, db, ids, seconds, 10, smoke ? 1_000 : 100_000),
      single: await mqttIngest(broker.port, db, ids, seconds, 1, smoke ? 4_000 : 250_000),
    };
    const sizes = smoke
      ? { dense: 20_000, page: 100, perPageAsset: 2_000 }
      : quick
        ? { dense: 200_000, page: 100, perPageAsset: 18_000 }
        : { dense: 1_000_000, page: 100, perPageAsset: 90_000 };
    result.stored = await loadHistory(db, ids, sizes);
    await atRest(server);
    result.queries = await queries(server, headers, db, ids, sizes, smoke ? 5 : quick ? 40 : 200);
    return result;
  } finally {
    await db.end().catch(() => {});
    await server.close();
    await broker.close();
  }
}

/** The bench's group: wells with a state dataset, and the bench user. */
async function prepare(server: Server, assets: number) {
  await server.cli(['demo', 'generate', '--assets', String(assets), '--group', GROUP]);
  const doc = JSON.parse(await server.cli(['profiles', 'get', 'well', '--group', GROUP]));
  const file = join(mkdtempSync(join(tmpdir(), 'aq-bench-tel-')), 'well.json');
  writeFileSync(
    file,
    JSON.stringify({ ...doc, stateUpdateDatasets: [{ dataset: 'scada', title: 'SCADA' }] }),
  );
  await server.cli(['profiles', 'apply', file, '--group', GROUP]);
  rmSync(file, { force: true });
}

/**
 * Batches of 10,000 observations (four keys each) from three clients at once, for `seconds`:
 * `ticks` consecutive seconds of each of 10,000 / `ticks` assets (a gateway's buffer), the assets
 * taking turns.
 */
async function graphqlIngest(
  server: Server,
  headers: Record<string, string>,
  ids: string[],
  seconds: number,
  ticks: number,
): Promise<IngestFigure> {
  const mutation =
    'mutation($input: RecordObservationsInput!) { recordObservations(input: $input) { recorded errors { message } } }';
  const base = Date.now() - (ticks === 1 ? 3 : 2) * 86_400_000;
  const perBatch = 10_000 / ticks;
  let next = 0;
  const latencies: number[] = [];
  let readings = 0;
  let requests = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 3 }, async () => {
      while (performance.now() < end) {
        const round = next++;
        const observations = Array.from({ length: 10_000 }, (_, i) => {
          const slot = round * perBatch + Math.floor(i / ticks);
          const id = ids[slot % ids.length]!;
          const tick = Math.floor(slot / ids.length) * ticks + (i % ticks);
          return {
            id,
            at: new Date(base + tick * 1000).toISOString(),
            values: {
              pressure: 40 + (i % 17),
              rate: 60 + (i % 13),
              temperature: 20 + (i % 7),
              flow: i % 100,
            },
          };
        });
        const t0 = performance.now();
        const r = await graphql(
          server.url,
          mutation,
          { input: { profile: 'well', dataset: 'scada', observations } },
          headers,
        );
        latencies.push(performance.now() - t0);
        const out = r.body.data?.recordObservations;
        if (!out || out.errors.length)
          throw new Error(`recordObservations failed: ${JSON.stringify(r.body).slice(0, 300)}`);
        readings += out.recorded * KEYS.length;
        requests++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    readings,
    seconds: round1(elapsed),
    perSecond: Math.round(readings / elapsed),
    p50Ms: Math.round(percentile(latencies, 50)),
  };
}

/**
 * Devices publishing at QoS 1 for `seconds` as fast as the broker takes them (four connections,
 * a window of 2,000 unacknowledged each), one observation of four keys a message, spread over the
 * assets; the bridge of `assetql serve` stores them. Sustained: from the first publication to
 * the last reading stored.
 */
async function mqttIngest(
  port: number,
  db: pg.Client,
  ids: string[],
  seconds: number,
  perMessage: number,
  /** Messages published at most: devices publish faster than one server stores. */
  most: number,
): Promise<MqttFigure> {
  const before = await storedReadings(db);
  const base = Date.now() - (perMessage === 1 ? 1.5 : 1) * 86_400_000;
  const clients = await Promise.all(
    Array.from({ length: 4 }, (_, c) =>
      mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: `bench-device-${c}`, protocolVersion: 5 }),
    ),
  );
  let messages = 0;
  // What each connection sends is bounded so that the backlog drains in a minute or two.
  const limit = Math.ceil(most / clients.length);
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    clients.map(async (client, c) => {
      let n = 0;
      const window: Promise<unknown>[] = [];
      while (performance.now() < end && n < limit) {
        const k = n++ * clients.length + c;
        const id = ids[k % ids.length]!;
        const tick = Math.floor(k / ids.length) * perMessage;
        const one = (j: number) =>
          `{"at":"${new Date(base + (tick + j) * 1000).toISOString()}","values":{"pressure":${40 + (k % 17)},"rate":${60 + (j % 13)},"temperature":${20 + (k % 7)},"flow":${j}}}`;
        const payload =
          perMessage === 1 ? one(0) : `[${Array.from({ length: perMessage }, (_, j) => one(j)).join(',')}]`;
        window.push(client.publishAsync(`assetql/${GROUP}/well/${id}/scada`, payload, { qos: 1 }));
        if (window.length >= 2_000) await Promise.all(window.splice(0, 1_000));
      }
      await Promise.all(window);
      messages += n;
    }),
  );
  const published = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.endAsync()));
  const readings = messages * perMessage * KEYS.length;
  const expected = before + readings;
  const deadline = Date.now() + 300_000;
  for (;;) {
    const stored = await storedReadings(db);
    if (stored >= expected) break;
    if (Date.now() > deadline)
      throw new Error(`MQTT: ${stored - before} of ${expected - before} readings stored after 5 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const elapsed = (performance.now() - started) / 1000;
  return {
    messages,
    readings,
    seconds: round1(elapsed),
    perSecond: Math.round(readings / elapsed),
    publishedPerSecond: Math.round(readings / published),
  };
}

async function storedReadings(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `select coalesce(sum(n), 0) as n from observation_rollups_day r join observation_series s on s.id = r.series
     where s.user_group = $1`,
    [GROUP],
  );
  return Number(rows[0]!.n);
}

interface Sizes {
  /** Readings of the one dense asset, spread over a year. */
  dense: number;
  /** Assets of the page, each with `perPageAsset` readings a minute apart up to now. */
  page: number;
  perPageAsset: number;
}

/** The history the queries read, written in SQL (readings, then their rollups from them). */
async function loadHistory(db: pg.Client, ids: string[], sizes: Sizes): Promise<number> {
  const now = Date.now();
  const year = 365 * 86_400_000;
  const dense = ids.at(-1)!;
  const page = ids.slice(0, sizes.page);
  await db.query(
    `insert into observation_series (user_group, profile, asset_id, dataset, property)
     select $1, 'well', a, 'scada', 'level' from unnest($2::text[]) a on conflict do nothing`,
    [GROUP, [dense, ...page]],
  );
  await db.query(
    `select observation_month(m::date) from generate_series(date_trunc('month', $1::timestamptz - interval '366 days'),
       $1::timestamptz + interval '1 month', interval '1 month') m`,
    [new Date(now)],
  );
  const step = year / sizes.dense;
  await db.query(
    `insert into observation_readings (series, at, num)
     select s.id, $3::timestamptz - (g * $4::float8) * interval '1 millisecond', 50 + 20 * sin(g / 5000.0) + (g % 97) / 10.0
     from observation_series s, generate_series(1, $5::int) g
     where s.user_group = $1 and s.asset_id = $2 and s.property = 'level'`,
    [GROUP, dense, new Date(now), step, sizes.dense],
  );
  await db.query(
    `insert into observation_readings (series, at, num)
     select s.id, date_trunc('minute', $3::timestamptz) - g * interval '1 minute', 30 + (g % 240) / 8.0 + (hashtext(s.asset_id) % 10)
     from observation_series s, generate_series(1, $4::int) g
     where s.user_group = $1 and s.asset_id = any($2::text[]) and s.property = 'level'`,
    [GROUP, page, new Date(now), sizes.perPageAsset],
  );
  const exec = async <R>(text: string, params: readonly unknown[] = []) =>
    (await db.query(text, params as unknown[])).rows as R[];
  await rebuildRollups(
    exec,
    `select id from observation_series where user_group = $1 and property = 'level'`,
    [GROUP],
  );
  // What autovacuum does after a load: statistics, and the visibility map that lets a series'
  // readings be read from the index alone; and the assets' dead rows of the ingest's latest
  // values, so that autovacuum does not take them up in the middle of the timed questions.
  await db.query(
    'vacuum (analyze) observation_readings, observation_rollups_hour, observation_rollups_day, observation_series, assets',
  );
  const { rows } = await db.query<{ n: string }>(
    `select count(*) as n from observation_readings r join observation_series s on s.id = r.series where s.user_group = $1`,
    [GROUP],
  );
  return Number(rows[0]!.n);
}

/**
 * Waits until the server and PostgreSQL are at rest (each under 5 % of a core over a second, for
 * at most 60 s), so that the questions meet them as a server after its load has settled, not in
 * the middle of what the load left behind (the server collecting the ingest's garbage, autovacuum
 * taking up the load's tables).
 */
async function atRest(server: Server): Promise<void> {
  const pid = server.child.pid!;
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const [s0, d0] = [cpuMs(pid), databaseCpuMs()];
    await new Promise((r) => setTimeout(r, 1_000));
    const [s1, d1] = [cpuMs(pid), databaseCpuMs()];
    // NaN (no PostgreSQL process on this machine) counts as at rest.
    if (s1 - s0 < 50 && !(d1 - d0 >= 50)) return;
  }
  console.error('bench: telemetry: the server or PostgreSQL was still busy after 60 s; asking anyway');
}

async function queries(
  server: Server,
  headers: Record<string, string>,
  db: pg.Client,
  ids: string[],
  sizes: Sizes,
  runs: number,
): Promise<QueryFigure[]> {
  const now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  const dense = ids.at(-1)!;
  const page = ids.slice(0, sizes.page);
  const hour = (t: number) => new Date(Math.floor(t / 3_600_000) * 3_600_000);
  const day = (t: number) => new Date(Math.floor(t / 86_400_000) * 86_400_000);
  const month = { from: hour(now.getTime() - 30 * 86_400_000), to: hour(now.getTime()) };
  const yearRange = { from: day(now.getTime() - 365 * 86_400_000), to: day(now.getTime()) };
  const lastDay = { from: new Date(now.getTime() - 86_400_000), to: now };
  const one = (from: Date, to: Date, resolution: string) =>
    `{ assets(profile: "well") { byId(id: "${dense}") { observationSeries(property: "level", from: "${from.toISOString()}",
       to: "${to.toISOString()}", resolution: "${resolution}", aggregates: [AVG, MIN, MAX, COUNT]) { buckets { start count avg min max } } } } }`;
  const seriesIds = async (assetIds: string[]) =>
    (
      await db.query<{ id: string }>(
        `select id from observation_series where user_group = $1 and asset_id = any($2::text[]) and property = 'level'`,
        [GROUP, assetIds],
      )
    ).rows.map((r) => r.id);
  const denseSeries = await seriesIds([dense]);
  const pageSeries = await seriesIds(page);
  const dateBin = (width: string) =>
    `select r.series, date_bin('${width}', r.at, $2::timestamptz) as b, avg(r.num), min(r.num), max(r.num), count(r.num)
     from observation_readings r where r.series = any($1::bigint[]) and r.at >= $2 and r.at < $3 group by 1, 2`;
  // The load's dirty pages written out first, as a server at rest has them, rather than by a
  // checkpoint in the middle of the timed questions.
  await db
    .query('checkpoint')
    .catch((e: Error) =>
      console.error(`bench: telemetry: no checkpoint before the questions (${e.message})`),
    );
  const figures: QueryFigure[] = [];
  const measure = async (
    name: string,
    target: string,
    ours: () => Promise<void>,
    baseline: () => Promise<void>,
  ) => {
    // Warmed up as the timed runs go: the server's code optimised, the pages read once.
    for (let i = 0; i < Math.max(2, Math.ceil(runs / 5)); i++) await ours();
    await baseline();
    const a = await timed(ours, runs);
    // The baselines are the slow side (up to a second a run): a fifth as many, at most 20.
    const b = await timed(baseline, Math.max(3, Math.min(20, Math.ceil(runs / 5))));
    figures.push({ name, target, ours: a, baseline: b, ratio: round1(b.p50 / a.p50), runs });
  };
  const gql = (query: string) => async () => {
    const r = await graphql(server.url, query, {}, headers);
    if (r.body.errors)
      throw new Error(`telemetry query failed: ${JSON.stringify(r.body.errors).slice(0, 300)}`);
  };
  await measure(
    '30 days at 1 h, one asset',
    'p95 < 20 ms',
    gql(one(month.from, month.to, '1h')),
    async () => void (await db.query(dateBin('1 hour'), [denseSeries, month.from, month.to])),
  );
  await measure(
    'a year at 1 d, one asset',
    'p95 < 50 ms',
    gql(one(yearRange.from, yearRange.to, '1d')),
    async () => void (await db.query(dateBin('1 day'), [denseSeries, yearRange.from, yearRange.to])),
  );
  await measure(
    `${page.length} assets' last 24 h at 15 min, one request`,
    '< 200 ms',
    gql(`{ assets(profile: "well") { all(first: ${page.length}) { edges { node { id
        observationSeries(property: "level", from: "${lastDay.from.toISOString()}", to: "${lastDay.to.toISOString()}",
          resolution: "15m", aggregates: [AVG, MIN, MAX, COUNT]) { buckets { start count avg min max } } } } } } }`),
    async () => void (await db.query(dateBin('15 minutes'), [pageSeries, lastDay.from, lastDay.to])),
  );
  await measure(
    `LTTB of ${sizes.dense.toLocaleString('en')} raw readings to 1,000 points`,
    '< 150 ms',
    gql(`{ assets(profile: "well") { byId(id: "${dense}") { observations(property: "level", from: "${yearRange.from.toISOString()}",
        to: "${now.toISOString()}", downsample: { points: 1000, method: LTTB }) { edges { node { at values } } } } } }`),
    // The baseline reads every reading and runs LTTB in the client.
    async () => {
      const { rows } = await db.query<{ t: number; v: number }>(
        `select extract(epoch from at) * 1000 as t, num as v from observation_readings
         where series = any($1::bigint[]) and at >= $2 and at < $3 order by at`,
        [denseSeries, yearRange.from, now],
      );
      lttb(
        rows.map((r) => ({ t: Number(r.t), v: r.v })),
        1000,
      );
    },
  );
  return figures;
}

async function timed(run: () => Promise<void>, runs: number): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: round1(percentile(times, 50)), p95: round1(percentile(times, 95)) };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function telemetryMarkdown(r: TelemetryBenchResult): string {
  if (r.skipped) return `## Telemetry\n\nSkipped: ${r.skipped}.\n`;
  return [
    '## Telemetry',
    '',
    `One \`assetql serve\` on PostgreSQL, ${r.assets.toLocaleString('en')} wells with a state dataset; a reading is one value of one key at one time (an observation of four keys is four readings).`,
    '',
    '| Ingest | readings | seconds | readings/s |',
    '|---|---|---|---|',
    ...(
      [
        ['a gateway’s 10 s of 1,000 assets', r.graphql.buffered],
        ['one observation of each of 10,000 assets', r.graphql.spread],
      ] as const
    ).map(
      ([shape, g]) =>
        `| \`recordObservations\`, batches of 10,000 observations (${shape}), 3 clients; p50 ${g.p50Ms} ms a batch | ${g.readings.toLocaleString('en')} | ${g.seconds} | **${g.perSecond.toLocaleString('en')}** |`,
    ),
    ...(
      [
        ['a device’s last 10 s (10 observations) a message', r.mqtt.buffered],
        ['one observation a message', r.mqtt.single],
      ] as const
    ).map(
      ([shape, m]) =>
        `| MQTT QoS 1, ${shape}, 4 connections → Mosquitto → the bridge; published at ${m.publishedPerSecond.toLocaleString('en')}/s | ${m.readings.toLocaleString('en')} | ${m.seconds} | **${m.perSecond.toLocaleString('en')}** |`,
    ),
    '',
    `Queries over ${r.stored.toLocaleString('en')} stored readings, through GraphQL, each beside the same question asked of the raw readings with \`date_bin\` in SQL (LTTB: every raw reading read and LTTB run in the client):`,
    '',
    '| Question | target | ours p50 / p95 | raw `date_bin` p50 / p95 | ratio |',
    '|---|---|---|---|---|',
    ...r.queries.map(
      (q) =>
        `| ${q.name} | ${q.target} | ${q.ours.p50} / ${q.ours.p95} ms | ${q.baseline.p50} / ${q.baseline.p95} ms | ${q.ratio}× |`,
    ),
    '',
  ].join('\n');
}
