import { type Kysely, sql } from 'kysely';

// The table rate-limiter-flexible's PostgreSQL store uses (its own DDL, created here so the
// service never runs DDL at request time). Shared by every process, so limits hold across them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table rate_limits (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    )`.execute(db);
}
