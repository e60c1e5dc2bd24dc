import { numberArray, textArray } from '../../../storage/array-literal.ts';
import type { Exec } from '../exec.ts';
import { ROLLUP_TYPES, type RollupArrays, rollupParams } from './rollups.ts';

/**
 * The one writer of readings, their series and their rollups (docs/telemetry.md "Storage").
 *
 * A reading is one value of one key of one state dataset of an asset at one time. Readings go
 * in with `on conflict do nothing`; what went in feeds the hour and day rollups (UTC) in the
 * same statement (count, sum, sum of squares, min and max with their times, first and last), so
 * a late reading lands in the bucket it belongs to. A reading sent again with another value
 * replaces the stored one and its buckets are computed again from the readings.
 */

/** A rollup's columns, as the write fills them. */
const ROLLUP = 'series, bucket, n, sum, sumsq, min, min_at, max, max_at, first, first_at, last, last_at';

/** Merging what a write brought into a stored bucket. */
const MERGE = `n = t.n + excluded.n, sum = t.sum + excluded.sum, sumsq = t.sumsq + excluded.sumsq,
  min_at = case when excluded.min < t.min then excluded.min_at else t.min_at end,
  min = least(t.min, excluded.min),
  max_at = case when excluded.max > t.max then excluded.max_at else t.max_at end,
  max = greatest(t.max, excluded.max),
  first = case when excluded.first_at < t.first_at then excluded.first else t.first end,
  first_at = least(t.first_at, excluded.first_at),
  last = case when excluded.last_at > t.last_at then excluded.last else t.last end,
  last_at = greatest(t.last_at, excluded.last_at)`;

/** The buckets of `width` over `from` (rows with the rollup's columns, `bucket` finer). */
const coarser = (width: 'hour' | 'day', from: string) =>
  `select series, date_trunc('${width}', bucket, 'UTC') as bucket, sum(n) as n, sum(sum) as sum, sum(sumsq) as sumsq,
     min(min) as min, (array_agg(min_at order by min, min_at))[1] as min_at,
     max(max) as max, (array_agg(max_at order by max desc, max_at))[1] as max_at,
     (array_agg(first order by first_at))[1] as first, min(first_at) as first_at,
     (array_agg(last order by last_at desc))[1] as last, max(last_at) as last_at
   from ${from} group by 1, 2`;

/** The `width` buckets of readings `from` (rows with `series`, `at`, `num`). */
const buckets = (width: 'hour' | 'day', from: string) =>
  `select series, date_trunc('${width}', at, 'UTC') as bucket, count(*) as n, sum(num) as sum, sum(num * num) as sumsq,
     min(num) as min, (array_agg(at order by num, at))[1] as min_at,
     max(num) as max, (array_agg(at order by num desc, at))[1] as max_at,
     (array_agg(num order by at))[1] as first, min(at) as first_at,
     (array_agg(num order by at desc))[1] as last, max(at) as last_at
   from ${from} where num is not null group by 1, 2`;

const upsertRollup = (width: string, from: string) =>
  `insert into observation_rollups_${width} as t (${ROLLUP})
   select ${ROLLUP} from ${from} order by series, bucket
   on conflict (series, bucket) do update set ${MERGE}`;

/** Two readings of one write share a series and a time: the write is refused whole. */
export class DuplicateReadingError extends Error {
  constructor() {
    super('the same asset, key and time appear more than once in one write');
  }
}

export interface StoredCounts {
  /** Readings stored that were not there. */
  inserted: number;
  /** Observations (an asset's readings of one time) with a reading that was not there. */
  observations: number;
  /** Readings that replaced a stored reading of the same series and time with another value. */
  replaced: number;
  latest: Date | null;
  columns: string[];
}

/**
 * Stores the readings that `source` (SQL answering `series, asset_id, property, at, num, val`, with `$1` the group
 * and `$2` the profile among `params`) yields: readings, rollups, each asset's latest values
 * (an older reading never replaces a newer latest), and with `force` each touched asset's
 * `modified_at`. Inside the caller's transaction; the months' partitions exist.
 */
export async function storeReadings(
  exec: Exec,
  source: string,
  params: readonly unknown[],
  options: {
    force: boolean;
    /**
     * What the caller computed from the readings it sends, which spares the database sorting and
     * grouping them: the latest values always; the rollups and the observation count when every
     * reading went in (the usual case), else the statement groups what went in itself.
     */
    known?: KnownReadings;
  },
): Promise<StoredCounts> {
  const known = options.known;
  let next = params.length + 1;
  const extra: unknown[] = [];
  const param = (value: unknown, type: string) => {
    extra.push(value);
    return `$${next++}::${type}`;
  };
  const given = known
    ? (width: 'hour' | 'day') => {
        const arrays = rollupParams(known.rollups[width]);
        return `(select series, ${ms('bucket')}, n, sum, sumsq, min, ${ms('min_at')}, max, ${ms('max_at')}, first, ${ms('first_at')}, last, ${ms('last_at')}
           from unnest(${ROLLUP_TYPES.map((t, i) => param(arrays[i], t)).join(', ')})
           as g(${ROLLUP}) where (select whole from counted)
         union all
         select * from (${width === 'hour' ? buckets('hour', 'ins') : coarser('day', 'h_sql')}) q
           where not (select whole from counted))`;
      }
    : null;
  // Each (asset, key)'s latest value of the readings: the caller's, or grouped here.
  const latest = known
    ? `select asset_id, property, v, ${ms('at')} from unnest(${param(textArray(known.latest.assetIds), 'text[]')},
         ${param(textArray(known.latest.properties), 'text[]')}, ${param(textArray(known.latest.values), 'jsonb[]')},
         ${param(numberArray(known.latest.ats), 'bigint[]')}) as l(asset_id, property, v, at)`
    : `select distinct on (asset_id, property) asset_id, property, coalesce(to_jsonb(num), val) as v, at
       from src order by asset_id, property, at desc`;
  const observations = `(select count(*) from (select distinct s.asset_id, i.at from ins i join src s using (series, at)) o)`;
  const [written] = await exec<{
    inserted: number;
    observations: number;
    given: number;
    distinct_given: number;
    latest: Date | null;
    columns: string[] | null;
  }>(
    `with src as materialized (${source}),
     ins as (
       insert into observation_readings (series, at, num, val)
       select series, at, num, val from src order by series, at
       on conflict (series, at) do nothing
       returning series, at, num),
     counted as materialized (
       select i.n as inserted, s.n as given, i.n = s.n as whole
       from (select count(*) as n from ins) i, (select count(*) as n from src) s),
     ${
       given
         ? `h_sql as materialized (${buckets('hour', 'ins')}),
     uh as (${upsertRollup('hour', `${given('hour')} h`)}),
     ud as (${upsertRollup('day', `${given('day')} d`)}),`
         : `h as materialized (${buckets('hour', 'ins')}),
     uh as (${upsertRollup('hour', 'h')}),
     ud as (${upsertRollup('day', `(${coarser('day', 'h')}) d`)}),`
     }
     latest as (${latest}),
     fresh as (
       select l.asset_id as id, jsonb_object_agg(l.property, l.v) as observation,
         jsonb_object_agg(l.property, to_jsonb(l.at)) as observation_at
       from latest l
       join assets a on a.user_group = $1 and a.profile = $2 and a.id = l.asset_id
       where a.observation_at -> l.property is null or (a.observation_at ->> l.property)::timestamptz <= l.at
       group by l.asset_id),
     up as (
       update assets a set
         observation = coalesce(a.observation, '{}'::jsonb) || f.observation,
         observation_at = coalesce(a.observation_at, '{}'::jsonb) || f.observation_at
         ${options.force ? ', modified_at = now()' : ''}
       from fresh f
       where a.user_group = $1 and a.profile = $2 and a.id = f.id
       returning 1)
     ${
       options.force
         ? `, touched as (
       update assets a set modified_at = now()
       where a.user_group = $1 and a.profile = $2 and a.id in (select asset_id from src)
         and a.id not in (select id from fresh))`
         : ''
     }
     select c.inserted::int, c.given::int,
       ${
         known
           ? `case when c.whole then ${param(known.observations, 'int')} else ${observations} end::int as observations,
       c.given::int as distinct_given`
           : `${observations}::int as observations,
       (select count(*) from (select distinct series, at from src) d)::int as distinct_given,
       (select max(at) from src) as latest,
       (select array_agg(distinct property order by property) from src) as columns`
       }
     from counted c`,
    [...params, ...extra],
  );
  const w = written!;
  if (w.distinct_given < w.given) throw new DuplicateReadingError();
  const replaced = w.inserted < w.given ? await replaceChanged(exec, source, params) : 0;
  return {
    inserted: w.inserted,
    observations: w.observations,
    replaced,
    latest: known ? (known.newest === null ? null : new Date(known.newest)) : w.latest,
    columns: known ? known.columns : (w.columns ?? []),
  };
}

/**
 * What a writer holding its readings knows of them: they hold no (series, time) twice, and it
 * computed their rollups, each (asset, key)'s latest value, and what the counters take.
 */
export interface KnownReadings {
  rollups: { hour: RollupArrays; day: RollupArrays };
  /** The latest reading of each (asset, key): its value as JSON text, its time in milliseconds. */
  latest: { assetIds: string[]; properties: string[]; values: string[]; ats: number[] };
  /** Observations (asset and time) holding a reading. */
  observations: number;
  /** The newest reading's time, in milliseconds. */
  newest: number | null;
  /** The keys, sorted. */
  columns: string[];
}

/**
 * Readings of `source` already stored with another value take the new one, and the buckets
 * they fall in are computed again from the readings (a rare path: a device correcting itself).
 */
async function replaceChanged(exec: Exec, source: string, params: readonly unknown[]): Promise<number> {
  const [r] = await exec<{ replaced: number; series: string[]; ats: Date[] }>(
    `with src as materialized (${source}),
     -- The group and profile ($1, $2) are the latest values' business only: typed here all the same.
     unused as (select $1::text, $2::text),
     changed as (
       update observation_readings r set num = s.num, val = s.val
       from src s
       where r.series = s.series and r.at = s.at and (r.num is distinct from s.num or r.val is distinct from s.val)
       returning r.series, r.at)
     select count(*)::int as replaced, coalesce(array_agg(series), '{}') as series, coalesce(array_agg(at), '{}') as ats
     from changed`,
    params,
  );
  if (!r || r.replaced === 0) return 0;
  await recomputeBuckets(exec, r.series, r.ats);
  return r.replaced;
}

/**
 * Computes again, from the readings, every hour and day bucket holding one of the given
 * (series, time) pairs: stored buckets are replaced, emptied ones removed.
 */
async function recomputeBuckets(exec: Exec, series: readonly string[], ats: readonly Date[]): Promise<void> {
  if (series.length === 0) return;
  for (const width of ['hour', 'day'] as const) {
    const touched = `select distinct s as series, date_trunc('${width}', a, 'UTC') as bucket
       from unnest($1::bigint[], $2::timestamptz[]) as t(s, a)`;
    await exec(
      `delete from observation_rollups_${width} r using (${touched}) t
       where r.series = t.series and r.bucket = t.bucket`,
      [series, ats],
    );
    const readings = `(select r.series, r.at, r.num from observation_readings r
       join (${touched}) t on r.series = t.series and r.at >= t.bucket and r.at < t.bucket + interval '1 ${width}') f`;
    await exec(
      `insert into observation_rollups_${width} (${ROLLUP}) select ${ROLLUP} from (${buckets(width, readings)}) b`,
      [series, ats],
    );
  }
}

/**
 * Deletes the readings and rollups of the series `seriesSql` selects (`id`, `dataset`), and takes
 * the observations they held off their datasets' counters. The series rows stay (ids are
 * remembered by processes; an asset made again with the same id takes its series back).
 * `params` begin with the group and the profile (`$1`, `$2`), which `seriesSql` narrows to too.
 */
export async function forgetReadings(
  exec: Exec,
  seriesSql: string,
  params: readonly unknown[],
): Promise<void> {
  await exec(
    `with s as materialized (${seriesSql}),
     gone as (
       delete from observation_readings r using s where r.series = s.id
       returning s.dataset, r.series, r.at),
     per as (
       select dataset, count(*) as n from (
         select distinct g.dataset, o.asset_id, g.at from gone g
           join observation_series o on o.user_group = $1 and o.id = g.series) d
       group by dataset),
     h as (delete from observation_rollups_hour r using s where r.series = s.id),
     d as (delete from observation_rollups_day r using s where r.series = s.id)
     update asset_dataset_stats t set observation_count = greatest(t.observation_count - per.n, 0)
     from per where t.user_group = $1 and t.profile = $2 and t.dataset = per.dataset`,
    params,
  );
}

/**
 * Computes every rollup of the series `seriesSql` selects (`id`) again from their readings: after
 * readings were loaded around the writer (a restore, a bulk load in SQL).
 */
export async function rebuildRollups(
  exec: Exec,
  seriesSql: string,
  params: readonly unknown[],
): Promise<void> {
  for (const width of ['hour', 'day'] as const)
    await exec(`delete from observation_rollups_${width} where series in (${seriesSql})`, params);
  await exec(
    `insert into observation_rollups_hour (${ROLLUP}) select ${ROLLUP} from (${buckets(
      'hour',
      `(select series, at, num from observation_readings where series in (${seriesSql})) r`,
    )}) h`,
    params,
  );
  await exec(
    `insert into observation_rollups_day (${ROLLUP}) select ${ROLLUP} from (${coarser(
      'day',
      `(select * from observation_rollups_hour where series in (${seriesSql})) r`,
    )}) d`,
    params,
  );
}

/** The timestamp of a column of milliseconds since the epoch, under the column's name. */
export const ms = (column: string) =>
  `'epoch'::timestamptz + ${column} * interval '1 millisecond' as ${column}`;
