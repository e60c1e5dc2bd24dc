import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../../src/demo/seed.ts';
import type { AssetImportRow } from '../../../src/subgraphs/assets/import/validate.ts';
import { deleteAssets } from '../../../src/subgraphs/assets/write/delete.ts';
import { DuplicateIdError } from '../../../src/subgraphs/assets/write/types.ts';
import { upsertAlone, upsertAssets } from '../../../src/subgraphs/assets/write/upsert.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/database.ts';

let database: TestDatabase;
/** The text of every statement the file's pool sends, in order. */
const sent: string[] = [];

beforeAll(async () => {
  database = await freshDatabase({
    onConnect: (client) => {
      const query = client.query.bind(client);
      client.query = ((...args: Parameters<typeof query>) => {
        const [config] = args as unknown[];
        sent.push(typeof config === 'string' ? config : ((config as { text?: string })?.text ?? ''));
        return query(...args);
      }) as typeof client.query;
    },
  });
  await seedDemo(database.db, { env: 'demo', secret: 'upsert-test-secret-upsert-test-secret' });
});
afterAll(() => database?.close());

const row = (id: string, properties: Record<string, unknown>, extra: Partial<AssetImportRow> = {}) => ({
  id,
  properties,
  geometry: undefined,
  display_name: String(properties.name ?? id),
  is_deleted: false,
  ...extra,
});

const read = (ids: string[]) =>
  database.db
    .selectFrom('assets')
    .selectAll()
    .where('user_group', '=', 'demo')
    .where('profile', '=', 'well')
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();

// PGlite's socket server cannot COPY, so it always inserts; PostgreSQL tries both ways.
const methods = process.env.DATABASE_URL ? (['copy', 'insert'] as const) : (['insert'] as const);

describe.each(methods)('upsertAssets (%s)', (method) => {
  const p = `${method}-`;

  it('inserts, then updates, keeping a stored geometry and observation when none is given', async () => {
    const first = await upsertAssets(
      database,
      'demo',
      'well',
      [
        row(`${p}1`, { name: 'One' }, { geometry: { type: 'Point', coordinates: [-113, 53] } }),
        row(`${p}2`, { name: 'Two' }),
      ],
      { method },
    );
    expect(first).toEqual({ rows: 2, inserted: 2, updated: 0, unchanged: 0, method });
    await database.db
      .updateTable('assets')
      .set({ observation: JSON.stringify({ pressure: 9 }), modified_at: '2020-01-01T00:00:00Z' })
      .where('user_group', '=', 'demo')
      .where('id', '=', `${p}1`)
      .execute();

    async function* more() {
      yield row(`${p}1`, { name: 'One again', depth: 5 }, { is_deleted: true });
      yield row(`${p}3`, { name: 'Three' }, { geometry: { type: 'Point', coordinates: [1, 2] } });
    }
    const progress: number[] = [];
    const second = await upsertAssets(database, 'demo', 'well', more(), {
      method,
      chunkSize: 1,
      onProgress: (n) => progress.push(n),
    });
    expect(second).toEqual({ rows: 2, inserted: 1, updated: 1, unchanged: 0, method });
    expect(progress.at(-1)).toBe(2);

    const [one, two, three] = await read([`${p}1`, `${p}2`, `${p}3`]);
    expect(one).toMatchObject({
      properties: { name: 'One again', depth: 5 },
      display_name: 'One again',
      is_deleted: true,
      geometry: { type: 'Point', coordinates: [-113, 53] },
      observation: { pressure: 9 },
    });
    expect(one!.modified_at.getTime()).toBeGreaterThan(Date.parse('2020-01-02'));
    expect(two).toMatchObject({ properties: { name: 'Two' }, geometry: null, observation: null });
    expect(three!.geometry).toEqual({ type: 'Point', coordinates: [1, 2] });
  });

  it('keeps text exactly, whatever it holds', async () => {
    const tricky = 'tab\there, line\nbreak, cr\r, back\\slash \\N, "quotes", comma, ünïcödé 🚀';
    const id = `${p}tricky\t\\N\n`;
    await upsertAssets(
      database,
      'demo',
      'well',
      [row(id, { name: tricky, uwi: '\\' }, { display_name: tricky })],
      { method },
    );
    const [stored] = await read([id]);
    expect(stored).toMatchObject({ id, display_name: tricky, properties: { name: tricky, uwi: '\\' } });
  });

  it('writes nothing when the rows fail part way', async () => {
    async function* failing() {
      yield row(`${p}f1`, { name: 'f1' });
      yield row(`${p}f2`, { name: 'f2' });
      throw new Error('the source broke');
    }
    await expect(upsertAssets(database, 'demo', 'well', failing(), { method, chunkSize: 1 })).rejects.toThrow(
      'the source broke',
    );
    expect(await read([`${p}f1`, `${p}f2`])).toEqual([]);
  });

  it('writes nothing when the database refuses a row, and the pool stays usable', async () => {
    await expect(
      upsertAssets(database, 'demo', 'no-such-profile', [row(`${p}x`, { name: 'x' })], { method }),
    ).rejects.toThrow(/no profile no-such-profile/);
    // jsonb has no NUL character: PostgreSQL refuses the second row, after the first was sent.
    await expect(
      upsertAssets(
        database,
        'demo',
        'well',
        [row(`${p}x`, { name: 'x' }), row(`${p}n`, { name: 'a\u0000b' })],
        {
          method,
        },
      ),
    ).rejects.toThrow(/unsupported Unicode escape sequence|invalid byte sequence|null character/i);
    await expect(
      upsertAssets(database, 'demo', 'well', [row(`${p}d`, { name: 'a' }), row(`${p}d`, { name: 'b' })], {
        method,
      }),
    ).rejects.toThrow(DuplicateIdError);
    expect(await read([`${p}x`, `${p}n`, `${p}d`])).toEqual([]);
    const { rows } = await database.pool.query('select 1 as ok');
    expect(rows).toEqual([{ ok: 1 }]);
  });

  it('does nothing for no rows', async () => {
    expect(await upsertAssets(database, 'demo', 'well', [], { method })).toEqual({
      rows: 0,
      inserted: 0,
      updated: 0,
      unchanged: 0,
      method,
    });
  });

  it('merges chunk by chunk in one transaction, refusing an id repeated in a later chunk', async () => {
    const many = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => row(`${p}c${from + i}`, { name: `c${from + i}` }));
    const ids = many(0, 7).map((r) => r.id);
    const chunked = { method, chunkSize: 2, copyChunkRows: 2 };
    await expect(
      upsertAssets(database, 'demo', 'well', [...many(0, 7), row(`${p}c1`, { name: 'again' })], chunked),
    ).rejects.toThrow(DuplicateIdError);
    expect(await read(ids)).toEqual([]);
    expect(await upsertAssets(database, 'demo', 'well', many(0, 7), chunked)).toEqual({
      rows: 7,
      inserted: 7,
      updated: 0,
      unchanged: 0,
      method,
    });
    expect((await read(ids)).map((r) => r.properties)).toEqual(many(0, 7).map((r) => r.properties));
  });

  it('leaves an asset whose row holds the values it has alone: not rewritten, modified_at kept', async () => {
    const id = `${p}same`;
    const geometry = { type: 'Point', coordinates: [-113, 53] };
    await upsertAssets(database, 'demo', 'well', [row(id, { name: 'Same' }, { geometry })], { method });
    await database.db
      .updateTable('assets')
      .set({ modified_at: '2020-01-01T00:00:00Z' })
      .where('user_group', '=', 'demo')
      .where('id', '=', id)
      .execute();
    // No geometry given keeps the stored one: still the same values.
    expect(await upsertAssets(database, 'demo', 'well', [row(id, { name: 'Same' })], { method })).toEqual({
      rows: 1,
      inserted: 0,
      updated: 1,
      unchanged: 1,
      method,
    });
    expect((await read([id]))[0]!.modified_at.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    expect(
      await upsertAssets(database, 'demo', 'well', [row(id, { name: 'Same', depth: 1 })], { method }),
    ).toMatchObject({ updated: 1, unchanged: 0 });
    expect((await read([id]))[0]!.modified_at.getTime()).toBeGreaterThan(Date.parse('2020-01-02'));
  });
});

describe.runIf(process.env.DATABASE_URL)('upsertAssets (copy), new and existing ids together', () => {
  it('inserts the new assets and updates the existing one of the same chunk', async () => {
    await upsertAssets(database, 'demo', 'well', [row('mix-1', { name: 'Old' })], { method: 'copy' });
    const result = await upsertAssets(
      database,
      'demo',
      'well',
      [row('mix-1', { name: 'New' }), row('mix-2', { name: 'Two' }), row('mix-3', { name: 'Three' })],
      { method: 'copy' },
    );
    expect(result).toEqual({ rows: 3, inserted: 2, updated: 1, unchanged: 0, method: 'copy' });
    expect((await read(['mix-1', 'mix-2', 'mix-3'])).map((r) => r.display_name)).toEqual([
      'New',
      'Two',
      'Three',
    ]);
  });
});

describe.runIf(process.env.DATABASE_URL)('upsertAssets of one chunk (PostgreSQL)', () => {
  it('is one statement on its own, taking the profile lock itself: no transaction waits on this process', async () => {
    sent.length = 0;
    const done = await upsertAssets(database, 'demo', 'well', [row('alone-1', { name: 'A' })], {
      method: 'insert',
    });
    expect(done).toEqual({ rows: 1, inserted: 1, updated: 0, unchanged: 0, method: 'insert' });
    const statements = sent.map((t) => t.trim().replace(/\s+/g, ' '));
    expect(statements).toHaveLength(2);
    expect(statements[0]).toMatch(/^select lookup_names from asset_profiles .*profile = \$2$/);
    expect(statements[1]).toMatch(/^with locked as materialized \(select lookup_names .* for share\)/);
    expect(statements.some((t) => /^(begin|commit)/i.test(t))).toBe(false);
    expect((await read(['alone-1']))[0]?.properties).toEqual({ name: 'A' });
  });

  it('writes nothing, and says so, when the lookup names changed since they were read', async () => {
    const client = await database.pool.connect();
    try {
      const before = await database.pool.query(
        `select count(*)::int as n from changes where user_group = 'demo'`,
      );
      const done = await upsertAlone(client, 'demo', 'well', [row('alone-stale', { name: 'S' })], {}, [
        'not-the-names',
      ]);
      expect(done).toBeUndefined();
      expect(await read(['alone-stale'])).toEqual([]);
      const after = await database.pool.query(
        `select count(*)::int as n from changes where user_group = 'demo'`,
      );
      expect(after.rows[0].n).toBe(before.rows[0].n);
    } finally {
      client.release();
    }
    // Through the public door the write then goes the locked way, and lands.
    const done = await upsertAssets(database, 'demo', 'well', [row('alone-stale', { name: 'S' })], {
      method: 'insert',
    });
    expect(done.inserted).toBe(1);
  });
});

describe('deleteAssets', () => {
  it('soft-deletes once, or removes', async () => {
    await upsertAssets(database, 'demo', 'well', [row('del-1', { name: 'a' }), row('del-2', { name: 'b' })], {
      method: 'insert',
    });
    expect(await deleteAssets(database, 'demo', 'well', ['del-1', 'del-2', 'missing'])).toEqual({
      deleted: 2,
    });
    expect(await deleteAssets(database, 'demo', 'well', ['del-1'])).toEqual({ deleted: 0 });
    expect((await read(['del-1', 'del-2'])).map((r) => r.is_deleted)).toEqual([true, true]);
    expect(await deleteAssets(database, 'demo', 'well', ['del-1'], { hard: true })).toEqual({ deleted: 1 });
    expect((await read(['del-1', 'del-2'])).map((r) => r.id)).toEqual(['del-2']);
    expect(await deleteAssets(database, 'demo', 'well', [])).toEqual({ deleted: 0 });
  });
});
