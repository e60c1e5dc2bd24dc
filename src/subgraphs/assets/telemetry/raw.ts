import type { Exec } from '../exec.ts';
import { lttb, type Point } from './lttb.ts';

/** Raw readings one page may hold, as Cognite answers raw datapoints. */
export const MAX_RAW_PAGE = 100_000;
export const DEFAULT_RAW_PAGE = 1_000;
/** The readings `downsample` reads one by one; past them it reads min/max preselected ones. */
export const MAX_EXACT_DOWNSAMPLE = 100_000;
export const MAX_DOWNSAMPLE_POINTS = 10_000;

/** One time's readings. */
export interface Reading {
  at: Date;
  /** Microseconds since the epoch: the cursor, exact where a Date is not. */
  us: string;
  values: Record<string, unknown>;
}

export interface RawQuery {
  group: string;
  profile: string;
  assetId: string;
  property: string | null;
  dataset: string | null;
  from: Date | null;
  to: Date | null;
}

const EPOCH_US = `(extract(epoch from r.at) * 1000000)::bigint::text`;
/** A reading's time in milliseconds since the epoch, as a float (parsed faster than a timestamp). */
const MS = `round(date_part('epoch', r.at) * 1000)`;

/** The series of a query: `s` rows of the asset, the key and dataset asked for. */
function seriesWhere(q: RawQuery, first: number): { sql: string; params: unknown[] } {
  const params: unknown[] = [q.group, q.profile, q.assetId];
  let sql = 's.user_group = $1 and s.profile = $2 and s.asset_id = $3';
  if (q.property !== null) {
    params.push(q.property);
    sql += ` and s.property = $${params.length}`;
  }
  if (q.dataset !== null) {
    params.push(q.dataset);
    sql += ` and s.dataset = $${params.length}`;
  }
  return { sql: sql.replaceAll(/\$(\d+)/g, (_, i) => `$${Number(i) + first - 1}`), params };
}

/** The time range of a query, after `afterUs`, over `r.at`, with parameters from `$first`. */
function rangeWhere(q: RawQuery, afterUs: string | null, first: number): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (cond: string, value: unknown) => {
    params.push(value);
    parts.push(cond.replace('?', `$${first + params.length - 1}`));
  };
  if (q.from) add('r.at >= ?', q.from);
  if (q.to) add('r.at < ?', q.to);
  if (afterUs !== null) add(`r.at > 'epoch'::timestamptz + ?::bigint * interval '1 microsecond'`, afterUs);
  return { sql: parts.length ? `and ${parts.join(' and ')}` : '', params };
}

/**
 * The first `first` times after `afterUs` at which the asset has readings of the key (or of any
 * key), oldest first, each with its values; and whether more follow.
 */
export async function readingsPage(
  exec: Exec,
  q: RawQuery,
  first: number,
  afterUs: string | null,
): Promise<{ readings: Reading[]; hasNextPage: boolean }> {
  const s = seriesWhere(q, 1);
  const r = rangeWhere(q, afterUs, s.params.length + 1);
  const limit = `$${s.params.length + r.params.length + 1}`;
  const rows = await exec<{ property: string; at: Date; us: string; v: unknown }>(
    `select s.property, r.at, r.us, r.v from observation_series s
     cross join lateral (
       select r.at, ${EPOCH_US} as us, coalesce(to_jsonb(r.num), r.val) as v
       from observation_readings r where r.series = s.id ${r.sql}
       order by r.at limit ${limit}) r
     where ${s.sql}
     order by r.at`,
    [...s.params, ...r.params, first + 1],
  );
  const readings: Reading[] = [];
  let current: Reading | undefined;
  for (const row of rows) {
    if (current?.us !== row.us) {
      if (readings.length === first) return { readings, hasNextPage: true };
      current = { at: row.at, us: row.us, values: {} };
      readings.push(current);
    }
    current.values[row.property] = row.v;
  }
  return { readings, hasNextPage: false };
}

/**
 * At most `points` numeric readings of one key that keep the chart's shape (LTTB). Up to
 * {@link MAX_EXACT_DOWNSAMPLE} readings in the range, LTTB runs over all of them; past that, over
 * each stretch's first, last, lowest and highest readings (MinMaxLTTB, Van Der Donckt et al.,
 * 2023), read from the hour rollups when the range spans four hours a point, else
 * computed from the readings: the readings kept are always readings stored.
 */
export async function downsampled(
  exec: Exec,
  q: RawQuery & { property: string },
  points: number,
): Promise<Reading[]> {
  const s = seriesWhere(q, 1);
  const from = q.from ?? new Date(0);
  const to = q.to ?? new Date(Date.now() + 86_400_000);
  const n = s.params.length;
  // How many readings at most: the hours overlapping the range.
  const [count] = await exec<{ n: number | null }>(
    `select sum(r.n)::float8 as n from observation_series s
     join observation_rollups_hour r on r.series = s.id
       and r.bucket >= date_trunc('hour', $${n + 1}::timestamptz, 'UTC') and r.bucket < $${n + 2}
     where ${s.sql}`,
    [...s.params, from, to],
  );
  const total = count?.n ?? 0;
  let candidates: Point[];
  if (total <= MAX_EXACT_DOWNSAMPLE) {
    const rows = await exec<{ t: number; v: number }>(
      `select ${MS} as t, r.num as v
       from observation_series s join observation_readings r on r.series = s.id
         and r.at >= $${n + 1} and r.at < $${n + 2} and r.num is not null
       where ${s.sql} order by r.at`,
      [...s.params, from, to],
    );
    candidates = rows.map((r) => ({ t: Number(r.t), v: r.v }));
  } else {
    const span = to.getTime() - from.getTime();
    const level = span / 3_600_000 >= 4 * points ? 'hour' : null;
    // Each stretch's first, lowest, highest and last reading, as (time, value) pairs.
    const stretches = level
      ? `select unnest(array[r.first_at, r.min_at, r.max_at, r.last_at]) as at,
           unnest(array[r.first, r.min, r.max, r.last]) as v
         from observation_series s join observation_rollups_${level} r on r.series = s.id
           and r.bucket >= $${n + 1} and r.bucket + interval '1 ${level}' <= $${n + 2}
         where ${s.sql}
         union all
         select r.at, r.num from observation_series s join observation_readings r on r.series = s.id
           and r.num is not null and r.at >= $${n + 1} and r.at < $${n + 2}
           and (r.at < date_trunc('${level}', $${n + 1}::timestamptz + interval '1 ${level}' - interval '1 microsecond', 'UTC')
             or r.at >= date_trunc('${level}', $${n + 2}::timestamptz, 'UTC'))
         where ${s.sql}`
      : `select unnest(array[(array_agg(r.at order by r.at))[1], (array_agg(r.at order by r.num, r.at))[1],
             (array_agg(r.at order by r.num desc, r.at))[1], (array_agg(r.at order by r.at desc))[1]]) as at,
           unnest(array[(array_agg(r.num order by r.at))[1], min(r.num), max(r.num), (array_agg(r.num order by r.at desc))[1]]) as v
         from observation_series s join observation_readings r on r.series = s.id
           and r.num is not null and r.at >= $${n + 1} and r.at < $${n + 2}
         where ${s.sql}
         group by date_bin($${n + 3}::interval, r.at, $${n + 1}::timestamptz)`;
    const rows = await exec<{ t: number; v: number }>(
      `select ${MS.replace('r.at', 'x.at')} as t, x.v from (${stretches}) x`,
      [
        ...s.params,
        from,
        to,
        ...(level ? [] : [`${Math.max(1, Math.floor(span / (4 * points)))} milliseconds`]),
      ],
    );
    // In time order, each reading once (a stretch's first may be its lowest too).
    const sorted = rows.map((r) => ({ t: Number(r.t), v: r.v })).sort((a, b) => a.t - b.t || a.v - b.v);
    candidates = sorted.filter((p, i) => i === 0 || p.t !== sorted[i - 1]!.t || p.v !== sorted[i - 1]!.v);
  }
  return lttb(candidates, points).map((i) => ({
    at: new Date(candidates[i]!.t),
    // The cursor of a downsampled reading names it, to the millisecond; it pages nothing.
    us: String(Math.round(candidates[i]!.t * 1000)),
    values: { [q.property]: candidates[i]!.v },
  }));
}
