import { type Kysely, sql } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';
import { MANUAL_DATASET, mergeKey, mergePlanOf, stateDatasetsOf } from '../datasets/plan.ts';
import type { Exec } from '../exec.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { displayNameOf } from '../profiles/display-name.ts';
import { effectiveProperties, propertyDefaults } from '../profiles/effective-properties.ts';
import { forgetReadings } from '../telemetry/store.ts';
import { mergeLayers } from './merge.ts';

/**
 * Keeps stored merges in step with a profile change, in the caller's transaction: rows and
 * observations of datasets no longer declared are deleted, and the assets they fed are
 * re-materialised; a new merge order or property map re-merges every asset with rows.
 */
export async function followProfileChange(
  exec: Exec,
  group: string,
  before: EffectiveProfile | undefined,
  after: EffectiveProfile,
): Promise<void> {
  const profile = after.profile;
  const oldPlan = before ? mergePlanOf(before) : null;
  const newPlan = mergePlanOf(after);
  const removedUp = (oldPlan?.layers ?? []).filter((d) => !newPlan?.layers.includes(d));
  const oldState = before ? stateDatasetsOf(before).map((d) => d.dataset) : [];
  const newState = new Set(stateDatasetsOf(after).map((d) => d.dataset));
  const removedState = oldState.filter((d) => !newState.has(d));
  const ids = `select distinct asset_id as id, null::jsonb as geometry from asset_dataset_rows
               where user_group = $1 and profile = $2`;

  if (removedUp.length > 0) {
    await exec('drop table if exists assetql_remerge');
    await exec(
      `create temp table assetql_remerge on commit drop as
       select distinct asset_id as id, null::jsonb as geometry from asset_dataset_rows
       where user_group = $1 and profile = $2 and dataset = any($3::text[])`,
      [group, profile, removedUp],
    );
    const keep = newPlan ? removedUp : removedUp.filter((d) => d !== MANUAL_DATASET);
    await exec(
      'delete from asset_dataset_rows where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, keep],
    );
    // Without up datasets the manual layer is all that is left: it becomes the assets' own.
    const plan = newPlan ?? { ...oldPlan!, layers: [MANUAL_DATASET], maps: [] };
    if (newPlan && mergeKey(oldPlan) !== mergeKey(newPlan))
      await mergeLayers(exec, group, profile, plan, ids);
    else await mergeLayers(exec, group, profile, plan, 'select id, geometry from assetql_remerge');
    if (!newPlan)
      await exec('delete from asset_dataset_rows where user_group = $1 and profile = $2 and dataset = $3', [
        group,
        profile,
        MANUAL_DATASET,
      ]);
    await exec(
      'delete from asset_dataset_stats where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, removedUp],
    );
  } else if (newPlan && mergeKey(oldPlan) !== mergeKey(newPlan)) {
    await mergeLayers(exec, group, profile, newPlan, ids);
  }

  if (removedState.length > 0) {
    await exec('drop table if exists assetql_reobserve');
    await exec(
      `create temp table assetql_reobserve on commit drop as
       select distinct asset_id as id from observation_series
       where user_group = $1 and profile = $2 and dataset = any($3::text[])`,
      [group, profile, removedState],
    );
    await forgetReadings(
      exec,
      'select id, dataset from observation_series where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, removedState],
    );
    // Each key's latest value is now the newest reading among the datasets left.
    await exec(
      `with latest as (
         select distinct on (s.asset_id, s.property) s.asset_id, s.property as key,
           coalesce(to_jsonb(r.num), r.val) as value, r.at as observed_at
         from observation_series s
         join assetql_reobserve t on t.id = s.asset_id
         cross join lateral (
           select num, val, at from observation_readings r where r.series = s.id order by at desc limit 1) r
         where s.user_group = $1 and s.profile = $2 and s.dataset <> all($3::text[])
         order by s.asset_id, s.property, r.at desc),
       agg as (
         select asset_id, jsonb_object_agg(key, value) as observation,
           jsonb_object_agg(key, to_jsonb(observed_at)) as observation_at
         from latest group by asset_id)
       update assets a set observation = agg.observation, observation_at = agg.observation_at
       from assetql_reobserve t left join agg on agg.asset_id = t.id
       where a.user_group = $1 and a.profile = $2 and a.id = t.id`,
      [group, profile, removedState],
    );
    await exec(
      'delete from asset_dataset_stats where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, removedState],
    );
  }
}

const REFRESH_CHUNK = 2000;

/**
 * Keeps the stored display name (used by text search) and the deleted flag in step with the
 * profile's configuration, in keyset chunks so memory stays bounded however many assets.
 * Neither moves `modified_at`: they are derived from what the asset holds, which is unchanged.
 */
export async function refreshDerived(trx: Kysely<Tables>, p: EffectiveProfile): Promise<void> {
  const deletedProp = p.document.isDeletedProperty;
  const deletedDefault = p.properties.find((d) => d.name === deletedProp)?.default === true;
  if (deletedProp) {
    await sql`
      update assets set is_deleted = coalesce((properties -> ${deletedProp}) = 'true'::jsonb
        or ((properties -> ${deletedProp}) is null and ${deletedDefault}), false)
      where user_group = ${p.userGroup} and profile = ${p.profile}`.execute(trx);
  }
  const defaults = propertyDefaults(p);
  let after = '';
  for (;;) {
    const rows = await trx
      .selectFrom('assets')
      .select(['id', 'properties', 'display_name'])
      .where('user_group', '=', p.userGroup)
      .where('profile', '=', p.profile)
      .where('id', '>', after)
      .orderBy('id')
      .limit(REFRESH_CHUNK)
      .execute();
    if (rows.length === 0) break;
    const changed: { id: string; name: string }[] = [];
    for (const r of rows) {
      const name = displayNameOf(p.document, r.id, effectiveProperties(defaults, r.properties));
      if (name !== r.display_name) changed.push({ id: r.id, name });
    }
    if (changed.length) {
      await sql`
        update assets a set display_name = v.name
        from unnest(${changed.map((c) => c.id)}::text[], ${changed.map((c) => c.name)}::text[]) as v(id, name)
        where a.user_group = ${p.userGroup} and a.profile = ${p.profile} and a.id = v.id`.execute(trx);
    }
    after = rows.at(-1)!.id;
    if (rows.length < REFRESH_CHUNK) break;
  }
}
