import { type Kysely, sql } from 'kysely';

// View configurations of a profile: a map and one widget layout per media type, versioned so
// that two editors never silently overwrite each other.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table asset_views (
      user_group text not null,
      profile text not null,
      id text not null,
      name text,
      map jsonb,
      layouts jsonb not null default '{}',
      version integer not null default 1,
      updated_at timestamptz not null default now(),
      updated_by text not null,
      primary key (user_group, profile, id),
      foreign key (user_group, profile) references asset_profiles on delete cascade
    )`.execute(db);
}
