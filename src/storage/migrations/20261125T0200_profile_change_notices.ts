import { type Kysely, sql } from 'kysely';

// Processes keep asset profile definitions between requests (src/subgraphs/assets/profiles/
// cache.ts) and must hear of every change, whoever makes it: a resolver, the CLI, a migration or
// an operator's own SQL. After every statement that changes a profile or a profile extension,
// a notice on channel `assetql_profiles`; PostgreSQL delivers it when the transaction commits
// (and folds identical notices of one transaction into one), never for one rolled back.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function asset_profiles_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('assetql_profiles', '');
      return null;
    end $$`.execute(db);
  for (const table of ['asset_profiles', 'asset_profile_extensions']) {
    await sql`
      create trigger ${sql.raw(`${table}_changed`)}
      after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function asset_profiles_changed()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['asset_profiles', 'asset_profile_extensions'])
    await sql`drop trigger ${sql.raw(`${table}_changed`)} on ${sql.table(table)}`.execute(db);
  await sql`drop function asset_profiles_changed()`.execute(db);
}
