import { type Kysely, sql } from 'kysely';

// Relationships find assets by the `lookupProperty` of a relationship that targets their
// profile (`properties @> {"facilityId": "F-1"}`); nothing else used the GIN index over every
// property, yet it was two thirds of the database's work per imported asset (1.36 of 1.86 GB of
// WAL per million wells). Each asset now keeps `lookup`, its properties restricted to its
// profile's lookup names, and only that is indexed: on 1,000,000 wells importing a million more
// went from 41,700 to 62,200–64,000 rows/s (src/subgraphs/assets/lookup.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table asset_profiles add column lookup_names text[] not null default '{}'`.execute(db);
  await sql`alter table assets add column lookup jsonb`.execute(db);

  // The names as the relationships of the group's profiles and extensions give them (the
  // rule of refreshLookups, as it stood when this migration was written).
  await sql`
    with relationships as (
      select d.user_group, r ->> 'profile' as target, r ->> 'lookupProperty' as name
      from (select user_group, definition from asset_profiles
            union all
            select user_group, definition from asset_profile_extensions) d
      cross join lateral jsonb_array_elements(
        case when jsonb_typeof(d.definition -> 'relationships') = 'array'
          then d.definition -> 'relationships' else '[]'::jsonb end) r
      where r ->> 'lookupType' in ('PROPERTY', 'PROPERTY_LIST') and r ->> 'lookupProperty' is not null)
    update asset_profiles p set lookup_names = array(
      select n.name from (select distinct x.name from relationships x
                          where x.user_group = p.user_group and x.target = p.profile) n
      order by n.name collate "C")`.execute(db);
  await sql`
    update assets a set lookup = (
      select jsonb_object_agg(e.key, e.value) from jsonb_each(a.properties) e
      where e.key = any(p.lookup_names) and e.value <> 'null'::jsonb)
    from asset_profiles p
    where p.user_group = a.user_group and p.profile = a.profile and p.lookup_names <> '{}'`.execute(db);

  await sql`drop index assets_properties`.execute(db);
  // No pending list (fastupdate off): GIN would otherwise keep new entries in a list every
  // lookup reads whole until it reaches gin_pending_list_limit or a vacuum runs. After a bulk
  // load with the default 4 MB list, 100 facilities' wells took 600 ms instead of 48; with a
  // 256 kB list, 104-112 ms. Imports are as fast without it: 66,700-70,100 rows/s for wells of
  // 50,000 different facilities against 64,400-64,500 with a 64 kB list (one entry per well
  // goes straight into the posting lists; the list pays off for many entries per row).
  await sql`
    create index assets_lookup on assets using gin (lookup jsonb_path_ops)
    with (fastupdate = off) where lookup is not null`.execute(db);
}
