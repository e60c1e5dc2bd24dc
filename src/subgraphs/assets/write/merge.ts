import type { MergePlan } from '../datasets/plan.ts';
import type { Exec } from '../exec.ts';
import type { ProfileDocument } from '../profiles/definition.ts';
import { displayNameOf } from '../profiles/display-name.ts';
import { effectiveProperties } from '../profiles/effective-properties.ts';
import { lockLookupNames, lookupSql } from './lookup-keys.ts';
import { type UpsertCounts, upsertSql } from './rule.ts';
import { DatasetWriteError } from './types.ts';

/**
 * Re-materialises `properties` (and the display name and deleted flag) of the assets `ids`
 * selects (`id`, `geometry` columns; `$1` is the group and `$2` the profile) from their
 * dataset rows, creating assets that do not exist yet, by the one upsert rule (./rule.ts): an
 * asset whose merge, geometry, name and flag are what it holds is not rewritten. Refuses
 * (throws) when a merged asset lacks a required property.
 *
 * Display names and deleted flags are computed over `$defaults || properties`, the effective
 * properties (profiles/effective-properties.ts) of merged rows, which never hold JSON null.
 */
export async function mergeLayers(
  exec: Exec,
  group: string,
  profile: string,
  plan: MergePlan,
  ids: string,
): Promise<UpsertCounts> {
  const lookupNames = await lockLookupNames(exec, group, profile);
  const [r] = await exec<UpsertCounts>(
    upsertSql({
      with: `ids as (${ids}),
       maps as (select * from unnest($4::text[], $5::text[], $6::text[]) as m(dataset, col, prop)),
       plan as (
         select p.dataset, p.ord, exists (select 1 from maps m where m.dataset = p.dataset) as mapped
         from unnest($3::text[]) with ordinality as p(dataset, ord)),
       merged as (
         select i.id, i.geometry,
           assetql_jsonb_merge(
             case when p.mapped then
               (select coalesce(jsonb_object_agg(coalesce($9::jsonb -> r.dataset ->> e.key, e.key), e.value), '{}'::jsonb)
                from jsonb_each(r.values) e)
             else r.values end
             order by p.ord) as properties
         from ids i
         join asset_dataset_rows r on r.user_group = $1 and r.profile = $2 and r.asset_id = i.id
         join plan p on p.dataset = r.dataset
         group by i.id, i.geometry),
       prepared as (select id, geometry, properties, $7::jsonb || properties as w from merged)`,
      rows: `select id, properties, geometry, ${lookupSql(lookupNames.length, 'properties', '$10::text[]')} as lookup,
         ${plan.displaySql ?? 'id'} as display_name, ${plan.deletedSql} as is_deleted
       from prepared`,
      required: '$8::text[]',
    }),
    [
      group,
      profile,
      plan.layers,
      plan.maps.map((m) => m.dataset),
      plan.maps.map((m) => m.column),
      plan.maps.map((m) => m.property),
      JSON.stringify(Object.fromEntries(plan.defaults)),
      plan.required,
      // { dataset: { column: property } }: renaming without a join per value
      JSON.stringify(
        Object.fromEntries(
          [...new Set(plan.maps.map((m) => m.dataset))].map((d) => [
            d,
            Object.fromEntries(plan.maps.filter((m) => m.dataset === d).map((m) => [m.column, m.property])),
          ]),
        ),
      ),
      lookupNames,
    ],
  );
  if (r!.missing?.length) {
    throw new DatasetWriteError(
      `assets ${r!.missing.join(', ')} would lack a required property (${plan.required.join(', ')})`,
    );
  }
  if (plan.displaySql === null) await renderDisplayNames(exec, group, profile, plan, ids);
  return { inserted: r!.inserted, changed: r!.changed };
}

/** Display names that only JavaScript renders exactly, for the assets `ids` selects. */
async function renderDisplayNames(exec: Exec, group: string, profile: string, plan: MergePlan, ids: string) {
  const [doc] = await exec<{ definition: ProfileDocument }>(
    'select definition from asset_profiles where user_group = $1 and profile = $2',
    [group, profile],
  );
  const rows = await exec<{ id: string; properties: Record<string, unknown>; display_name: string }>(
    `select a.id, a.properties, a.display_name from (${ids}) i
     join assets a on a.user_group = $1 and a.profile = $2 and a.id = i.id`,
    [group, profile],
  );
  const changed = rows
    .map((a) => ({
      id: a.id,
      name: displayNameOf(doc!.definition, a.id, effectiveProperties(plan.defaults, a.properties)),
      a,
    }))
    .filter((c) => c.name !== c.a.display_name);
  for (let i = 0; i < changed.length; i += 5000) {
    const slice = changed.slice(i, i + 5000);
    await exec(
      `update assets a set display_name = v.name
       from unnest($3::text[], $4::text[]) as v(id, name)
       where a.user_group = $1 and a.profile = $2 and a.id = v.id`,
      [group, profile, slice.map((c) => c.id), slice.map((c) => c.name)],
    );
  }
}
