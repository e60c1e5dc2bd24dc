import { type Kysely, sql } from 'kysely';

// Webhooks (docs/events.md#webhooks): per group, endpoints that receive the log's changes signed
// by the Standard Webhooks scheme. A webhook's position is how far into its group's log its
// deliveries have been made (`tx`, `seq`, as the log's); each delivery is one change to one
// endpoint, retried on a schedule; each attempt is kept.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhooks (
      user_group text not null,
      id uuid not null default gen_random_uuid(),
      url text not null,
      description text,
      filter jsonb not null default '{}',
      -- The signing secret, sealed (AES-256-GCM, the key derived from ASSETQL_SECRET): signing
      -- needs it back, so it cannot be hashed.
      secret text not null,
      enabled boolean not null default true,
      disabled_reason text,
      failing_since timestamptz,
      tx xid8 not null,
      seq bigint not null,
      version integer not null default 1,
      created_by text not null,
      created_at timestamptz not null default now(),
      primary key (user_group, id)
    )`.execute(db);
  await sql`
    create table webhook_deliveries (
      user_group text not null,
      id uuid not null default gen_random_uuid(),
      webhook_id uuid not null,
      tx xid8 not null,
      seq bigint not null,
      status text not null default 'PENDING' check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
      attempts integer not null default 0,
      next_attempt_at timestamptz,
      created_at timestamptz not null default now(),
      primary key (user_group, id),
      foreign key (user_group, webhook_id) references webhooks on delete cascade
    )`.execute(db);
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'PENDING'`.execute(
    db,
  );
  await sql`create index webhook_deliveries_of on webhook_deliveries (user_group, webhook_id, tx, seq)`.execute(
    db,
  );
  // Processes deliver only while a webhook exists: they hear of one made, changed or deleted
  // elsewhere by this notice, rather than asking the database over and over.
  await sql`
    create function webhooks_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('assetql_webhooks', '');
      return null;
    end $$`.execute(db);
  await sql`
    create trigger webhooks_changed after insert or update or delete on webhooks
    for each statement execute function webhooks_changed()`.execute(db);
  await sql`
    create table webhook_attempts (
      user_group text not null,
      delivery_id uuid not null,
      attempt integer not null,
      at timestamptz not null default now(),
      status integer,
      error text,
      duration_ms integer not null,
      primary key (user_group, delivery_id, attempt),
      foreign key (user_group, delivery_id) references webhook_deliveries on delete cascade
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_attempts`.execute(db);
  await sql`drop table webhook_deliveries`.execute(db);
  await sql`drop table webhooks`.execute(db);
  await sql`drop function webhooks_changed()`.execute(db);
}
