import { type Kysely, sql } from 'kysely';

// What a webhook's maker could see as it was made: its deliveries are for the changes that
// committed after (subgraphs/events/webhooks/repository.ts). Its position alone cannot say so:
// the log's end as a resuming reader reads it stops before any transaction still running on the
// server, so entries committed after such a transaction began, before the webhook was made, lie
// after the position and were delivered as if they were new.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhooks add column start_snapshot pg_snapshot`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhooks drop column start_snapshot`.execute(db);
}
