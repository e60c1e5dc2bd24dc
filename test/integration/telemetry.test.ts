import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lttb } from '../../src/subgraphs/assets/telemetry/lttb.ts';
import { pruneObservations } from '../../src/subgraphs/assets/telemetry/retention.ts';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;
let wells: string[];

beforeAll(async () => {
  ({ app: t, demo, east } = await startDemoApp());
  const r = await t.graphql<any>(
    `{ assets(profile: "well") { all(first: 10) { edges { node { id } } } } }`,
    {},
    demo,
  );
  wells = r.body.data.assets.all.edges.map((e: any) => e.node.id);
});
afterAll(() => t.close());

/** A small deterministic generator. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const RECORD = `mutation($input: RecordObservationsInput!) {
  recordObservations(input: $input, correlationId: "c-1") { recorded correlationId errors { type message } } }`;

async function record(
  observations: { id: string; at: string; values: Record<string, unknown> }[],
  headers = demo,
) {
  const r = await t.graphql<any>(
    RECORD,
    { input: { profile: 'well', dataset: 'scada', observations } },
    headers,
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data.recordObservations;
}

const SERIES = `query($id: ID!, $p: String!, $from: DateTime!, $to: DateTime!, $res: String!, $tz: String, $fill: ObservationFill, $aggs: [ObservationAggregate!]) {
  assets(profile: "well") { byId(id: $id) {
    observationSeries(property: $p, from: $from, to: $to, resolution: $res, timezone: $tz, fill: $fill, aggregates: $aggs) {
      property unit resolution timezone buckets { start end count avg min max sum stddev first last } } } } }`;

async function series(vars: Record<string, unknown>, headers = demo): Promise<any> {
  const r = await t.graphql<any>(SERIES, vars, headers);
  return r.body;
}

interface Reading {
  id: string;
  t: number;
  v: number;
}

/** The reference: readings grouped by `bucketOf`, aggregated here from the raw values. */
function reference(
  readings: Reading[],
  id: string,
  from: number,
  to: number,
  bucketOf: (t: number) => number,
) {
  const groups = new Map<number, Reading[]>();
  for (const r of readings) {
    if (r.id !== id || r.t < from || r.t >= to) continue;
    const b = bucketOf(r.t);
    let g = groups.get(b);
    if (!g) {
      g = [];
      groups.set(b, g);
    }
    g.push(r);
  }
  return new Map(
    [...groups].map(([b, g]) => {
      g.sort((x, y) => x.t - y.t);
      const vs = g.map((r) => r.v);
      const n = vs.length;
      const sum = vs.reduce((a, v) => a + v, 0);
      const mean = sum / n;
      const variance = n >= 2 ? vs.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1) : null;
      return [
        b,
        {
          count: n,
          sum,
          avg: mean,
          min: Math.min(...vs),
          max: Math.max(...vs),
          first: vs[0]!,
          last: vs[n - 1]!,
          stddev: variance === null ? null : Math.sqrt(variance),
        },
      ];
    }),
  );
}

function expectClose(actual: number | null, expected: number | null, what: string) {
  if (expected === null) return expect(actual, what).toBeNull();
  expect(actual, what).not.toBeNull();
  expect(Math.abs(actual! - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
    1e-6 * Math.max(1, Math.abs(expected)),
  );
}

function compare(buckets: any[], ref: ReturnType<typeof reference>, bucketOf: (t: number) => number) {
  const seen = new Set<number>();
  for (const b of buckets) {
    const key = bucketOf(Date.parse(b.start));
    const r = ref.get(key);
    expect(r, `bucket ${b.start} has readings`).toBeDefined();
    seen.add(key);
    expect(b.count, b.start).toBe(r!.count);
    for (const f of ['sum', 'avg', 'min', 'max', 'first', 'last', 'stddev'] as const)
      expectClose(b[f], r![f], `${b.start} ${f}`);
  }
  expect(seen.size).toBe(ref.size);
}

describe('observations in, series out (docs/telemetry.md)', () => {
  // Around the end of daylight saving in Europe (25 October 2026: a day of 25 hours).
  const FROM = Date.parse('2026-10-23T00:00:00Z');
  const TO = Date.parse('2026-10-27T00:00:00Z');
  const sent: Reading[] = [];

  beforeAll(async () => {
    const observed = async () =>
      Number(
        (
          await sql<{ n: string }>`select coalesce(sum(observation_count), 0) as n from asset_dataset_stats
            where profile = 'well'`.execute(t.database.db)
        ).rows[0]!.n,
      );
    const observedBefore = await observed();
    const random = rng(7);
    const all: Reading[] = [];
    for (const id of wells.slice(0, 3))
      for (let i = 0; i < 1500; i++) {
        // Whole milliseconds, some on bucket edges.
        const t0 = FROM + Math.floor(random() * (TO - FROM));
        const t = i % 10 === 0 ? t0 - (t0 % 3_600_000) : t0;
        all.push({ id, t, v: Math.round((random() * 200 - 50) * 1000) / 1000 });
      }
    // One reading per asset and time: the last one sent wins.
    const unique = new Map<string, Reading>();
    for (const r of all) unique.set(`${r.id}/${r.t}`, r);
    const readings = [...unique.values()];
    // Sent in shuffled batches: late arrivals, older after newer.
    for (let i = readings.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [readings[i], readings[j]] = [readings[j]!, readings[i]!];
    }
    for (let i = 0; i < readings.length; i += 1000) {
      const batch = readings.slice(i, i + 1000);
      const r = await record(
        batch.map((x) => ({ id: x.id, at: new Date(x.t).toISOString(), values: { flow: x.v } })),
      );
      expect(r).toEqual({ recorded: batch.length, correlationId: 'c-1', errors: [] });
    }
    // Some readings sent again with another value: they replace the stored ones.
    const again = readings.slice(0, 200).map((x) => ({ ...x, v: x.v + 1000 }));
    const r = await record(
      again.map((x) => ({ id: x.id, at: new Date(x.t).toISOString(), values: { flow: x.v } })),
    );
    expect(r.errors).toEqual([]);
    const final = new Map(readings.map((x) => [`${x.id}/${x.t}`, x]));
    for (const x of again) final.set(`${x.id}/${x.t}`, x);
    sent.push(...final.values());
    // The dataset counts each observation once: those sent again replaced values, adding none.
    expect((await observed()) - observedBefore).toBe(readings.length);
  });

  const fixed = (width: number, origin: number) => (t: number) =>
    origin + Math.floor((t - origin) / width) * width;

  it.each([
    ['1m', 60_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['PT7M', 420_000],
  ])('at %s in UTC, aligned and not, equals the readings aggregated here', async (res, width) => {
    for (const [from, to] of [
      [FROM, TO],
      [FROM + 3_600_000, TO - 7_200_000],
      [FROM + 1_234_567, TO - 7_654_321],
    ] as const) {
      const id = wells[0]!;
      const body = await series({
        id,
        p: 'flow',
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        res,
      });
      expect(body.errors).toBeUndefined();
      const s = body.data.assets.byId.observationSeries;
      expect(s).toMatchObject({ property: 'flow', unit: null, resolution: res, timezone: 'UTC' });
      const bucketOf = fixed(width, from - (from % 86_400_000));
      compare(s.buckets, reference(sent, id, from, to, bucketOf), bucketOf);
      for (const b of s.buckets) expect(Date.parse(b.end) - Date.parse(b.start)).toBe(width);
    }
  });

  it('aligns days to a named time zone: the day daylight saving ends lasts 25 hours', async () => {
    const zone = 'Europe/Oslo';
    const localDay = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    const dayOf = (t: number) => Date.parse(`${localDay.format(t)}T00:00:00Z`);
    for (const res of ['1d', 'P1D']) {
      for (const id of wells.slice(0, 3)) {
        const body = await series({
          id,
          p: 'flow',
          from: new Date(FROM).toISOString(),
          to: new Date(TO).toISOString(),
          res,
          tz: zone,
        });
        expect(body.errors).toBeUndefined();
        const buckets = body.data.assets.byId.observationSeries.buckets;
        compare(buckets, reference(sent, id, FROM, TO, dayOf), dayOf);
        const hours = buckets.map((b: any) => (Date.parse(b.end) - Date.parse(b.start)) / 3_600_000);
        const days = buckets.map((b: any) => localDay.format(Date.parse(b.start)));
        // [from, to) is 02:00 on the 23rd to 01:00 on the 27th in Oslo: five local days, the first
        // and last in part.
        expect(days).toEqual(['2026-10-23', '2026-10-24', '2026-10-25', '2026-10-26', '2026-10-27']);
        expect(hours).toEqual([24, 24, 25, 24, 24]);
        // Each starts at the zone's midnight.
        for (const b of buckets)
          expect(b.start.endsWith('T22:00:00.000Z') || b.start.endsWith('T23:00:00.000Z')).toBe(true);
      }
    }
    // A day of 23 hours where daylight saving begins (29 March 2026): 28, 29, 30 and 31 March in Oslo.
    const body = await series({
      id: wells[0],
      p: 'flow',
      from: '2026-03-28T00:00:00Z',
      to: '2026-03-31T00:00:00Z',
      res: '1d',
      tz: zone,
      fill: 'NULL',
    });
    expect(body.errors).toBeUndefined();
    const hours = body.data.assets.byId.observationSeries.buckets.map(
      (b: any) => (Date.parse(b.end) - Date.parse(b.start)) / 3_600_000,
    );
    expect(hours).toEqual([24, 23, 24, 24]);
  });

  it('lays UTC buckets as the database lays them in any zone', async () => {
    for (const [res, from, to] of [
      ['PT7M', '2026-10-23T01:02:03Z', '2026-10-24T00:00:00Z'],
      ['1h', '2026-10-23T00:30:00Z', '2026-10-27T00:00:00Z'],
      ['P1D', '2026-10-23T05:00:00Z', '2026-10-27T00:00:00Z'],
      ['P2D', '2026-10-23T05:00:00Z', '2026-11-27T00:00:00Z'],
      ['P1W', '2026-01-15T00:00:00Z', '2026-11-20T00:00:00Z'],
      ['P1M', '2026-01-15T00:00:00Z', '2026-11-20T00:00:00Z'],
      ['P2M', '2025-12-15T00:00:00Z', '2026-11-20T00:00:00Z'],
      ['P3M', '2025-12-15T00:00:00Z', '2026-11-20T00:00:00Z'],
      ['P1Y', '2025-12-15T00:00:00Z', '2026-11-20T00:00:00Z'],
    ] as const) {
      const edges = async (tz: string) => {
        const body = await series({
          id: wells[0],
          p: 'flow',
          from,
          to,
          res,
          tz,
          fill: 'NULL',
          aggs: ['COUNT'],
        });
        expect(body.errors, `${res} ${tz}`).toBeUndefined();
        return body.data.assets.byId.observationSeries.buckets.map((b: any) => [b.start, b.end, b.count]);
      };
      // Etc/GMT is UTC by another name: the database lays its buckets.
      expect(await edges('UTC'), res).toEqual(await edges('Etc/GMT'));
    }
  });

  it('fills empty buckets as asked, and leaves them out by default', async () => {
    const id = wells[3]!;
    const at = (h: number) =>
      new Date(Date.parse('2026-11-02T00:00:00Z') + h * 3_600_000 + 60_000).toISOString();
    // Readings in hours 0, 1 and 4; hours 2 and 3 are empty.
    await record([
      { id, at: at(0), values: { flow: 10 } },
      { id, at: at(1), values: { flow: 20 } },
      { id, at: at(4), values: { flow: 50 } },
    ]);
    const ask = async (fill?: string) => {
      const body = await series({
        id,
        p: 'flow',
        from: '2026-11-02T00:00:00Z',
        to: '2026-11-02T06:00:00Z',
        res: '1h',
        fill,
        aggs: ['AVG', 'COUNT', 'LAST'],
      });
      expect(body.errors).toBeUndefined();
      return body.data.assets.byId.observationSeries.buckets.map((b: any) => [b.count, b.avg, b.last, b.min]);
    };
    expect(await ask()).toEqual([
      [1, 10, 10, null],
      [1, 20, 20, null],
      [1, 50, 50, null],
    ]);
    expect(await ask('NONE')).toHaveLength(3);
    const csv = await t.graphql<any>(
      `query($id: ID!) { assets(profile: "well") { byId(id: $id) {
         observationSeries(property: "flow", from: "2026-11-02T00:00:00Z", to: "2026-11-02T03:00:00Z", resolution: "1h",
           aggregates: [AVG, COUNT, LAST], fill: NULL) { csv } } } }`,
      { id },
      demo,
    );
    expect(csv.body.data.assets.byId.observationSeries.csv).toBe(
      [
        'start,end,count,avg,min,max,sum,stddev,first,last',
        '2026-11-02T00:00:00.000Z,2026-11-02T01:00:00.000Z,1,10,,,,,,10',
        '2026-11-02T01:00:00.000Z,2026-11-02T02:00:00.000Z,1,20,,,,,,20',
        '2026-11-02T02:00:00.000Z,2026-11-02T03:00:00.000Z,0,,,,,,,',
        '',
      ].join('\r\n'),
    );
    expect(await ask('NULL')).toEqual([
      [1, 10, 10, null],
      [1, 20, 20, null],
      [0, null, null, null],
      [0, null, null, null],
      [1, 50, 50, null],
      [0, null, null, null],
    ]);
    expect(await ask('ZERO')).toEqual([
      [1, 10, 10, null],
      [1, 20, 20, null],
      [0, 0, 0, null],
      [0, 0, 0, null],
      [1, 50, 50, null],
      [0, 0, 0, null],
    ]);
    expect(await ask('PREVIOUS')).toEqual([
      [1, 10, 10, null],
      [1, 20, 20, null],
      [0, 20, 20, null],
      [0, 20, 20, null],
      [1, 50, 50, null],
      [0, 50, 50, null],
    ]);
    expect(await ask('LINEAR')).toEqual([
      [1, 10, 10, null],
      [1, 20, 20, null],
      [0, 30, 30, null],
      [0, 40, 40, null],
      [1, 50, 50, null],
      [0, null, null, null],
    ]);
  });

  it('answers a page of assets, each with its series, in one request', async () => {
    const r = await t.graphql<any>(
      `{ assets(profile: "well") { all(first: 5) { edges { node { id
         observationSeries(property: "flow", from: "2026-10-24T00:00:00Z", to: "2026-10-25T00:00:00Z", resolution: "15m") {
           buckets { start count sum } } } } } } }`,
      {},
      demo,
    );
    expect(r.body.errors).toBeUndefined();
    const from = Date.parse('2026-10-24T00:00:00Z');
    const to = Date.parse('2026-10-25T00:00:00Z');
    for (const e of r.body.data.assets.all.edges) {
      const bucketOf = fixed(900_000, from);
      const ref = reference(sent, e.node.id, from, to, bucketOf);
      expect(e.node.observationSeries.buckets.length).toBe(ref.size);
      for (const b of e.node.observationSeries.buckets)
        expect(b.count).toBe(ref.get(Date.parse(b.start))!.count);
    }
  });

  it('pages raw readings oldest first, each reading once, with the values sent last', async () => {
    const id = wells[1]!;
    const got: Reading[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const r: any = await t.graphql<any>(
        `query($id: ID!, $after: String) { assets(profile: "well") { byId(id: $id) {
           observations(property: "flow", from: "2026-10-23T00:00:00Z", to: "2026-10-27T00:00:00Z", first: 400, after: $after) {
             edges { cursor node { at values } } pageInfo { hasNextPage endCursor } } } } }`,
        { id, after },
        demo,
      );
      expect(r.body.errors).toBeUndefined();
      const c = r.body.data.assets.byId.observations;
      for (const e of c.edges) got.push({ id, t: Date.parse(e.node.at), v: e.node.values.flow });
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    const expected = sent.filter((x) => x.id === id).sort((a, b) => a.t - b.t);
    expect(got).toEqual(expected);
  });

  it('downsamples with LTTB: the first and last reading kept, the same points as LTTB over all of them', async () => {
    const id = wells[2]!;
    const r = await t.graphql<any>(
      `query($id: ID!) { assets(profile: "well") { byId(id: $id) {
         observations(property: "flow", from: "2026-10-23T00:00:00Z", to: "2026-10-27T00:00:00Z", downsample: { points: 60, method: LTTB }) {
           edges { node { at values } } pageInfo { hasNextPage } } } } }`,
      { id },
      demo,
    );
    expect(r.body.errors).toBeUndefined();
    const got = r.body.data.assets.byId.observations.edges.map((e: any) => ({
      t: Date.parse(e.node.at),
      v: e.node.values.flow,
    }));
    const all = sent
      .filter((x) => x.id === id)
      .sort((a, b) => a.t - b.t)
      .map((x) => ({ t: x.t, v: x.v }));
    expect(got).toHaveLength(60);
    expect(got).toEqual(lttb(all, 60).map((i) => all[i]));
  });

  it('gives each key its latest value with its time; an older reading never replaces it', async () => {
    const id = wells[4]!;
    // A text with what an array literal quotes or escapes: it comes back as sent.
    const open = 'open, "50%" \\ {half} NULL';
    await record([{ id, at: '2026-11-20T10:00:00Z', values: { flow: 5, valve: open } }]);
    await record([{ id, at: '2026-11-20T09:00:00Z', values: { flow: 1, valve: 'shut' } }]);
    const r = await t.graphql<any>(
      `query($id: ID!) { assets(profile: "well") { byId(id: $id) {
         observation latestObservations(only: ["flow", "valve"]) { property value at unit } } } }`,
      { id },
      demo,
    );
    expect(r.body.errors).toBeUndefined();
    const a = r.body.data.assets.byId;
    expect(a.latestObservations).toEqual([
      { property: 'flow', value: 5, at: '2026-11-20T10:00:00.000Z', unit: null },
      { property: 'valve', value: open, at: '2026-11-20T10:00:00.000Z', unit: null },
    ]);
    expect(a.observation).toMatchObject({ flow: 5, valve: open });
  });
});

describe('what recordObservations refuses, and nothing of it stored', () => {
  const count = async () =>
    Number(
      (await sql<{ n: string }>`select count(*) as n from observation_readings`.execute(t.database.db))
        .rows[0]!.n,
    );

  it.each([
    [
      'an asset the profile does not hold',
      [{ id: 'no-such-well', at: '2026-11-20T00:00:00Z', values: { flow: 1 } }],
      /no well assets no-such-well/,
    ],
    [
      'a value of the wrong type for its property',
      [{ id: 'W1', at: '2026-11-20T00:00:00Z', values: { depth: 'deep' } }],
      /depth is a NUMBER property/,
    ],
    [
      'a number whose square would overflow the rollups',
      [{ id: 'W1', at: '2026-11-20T00:00:00Z', values: { flow: 1e151 } }],
      /a number is at most 1e\+150 in size/,
    ],
    [
      'an object value',
      [{ id: 'W1', at: '2026-11-20T00:00:00Z', values: { flow: { a: 1 } } }],
      /must be a number, a string or a boolean/,
    ],
    [
      'a time past the retention',
      [{ id: 'W1', at: '2020-01-01T00:00:00Z', values: { flow: 1 } }],
      /older than the group's retention/,
    ],
    [
      'a time over a day ahead',
      [{ id: 'W1', at: '2099-01-01T00:00:00Z', values: { flow: 1 } }],
      /more than a day ahead/,
    ],
    [
      'the same asset and time twice',
      [
        { id: 'W1', at: '2026-11-20T00:00:00Z', values: { flow: 1 } },
        { id: 'W1', at: '2026-11-20T00:00:00.000Z', values: { flow: 2 } },
      ],
      /two observations/,
    ],
  ])('refuses %s, with the good ones beside it', async (_what, bad, message) => {
    const id = wells[0]!;
    const before = await count();
    const r = await record([
      { id, at: '2026-11-21T00:00:00Z', values: { flow: 1 } },
      ...(bad as any[]).map((b) => ({ ...b, id: b.id === 'W1' ? id : b.id })),
    ]);
    expect(r.recorded).toBe(0);
    expect(r.errors[0].type).toBe('INVALID_INPUT');
    expect(r.errors[0].message).toMatch(message);
    expect(await count()).toBe(before);
  });

  it('refuses a time without an offset as the DateTime scalar does, before anything runs', async () => {
    const r = await t.graphql<any>(
      RECORD,
      {
        input: {
          profile: 'well',
          dataset: 'scada',
          observations: [{ id: wells[0], at: '2026-11-20T00:00:00', values: { flow: 1 } }],
        },
      },
      demo,
    );
    expect(r.body.errors![0]!.message).toMatch(/DateTime cannot represent an invalid date-time-string/);
    expect(r.body.data).toBeUndefined();
  });

  it('refuses more than 10,000 observations, an unknown dataset, and anonymous callers', async () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: wells[0]!,
        at: new Date(Date.parse('2026-11-01T00:00:00Z') + i * 1000).toISOString(),
        values: { batch: i },
      }));
    const over = await t.graphql<any>(
      RECORD,
      { input: { profile: 'well', dataset: 'scada', observations: many(10_001) } },
      demo,
    );
    expect(over.body.errors![0]).toMatchObject({
      message: 'The variable $input.observations has 10001 items; at most 10000 are allowed.',
      extensions: { code: 'BAD_USER_INPUT', limit: 'maxListLength', maximum: 10_000 },
    });
    // Other lists keep the API's limit of 1,000.
    const ids = await t.graphql<any>(
      `mutation($input: DeleteAssetsInput!) { deleteAssets(input: $input) { deleted } }`,
      { input: { profile: 'well', ids: Array.from({ length: 1001 }, (_, i) => `x${i}`) } },
      demo,
    );
    expect(ids.body.errors![0]!.extensions).toMatchObject({ limit: 'maxListLength', maximum: 1000 });
    expect(await record(many(10_000))).toEqual({ recorded: 10_000, correlationId: 'c-1', errors: [] });
    const r = await t.graphql<any>(
      RECORD,
      {
        input: {
          profile: 'well',
          dataset: 'nope',
          observations: [{ id: wells[0], at: '2026-11-20T00:00:00Z', values: { a: 1 } }],
        },
      },
      demo,
    );
    expect(r.body.data.recordObservations.errors[0].message).toMatch(/no state dataset nope/);
    const anon = await t.graphql<any>(RECORD, {
      input: { profile: 'well', dataset: 'scada', observations: [] },
    });
    expect(anon.body.data.recordObservations.errors[0].type).toBe('UNAUTHENTICATED');
  });

  it("keeps groups apart: another group's well names nothing, and its series reads nothing of ours", async () => {
    const r = await record([{ id: wells[0]!, at: '2026-11-20T00:00:00Z', values: { flow: 1 } }], east);
    expect(r.errors[0]?.type ?? 'none').not.toBe('none');
    const body = await series(
      { id: wells[0], p: 'flow', from: '2026-10-23T00:00:00Z', to: '2026-10-27T00:00:00Z', res: '1h' },
      east,
    );
    expect(body.data?.assets?.byId?.observationSeries?.buckets ?? []).toEqual([]);
  });

  it('bounds a series: buckets, resolution, time zone, range', async () => {
    const ask = (vars: Record<string, unknown>) =>
      series({
        id: wells[0],
        p: 'flow',
        from: '2026-10-23T00:00:00Z',
        to: '2026-10-27T00:00:00Z',
        res: '1h',
        ...vars,
      });
    expect((await ask({ res: '1s' })).errors[0].message).toMatch(/at most 10000 buckets/);
    expect((await ask({ res: 'fortnightly' })).errors[0].message).toMatch(/resolution/);
    expect((await ask({ res: 'P1M2D' })).errors[0].message).toMatch(/resolution/);
    expect((await ask({ tz: 'Mars/Olympus' })).errors[0].message).toMatch(/unknown time zone/);
    expect((await ask({ tz: "UTC'; drop table assets; --" })).errors[0].message).toMatch(/unknown time zone/);
    expect(
      (await ask({ from: '2026-10-27T00:00:00Z', to: '2026-10-23T00:00:00Z' })).errors[0].message,
    ).toMatch(/from must be before to/);
    // Buckets within years 1 to 9999, as the database's timestamps and DateTime's texts are.
    const early = await ask({ from: '0000-01-05T00:00:00Z', to: '0000-03-01T00:00:00Z', res: '1w' });
    expect(early.errors[0].message).toMatch(/within years 1 to 9999/);
    const late = await ask({
      from: '9999-06-01T00:00:00Z',
      to: '9999-12-31T23:59:59Z',
      res: 'P1M',
      fill: 'ZERO',
    });
    expect(late.errors[0].message).toMatch(/within years 1 to 9999/);
    for (const b of [await ask({ res: '1s' }), await ask({ tz: 'Mars/Olympus' }), early, late])
      expect(b.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('a page of assets, each with its series', () => {
  it('is answered by as many statements for 20 assets as for 2', async () => {
    const { countingDatabase } = await import('../helpers/database.ts');
    const { startTestApp } = await import('../helpers/app.ts');
    const { seedDemo } = await import('../../src/demo/seed.ts');
    const { database, statements } = await countingDatabase();
    const app = await startTestApp({ database });
    try {
      await seedDemo(app.database.db, app.config);
      const headers = { 'x-svc-sessionid': await app.sessionFor('demo', 'demo') };
      const ask = async (first: number) => {
        const query = `{ assets(profile: "well") { all(first: ${first}) { edges { node { id
          observationSeries(property: "casingPressure", from: "2026-10-22T00:00:00Z", to: "2026-11-22T00:00:00Z",
            resolution: "1d", timezone: "Europe/Oslo") { buckets { count avg } }
          latestObservations { property at } } } } } }`;
        await app.graphql<any>(query, {}, headers); // warm: profiles, sessions
        const before = statements();
        const r = await app.graphql<any>(query, {}, headers);
        expect(r.body.errors).toBeUndefined();
        const withSeries = r.body.data.assets.all.edges.filter(
          (e: any) => e.node.observationSeries.buckets.length,
        );
        return { statements: statements() - before, withSeries: withSeries.length };
      };
      const two = await ask(2);
      const twenty = await ask(20);
      // Six of the demo's wells have a month of readings.
      expect(twenty.withSeries).toBeGreaterThan(two.withSeries);
      expect(twenty.statements).toBe(two.statements);
    } finally {
      await app.close();
    }
  });
});

describe('what one request may ask of the readings', () => {
  it('bounds buckets, raw readings and writes a request, whatever the aliases and page size', async () => {
    // 20 wells × 10,000 one-second buckets: two million buckets, none of them with a reading.
    const many = await t.graphql<any>(
      `{ assets(profile: "well") { all(first: 20) { edges { node { id
         observationSeries(property: "flow", from: "2026-11-01T00:00:00Z", to: "2026-11-01T02:46:40Z", resolution: "1s", fill: NULL) {
           buckets { count } } } } } } }`,
      {},
      demo,
    );
    const refused = many.body.errors!.filter((e: any) => /At most 100,000 buckets a request/.test(e.message));
    expect(refused.length).toBeGreaterThanOrEqual(10);
    expect(refused[0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const answered = many.body.data.assets.all.edges.filter((e: any) => e.node.observationSeries);
    expect(answered.length).toBeLessThanOrEqual(10);
    const raw = await t.graphql<any>(
      `query($id: ID!) { assets(profile: "well") { byId(id: $id) {
         a: observations(property: "flow", first: 100000) { edges { cursor } }
         b: observations(property: "flow", first: 100000) { edges { cursor } } } } }`,
      { id: wells[0] },
      demo,
    );
    expect(raw.body.errors!.map((e: any) => e.message)).toEqual([
      'At most 100,000 readings a request: a smaller first, or fewer assets a page.',
    ]);
    const twice = await t.graphql<any>(
      `mutation($input: RecordObservationsInput!) {
         a: recordObservations(input: $input) { recorded errors { type message } }
         b: recordObservations(input: $input) { recorded errors { type message } } }`,
      {
        input: {
          profile: 'well',
          dataset: 'scada',
          observations: [{ id: wells[0], at: '2026-11-21T01:00:00Z', values: { once: 1 } }],
        },
      },
      demo,
    );
    expect(twice.body.data.a).toEqual({ recorded: 1, errors: [] });
    expect(twice.body.data.b.recorded).toBe(0);
    expect(twice.body.data.b.errors[0].message).toMatch(/At most 1 writes a request/);
  });

  it("refuses a cursor out of time's range as the client's mistake", async () => {
    for (const us of ['9999999999999999999', '9223372036854775807', '-9223372036854775808', 'x']) {
      const r = await t.graphql<any>(
        `query($id: ID!, $after: String) { assets(profile: "well") { byId(id: $id) {
           observations(property: "flow", after: $after) { edges { cursor } } } } }`,
        { id: wells[0], after: Buffer.from(us).toString('base64url') },
        demo,
      );
      expect(r.body.errors![0]!.extensions!.code, us).toBe('BAD_USER_INPUT');
    }
  });

  it('bounds the keys one asset may have in a dataset', async () => {
    const id = wells[6]!;
    const values = (from: number, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${from + i}`, i]));
    const observations = Array.from({ length: 10 }, (_, i) => ({
      id,
      at: new Date(Date.parse('2026-11-21T02:00:00Z') + i * 1000).toISOString(),
      values: values(i * 100, 100),
    }));
    expect(await record(observations)).toMatchObject({ recorded: 10, errors: [] });
    const more = await record([{ id, at: '2026-11-21T03:00:00Z', values: { k1000: 1 } }]);
    expect(more.recorded).toBe(0);
    expect(more.errors[0].message).toMatch(/at most 1000 keys an asset in dataset scada: .* would have 1001/);
    // Keys it has take more readings.
    expect(await record([{ id, at: '2026-11-21T03:00:00Z', values: { k999: 1 } }])).toMatchObject({
      recorded: 1,
    });
  });
});

describe('retention', () => {
  it('drops whole months past every retention and deletes what a shorter group retention left', async () => {
    const id = wells[5]!;
    expect(
      await record([
        { id, at: '2026-11-10T00:00:00Z', values: { flow: 1 } },
        { id, at: '2026-11-20T00:00:00Z', values: { flow: 2 } },
      ]),
    ).toMatchObject({ recorded: 2, errors: [] });
    await sql`insert into observation_retention values ('demo', 10)`.execute(t.database.db);
    await pruneObservations(t.database.db, new Date('2026-11-22T00:00:00Z'), 400);
    const left = await sql<{ at: Date }>`
      select r.at from observation_readings r join observation_series s on s.id = r.series
      where s.asset_id = ${id} and s.property = 'flow' order by r.at`.execute(t.database.db);
    expect(left.rows.map((r) => r.at.toISOString())).toEqual(['2026-11-20T00:00:00.000Z']);
    const hours = await sql<{ n: string }>`
      select count(*) as n from observation_rollups_hour r join observation_series s on s.id = r.series
      where s.asset_id = ${id} and s.property = 'flow'`.execute(t.database.db);
    expect(Number(hours.rows[0]!.n)).toBe(1);
    await sql`delete from observation_retention`.execute(t.database.db);
    // Next month's partitions exist ahead of time.
    const next = await sql<{
      r: string | null;
    }>`select to_regclass('observation_readings_2026m12')::text as r`.execute(t.database.db);
    expect(next.rows[0]!.r).toBe('observation_readings_2026m12');
  });
});
