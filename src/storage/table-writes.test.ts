import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { TableWrites } from './table-writes.ts';

function database() {
  const writes = new TableWrites();
  const db = new Kysely<any>({
    dialect: writes.dialect({
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    }),
  });
  const seen: number[] = [];
  let n = 0;
  writes.watch(['asset_profiles', 'asset_profile_extensions'], () => seen.push(n));
  const step = async (run: () => Promise<unknown>) => {
    n++;
    await run();
  };
  return { db, writes, seen, step };
}

describe('TableWrites', () => {
  it('tells of every builder write to a watched table, and of nothing else', async () => {
    const { db, seen, step } = database();
    await step(() => db.insertInto('asset_profiles').values({ profile: 'a' }).execute()); // 1
    await step(() => db.updateTable('asset_profiles as p').set({ title: 'x' }).execute()); // 2
    await step(() => db.deleteFrom('asset_profile_extensions').execute()); // 3
    await step(() => db.selectFrom('asset_profiles').selectAll().execute()); // 4: a read
    await step(() => db.insertInto('assets').values({ id: 'a' }).execute()); // 5: another table
    await step(() =>
      db.transaction().execute((trx) => trx.updateTable('asset_profiles').set({ title: 'y' }).execute()),
    ); // 6
    expect(seen).toEqual([1, 2, 3, 6]);
  });

  it('tells of raw statements that write a watched table, and not of raw reads', async () => {
    const { db, seen, step } = database();
    await step(() => sql`update asset_profiles p set lookup_names = ${['a']}`.execute(db)); // 1
    await step(() => sql`select * from asset_profiles where profile = ${'a'}`.execute(db)); // 2
    await step(() => sql`delete from assets where profile = ${'a'}`.execute(db)); // 3
    await step(() => sql`TRUNCATE asset_profile_extensions`.execute(db)); // 4
    expect(seen).toEqual([1, 4]);
  });

  it('leaves plain inserts untold when asked to, and tells of upserts, updates, deletes and raw writes', async () => {
    const { db, writes } = database();
    const told: string[] = [];
    let step = '';
    writes.watch(['sessions'], () => told.push(step), { inserts: false });
    const run = async (name: string, q: () => Promise<unknown>) => {
      step = name;
      await q();
    };
    await run('insert', () => db.insertInto('sessions').values({ id: 'a' }).execute());
    await run('insert, nothing on conflict', () =>
      db
        .insertInto('sessions')
        .values({ id: 'a' })
        .onConflict((c) => c.doNothing())
        .execute(),
    );
    await run('upsert', () =>
      db
        .insertInto('sessions')
        .values({ id: 'a' })
        .onConflict((c) => c.column('id').doUpdateSet({ kind: 'x' }))
        .execute(),
    );
    await run('update', () => db.updateTable('sessions').set({ kind: 'y' }).execute());
    await run('delete', () => db.deleteFrom('sessions').execute());
    await run('raw insert', () => sql`insert into sessions (id) values ('b')`.execute(db));
    expect(told).toEqual(['upsert', 'update', 'delete', 'raw insert']);
  });

  it("tells of a transaction's writes once it commits, and never of a rolled-back one", async () => {
    const { db, seen, step } = database();
    let during = -1;
    await step(() =>
      db.transaction().execute(async (trx) => {
        await trx.updateTable('asset_profiles').set({ title: 'y' }).execute();
        await trx.deleteFrom('asset_profile_extensions').execute();
        during = seen.length;
      }),
    ); // 1: told once, at commit
    await step(() =>
      db
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('asset_profiles').set({ title: 'z' }).execute();
          throw new Error('rolled back');
        })
        .catch(() => {}),
    ); // 2: never
    await step(() => sql`update asset_profiles set title = 'w'`.execute(db)); // 3: at once
    expect(during).toBe(0);
    expect(seen).toEqual([1, 3]);
  });

  it('stops telling once unwatched', async () => {
    const { db, writes } = database();
    let calls = 0;
    const undo = writes.watch(['asset_profiles'], () => calls++);
    await db.deleteFrom('asset_profiles').execute();
    undo();
    await db.deleteFrom('asset_profiles').execute();
    expect(calls).toBe(1);
  });
});
