import { type Kysely, sql } from 'kysely';

// Which API key made a change (docs/events.md): its public id (`AuthAPIKey.apiKeyId`, what
// `revokeAPIKey` takes), beside the key's owner in `actor`, so that an operator auditing a leaked
// key finds what that key did and not every key of its owner. Never the key's secret.
//
// The writer states it for its transaction like the rest of the actor, as `assetql.actor_key`
// (src/storage/change-log.ts). The column's default reads it, so the log's triggers, which name
// the columns they fill (20261128T0100_change_log.ts), record it unchanged; only for an API key's
// change. A default that calls only stable functions is evaluated once for the rows already
// there (null: nothing is stated to a migration) and rewrites no row of the log.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table changes add column actor_key text
    default case when current_setting('assetql.actor_kind', true) = 'API_KEY'
                 then nullif(current_setting('assetql.actor_key', true), '') end`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table changes drop column actor_key`.execute(db);
}
