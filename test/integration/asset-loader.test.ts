import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type AssetRow, listAssets } from '../../src/subgraphs/assets/assets.repository.ts';
import { createAssetLoaders } from '../../src/subgraphs/assets/loaders.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * The asset loader answers assets a request has read otherwise (a page, related assets) without a
 * statement, as priming each did, though they are noted a page at a time and indexed only when
 * the loader is first used (src/subgraphs/assets/loaders.ts).
 */
let database: TestDatabase;
let rows: AssetRow[];

beforeAll(async () => {
  database = await freshDatabase();
  await seedDemo(database.db, loadConfig({ logLevel: 'silent', env: 'demo' }, {}));
  rows = await listAssets(database.db, 'demo', 'well', { limit: 3, backwards: false });
  expect(rows.length).toBeGreaterThan(2);
});
afterAll(() => database?.close());

/** A copy of `row` the database does not hold: told apart from a fresh read by its identity. */
const noted = (row: AssetRow): AssetRow => ({ ...row, properties: { ...row.properties } });

describe('the asset loader with noted assets', () => {
  it('answers a noted asset as it was noted, without reading it', async () => {
    const loaders = createAssetLoaders(database.db, 'demo');
    const copies = rows.map(noted);
    loaders.noteAssets(copies);
    expect(await loaders.asset.load({ profile: 'well', id: rows[1]!.id })).toBe(copies[1]);
  });

  it('reads again an asset cleared after it was noted (a write in the same request)', async () => {
    const loaders = createAssetLoaders(database.db, 'demo');
    const copies = rows.map(noted);
    loaders.noteAssets(copies);
    loaders.asset.clear({ profile: 'well', id: rows[0]!.id });
    const read = await loaders.asset.load({ profile: 'well', id: rows[0]!.id });
    expect(read).not.toBe(copies[0]);
    expect(read?.id).toBe(rows[0]!.id);
    // The others noted with it are still answered as noted.
    expect(await loaders.asset.load({ profile: 'well', id: rows[2]!.id })).toBe(copies[2]);
  });

  it('keeps an asset the loader had before it was noted again, as priming did', async () => {
    const loaders = createAssetLoaders(database.db, 'demo');
    const first = await loaders.asset.load({ profile: 'well', id: rows[0]!.id });
    loaders.noteAssets(rows.map(noted));
    expect(await loaders.asset.load({ profile: 'well', id: rows[0]!.id })).toBe(first);
  });

  it('forgets noted assets with everything else when cleared', async () => {
    const loaders = createAssetLoaders(database.db, 'demo');
    const copies = rows.map(noted);
    loaders.noteAssets(copies);
    loaders.asset.clearAll();
    expect(await loaders.asset.load({ profile: 'well', id: rows[1]!.id })).not.toBe(copies[1]);
  });
});
