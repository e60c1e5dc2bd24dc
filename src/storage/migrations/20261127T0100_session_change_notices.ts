import { type Kysely, sql } from 'kysely';

// Processes keep resolved sessions between requests (src/subgraphs/auth/sessions/resolve.ts)
// and must hear of every change to what resolution reads, whoever makes it: a resolver, the CLI
// or an operator's own SQL. On channel `assetql_sessions`, delivered when the transaction commits
// (never for one rolled back):
// - `session:<hex of id_hash>` after a session is deleted or a column resolution reads changes
//   (its kind, user, group, client, hard expiry, an idle expiry brought forward; not a slide of the
//   idle expiry, nor a challenge's attempts or state);
// - `user:<username>` after a user is deleted, disabled or enabled, or renamed, or joins or leaves
//   a group: that user's sessions may have lost (or regained) their standing;
// - `*` after any of the three tables is truncated.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function sessions_changed() returns trigger language plpgsql as $$
    begin
      if tg_op = 'TRUNCATE' then
        perform pg_notify('assetql_sessions', '*');
      elsif tg_table_name = 'sessions' then
        perform pg_notify('assetql_sessions', 'session:' || encode(old.id_hash, 'hex'));
      else
        if tg_op <> 'INSERT' then perform pg_notify('assetql_sessions', 'user:' || old.username); end if;
        if tg_op <> 'DELETE' then perform pg_notify('assetql_sessions', 'user:' || new.username); end if;
      end if;
      return null;
    end $$`.execute(db);
  // A slide only moves the idle expiry later, for every active session once a minute: no notice
  // (a process that finds a kept session past its expiry reads it again before ending it).
  await sql`
    create trigger sessions_changed
    after update of id_hash, kind, username, user_group, client_type, expires_at, expires_at_hard
    on sessions for each row
    when (old.id_hash is distinct from new.id_hash or old.kind is distinct from new.kind
      or old.username is distinct from new.username or old.user_group is distinct from new.user_group
      or old.client_type is distinct from new.client_type
      or old.expires_at_hard is distinct from new.expires_at_hard or new.expires_at < old.expires_at)
    execute function sessions_changed()`.execute(db);
  await sql`
    create trigger sessions_deleted after delete
    on sessions for each row execute function sessions_changed()`.execute(db);
  await sql`
    create trigger users_changed
    after update of username, disabled or delete
    on users for each row execute function sessions_changed()`.execute(db);
  await sql`
    create trigger user_groups_changed
    after insert or update or delete
    on user_groups for each row execute function sessions_changed()`.execute(db);
  for (const table of ['sessions', 'users', 'user_groups'])
    await sql`
      create trigger ${sql.raw(`${table}_truncated`)}
      after truncate on ${sql.table(table)}
      for each statement execute function sessions_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger sessions_deleted on sessions`.execute(db);
  for (const table of ['sessions', 'users', 'user_groups']) {
    await sql`drop trigger ${sql.raw(`${table}_changed`)} on ${sql.table(table)}`.execute(db);
    await sql`drop trigger ${sql.raw(`${table}_truncated`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function sessions_changed()`.execute(db);
}
