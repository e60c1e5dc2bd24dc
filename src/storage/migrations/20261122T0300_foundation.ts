import { type Kysely, sql } from 'kysely';

// Every tenant-scoped table leads with `user_group`, so each primary key and index is
// per tenant and a query without the group cannot use them (isolation by construction).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);

  await sql`
    create table asset_profiles (
      user_group text not null,
      profile text not null,
      title text not null,
      owner_username text not null,
      definition jsonb not null default '{}',
      version integer not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (user_group, profile)
    )`.execute(db);

  await sql`
    create table asset_profile_extensions (
      user_group text not null,
      profile text not null,
      extension text not null,
      definition jsonb not null default '{}',
      updated_at timestamptz not null default now(),
      primary key (user_group, profile, extension),
      foreign key (user_group, profile) references asset_profiles on delete cascade
    )`.execute(db);

  await sql`
    create table assets (
      user_group text not null,
      profile text not null,
      id text not null,
      properties jsonb not null default '{}',
      observation jsonb,
      geometry jsonb,
      display_name text not null default '',
      is_deleted boolean not null default false,
      modified_at timestamptz not null default now(),
      primary key (user_group, profile, id),
      foreign key (user_group, profile) references asset_profiles on delete cascade
    )`.execute(db);

  await sql`
    create table issues (
      user_group text not null,
      id text not null,
      seq bigint generated always as identity,
      display_name text not null,
      description text,
      status text not null,
      subject_type text,
      subject_reference text,
      created_at timestamptz not null default now(),
      created_by text not null,
      primary key (user_group, id)
    )`.execute(db);
  // Newest first is `seq desc`: a keyset that, unlike timestamps, never ties.
  await sql`create unique index issues_newest on issues (user_group, seq desc)`.execute(db);
  await sql`
    create index issues_by_subject on issues (user_group, subject_type, subject_reference, seq desc)
    where subject_type is not null`.execute(db);

  await sql`
    create table sessions (
      id_hash bytea primary key,
      kind text not null,
      username text not null,
      user_group text,
      client_type text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      expires_at_hard timestamptz not null,
      last_authenticated_at timestamptz,
      last_seen_at timestamptz not null default now(),
      challenge_name text,
      challenge_param jsonb,
      device_key text,
      api_key_id text
    )`.execute(db);
  await sql`create index sessions_by_user on sessions (username)`.execute(db);
  await sql`create index sessions_by_expiry on sessions (expires_at)`.execute(db);
}
