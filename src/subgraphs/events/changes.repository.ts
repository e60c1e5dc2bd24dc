import { type Kysely, type Selectable, sql } from 'kysely';
import type { ChangesTable, Tables } from '../../storage/tables.ts';
import { type Position, parseSnapshot, type Snapshot } from './cursor.ts';

/** An entry of the change log as read. */
export type ChangeRow = Selectable<ChangesTable>;

/** Which entries: every list given must hold the entry's value. */
export interface ChangeSelection {
  entities?: readonly string[];
  kinds?: readonly string[];
  profiles?: readonly string[];
  ids?: readonly string[];
}

export interface ChangePage {
  order: 'NEWEST_FIRST' | 'OLDEST_FIRST';
  /** Entries after this position in the page's order. */
  after?: Position;
  /** `limit + 1` entries are read, to tell whether more follow. */
  limit: number;
}

const COLUMNS = sql.raw(
  'tx::text as tx, seq::text as seq, at, entity, profile, entity_id, kind, version, actor_kind, actor, actor_key, correlation_id, patch, before, after',
);

/**
 * A page of `group`'s log. Oldest first reads only the entries of transactions older than every
 * transaction still running, so that no entry can later appear before one already read: what a
 * reader resuming after the last entry it read relies on (migrations/20261128T0100_change_log.ts).
 */
export async function listChanges(
  db: Kysely<Tables>,
  group: string,
  selection: ChangeSelection,
  page: ChangePage,
): Promise<ChangeRow[]> {
  const oldest = page.order === 'OLDEST_FIRST';
  const conditions = [sql`user_group = ${group}`];
  if (selection.entities) conditions.push(sql`entity = any(${selection.entities}::text[])`);
  if (selection.kinds) conditions.push(sql`kind = any(${selection.kinds}::text[])`);
  if (selection.profiles) conditions.push(sql`profile = any(${selection.profiles}::text[])`);
  if (selection.ids) conditions.push(sql`entity_id = any(${selection.ids}::text[])`);
  if (page.after) {
    const at = sql`(${page.after.tx}::xid8, ${page.after.seq}::bigint)`;
    conditions.push(oldest ? sql`(tx, seq) > ${at}` : sql`(tx, seq) < ${at}`);
  }
  if (oldest) conditions.push(sql`tx < pg_snapshot_xmin(pg_current_snapshot())`);
  const direction = sql.raw(oldest ? 'asc' : 'desc');
  // Ordered by the columns, qualified: the bare names are the text the rows are read as.
  const { rows } = await sql<ChangeRow>`
    select ${COLUMNS} from changes
    where ${sql.join(conditions, sql` and `)}
    order by changes.tx ${direction}, changes.seq ${direction}
    limit ${page.limit + 1}`.execute(db);
  return rows;
}

/** What a tail of the log reads at once: the entries that may be read now, and whether more wait. */
export interface TailRead {
  /** Entries after the position, oldest first, that an oldest-first reader may read now. */
  rows: ChangeRow[];
  /**
   * Whether entries committed after them are held back by an older transaction still running:
   * they become readable when it ends, which may send no notice (it need not have logged).
   */
  held: boolean;
  /**
   * While held: the transaction of the oldest entry held back, which may be read once every
   * transaction older than it has ended (the oldest running one, {@link oldestRunning}, is past it).
   */
  waiting: bigint | undefined;
}

/** The oldest transaction still running in the cluster now: what a held tail waits for to advance. */
export async function oldestRunning(db: Kysely<Tables>): Promise<bigint> {
  const { rows } = await sql<{ xmin: string }>`
    select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`.execute(db);
  return BigInt(rows[0]!.xmin);
}

/**
 * The entries of `group`'s log after `after` (from its start without), oldest first, at most
 * `limit`, as a live reader reads them: only those of transactions older than every one still
 * running ({@link listChanges}), and whether committed ones wait behind such a transaction.
 */
export async function readTail(
  db: Kysely<Tables>,
  group: string,
  after: Position | undefined,
  limit: number,
): Promise<TailRead> {
  const from = after ? sql`and (tx, seq) > (${after.tx}::xid8, ${after.seq}::bigint)` : sql``;
  // Only the readable entries are fetched; the oldest of those waiting behind a running
  // transaction is one probe of the index, so that a tail held back costs a look, not its waiting
  // entries' JSON.
  const { rows } = await sql<ChangeRow & { waiting: string | null }>`
    with s as materialized (select pg_snapshot_xmin(pg_current_snapshot()) as xmin)
    select r.*, (select w.tx::text from changes w where w.user_group = ${group} ${from} and w.tx >= s.xmin
        order by w.tx, w.seq limit 1) as waiting
    from s left join lateral (
      select ${COLUMNS}, changes.tx as at_tx, changes.seq as at_seq from changes
      where user_group = ${group} ${from} and changes.tx < s.xmin
      order by changes.tx, changes.seq
      limit ${limit}) r on true
    order by r.at_tx, r.at_seq`.execute(db);
  const oldest = rows[0]?.waiting;
  const waiting = oldest === null || oldest === undefined ? undefined : BigInt(oldest);
  const taken = rows.filter((r) => r.tx !== null);
  for (const r of taken) {
    const row = r as { waiting?: unknown; at_tx?: unknown; at_seq?: unknown };
    delete row.waiting;
    delete row.at_tx;
    delete row.at_seq;
  }
  return { rows: taken, held: waiting !== undefined, waiting };
}

/** Where a reader of `group`'s log stands at one moment, for what comes after. */
export interface Start {
  /** The newest position a live reader may read then; none while none may be. */
  position: Position | undefined;
  /** What a reader could see then: entries after `position` that it saw came before the start. */
  snapshot: Snapshot;
}

/**
 * Where a reader of `group`'s log that starts now stands, from one snapshot: the newest position
 * a live reader may read ({@link readTail}), and the snapshot itself. Entries after the position
 * that the snapshot saw (`seenIn`, cursor.ts) committed before now, held back behind a
 * transaction still running.
 */
export async function startOf(db: Kysely<Tables>, group: string): Promise<Start> {
  const { rows } = await sql<{ snapshot: string; tx: string | null; seq: string | null }>`
    select s::text as snapshot, t.tx, t.seq
    from pg_current_snapshot() as s
    left join lateral (
      select tx::text as tx, seq::text as seq from changes
      where user_group = ${group} and tx < pg_snapshot_xmin(s)
      order by changes.tx desc, changes.seq desc limit 1) t on true`.execute(db);
  const { snapshot, tx, seq } = rows[0]!;
  return { position: tx && seq ? { tx, seq } : undefined, snapshot: parseSnapshot(snapshot) };
}

/** The newest position of `group`'s log a live reader may read now; none while it is empty. */
export async function tailOf(db: Kysely<Tables>, group: string): Promise<Position | undefined> {
  return (await startOf(db, group)).position;
}

/** The newest position pruning has taken of `group`'s log, if it took any. */
export async function horizonOf(db: Kysely<Tables>, group: string): Promise<Position | undefined> {
  const { rows } = await sql<Position>`
    select tx::text as tx, seq::text as seq from change_horizons where user_group = ${group}`.execute(db);
  return rows[0];
}

/** True when position `a` comes before position `b`. */
export function before(a: Position, b: Position): boolean {
  const [ta, tb] = [BigInt(a.tx), BigInt(b.tx)];
  return ta < tb || (ta === tb && BigInt(a.seq) < BigInt(b.seq));
}

/**
 * Deletes entries older than `cutoff`, at most `batch` of them, and moves each group's horizon
 * to the newest position deleted. Returns how many went. Only old entries are touched: writers,
 * who only insert new ones, never wait on it.
 */
export async function pruneChanges(db: Kysely<Tables>, cutoff: Date, batch: number): Promise<number> {
  const { rows } = await sql<{ deleted: string }>`
    with gone as (
      delete from changes
      where ctid = any(array(select ctid from changes where at < ${cutoff} order by at limit ${batch}))
      returning user_group, tx, seq
    ), newest as (
      select distinct on (user_group) user_group, tx, seq from gone order by user_group, tx desc, seq desc
    ), moved as (
      insert into change_horizons (user_group, tx, seq) select user_group, tx, seq from newest
      on conflict (user_group) do update set tx = excluded.tx, seq = excluded.seq
        where (change_horizons.tx, change_horizons.seq) < (excluded.tx, excluded.seq)
    )
    select count(*)::text as deleted from gone`.execute(db);
  return Number(rows[0]?.deleted ?? 0);
}

/** Every group with an entry in the log, one index probe per group (a loose index scan). */
export async function groupsInLog(db: Kysely<Tables>): Promise<string[]> {
  const { rows } = await sql<{ user_group: string }>`
    with recursive g as (
      (select user_group from changes order by user_group limit 1)
      union all
      select (select c.user_group from changes c where c.user_group > g.user_group order by c.user_group limit 1)
      from g where g.user_group is not null
    )
    select user_group from g where user_group is not null`.execute(db);
  return rows.map((r) => r.user_group);
}
