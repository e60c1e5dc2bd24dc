import pg from 'pg';
import type { Database } from '../../../storage/database.ts';
import { stateDatasetsOf } from '../datasets/plan.ts';
import type { ObservationRow } from '../datasets/rows.ts';
import type { Exec } from '../exec.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { ensureMonths } from '../telemetry/partitions.ts';
import { DuplicateReadingError, type StoredCounts, storeReadings } from '../telemetry/store.ts';
import { bumpStats, inTransaction, type Rows, stage } from './staging.ts';
import { DatasetWriteError, type DatasetWriteOptions, type DatasetWriteResult } from './types.ts';

/** The times a write's readings may take: within the group's retention, at most a day ahead. */
export interface ReadingBounds {
  oldest: Date;
  newest: Date;
}

/**
 * Appends observations of one state dataset (an observation already stored for the same asset
 * and time is replaced) and updates each touched asset's latest `observation`, all or nothing.
 * With the profile's `forceAssetStateUpdates`, every touched asset's `modified_at` moves too.
 * A reading outside `bounds` refuses the write, as `recordObservations` refuses it.
 */
export async function writeObservations(
  database: Pick<Database, 'pool' | 'session' | 'engine'>,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: Rows<ObservationRow>,
  options: DatasetWriteOptions & { bounds?: ReadingBounds } = {},
): Promise<DatasetWriteResult> {
  if (!stateDatasetsOf(profile).some((d) => d.dataset === dataset))
    throw new DatasetWriteError(`profile ${profile.profile} has no state dataset ${dataset}`);
  // On PostgreSQL a month's partition is made on a connection of its own (not the pool's, which
  // may have no other), committed at once: made in the write's transaction, it would hold a lock
  // on the readings table, which every writer and reader of readings waits for, until the whole
  // import commits. PGlite has one connection.
  const months =
    database.engine === 'postgres'
      ? async (m: readonly string[]) => {
          const client = new pg.Client(database.session.options);
          // A connection lost while waiting fails the import, not the process.
          client.on('error', () => {});
          await client.connect();
          try {
            // A partition is made under an exclusive lock of the readings tables: waited for at
            // most five seconds (another import holding them until it commits), not for as long as
            // every other writer and reader of readings then queues behind the wait.
            await client.query("set lock_timeout = '5s'");
            await ensureMonths({ pool: client as unknown as pg.Pool }, m);
          } catch (e) {
            if ((e as { code?: string }).code === '55P03')
              throw new DatasetWriteError(
                `the readings tables are busy (another import of a new month?): nothing was written, try again`,
              );
            throw e;
          } finally {
            await client.end();
          }
        }
      : undefined;
  return inTransaction(database, options, async (exec, method, client) => {
    const n = await stage(exec, client, method, 'state', rows, options);
    const counts = await applyObservationStaging(
      exec,
      group,
      profile.profile,
      dataset,
      profile.document.forceAssetStateUpdates === true,
      { bounds: options.bounds, months },
    );
    return { rows: n, ...counts };
  });
}

/** The same write inside a caller's transaction (the demo seed). */
export async function writeObservationsIn(
  exec: Exec,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: ObservationRow[],
): Promise<{ inserted: number; updated: number }> {
  await stage(exec, null, 'insert', 'state', rows, {});
  return applyObservationStaging(
    exec,
    group,
    profile.profile,
    dataset,
    profile.document.forceAssetStateUpdates === true,
  );
}

async function applyObservationStaging(
  exec: Exec,
  group: string,
  profile: string,
  dataset: string,
  force: boolean,
  options: {
    bounds?: ReadingBounds | undefined;
    /** Makes the months' partitions outside this transaction; else they are made in it. */
    months?: ((months: readonly string[]) => Promise<void>) | undefined;
  } = {},
): Promise<{ inserted: number; updated: number }> {
  const unknown = await exec<{ id: string }>(
    `select distinct s.id from assetql_observation_staging s
     where not exists (select 1 from assets a where a.user_group = $1 and a.profile = $2 and a.id = s.id)
     order by s.id limit 10`,
    [group, profile],
  );
  if (unknown.length > 0)
    throw new DatasetWriteError(`no ${profile} assets ${unknown.map((u) => u.id).join(', ')}`);
  const [span] = await exec<{ oldest: Date | null; newest: Date | null }>(
    'select min(observed_at) as oldest, max(observed_at) as newest from assetql_observation_staging',
  );
  const { bounds } = options;
  if (bounds && span?.oldest && span.oldest < bounds.oldest)
    throw new DatasetWriteError(
      `an observation at ${span.oldest.toISOString()} is older than the group's retention (kept from ${bounds.oldest.toISOString()})`,
    );
  if (bounds && span?.newest && span.newest > bounds.newest)
    throw new DatasetWriteError(`an observation at ${span.newest.toISOString()} is more than a day ahead`);
  // The months' partitions: a bulk write may reach far back.
  const months = `select distinct to_char(date_trunc('month', observed_at, 'UTC') at time zone 'UTC', 'YYYY-MM-DD') as m
     from assetql_observation_staging`;
  if (options.months) await options.months((await exec<{ m: string }>(months)).map((r) => r.m));
  else await exec(`select observation_month(m::date) from (${months}) s`);
  await exec(
    `insert into observation_series (user_group, profile, asset_id, dataset, property)
     select distinct $1, $2, s.id, $3, k from assetql_observation_staging s cross join lateral jsonb_object_keys(s.values) k
     order by 3, 5
     on conflict do nothing`,
    [group, profile, dataset],
  );
  let counts: StoredCounts;
  try {
    counts = await storeReadings(
      exec,
      `select se.id as series, s.id as asset_id, e.key as property, s.observed_at as at,
         case when jsonb_typeof(e.value) = 'number' then (e.value)::float8 end as num,
         case when jsonb_typeof(e.value) <> 'number' then e.value end as val
       from assetql_observation_staging s cross join lateral jsonb_each(s.values) e
       join observation_series se on se.user_group = $1 and se.profile = $2 and se.dataset = $3
         and se.asset_id = s.id and se.property = e.key`,
      [group, profile, dataset],
      { force },
    );
  } catch (e) {
    if (e instanceof DuplicateReadingError)
      throw new DatasetWriteError(
        'the same asset (and observation time) appears more than once in one write',
      );
    throw e;
  }
  await bumpStats(exec, group, profile, dataset, {
    observations: counts.observations,
    columns: counts.columns,
    latest: counts.latest,
  });
  return { inserted: counts.observations, updated: counts.replaced };
}
