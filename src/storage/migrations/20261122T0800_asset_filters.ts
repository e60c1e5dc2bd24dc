import { type Kysely, sql } from 'kysely';

// Saved asset selections ("asset filters" in the spec): a predicate on a profile plus
// predicates on related profiles, with an audit trail and a version for concurrent edits.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table asset_filters (
      user_group text not null,
      id text not null,
      display_name text not null,
      description text,
      profile text not null,
      filter jsonb,
      sub_profiles jsonb not null default '[]',
      version integer not null default 1,
      created_at timestamptz not null default now(),
      created_by text not null,
      updated_at timestamptz not null default now(),
      updated_by text not null,
      primary key (user_group, id),
      foreign key (user_group, profile) references asset_profiles on delete cascade
    )`.execute(db);
}
