import { type Kysely, sql } from 'kysely';

// The relay of the change log to NATS JetStream (docs/events.md#nats-jetstream): how far into each
// group's log it has published, as the log's positions.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table change_relay_positions (
      user_group text primary key,
      tx xid8 not null,
      seq bigint not null
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table change_relay_positions`.execute(db);
}
