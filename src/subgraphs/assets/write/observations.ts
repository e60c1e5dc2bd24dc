import type { Database } from '../../../storage/database.ts';
import { stateDatasetsOf } from '../datasets/plan.ts';
import type { ObservationRow } from '../datasets/rows.ts';
import type { Exec } from '../exec.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { bumpStats, inTransaction, type Rows, stage } from './staging.ts';
import { DatasetWriteError, type DatasetWriteOptions, type DatasetWriteResult } from './types.ts';

/**
 * Appends observations of one state dataset (an observation already stored for the same asset
 * and time is replaced) and updates each touched asset's latest `observation`, all or nothing.
 * With the profile's `forceAssetStateUpdates`, every touched asset's `modified_at` moves too.
 */
export async function writeObservations(
  database: Pick<Database, 'pool' | 'engine'>,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: Rows<ObservationRow>,
  options: DatasetWriteOptions = {},
): Promise<DatasetWriteResult> {
  if (!stateDatasetsOf(profile).some((d) => d.dataset === dataset))
    throw new DatasetWriteError(`profile ${profile.profile} has no state dataset ${dataset}`);
  return inTransaction(database, options, async (exec, method, client) => {
    const n = await stage(exec, client, method, 'state', rows, options);
    const counts = await applyObservationStaging(
      exec,
      group,
      profile.profile,
      dataset,
      profile.document.forceAssetStateUpdates === true,
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
): Promise<{ inserted: number; updated: number }> {
  const unknown = await exec<{ id: string }>(
    `select distinct s.id from assetql_observation_staging s
     where not exists (select 1 from assets a where a.user_group = $1 and a.profile = $2 and a.id = s.id)
     order by s.id limit 10`,
    [group, profile],
  );
  if (unknown.length > 0)
    throw new DatasetWriteError(`no ${profile} assets ${unknown.map((u) => u.id).join(', ')}`);
  const [written] = await exec<{
    inserted: number;
    updated: number;
    latest: Date | null;
    columns: string[] | null;
  }>(
    `with up as (
       insert into asset_state_observations as o (user_group, profile, dataset, asset_id, observed_at, values)
       select $1, $2, $3, s.id, s.observed_at, s.values from assetql_observation_staging s
       on conflict (user_group, profile, dataset, asset_id, observed_at) do update set values = excluded.values
       returning (xmax = 0) as inserted)
     select count(*) filter (where inserted)::int as inserted,
       count(*) filter (where not inserted)::int as updated,
       (select max(observed_at) from assetql_observation_staging) as latest,
       (select array_agg(distinct k) from assetql_observation_staging s, jsonb_object_keys(s.values) k) as columns
     from up`,
    [group, profile, dataset],
  );
  await bumpStats(exec, group, profile, dataset, {
    observations: written!.inserted,
    columns: written!.columns ?? [],
    latest: written!.latest,
  });
  // Per key, the newest value of this write replaces the stored one unless that is newer.
  await exec(
    `with latest as (
       select distinct on (s.id, e.key) s.id, e.key, e.value, s.observed_at
       from assetql_observation_staging s cross join lateral jsonb_each(s.values) e
       order by s.id, e.key, s.observed_at desc),
     fresh as (
       select l.id, jsonb_object_agg(l.key, l.value) as observation,
         jsonb_object_agg(l.key, to_jsonb(l.observed_at)) as observation_at
       from latest l
       join assets a on a.user_group = $1 and a.profile = $2 and a.id = l.id
       where a.observation_at -> l.key is null or (a.observation_at ->> l.key)::timestamptz <= l.observed_at
       group by l.id)
     update assets a set
       observation = coalesce(a.observation, '{}'::jsonb) || f.observation,
       observation_at = coalesce(a.observation_at, '{}'::jsonb) || f.observation_at
     from fresh f
     where a.user_group = $1 and a.profile = $2 and a.id = f.id`,
    [group, profile],
  );
  if (force) {
    await exec(
      `update assets a set modified_at = now()
       where a.user_group = $1 and a.profile = $2 and a.id in (select id from assetql_observation_staging)`,
      [group, profile],
    );
  }
  return { inserted: written!.inserted, updated: written!.updated };
}
