import { type Kysely, sql } from 'kysely';

// Read-your-writes across processes with read replicas (storage/replicas.ts): where the primary's
// WAL stood after a session's last write, so that any process answers that session's next reads
// from a replica only once the replica has replayed that far. Null: nothing written since the
// session began (a rotated session keeps its row, and so this). Not in the session change
// notices' columns: setting it tells no process anything.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sessions add column write_lsn pg_lsn`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table sessions drop column write_lsn`.execute(db);
}
