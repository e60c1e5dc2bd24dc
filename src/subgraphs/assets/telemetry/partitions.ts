import type { Database } from '../../../storage/database.ts';

/** The months a write's readings fall in, each as its first day (UTC), as `observation_month` takes it. */
export function monthsOf(ats: Iterable<Date>): string[] {
  const months = new Set<string>();
  for (const at of ats) months.add(`${at.toISOString().slice(0, 7)}-01`);
  return [...months];
}

/** The months whose partitions this process has seen made, per database. */
const knownMonths = new WeakMap<object, Set<string>>();

/**
 * Forgets the months seen made: a write found no partition for a reading (23514), as when pruning
 * dropped a month that a longer retention set since wants again.
 */
export function forgetMonths(database: Pick<Database, 'pool'>): void {
  knownMonths.delete(database.pool);
}

/**
 * Makes the monthly partitions that `months` need, each in a short transaction of its own (a
 * month's partition takes a lock on the parent table: never inside a write's transaction).
 */
export async function ensureMonths(
  database: Pick<Database, 'pool'>,
  months: readonly string[],
): Promise<void> {
  let known = knownMonths.get(database.pool);
  if (!known) {
    known = new Set();
    knownMonths.set(database.pool, known);
  }
  for (const month of months) {
    if (known.has(month)) continue;
    await database.pool.query('select observation_month($1::date)', [month]);
    known.add(month);
  }
}
