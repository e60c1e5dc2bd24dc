import { type Kysely, sql } from 'kysely';

// Users list their sessions and end one of them (ASVS 3.3.4). A session is named to its user by
// `public_id`, a random reference unrelated to the session ID: the ID is never stored, and its
// SHA-256 (the primary key) must not leave the server either, since whoever learns a listing
// must not learn anything that finds or presents the session. The default fills the reference
// for every way a session row is written, existing rows included; rotation keeps it.
// `ip_address` is the client address at sign-in, shown beside the session.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sessions add column public_id uuid not null default gen_random_uuid()`.execute(db);
  await sql`alter table sessions add column ip_address text`.execute(db);
  await sql`create unique index sessions_public_id on sessions (public_id)`.execute(db);
}
