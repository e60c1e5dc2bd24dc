import { type Kysely, sql } from 'kysely';

// The foreign key from assets to their profile checked every inserted row on its own (an index
// probe and a row lock per asset): 15–18% of a million-row import once the properties index
// was gone (62,200–64,000 rows/s with it, 74,000–77,300 without). It becomes a check per
// statement over the statement's new rows, and a cascade per statement on the profile side.
// The guarantees are those of the foreign key: an asset names a profile of its group that
// exists, held (for key share) against deletion until the writer commits; deleting a profile
// deletes its assets; neither side's key can change under the other.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table assets drop constraint assets_user_group_profile_fkey`.execute(db);
  // After each statement that inserts assets: every profile its rows name exists, and is held
  // (for key share, as a foreign key holds it) until the transaction ends.
  await sql`
    create function assets_profile_exists() returns trigger language plpgsql as $$
    begin
      perform 1 from asset_profiles p
        where (p.user_group, p.profile) in (select distinct n.user_group, n.profile from new_rows n)
        for key share of p;
      if exists (
        select 1 from (select distinct user_group, profile from new_rows) n
        where not exists (select 1 from asset_profiles p
                          where p.user_group = n.user_group and p.profile = n.profile)) then
        raise exception 'insert or update on table "assets" violates constraint "assets_profile_exists"'
          using errcode = 'foreign_key_violation', constraint = 'assets_profile_exists',
                detail = 'Every asset belongs to a profile of its group.';
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger assets_profile_exists after insert on assets
    referencing new table as new_rows for each statement execute function assets_profile_exists()`.execute(
    db,
  );
  // Updates never move an asset to another group or profile (no statement does); refusing it
  // keeps the check above complete without a transition table on every update.
  await sql`
    create function assets_key_fixed() returns trigger language plpgsql as $$
    begin
      if (new.user_group, new.profile) is distinct from (old.user_group, old.profile) then
        raise exception 'an asset cannot move to another group or profile'
          using errcode = 'foreign_key_violation', constraint = 'assets_profile_exists';
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger assets_key_fixed before update of user_group, profile on assets
    for each row execute function assets_key_fixed()`.execute(db);
  // Deleting a profile deletes its assets (as "on delete cascade" did), once per statement.
  await sql`
    create function asset_profiles_cascade() returns trigger language plpgsql as $$
    begin
      delete from assets a using old_rows o where a.user_group = o.user_group and a.profile = o.profile;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger asset_profiles_cascade after delete on asset_profiles
    referencing old table as old_rows for each statement execute function asset_profiles_cascade()`.execute(
    db,
  );
  await sql`
    create function asset_profiles_key_fixed() returns trigger language plpgsql as $$
    begin
      if (new.user_group, new.profile) is distinct from (old.user_group, old.profile)
         and exists (select 1 from assets a where a.user_group = old.user_group and a.profile = old.profile) then
        raise exception 'a profile with assets cannot change its group or name'
          using errcode = 'foreign_key_violation', constraint = 'assets_profile_exists';
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger asset_profiles_key_fixed before update of user_group, profile on asset_profiles
    for each row execute function asset_profiles_key_fixed()`.execute(db);
}
