import type { Database } from '../../../storage/database.ts';
import { MANUAL_DATASET, type MergePlan, mergePlanOf } from '../datasets/plan.ts';
import type { DatasetRow } from '../datasets/rows.ts';
import type { Exec } from '../exec.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { mergeLayers } from './merge.ts';
import { bumpStats, inTransaction, type Rows, stage } from './staging.ts';
import { DatasetWriteError, type DatasetWriteOptions, type DatasetWriteResult } from './types.ts';
import { checkVersions } from './versions.ts';

/**
 * Writes rows of one up dataset and re-materialises the assets they touch, all or nothing in
 * one transaction: the rows replace the asset's earlier row in that dataset, and each touched
 * asset's `properties` become the merge of its rows (docs/assets.md "Datasets").
 */
export async function writeUpDataset(
  database: Pick<Database, 'pool' | 'engine'>,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: Rows<DatasetRow>,
  options: DatasetWriteOptions = {},
): Promise<DatasetWriteResult> {
  const plan = planFor(profile, dataset);
  return inTransaction(database, options, async (exec, method, client) => {
    await checkVersions(exec, group, profile.profile, options.versions);
    const n = await stage(exec, client, method, 'up', rows, options);
    const counts = await applyUpStaging(exec, group, profile.profile, plan, dataset, n);
    return { rows: n, ...counts };
  });
}

/** The same write inside a caller's transaction (the demo seed, direct writes). */
export async function writeUpDatasetIn(
  exec: Exec,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: DatasetRow[],
): Promise<{ inserted: number; updated: number }> {
  const plan = planFor(profile, dataset);
  const n = await stage(exec, null, 'insert', 'up', rows, {});
  return applyUpStaging(exec, group, profile.profile, plan, dataset, n);
}

function planFor(profile: EffectiveProfile, dataset: string): MergePlan {
  const plan = mergePlanOf(profile);
  if (!plan?.layers.includes(dataset))
    throw new DatasetWriteError(`profile ${profile.profile} has no up dataset ${dataset}`);
  return plan;
}

/** The staged rows (`n` of them, one per asset) into the dataset, then into their assets. */
async function applyUpStaging(
  exec: Exec,
  group: string,
  profile: string,
  plan: MergePlan,
  dataset: string,
  n: number,
): Promise<{ inserted: number; updated: number }> {
  const [{ columns }] = (await exec<{ columns: string[] }>(
    `select coalesce(array_agg(distinct k order by k), '{}') as columns
     from assetql_dataset_staging s, jsonb_object_keys(s.values) k`,
  )) as [{ columns: string[] }];
  if (dataset !== MANUAL_DATASET) {
    // An asset written before its profile had datasets keeps those values as its manual layer.
    const adopted = await exec<{ n: number; columns: string[] | null }>(
      `with adopted as (
         insert into asset_dataset_rows (user_group, profile, dataset, asset_id, values, modified_at)
         select a.user_group, a.profile, $3, a.id, a.properties, a.modified_at
         from assetql_dataset_staging s
         join assets a on a.user_group = $1 and a.profile = $2 and a.id = s.id
         where a.properties <> '{}'::jsonb
           and not exists (select 1 from asset_dataset_rows r
                           where r.user_group = $1 and r.profile = $2 and r.asset_id = s.id)
         returning values)
       select count(*)::int as n,
         (select array_agg(distinct k) from adopted, jsonb_object_keys(adopted.values) k) as columns
       from adopted`,
      [group, profile, MANUAL_DATASET],
    );
    if (adopted[0]!.n > 0)
      await bumpStats(exec, group, profile, MANUAL_DATASET, {
        rows: adopted[0]!.n,
        columns: adopted[0]!.columns ?? [],
      });
  }
  const [written] = await exec<{ inserted: number }>(
    `with up as (
       insert into asset_dataset_rows as r (user_group, profile, dataset, asset_id, values, modified_at)
       select $1, $2, $3, s.id, s.values, now() from assetql_dataset_staging s
       on conflict (user_group, profile, dataset, asset_id) do update set
         values = excluded.values, modified_at = excluded.modified_at
       returning (xmax = 0) as inserted)
     select count(*) filter (where inserted)::int as inserted from up`,
    [group, profile, dataset],
  );
  await bumpStats(exec, group, profile, dataset, { rows: written!.inserted, columns });
  // Every staged id now has a row in `dataset`, so each is merged once: those not inserted
  // matched an existing asset, rewritten or left as it was.
  const { inserted } = await mergeLayers(
    exec,
    group,
    profile,
    plan,
    'select id, geometry from assetql_dataset_staging',
  );
  return { inserted, updated: n - inserted };
}
