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
export async function withAdvisoryLock<T>(
  // biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
  db: Kysely<any>,
  key: number,
  work: () => Promise<T>,
  /** `sliceSeconds`: how long each try waits before saying who holds the lock @default 10 */
  options: { sliceSeconds?: number } = {},
): Promise<T> {
  return holding(db, key, options.sliceSeconds ?? WAIT_SLICE_S, work) as Promise<T>;
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
  return holding(db, key, 0, work);
}

/** Takes the lock on a connection of its own (waiting for it, or not), runs `work`, lets it go. */
async function holding<T>(
  // biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
  db: Kysely<any>,
  key: number,
  /** Seconds each try waits for the lock; 0: no waiting. */
  slice: number,
  work: () => Promise<T>,
): Promise<T | undefined> {
  return (lockSessions.get(db) ?? db).connection().execute(async (connection) => {
    if (slice > 0) await waitFor(connection, key, slice);
    else {
      const { rows } = await sql<{ taken: boolean | string }>`
        select pg_try_advisory_lock(${sql.lit(ASSETQL)}, ${sql.lit(key)}) as taken`.execute(connection);
      if (rows[0]?.taken !== true) return undefined;
    }
    try {
      return await work();
    } finally {
      const { rows } = await sql<{ released: boolean }>`
        select pg_advisory_unlock(${sql.lit(ASSETQL)}, ${sql.lit(key)}) as released`.execute(connection);
      // Not held by this session after all: taken through a transaction-mode pooler, it stays on
      // a server connection the pooler hands to others (docs/deploy.md, ASSETQL_DATABASE_SESSION_URL).
      if (rows[0]?.released !== true)
        process.stderr.write(
          `assetql: the lock ${nameOf(key)} was not held by this connection when let go: is DATABASE_URL a transaction-mode pooler without ASSETQL_DATABASE_SESSION_URL?\n`,
        );
    }
  });
}

/** How long one try waits before saying who holds the lock, and how long in all. */
const WAIT_SLICE_S = 10;
const WAIT_MAX_MS = 30 * 60_000;

const nameOf = (key: number) => Object.entries(LOCKS).find(([, k]) => k === key)?.[0] ?? String(key);

/**
 * Waits for the lock `key` on `connection`. Waiting is not a request: the serving statement
 * timeout (docs/security.md) would cancel the wait whenever the holder's work (migrations, the
 * demo data on a busy machine) takes longer, and the process would exit at start. Each try runs
 * in a transaction of its own without it, for at most ten seconds (`lock_timeout`; a session lock
 * outlives the transaction that took it); between tries the process says on stderr which
 * connection holds the lock, and after thirty minutes it gives up with that in the error.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
async function waitFor(connection: Kysely<any>, key: number, slice: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    await sql`begin`.execute(connection);
    try {
      await sql`set local statement_timeout = 0`.execute(connection);
      await sql.raw(`set local lock_timeout = '${Math.trunc(slice * 1000)}ms'`).execute(connection);
      await sql`select pg_advisory_lock(${sql.lit(ASSETQL)}, ${sql.lit(key)})`.execute(connection);
      await sql`commit`.execute(connection);
      return;
    } catch (e) {
      await sql`rollback`.execute(connection);
      if ((e as { code?: string }).code !== '55P03') {
        // Taken, and then the commit failed: not kept on a connection that goes back to the pool.
        await sql`select pg_advisory_unlock(${sql.lit(ASSETQL)}, ${sql.lit(key)})`
          .execute(connection)
          .catch(() => undefined);
        throw e;
      }
    }
    const holder = await holderOf(connection, key);
    const waited = Math.round((Date.now() - started) / 1000);
    if (Date.now() - started > WAIT_MAX_MS)
      throw new Error(
        `gave up after ${waited} s waiting for the start-up lock ${nameOf(key)}, held by ${holder}`,
      );
    process.stderr.write(
      `assetql: waiting ${waited} s for the start-up lock ${nameOf(key)}, held by ${holder}\n`,
    );
  }
}

/** Who holds the lock `key`: the backend's pid, application name, client address and age. */
// biome-ignore lint/suspicious/noExplicitAny: any schema; the lock touches no table
async function holderOf(connection: Kysely<any>, key: number): Promise<string> {
  const { rows } = await sql<{ pid: number; app: string | null; addr: string | null; since: string | null }>`
    select a.pid, a.application_name as app, a.client_addr::text as addr,
      to_char(a.backend_start, 'YYYY-MM-DD"T"HH24:MI:SS') as since
    from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'advisory' and l.granted and l.classid = ${sql.lit(ASSETQL)}
      and l.objid = ${sql.lit(key)} and l.objsubid = 2`.execute(connection);
  const h = rows[0];
  if (!h) return 'no one any more';
  return `PostgreSQL backend ${h.pid} (${h.app || 'no application name'}, from ${h.addr ?? 'a local socket'}, connected since ${h.since})`;
}
