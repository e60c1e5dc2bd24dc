/**
 * Lookup keys: the part of an asset's properties that relationships find it by.
 *
 * `related` by `PROPERTY` / `PROPERTY_LIST` asks "which assets of profile P hold value v in
 * property x?" for the `lookupProperty` x of some relationship that targets P. Those are the
 * only questions a properties index answers here (property predicates in filters compile to
 * exact typed expressions no general index serves), so instead of indexing every property of
 * every asset, each asset keeps `lookup`: its stored properties restricted to P's *lookup
 * names* (non-null values only; null when none), and a GIN `jsonb_path_ops` index covers that
 * column. `properties @> {x: v}` and `lookup @> {x: v}` agree for every x among the names, so
 * relationships resolve as before at a fraction of the index's write cost (docs/assets.md
 * "Indexes").
 *
 * P's lookup names (`asset_profiles.lookup_names`) are derived from the relationships of every
 * profile of the group and extension, and from the properties P declares `searchable` (see
 * {@link refreshLookups}); every statement that writes
 * `assets.properties` also writes `lookup` from them (the assets writer, ./write/), reading them
 * with `lockLookupNames` (./write/lookup-keys.ts), which holds the profile row against a
 * concurrent change of its names until commit.
 */
import type { Exec } from './exec.ts';
import { rewriteLookupKeys } from './write/lookup-keys.ts';

/**
 * Adds to every profile's lookup names in a group what the relationships of all its profiles
 * and extensions look up (each `lookupProperty` of a `PROPERTY` or `PROPERTY_LIST`
 * relationship names a lookup property of its target) and the properties the profile and its
 * extensions declare `searchable`, and rewrites the lookup keys of the
 * assets of each profile whose names grew. Run inside the transaction that changed the
 * profiles; the name update waits for writers holding `lockLookupNames`.
 *
 * Names are never dropped (a relationship removed leaves its property indexed): a reader that
 * saw a name may rely on every asset's keys holding it — a filter narrows an equality on that
 * property through the index — and that stays true however its read interleaves with profile
 * changes. Names only appear together with the keys, in one transaction.
 */
export async function refreshLookups(exec: Exec, group: string): Promise<void> {
  const changed = await exec<{ profile: string; lookup_names: string[] }>(
    `with documents as (
       select profile, definition from asset_profiles where user_group = $1
       union all
       select profile, definition from asset_profile_extensions where user_group = $1),
     wanted as (
       select r ->> 'profile' as target, r ->> 'lookupProperty' as name
       from documents d
       cross join lateral jsonb_array_elements(
         case when jsonb_typeof(d.definition -> 'relationships') = 'array'
           then d.definition -> 'relationships' else '[]'::jsonb end) r
       where r ->> 'lookupType' in ('PROPERTY', 'PROPERTY_LIST') and r ->> 'lookupProperty' is not null
       union all
       select d.profile, x ->> 'name'
       from documents d
       cross join lateral jsonb_array_elements(
         case when jsonb_typeof(d.definition -> 'properties') = 'array'
           then d.definition -> 'properties' else '[]'::jsonb end) x
       where x -> 'searchable' = 'true'::jsonb and x ->> 'name' is not null),
     derived as (
       select p.profile,
         array(select n.name from (select w.name from wanted w where w.target = p.profile
                                   union select unnest(p.lookup_names)) n
               order by n.name collate "C") as names
       from asset_profiles p where p.user_group = $1)
     update asset_profiles p set lookup_names = d.names
     from derived d
     where p.user_group = $1 and p.profile = d.profile and p.lookup_names is distinct from d.names
     returning p.profile, p.lookup_names`,
    [group],
  );
  for (const { profile, lookup_names: names } of changed)
    await rewriteLookupKeys(exec, group, profile, names);
}
