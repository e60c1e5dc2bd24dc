import { type Kysely, sql } from 'kysely';

// Identity tables. Users span tenants (a user belongs to one or more groups), so these
// tables are keyed by username, and each row that acts in a tenant names its group.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table users (
      username text primary key,
      email text,
      phone text,
      password_hash text,
      disabled boolean not null default false,
      -- 'totp' | 'sms' | null; mfa_required without mfa means MFA_SETUP at next sign-in
      mfa text,
      mfa_required boolean not null default false,
      -- AES-256-GCM sealed with a key derived from ASSETQL_SECRET
      totp_secret text,
      -- the last TOTP time step accepted: a code is good once
      totp_last_step bigint not null default 0,
      require_new_password boolean not null default false,
      failed_attempts integer not null default 0,
      locked_until timestamptz,
      password_changed_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index users_username_ci on users (lower(username))`.execute(db);

  await sql`
    create table user_groups (
      username text not null references users on delete cascade on update cascade,
      user_group text not null,
      primary key (username, user_group)
    )`.execute(db);

  await sql`
    create table devices (
      username text not null references users on delete cascade on update cascade,
      device_key text not null,
      name text,
      remembered boolean not null default false,
      created_at timestamptz not null default now(),
      last_signed_in_at timestamptz,
      last_ip_address text,
      primary key (username, device_key)
    )`.execute(db);

  await sql`
    create table api_keys (
      username text not null references users on delete cascade on update cascade,
      api_key_id text not null,
      user_group text not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz,
      primary key (username, api_key_id)
    )`.execute(db);

  // Private state of a pending challenge (attempts, code hash, a TOTP secret being set up).
  await sql`alter table sessions add column challenge_attempts integer not null default 0`.execute(db);
  await sql`alter table sessions add column challenge_state jsonb`.execute(db);
  await sql`create index sessions_by_device on sessions (username, device_key) where device_key is not null`.execute(
    db,
  );

  await sql`
    create table password_resets (
      username text primary key references users on delete cascade on update cascade,
      code_hash bytea not null,
      expires_at timestamptz not null,
      attempts integer not null default 0
    )`.execute(db);

  // Mail and SMS kept here where no SMTP server or SMS provider is configured (demo, tests).
  await sql`
    create table outbox (
      id bigint generated always as identity primary key,
      channel text not null,
      recipient text not null,
      subject text,
      body text not null,
      created_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table auth_events (
      id bigint generated always as identity primary key,
      at timestamptz not null default now(),
      username text,
      event text not null,
      ip text,
      detail jsonb
    )`.execute(db);
  await sql`create index auth_events_by_user on auth_events (username, at desc)`.execute(db);
}
