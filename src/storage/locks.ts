import { type Kysely, sql } from 'kysely';

/**
 * The start-up work that processes sharing one database must do one at a time. Each is a
 * PostgreSQL advisory lock `(ASSETQL, key)`: the two-integer form, so that it cannot meet
 * Kysely's own single-bigint migration lock or an application's locks by chance.
 */
export const LOCKS = {
  /** Applying migrations (src/storage/migrate.ts). */
  migrations: 1,
  /** Loading the demo tenant (src/demo/seed.ts). */
  demoData: 2,
  /** Pruning the change log (src/subgraphs/events/retention.ts). */
  changeRetention: 3,
  /** Pruning readings past their retention (src/subgraphs/assets/telemetry/retention.ts). */
  observationRetention: 4,
} as const;

// biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
const lockSessions = new WeakMap<Kysely<any>, Kysely<any>>();

/**
 * Takes `db`'s advisory locks on `session`, connections straight to the server: a session lock
 * taken through a transaction-mode pooler stays on a server connection the pooler hands to
 * others (storage/database.ts, `sessionUrl`). The work under the lock still uses `db`.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
export function takeLocksOn(db: Kysely<any>, session: Kysely<any>): void {
  lockSessions.set(db, session);
}

/** The first key of every assetql advisory lock: "aql" in ASCII. */
const ASSETQL = 0x61716c;

/**
 * Runs `work` while this process holds the advisory lock `key`, waiting for any other process
 * that holds it. The lock is a session lock held on a connection of its own, so `work` may use
 * the pool freely, in as many transactions as it likes (it needs one more connection than the
 * lock's); it is released when `work` settles, or by the server if this process dies.
 *
 * On the embedded database (PGlite) every connection is one backend, one session: the lock is
 * granted at once and excludes nothing. There one process owns the data and others attach to it
 * (src/storage/database.ts), and its transactions already run one at a time.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
export async function withAdvisoryLock<T>(db: Kysely<any>, key: number, work: () => Promise<T>): Promise<T> {
  return holding(db, key, true, work) as Promise<T>;
}

/**
 * Runs `work` if this process can take the advisory lock `key` at once, else nothing (undefined):
 * for periodic work that one process at a time is enough to do.
 */
export async function tryAdvisoryLock<T>(
  // biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
  db: Kysely<any>,
  key: number,
  work: () => Promise<T>,
): Promise<T | undefined> {
  return holding(db, key, false, work);
}

/** Takes the lock on a connection of its own (waiting for it, or not), runs `work`, lets it go. */
async function holding<T>(
  // biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
  db: Kysely<any>,
  key: number,
  wait: boolean,
  work: () => Promise<T>,
): Promise<T | undefined> {
  return (lockSessions.get(db) ?? db).connection().execute(async (connection) => {
    if (wait) {
      // Waiting is not a request: the serving statement timeout (docs/security.md) would cancel
      // the wait whenever the holder's work (migrations, the demo data on a busy machine) takes
      // longer, and the process would exit at start. The wait runs in a transaction of its own
      // without it; a session lock outlives the transaction that took it.
      await sql`begin`.execute(connection);
      try {
        await sql`set local statement_timeout = 0`.execute(connection);
        await sql`select pg_advisory_lock(${sql.lit(ASSETQL)}, ${sql.lit(key)})`.execute(connection);
        await sql`commit`.execute(connection);
      } catch (e) {
        await sql`rollback`.execute(connection);
        throw e;
      }
    } else {
      const { rows } = await sql<{ taken: boolean | string }>`
        select pg_try_advisory_lock(${sql.lit(ASSETQL)}, ${sql.lit(key)}) as taken`.execute(connection);
      if (rows[0]?.taken !== true) return undefined;
    }
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(ASSETQL)}, ${sql.lit(key)})`.execute(connection);
    }
  });
}
