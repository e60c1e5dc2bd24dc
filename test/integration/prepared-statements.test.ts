/**
 * Statements prepared by name on PostgreSQL connections (src/storage/prepared-statements.ts): what
 * is repeated is prepared once per connection and what is not never is; each connection holds at
 * most its bound, whatever the texts and however many run at once; a statement whose table
 * changed under it, or whose name a pooler discarded, runs again; a cancelled or killed one leaves
 * the pool working. Checked against the server's own record, `pg_prepared_statements`.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Database, openDatabase } from '../../src/storage/database.ts';
import { MAX_CHARS, MAX_TEXT } from '../../src/storage/prepared-statements.ts';
import { startTestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

const postgres = Boolean(process.env.DATABASE_URL);

let database: TestDatabase;
beforeAll(async () => {
  if (postgres) database = await freshDatabase();
}, 60_000);
afterAll(async () => {
  await database?.close();
});

/** A pool of `connections` with at most `cap` statements prepared on each. */
const open = (cap: number, connections = 1, statementTimeoutMs?: number) =>
  openDatabase(
    { url: database.url! },
    {
      preparedStatements: cap,
      maxConnections: connections,
      ...(statementTimeoutMs ? { statementTimeoutMs } : {}),
    },
  );

/** A text no other test has sent (the record of texts seen is the process's). */
const fresh = (body: string) => `${body} -- ${randomUUID()}`;

/** The statements prepared on `client`'s connection, by text (read with a simple query: never named). */
async function prepared(client: pg.PoolClient): Promise<string[]> {
  const r = await client.query({
    text: 'select statement from pg_prepared_statements',
    queryMode: 'simple',
  } as never);
  return (r as unknown as pg.QueryResult<{ statement: string }>).rows.map((x) => x.statement);
}

/** Runs `fn` on one checked-out connection of `db`. */
async function onOne<T>(db: Database, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await db.pool.connect();
  try {
    return await fn(c);
  } finally {
    c.release();
  }
}

/**
 * Runs `fn` on one connection of a pool with 10 slots, beside a table of its own, `(a int)`
 * holding `rows`, dropped afterwards.
 */
async function withTable(rows: number[], fn: (c: pg.PoolClient, table: string) => Promise<void>) {
  const db = await open(10);
  const table = `t_${randomUUID().replace(/-/g, '')}`;
  try {
    await database.pool.query(`create table ${table} (a int)`);
    for (const a of rows) await database.pool.query(`insert into ${table} values ($1)`, [a]);
    await onOne(db, (c) => fn(c, table));
  } finally {
    await db.close();
    await database.pool.query(`drop table if exists ${table}`);
  }
}

describe.runIf(postgres)('statements prepared by name (PostgreSQL)', () => {
  it('prepares a statement the second time it is sent, and runs it with each call own values', async () => {
    const db = await open(10);
    try {
      await onOne(db, async (c) => {
        const text = fresh('select $1::int + 1 as n');
        expect((await c.query(text, [1])).rows).toEqual([{ n: 2 }]);
        expect(await prepared(c)).not.toContain(text);
        expect((await c.query(text, [2])).rows).toEqual([{ n: 3 }]);
        expect(await prepared(c)).toContain(text);
        for (let i = 0; i < 10; i++) expect((await c.query(text, [i])).rows).toEqual([{ n: i + 1 }]);
        expect((await prepared(c)).filter((s) => s === text)).toHaveLength(1);
      });
    } finally {
      await db.close();
    }
  });

  it('names no statement but select, insert, update, delete and with with parameters, none over the longest text, and none when turned off', async () => {
    const db = await open(10);
    const off = await open(0);
    try {
      await onOne(db, async (c) => {
        const setting = fresh('set local work_mem = 1024');
        const long = fresh(`select $1::text as t, '${'x'.repeat(MAX_TEXT)}' as pad`);
        for (let i = 0; i < 3; i++) {
          await c.query('begin');
          await c.query(setting, []);
          await c.query('commit');
          await c.query(long, ['a']);
        }
        // Without parameters a text goes as a simple query, and may hold several statements.
        const several = fresh('select 1 as a; select 2 as b');
        for (let i = 0; i < 3; i++) expect(await c.query(several, [])).toHaveLength(2);
        const names = await prepared(c);
        expect(names).not.toContain(setting);
        expect(names).not.toContain(long);
        expect(names).not.toContain(several);
        const w = fresh('with a as (select $1::int as v) select v from a');
        for (let i = 0; i < 3; i++) await c.query(w, [i]);
        expect(await prepared(c)).toContain(w);
      });
      await onOne(off, async (c) => {
        const text = fresh('select $1::int as n');
        for (let i = 0; i < 3; i++) await c.query(text, [i]);
        expect(await prepared(c)).toEqual([]);
      });
    } finally {
      await db.close();
      await off.close();
    }
  });

  it('holds at most its bound on a connection, deallocating the one used least recently', async () => {
    const db = await open(3);
    try {
      await onOne(db, async (c) => {
        const texts = Array.from({ length: 12 }, (_, i) => fresh(`select $1::int * ${i + 1} as n`));
        const hot = texts[0]!;
        for (const [i, t] of texts.entries()) {
          for (let k = 0; k < 2; k++) expect((await c.query(t, [2])).rows).toEqual([{ n: 2 * (i + 1) }]);
          await c.query(hot, [1]); // kept in use: never the least recent
          const now = await prepared(c);
          expect(now.length).toBeLessThanOrEqual(3);
        }
        const now = await prepared(c);
        expect(now).toContain(hot);
        expect(now).toContain(texts[11]);
        // An evicted one is prepared again under a new name when it comes back.
        for (let k = 0; k < 2; k++) expect((await c.query(texts[1]!, [5])).rows).toEqual([{ n: 10 }]);
        await c.query(texts[1]!, [5]); // the name it evicted is deallocated before this one runs
        expect(await prepared(c)).toContain(texts[1]);
        expect((await prepared(c)).length).toBeLessThanOrEqual(3);
      });
    } finally {
      await db.close();
    }
  });

  it('keeps every answer its own with 200 statements at once over 2 connections of 2 slots each', async () => {
    const db = await open(2, 2);
    try {
      const texts = Array.from({ length: 8 }, (_, i) =>
        fresh(`select $1::int + ${i} as n, pg_backend_pid() as pid`),
      );
      const runs = Array.from({ length: 200 }, async (_, k) => {
        const i = (k * 7) % texts.length;
        const r = await db.pool.query(texts[i]!, [k]);
        return r.rows[0].n === k + i;
      });
      expect((await Promise.all(runs)).every(Boolean)).toBe(true);
      // Both connections at once; what a connection last evicted is deallocated before its next statement.
      const held = await Promise.all([0, 1].map(() => db.pool.connect()));
      try {
        for (const c of held) {
          // Named here by the first run if it was not (evicting one), the second runs alone.
          for (let k = 0; k < 2; k++) await c.query(texts[0]!, [0]);
          expect((await prepared(c)).length).toBeLessThanOrEqual(2);
        }
      } finally {
        for (const c of held) c.release();
      }
    } finally {
      await db.close();
    }
  });

  it('runs a statement again whose table changed under it outside a transaction; inside one the error stands', async () => {
    await withTable([1], async (c, table) => {
      const text = fresh(`select * from ${table} where a = $1`);
      for (let i = 0; i < 2; i++) expect((await c.query(text, [1])).rows).toEqual([{ a: 1 }]);
      expect(await prepared(c)).toContain(text);
      // Another process migrates: the prepared result no longer has the table's columns.
      await database.pool.query(`alter table ${table} add column b int default 7`);
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1, b: 7 }]);
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1, b: 7 }]);

      await database.pool.query(`alter table ${table} add column c int default 8`);
      await c.query('begin');
      await expect(c.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
      await c.query('rollback');
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1, b: 7, c: 8 }]);
      expect((await prepared(c)).filter((s) => s === text)).toHaveLength(1);
    });
  });

  it('prepares again what a pooler discarded (DISCARD ALL), and the write it carried happens once', async () => {
    await withTable([], async (c, table) => {
      const text = fresh(`insert into ${table} values ($1)`);
      await c.query(text, [1]);
      await c.query(text, [2]);
      await c.query('discard all');
      expect(await prepared(c)).toEqual([]);
      await c.query(text, [3]);
      await c.query(text, [4]);
      expect(await prepared(c)).toContain(text);
      const rows = await database.pool.query(`select a from ${table} order by a`);
      expect(rows.rows.map((r) => r.a)).toEqual([1, 2, 3, 4]);
    });
  });

  it('leaves the pool working after a named statement is cancelled by the statement timeout, or its connection killed', async () => {
    const db = await open(10, 1, 200);
    try {
      const slow = fresh('select pg_sleep($1::float8) as s');
      const quick = fresh('select $1::int as n, pg_backend_pid() as pid');
      await db.pool.query(slow, [0]);
      await db.pool.query(slow, [0]);
      await expect(db.pool.query(slow, [2])).rejects.toMatchObject({ code: '57014' });
      expect((await db.pool.query(slow, [0])).rows).toHaveLength(1);
      await db.pool.query(quick, [1]);
      const { pid } = (await db.pool.query(quick, [1])).rows[0];
      await database.pool.query('select pg_terminate_backend($1)', [pid]);
      // The killed connection fails its next statement and leaves the pool; a new one serves.
      await db.pool.query(quick, [1]).catch(() => {});
      const again = (await db.pool.query(quick, [2])).rows[0];
      expect(again.n).toBe(2);
      expect(again.pid).not.toBe(pid);
      expect((await db.pool.query(quick, [3])).rows[0].n).toBe(3);
    } finally {
      await db.close();
    }
  });

  it('through the app: 40 filters of different shapes, each sent three times at once, answer as unnamed, and no connection holds more than its bound', async () => {
    const on = (cap: number) =>
      openDatabase({ url: database.url! }, { preparedStatements: cap, maxConnections: 3 }).then((d) =>
        Object.assign(d, { url: database.url }),
      );
    const named = await startTestApp({ database: await on(4) });
    const plain = await startTestApp({ database: await on(0) });
    try {
      await seedDemo(database.db, named.config);
      const headers = { 'x-svc-sessionid': await named.sessionFor('demo', 'demo') };
      // Each filter's SQL differs from the others' (as many predicates as its number), not only in values.
      const filterOf = (i: number) => ({
        and: Array.from({ length: (i % 20) + 1 }, (_, k) => ({ property: { name: 'depth', gt: 100 * k } })),
        ...(i >= 20 ? { not: { property: { name: 'status', equals: 'drilling' } } } : {}),
      });
      const query = `query($f: AssetFilter) { assets(profile: "well") { all(first: 5, filter: $f) { edges { node { id } } } } }`;
      const ask = (app: typeof named, i: number) =>
        app.graphql<{ assets: { all: { edges: { node: { id: string } }[] } } }>(
          query,
          { f: filterOf(i) },
          headers,
        );
      const expected = await Promise.all(Array.from({ length: 40 }, (_, i) => ask(plain, i)));
      for (const r of expected) expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      expect(new Set(expected.map((r) => JSON.stringify(r.body.data))).size).toBeGreaterThan(2);
      const got = await Promise.all(Array.from({ length: 120 }, (_, k) => ask(named, k % 40)));
      for (const [k, r] of got.entries()) expect(r.body, `filter ${k % 40}`).toEqual(expected[k % 40]!.body);
      // Every connection of the named pool (all three held at once) within its bound.
      const held = await Promise.all([0, 1, 2].map(() => named.database.pool.connect()));
      try {
        for (const c of held) {
          // What the connection last evicted is deallocated before its next statement.
          for (let k = 0; k < 3; k++) await c.query('select $1::int as n', [1]);
          expect((await prepared(c)).length).toBeLessThanOrEqual(4);
        }
        expect((await Promise.all(held.map(prepared))).some((p) => p.length > 0)).toBe(true);
      } finally {
        for (const c of held) c.release();
      }
    } finally {
      for (const app of [named, plain]) {
        await app.close();
        await app.database.close();
      }
    }
  }, 60_000);

  it('never deallocates inside a transaction: an eviction there, or a name whose Parse failed, leaves the transaction whole', async () => {
    const db = await open(1);
    try {
      await onOne(db, async (c) => {
        const [t1, t2, t3, t4] = ['a', 'b', 'c', 'd'].map((x) => fresh(`select $1::int as ${x}`)) as [
          string,
          string,
          string,
          string,
        ];
        await c.query(t1, [1]);
        await c.query(t1, [1]);
        await c.query('begin');
        await c.query(t2, [1]);
        await c.query(t2, [2]); // named in the transaction, evicting t1
        expect((await c.query(t1, [3])).rows).toEqual([{ a: 3 }]); // evicting t2
        await c.query('commit');
        // A named Parse that fails (the transaction already failed): nothing of it may abort a later one.
        await c.query(t3, [1]);
        await c.query('begin');
        await expect(c.query('select 1/0')).rejects.toMatchObject({ code: '22012' });
        await expect(c.query(t3, [2])).rejects.toMatchObject({ code: '25P02' });
        await c.query('rollback');
        await c.query('begin');
        await c.query(t4, [1]);
        await c.query(t4, [2]);
        expect((await c.query(t3, [5])).rows).toEqual([{ c: 5 }]);
        await c.query('commit');
        // Outside, what was forgotten is deallocated before the next statements: back within the bound.
        await c.query(t4, [1]);
        await c.query(t4, [2]);
        expect((await prepared(c)).length).toBeLessThanOrEqual(1);
      });
    } finally {
      await db.close();
    }
  });

  it("prepares anew a statement whose parameter's column changed type, or whose value could not be sent", async () => {
    await withTable([1], async (c, table) => {
      const update = fresh(`update ${table} set a = $1`);
      await c.query(update, [2]);
      await c.query(update, [3]);
      expect(await prepared(c)).toContain(update);
      await database.pool.query(`alter table ${table} alter column a type bigint`);
      let failures = 0;
      for (let i = 0; i < 3; i++) {
        try {
          await c.query(update, [3_000_000_000]);
          break;
        } catch (e) {
          failures++;
          expect((e as { code?: string }).code).toBe('22003');
        }
      }
      expect(failures).toBeLessThanOrEqual(1);
      expect((await database.pool.query(`select a from ${table}`)).rows).toEqual([{ a: 3_000_000_000 }]);

      const json = fresh('select $1::jsonb as j');
      await c.query(json, [{ a: 1 }]);
      await c.query(json, [{ a: 1 }]);
      await expect(c.query(json, [{ a: 10n }])).rejects.toThrow();
      await c.query('begin');
      expect((await c.query(json, [{ a: 2 }])).rows).toEqual([{ j: { a: 2 } }]);
      await c.query('commit');
    });
  });

  it('keeps at most its characters of text prepared on a connection, whatever the count allows', async () => {
    const db = await open(100);
    try {
      await onOne(db, async (c) => {
        const long = (i: number) =>
          fresh(`select $1::int + ${i} as n, '${'x'.repeat(MAX_TEXT - 120)}' as pad`);
        const texts = Array.from({ length: 40 }, (_, i) => long(i));
        for (const t of texts) for (let k = 0; k < 2; k++) await c.query(t, [1]);
        await c.query(texts[39]!, [1]);
        const held = await prepared(c);
        expect(held.length).toBeGreaterThan(10);
        expect(held.reduce((n, t) => n + t.length, 0)).toBeLessThanOrEqual(MAX_CHARS);
      });
    } finally {
      await db.close();
    }
  });

  it("leads a failed statement's stack back to the function that sent it, named or not, prepared statements on or off", async () => {
    for (const cap of [0, 10]) {
      const db = await open(cap);
      try {
        const missing = `no_such_table_${randomUUID().replace(/-/g, '')}`;
        // A named async function sending on a checked-out connection, as the import and export
        // code does (Kysely adds its caller's stack itself): the stack must lead back to it, not
        // end at pg's socket read.
        async function sendsTheBadStatement() {
          await onOne(db, (c) => c.query(`select * from ${missing} where a = $1`, [1]));
        }
        // The first run is sent unnamed, the second (with prepared statements on) by name.
        for (let i = 0; i < 3; i++) {
          const error = await sendsTheBadStatement().then(
            () => undefined,
            (e: unknown) => e as Error & { code?: string },
          );
          expect(error?.code).toBe('42P01');
          expect(error?.message).toContain(missing);
          expect(error?.stack).toContain('sendsTheBadStatement');
        }
      } finally {
        await db.close();
      }
    }
  });
});
