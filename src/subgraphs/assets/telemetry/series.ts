import type { Exec } from '../exec.ts';
import { type Resolution, shortestMs } from './resolution.ts';

/** Buckets one `observationSeries` may answer, as Cognite answers aggregates. */
export const MAX_BUCKETS = 10_000;

export type Aggregate = 'AVG' | 'MIN' | 'MAX' | 'SUM' | 'COUNT' | 'STDDEV' | 'FIRST' | 'LAST';
export type Fill = 'NONE' | 'NULL' | 'ZERO' | 'PREVIOUS' | 'LINEAR';
export const ALL_AGGREGATES: readonly Aggregate[] = [
  'AVG',
  'MIN',
  'MAX',
  'SUM',
  'COUNT',
  'STDDEV',
  'FIRST',
  'LAST',
];

/** The buckets of one question: each start, and where the last ends. */
export interface BucketPlan {
  starts: Date[];
  end: Date;
  /** Each start's ISO 8601 text, then the end's: made once, for the statement and the answer. */
  texts: string[];
  /** The store that answers it: the coarsest rollup whose buckets the bucket edges align with. */
  source: 'day' | 'hour' | 'raw';
}

export class SeriesQueryError extends Error {}

/**
 * The buckets over [from, to) of `resolution` in `timezone`: fixed widths are laid from the time
 * zone's midnight of `from`'s day; calendar ones follow its clock (days from midnight, weeks from
 * Monday, months from the first, quarters and years from theirs).
 */
export async function planBuckets(
  exec: Exec,
  from: Date,
  to: Date,
  resolution: Resolution,
  timezone: string,
): Promise<BucketPlan> {
  if (!(from < to)) throw new SeriesQueryError('from must be before to');
  if ((to.getTime() - from.getTime()) / shortestMs(resolution) > MAX_BUCKETS + 2)
    throw new SeriesQueryError(`at most ${MAX_BUCKETS} buckets: a coarser resolution or a shorter range`);
  let starts: Date[];
  let end: Date;
  if (/^(Etc\/)?UTC$/i.test(timezone)) {
    // UTC has no daylight saving: its buckets are laid here, without asking the database.
    ({ starts, end } = utcBuckets(from, to, resolution));
  } else if (resolution.kind === 'fixed') {
    const [row] = await exec<{ origin: Date }>(`select date_trunc('day', $1::timestamptz, $2) as origin`, [
      from,
      timezone,
    ]);
    const width = resolution.seconds * 1000;
    const origin = row!.origin.getTime();
    let t = origin + Math.floor((from.getTime() - origin) / width) * width;
    starts = [];
    for (; t < to.getTime(); t += width) starts.push(new Date(t));
    end = new Date(t);
  } else {
    const { unit, n } = resolution;
    const trunc =
      unit === 'day'
        ? 'day'
        : unit === 'week'
          ? 'week'
          : n % 12 === 0
            ? 'year'
            : n % 3 === 0
              ? 'quarter'
              : 'month';
    const step = unit === 'month' ? `${n} months` : `${unit === 'week' ? n * 7 : n} days`;
    const rows = await exec<{ s: Date }>(
      `select s at time zone $3 as s
       from generate_series(date_trunc('${trunc}', $1::timestamptz at time zone $3),
         $2::timestamptz at time zone $3 + $4::interval, $4::interval) s
       limit ${MAX_BUCKETS + 2}`,
      [from, to, timezone, step],
    );
    const all = rows.map((r) => r.s);
    starts = all.filter((s) => s < to);
    end = all[starts.length] ?? to;
  }
  if (starts.length > MAX_BUCKETS)
    throw new SeriesQueryError(`at most ${MAX_BUCKETS} buckets: a coarser resolution or a shorter range`);
  // PostgreSQL's timestamps and DateTime's texts run from year 1 to 9999: so must every bucket.
  if ((starts[0] ?? from).getTime() < FIRST_MS || end.getTime() > LAST_MS)
    throw new SeriesQueryError('buckets fall within years 1 to 9999: a later from or an earlier to');
  const edges = [from, to, ...starts.slice(1)].map((d) => d.getTime());
  const aligned = (ms: number) => edges.every((e) => e % ms === 0);
  const source = aligned(86_400_000) ? 'day' : aligned(3_600_000) ? 'hour' : 'raw';
  return { starts, end, texts: isoTexts([...starts, end]), source };
}

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `toISOString` of each time, the date part made once a day: a month of hours takes a third of
 * the time of 720 `toISOString` calls.
 */
function isoTexts(times: readonly Date[]): string[] {
  let day = Number.NaN;
  let prefix = '';
  return times.map((d) => {
    const ms = d.getTime();
    const dd = Math.floor(ms / DAY);
    if (dd !== day) {
      day = dd;
      const iso = d.toISOString();
      prefix = iso.slice(0, iso.indexOf('T') + 1);
    }
    const r = ms - dd * DAY;
    const milli = r % 1000;
    return `${prefix}${two(Math.floor(r / 3_600_000))}:${two(Math.floor(r / 60_000) % 60)}:${two(Math.floor(r / 1000) % 60)}.${milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : milli}Z`;
  });
}

const DAY = 86_400_000;
/** 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST_MS = -62_135_596_800_000;
const LAST_MS = 253_402_300_799_999;

/** The buckets of `resolution` over [from, to) in UTC, as the database lays them in any zone. */
function utcBuckets(from: Date, to: Date, resolution: Resolution): { starts: Date[]; end: Date } {
  const starts: Date[] = [];
  const f = from.getTime();
  const midnight = Math.floor(f / DAY) * DAY;
  let next: (t: number) => number;
  let t: number;
  if (resolution.kind === 'fixed') {
    const width = resolution.seconds * 1000;
    t = midnight + Math.floor((f - midnight) / width) * width;
    next = (x) => x + width;
  } else if (resolution.unit === 'day' || resolution.unit === 'week') {
    // Weeks start on Monday (1970-01-01 was a Thursday), as date_trunc('week') has them.
    const days = resolution.unit === 'day' ? resolution.n : resolution.n * 7;
    t = resolution.unit === 'day' ? midnight : midnight - ((new Date(midnight).getUTCDay() + 6) % 7) * DAY;
    next = (x) => x + days * DAY;
  } else {
    const n = resolution.n;
    const d = new Date(f);
    const unit = n % 12 === 0 ? 12 : n % 3 === 0 ? 3 : 1;
    const month = Math.floor(d.getUTCMonth() / unit) * unit;
    t = Date.UTC(d.getUTCFullYear(), month, 1);
    next = (x) => {
      const m = new Date(x);
      return Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + n, 1);
    };
  }
  for (; t < to.getTime(); t = next(t)) {
    starts.push(new Date(t));
    if (starts.length > MAX_BUCKETS) break;
  }
  return { starts, end: new Date(t) };
}

/** One bucket's sums, as the store answers them. */
interface Sums {
  n: number;
  sum: number;
  sumsq: number;
  min: number;
  max: number;
  first: number | null;
  last: number | null;
}

/** A bucket as `ObservationBucket` shows it, its times as ISO 8601 texts. */
export interface Bucket {
  start: string;
  end: string;
  count: number;
  avg: number | null;
  min: number | null;
  max: number | null;
  sum: number | null;
  stddev: number | null;
  first: number | null;
  last: number | null;
}

/**
 * Each asset's sums per bucket (by bucket index) of the numeric readings of `property` (of
 * `dataset`, or of every dataset) over the plan's range: one statement for all the assets.
 */
export async function bucketSums(
  exec: Exec,
  group: string,
  profile: string,
  assetIds: readonly string[],
  property: string,
  dataset: string | null,
  from: Date,
  to: Date,
  plan: BucketPlan,
  ends: boolean,
): Promise<Map<string, Map<number, Sums>>> {
  const raw = plan.source === 'raw';
  const table = raw ? 'observation_readings' : `observation_rollups_${plan.source}`;
  const t = raw ? 'r.at' : 'r.bucket';
  const firstLast = !ends
    ? 'null::float8 as first, null::timestamptz as first_at, null::float8 as last, null::timestamptz as last_at'
    : raw
      ? `(array_agg(r.num order by r.at))[1] as first, min(r.at) as first_at,
         (array_agg(r.num order by r.at desc))[1] as last, max(r.at) as last_at`
      : `(array_agg(r.first order by r.first_at))[1] as first, min(r.first_at) as first_at,
         (array_agg(r.last order by r.last_at desc))[1] as last, max(r.last_at) as last_at`;
  const sums = raw
    ? 'count(r.num)::float8 as n, sum(r.num) as sum, sum(r.num * r.num) as sumsq, min(r.num) as min, max(r.num) as max'
    : 'sum(r.n)::float8 as n, sum(r.sum) as sum, sum(r.sumsq) as sumsq, min(r.min) as min, max(r.max) as max';
  // Each series aggregated on its own, through its (series, time) key: an index range a series,
  // a few groups each, where one grouping of every row sorted them all (and spilled to disk).
  const rows = await exec<
    Sums & { asset_id: string; b: number; first_at: Date | null; last_at: Date | null }
  >(
    `select s.asset_id, x.* from observation_series s
     cross join lateral (
       select width_bucket(${t}, $7::timestamptz[]) as b, ${sums}, ${firstLast}
       from ${table} r
       where r.series = s.id and ${t} >= $5 and ${t} < $6 ${raw ? 'and r.num is not null' : ''}
       group by 1) x
     where s.user_group = $1 and s.profile = $2 and s.asset_id = any($3::text[]) and s.property = $4
       ${dataset === null ? '' : 'and s.dataset = $8'}`,
    // The bucket starts as one array literal of ISO texts: the driver renders a list of `Date`s
    // element by element (about 0.6 ms for a month of hours).
    [
      group,
      profile,
      assetIds,
      property,
      from,
      to,
      `{${plan.texts.slice(0, -1).join(',')}}`,
      ...(dataset === null ? [] : [dataset]),
    ],
  );
  // An asset's series of several datasets merge bucket by bucket.
  const out = new Map<string, Map<number, Sums & { firstAt: number; lastAt: number }>>();
  for (const r of rows) {
    let m = out.get(r.asset_id);
    if (!m) {
      m = new Map();
      out.set(r.asset_id, m);
    }
    const firstAt = r.first_at?.getTime() ?? 0;
    const lastAt = r.last_at?.getTime() ?? 0;
    const known = m.get(r.b - 1);
    if (!known) {
      m.set(r.b - 1, Object.assign(r, { firstAt, lastAt }));
      continue;
    }
    known.n += r.n;
    known.sum += r.sum;
    known.sumsq += r.sumsq;
    known.min = Math.min(known.min, r.min);
    known.max = Math.max(known.max, r.max);
    if (firstAt < known.firstAt) {
      known.first = r.first;
      known.firstAt = firstAt;
    }
    if (lastAt > known.lastAt) {
      known.last = r.last;
      known.lastAt = lastAt;
    }
  }
  return out;
}

const VALUE_FIELDS = ['avg', 'min', 'max', 'sum', 'stddev', 'first', 'last'] as const;
type ValueField = (typeof VALUE_FIELDS)[number];
const FIELD_OF: Record<Exclude<Aggregate, 'COUNT'>, ValueField> = {
  AVG: 'avg',
  MIN: 'min',
  MAX: 'max',
  SUM: 'sum',
  STDDEV: 'stddev',
  FIRST: 'first',
  LAST: 'last',
};

/** The buckets of one asset: sums turned into aggregates, the asked ones only, empty ones filled. */
export function buckets(
  plan: BucketPlan,
  sums: ReadonlyMap<number, Sums> | undefined,
  aggregates: readonly Aggregate[],
  fill: Fill,
): Bucket[] {
  const asked = new Set<ValueField>(aggregates.filter((a) => a !== 'COUNT').map((a) => FIELD_OF[a as never]));
  const out: Bucket[] = [];
  // Which of `out` are empty, beside it: the buckets go out as they are made.
  const empty: boolean[] = [];
  // The index of each of `out` among the plan's buckets.
  const at: number[] = [];
  plan.starts.forEach((_, i) => {
    const start = plan.texts[i]!;
    const end = plan.texts[i + 1]!;
    const s = sums?.get(i);
    if (!s || s.n === 0) {
      if (fill === 'NONE') return;
      const zero = fill === 'ZERO' ? 0 : null;
      out.push({
        start,
        end,
        count: 0,
        avg: asked.has('avg') ? zero : null,
        min: asked.has('min') ? zero : null,
        max: asked.has('max') ? zero : null,
        sum: asked.has('sum') ? zero : null,
        stddev: asked.has('stddev') ? zero : null,
        first: asked.has('first') ? zero : null,
        last: asked.has('last') ? zero : null,
      });
      empty.push(true);
      at.push(i);
      return;
    }
    const n = s.n;
    const variance = n >= 2 ? Math.max(0, (s.sumsq - (s.sum * s.sum) / n) / (n - 1)) : null;
    out.push({
      start,
      end,
      count: n,
      avg: asked.has('avg') ? s.sum / n : null,
      min: asked.has('min') ? s.min : null,
      max: asked.has('max') ? s.max : null,
      sum: asked.has('sum') ? s.sum : null,
      stddev: asked.has('stddev') && variance !== null ? Math.sqrt(variance) : null,
      first: asked.has('first') ? s.first : null,
      last: asked.has('last') ? s.last : null,
    });
    empty.push(false);
    at.push(i);
  });
  if (fill === 'PREVIOUS') {
    let previous: Bucket | undefined;
    out.forEach((b, i) => {
      if (!empty[i]) previous = b;
      else if (previous) for (const f of VALUE_FIELDS) b[f] = previous[f];
    });
  } else if (fill === 'LINEAR') {
    const time = (j: number) => plan.starts[at[j]!]!.getTime();
    const full = out.flatMap((_, j) => (empty[j] ? [] : [j]));
    let k = 0;
    for (const [j, b] of out.entries()) {
      if (!empty[j]) {
        k++;
        continue;
      }
      const jb = full[k - 1];
      const ja = full[k];
      if (jb === undefined || ja === undefined) continue;
      const before = out[jb]!;
      const after = out[ja]!;
      const x = (time(j) - time(jb)) / (time(ja) - time(jb));
      for (const f of VALUE_FIELDS) {
        const a = before[f];
        const c = after[f];
        b[f] = a === null || c === null ? null : a + (c - a) * x;
      }
    }
  }
  return out;
}
