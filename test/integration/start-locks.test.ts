import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, openDatabase } from '../../src/storage/database.ts';
import { LOCKS, withAdvisoryLock } from '../../src/storage/locks.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * Processes started together on one PostgreSQL database take turns at start-up work (migrations,
 * the demo data) under an advisory lock. The embedded database has one session and excludes
 * nothing (src/storage/locks.ts), so this is a PostgreSQL test.
 */
describe.skipIf(!process.env.DATABASE_URL)('the start-up lock on PostgreSQL', () => {
  let database: TestDatabase;
  let other: Database;

  beforeAll(async () => {
    database = await freshDatabase();
    // Another process's pool, serving with a short statement timeout, as `assetql serve` does.
    other = await openDatabase({ url: database.url as string }, { statementTimeoutMs: 200 });
  });
  afterAll(async () => {
    await other?.close();
    await database?.close();
  });

  it('is waited for past the serving statement timeout, which the waiting connection keeps afterwards', async () => {
    const order: string[] = [];
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const first = withAdvisoryLock(database.db, LOCKS.demoData, async () => {
      holding();
      order.push('first starts');
      await new Promise((r) => setTimeout(r, 1_000));
      order.push('first ends');
    });
    await held;
    const second = withAdvisoryLock(other.db, LOCKS.demoData, async () => {
      order.push('second runs');
      // The lock's own connection went back with the timeout it had; this pool's others keep it.
      const { rows } = await sql<{ t: string }>`select current_setting('statement_timeout') as t`.execute(
        other.db,
      );
      return rows[0]?.t;
    });
    await first;
    expect(await second).toBe('200ms');
    expect(order).toEqual(['first starts', 'first ends', 'second runs']);
    // A statement that runs past it is still cancelled on that pool.
    await expect(sql`select pg_sleep(1)`.execute(other.db)).rejects.toThrow(/statement timeout/);
  });

  it('says on stderr, try after try, which connection holds it, and is not kept when the commit fails', async () => {
    const said: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      said.push(String(chunk));
      return true;
    });
    try {
      const holder = await database.pool.connect();
      await holder.query(`set application_name = 'the holder'`);
      await holder.query('select pg_advisory_lock($1, $2)', [0x61716c, LOCKS.migrations]);
      const waiting = withAdvisoryLock(other.db, LOCKS.migrations, async () => 'ran', { sliceSeconds: 0.3 });
      await new Promise((r) => setTimeout(r, 1_000));
      await holder.query('select pg_advisory_unlock($1, $2)', [0x61716c, LOCKS.migrations]);
      holder.release();
      expect(await waiting).toBe('ran');
    } finally {
      write.mockRestore();
    }
    const lines = said.filter((l) => l.includes('start-up lock migrations'));
    expect(lines.length, said.join('')).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(
      /^assetql: waiting \d+ s for the start-up lock migrations, held by PostgreSQL backend \d+ \(the holder, from /,
    );
    // Let go: the next one takes it at once, with nothing said.
    expect(await withAdvisoryLock(database.db, LOCKS.migrations, async () => 'again')).toBe('again');
  });
});
