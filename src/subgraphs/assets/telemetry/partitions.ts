import type { Database } from '../../../storage/database.ts';

/** The months a write's readings fall in, each as its first day (UTC), as `observation_month` takes it. */
export function monthsOf(ats: Iterable<Date>): string[] {
  const months = new Set<number>();
  for (const at of ats) months.add(at.getUTCFullYear() * 12 + at.getUTCMonth());
  return [...months].map((m) => {
    // setUTCFullYear, as Date.UTC reads years 0 to 99 as 1900 to 1999.
    const iso = new Date(new Date(0).setUTCFullYear(Math.floor(m / 12), m % 12, 1)).toISOString();
    return iso.slice(0, iso.indexOf('T'));
  });
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
