import { type Kysely, sql } from 'kysely';

// Exports made from saved selection filters. The row keeps the predicate as it was when the
// export was asked for, so the file answers the question asked even if the filter changes;
// the rows themselves are read when the file is fetched. Deleting a row revokes its URL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table asset_downloads (
      user_group text not null,
      id text not null,
      filter_id text not null,
      profile text not null,
      predicate jsonb,
      name text not null,
      format text not null check (format in ('CSV', 'XLSX')),
      properties jsonb not null,
      created_at timestamptz not null default now(),
      created_by text not null,
      expires_at timestamptz not null,
      primary key (user_group, id)
    )`.execute(db);
  await sql`create index asset_downloads_newest on asset_downloads (user_group, created_at desc, id)`.execute(
    db,
  );
}
