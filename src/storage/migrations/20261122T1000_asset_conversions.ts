import { type Kysely, sql } from 'kysely';

// Recipes that turn assets of one profile into assets of another (a planned well into a
// drilled one, a proposed site into a built one).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table asset_conversions (
      user_group text not null,
      profile text not null,
      id text not null,
      name text,
      target_profile text not null,
      property_mappings jsonb not null default '[]',
      source_relationship text,
      delete_source boolean not null default false,
      updated_at timestamptz not null default now(),
      updated_by text not null,
      primary key (user_group, profile, id),
      foreign key (user_group, profile) references asset_profiles on delete cascade
    )`.execute(db);
}
