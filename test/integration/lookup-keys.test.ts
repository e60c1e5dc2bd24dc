import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyselyExec } from '../../src/subgraphs/assets/exec.ts';
import { compileFilter } from '../../src/subgraphs/assets/filters/compile.ts';
import type { AssetImportRow } from '../../src/subgraphs/assets/import/validate.ts';
import { createAssetLoaders } from '../../src/subgraphs/assets/loaders.ts';
import {
  applyProfiles,
  putExtension,
  removeExtension,
} from '../../src/subgraphs/assets/profiles/profiles.service.ts';
import { deleteAssets } from '../../src/subgraphs/assets/write/delete.ts';
import { lookupOf, lookupSql } from '../../src/subgraphs/assets/write/lookup-keys.ts';
import { upsertAssets } from '../../src/subgraphs/assets/write/upsert.ts';
import { relatedIds } from '../helpers/assets.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * Lookup keys (src/subgraphs/assets/lookup.ts): each asset keeps the properties relationships
 * find it by, and only those are indexed. What is looked up must be there after every kind of
 * profile change; what is not looked up must not be; and a missing profile is still refused.
 * (Every test file's database is also checked on close: test/helpers/database.ts.)
 */
const GROUP = 'lookups';
let database: TestDatabase;

beforeAll(async () => {
  database = await freshDatabase();
  const outcome = await applyProfiles(database.db, GROUP, 'tester', [
    {
      profile: 'site',
      title: 'Site',
      displayNameProperty: 'name',
      properties: [{ name: 'name', type: 'STRING' }],
      relationships: [
        {
          relationship: 'facilities',
          type: 'MANY',
          profile: 'facility',
          referenceType: 'ID',
          lookupType: 'PROPERTY',
          lookupProperty: 'siteId',
        },
      ],
    },
    {
      profile: 'facility',
      title: 'Facility',
      displayNameProperty: 'name',
      isDeletedProperty: 'closed',
      properties: [
        { name: 'name', type: 'STRING' },
        { name: 'siteId', type: 'STRING' },
        { name: 'code', type: 'STRING' },
        { name: 'crews', type: 'JSON' },
        { name: 'closed', type: 'BOOLEAN', default: false },
      ],
    },
    {
      profile: 'crew',
      title: 'Crew',
      displayNameProperty: 'name',
      properties: [{ name: 'name', type: 'STRING' }],
      relationships: [
        {
          relationship: 'facilities',
          type: 'MANY',
          profile: 'facility',
          referenceType: 'ID',
          lookupType: 'PROPERTY_LIST',
          lookupProperty: 'crews',
        },
      ],
    },
  ]);
  expect(outcome).toMatchObject({ ok: true });
  const rows = (n: number, make: (i: number) => Record<string, unknown>): AssetImportRow[] =>
    Array.from({ length: n }, (_, i) => ({
      id: `X-${i}`,
      properties: make(i),
      display_name: `X-${i}`,
      geometry: null,
      is_deleted: false,
    }));
  await upsertAssets(
    database,
    GROUP,
    'site',
    rows(3, (i) => ({ name: `Site ${i}` })).map((r, i) => ({ ...r, id: `S-${i}` })),
  );
  await upsertAssets(
    database,
    GROUP,
    'crew',
    rows(2, (i) => ({ name: `Crew ${i}` })).map((r, i) => ({ ...r, id: `C-${i}` })),
  );
  // Facilities: site S-(i % 3), crews C-0 and/or C-1, a code; F-9 has no site and a null crew list.
  await upsertAssets(
    database,
    GROUP,
    'facility',
    rows(10, (i) =>
      i === 9
        ? { name: 'Loose', code: 'K-9', crews: null }
        : {
            name: `Facility ${i}`,
            siteId: `S-${i % 3}`,
            code: `K-${i}`,
            crews: i % 2 ? ['C-0', 'C-1'] : ['C-0'],
          },
    ).map((r, i) => ({ ...r, id: `F-${i}` })),
  );
});
afterAll(() => database?.close());

const namesOf = async () =>
  Object.fromEntries(
    (
      await database.db
        .selectFrom('asset_profiles')
        .select(['profile', 'lookup_names'])
        .where('user_group', '=', GROUP)
        .execute()
    ).map((r) => [r.profile, r.lookup_names]),
  );

const lookupsOf = async (profile: string) =>
  Object.fromEntries(
    (
      await database.db
        .selectFrom('assets')
        .select(['id', 'lookup'])
        .where('user_group', '=', GROUP)
        .where('profile', '=', profile)
        .orderBy('id')
        .execute()
    ).map((r) => [r.id, r.lookup]),
  );

/** The ids `relationship` of `profile`/`id` resolves to, through the batched loader. */
const related = (profile: string, id: string, relationship: string) =>
  relatedIds(database.db, GROUP, profile, id, relationship);

describe('lookup keys', () => {
  it('derives each profile’s lookup names from the relationships that target it', async () => {
    expect(await namesOf()).toEqual({ site: [], facility: ['crews', 'siteId'], crew: [] });
    const lookups = await lookupsOf('facility');
    expect(lookups['F-1']).toEqual({ siteId: 'S-1', crews: ['C-0', 'C-1'] });
    expect(lookups['F-9']).toBeNull(); // no site; a JSON null is no key
    expect((await lookupsOf('site'))['S-0']).toBeNull();
    expect(await related('site', 'S-1', 'facilities')).toEqual(['F-1', 'F-4', 'F-7']);
    expect(await related('crew', 'C-1', 'facilities')).toEqual(['F-1', 'F-3', 'F-5', 'F-7']);
  });

  it('rewrites the keys of every asset when an extension adds a lookup, and keeps them after', async () => {
    const added = await putExtension(database.db, GROUP, 'site', 'codes', {
      relationships: [
        {
          relationship: 'byCode',
          type: 'MANY',
          profile: 'facility',
          referenceType: 'PROPERTY',
          referenceProperty: 'name',
          lookupType: 'PROPERTY',
          lookupProperty: 'code',
        },
      ],
    });
    expect(added).toMatchObject({ ok: true });
    expect((await namesOf()).facility).toEqual(['code', 'crews', 'siteId']);
    expect((await lookupsOf('facility'))['F-9']).toEqual({ code: 'K-9' });
    await upsertAssets(database, GROUP, 'site', [
      { id: 'S-K', properties: { name: 'K-4' }, display_name: 'K-4', geometry: null, is_deleted: false },
    ]);
    expect(await related('site', 'S-K', 'byCode')).toEqual(['F-4']);

    // Names are never dropped: a filter that saw one relies on every asset's keys holding it.
    expect(await removeExtension(database.db, GROUP, 'site', 'codes')).toMatchObject({ ok: true });
    expect((await namesOf()).facility).toEqual(['code', 'crews', 'siteId']);
    expect((await lookupsOf('facility'))['F-9']).toEqual({ code: 'K-9' });
    await upsertAssets(database, GROUP, 'facility', [
      {
        id: 'F-9',
        properties: { name: 'Loose', code: 'K-99' },
        display_name: 'Loose',
        geometry: null,
        is_deleted: false,
      },
    ]);
    expect((await lookupsOf('facility'))['F-9']).toEqual({ code: 'K-99' });
  });

  it('keeps a looked-up deleted flag current through soft deletion', async () => {
    // A relationship that finds facilities by their deleted flag makes `closed` a lookup key.
    const added = await putExtension(database.db, GROUP, 'crew', 'closures', {
      relationships: [
        {
          relationship: 'closedFacilities',
          type: 'MANY',
          profile: 'facility',
          referenceType: 'PARAMETER',
          referenceProperty: 'closed',
          lookupType: 'PROPERTY',
          lookupProperty: 'closed',
          parameters: [{ name: 'closed', type: 'BOOLEAN' }],
        },
      ],
    });
    expect(added).toMatchObject({ ok: true });
    expect((await namesOf()).facility).toEqual(['closed', 'code', 'crews', 'siteId']);
    await deleteAssets(database, GROUP, 'facility', ['F-2'], { isDeletedProperty: 'closed' });
    expect((await lookupsOf('facility'))['F-2']).toEqual({
      siteId: 'S-2',
      code: 'K-2',
      crews: ['C-0'],
      closed: true,
    });
    expect(await removeExtension(database.db, GROUP, 'crew', 'closures')).toMatchObject({ ok: true });
  });

  it('never keys rows by names a concurrent profile change replaced', async () => {
    // Two connections are needed for the race; PGlite has one backend and runs them in turn.
    if (database.engine !== 'postgres') return;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let sent!: () => void;
    const halfway = new Promise<void>((r) => (sent = r));
    // An import that has read the names (at its start) and is still sending rows...
    const rows = async function* (): AsyncGenerator<AssetImportRow> {
      yield {
        id: 'F-R1',
        properties: { name: 'Race 1', code: 'K-R1' },
        display_name: 'Race 1',
        geometry: null,
        is_deleted: false,
      };
      sent();
      await held;
      yield {
        id: 'F-R2',
        properties: { name: 'Race 2', code: 'K-R2' },
        display_name: 'Race 2',
        geometry: null,
        is_deleted: false,
      };
    };
    const importing = upsertAssets(database, GROUP, 'facility', rows(), { chunkSize: 1, copyChunkRows: 1 });
    await halfway;
    // ...while an extension makes `name` a lookup name of facilities.
    let changed = false;
    const changing = putExtension(database.db, GROUP, 'site', 'race', {
      relationships: [
        {
          relationship: 'byName',
          type: 'MANY',
          profile: 'facility',
          referenceType: 'PROPERTY',
          referenceProperty: 'name',
          lookupType: 'PROPERTY',
          lookupProperty: 'name',
        },
      ],
    }).then((outcome) => {
      changed = true;
      return outcome;
    });
    await new Promise((r) => setTimeout(r, 300));
    const waited = !changed; // the change must wait for the import holding the profile
    release();
    expect(waited).toBe(true);
    expect(await importing).toMatchObject({ inserted: 2 });
    expect(await changing).toMatchObject({ ok: true });
    const lookups = await lookupsOf('facility');
    expect(lookups['F-R1']).toEqual({ code: 'K-R1', name: 'Race 1' });
    expect(lookups['F-R2']).toEqual({ code: 'K-R2', name: 'Race 2' });
    expect(await removeExtension(database.db, GROUP, 'site', 'race')).toMatchObject({ ok: true });
    await deleteAssets(database, GROUP, 'facility', ['F-R1', 'F-R2'], { hard: true });
  });

  it('makes a property declared searchable a lookup name, and refuses a bad declaration', async () => {
    const pump = (searchable: unknown) => ({
      profile: 'pump',
      title: 'Pump',
      displayNameProperty: 'serial',
      properties: [
        { name: 'serial', type: 'STRING' as const, searchable: searchable as boolean },
        { name: 'model', type: 'STRING' as const },
      ],
    });
    expect(await applyProfiles(database.db, GROUP, 'tester', [pump('yes')])).toMatchObject({
      ok: false,
      type: 'INVALID_INPUT',
      message: expect.stringContaining('searchable'),
    });
    expect((await namesOf()).pump).toBeUndefined();
    expect(await applyProfiles(database.db, GROUP, 'tester', [pump(true)])).toMatchObject({ ok: true });
    expect((await namesOf()).pump).toEqual(['serial']);
    await upsertAssets(
      database,
      GROUP,
      'pump',
      ['SN-1', 'SN-2', 'SN-3'].map((serial, i) => ({
        id: `P-${i}`,
        properties: { serial, model: 'M' },
        display_name: serial,
        geometry: null,
        is_deleted: false,
      })),
    );
    expect(await lookupsOf('pump')).toEqual({
      'P-0': { serial: 'SN-1' },
      'P-1': { serial: 'SN-2' },
      'P-2': { serial: 'SN-3' },
    });
    // The filter narrows by the key and still gives exactly the matching assets.
    const loaders = createAssetLoaders(database.db, GROUP);
    const profile = (await loaders.profile.load('pump'))!;
    const where = compileFilter(
      { property: { name: 'serial', in: ['SN-2', 'SN-9'] } },
      { profile, profiles: () => null, group: GROUP },
    );
    const compiled = sql`${where}`.compile(database.db);
    expect(compiled.sql).toContain('lookup');
    const hits = await database.db
      .selectFrom('assets as a')
      .select('a.id')
      .where('a.user_group', '=', GROUP)
      .where('a.profile', '=', 'pump')
      .where(where)
      .execute();
    expect(hits.map((h) => h.id)).toEqual(['P-1']);
  });

  it('computes the same keys in TypeScript and in SQL', async () => {
    const key = fc.constantFrom('a', 'b', 'c', 'constructor', 'x y');
    const value = fc.oneof(
      fc.constant(null),
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null)), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('p', 'q'), fc.oneof(fc.constant(null), fc.integer())),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(key, value),
        fc.uniqueArray(key, { maxLength: 4 }),
        async (properties, names) => {
          const expression = lookupSql(names.length, '$1::jsonb', '$2::text[]');
          const [row] = await kyselyExec(database.db)<{ lookup: unknown }>(
            `select $1::jsonb as properties, ${expression} as lookup`,
            [JSON.stringify(properties), names],
          );
          const ts = lookupOf(properties, names);
          expect(ts === null ? null : JSON.parse(ts)).toEqual(row!.lookup);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('assets belong to a profile of their group (checked per statement)', () => {
  const code = async (statement: Promise<unknown>) => {
    try {
      await statement;
      return null;
    } catch (e) {
      return (e as { code?: string }).code;
    }
  };

  it('refuses assets of a profile the group does not have, and writes none of the statement', async () => {
    const before = await sql<{ n: number }>`select count(*)::int as n from assets`.execute(database.db);
    expect(
      await code(
        sql`insert into assets (user_group, profile, id, display_name) values
          (${GROUP}, 'site', 'S-new', ''), (${GROUP}, 'nowhere', 'N-1', '')`.execute(database.db),
      ),
    ).toBe('23503');
    expect(
      await code(
        sql`insert into assets (user_group, profile, id, display_name) values ('other-group', 'site', 'S-0', '')`.execute(
          database.db,
        ),
      ),
    ).toBe('23503');
    const after = await sql<{ n: number }>`select count(*)::int as n from assets`.execute(database.db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    await expect(
      upsertAssets(database, GROUP, 'nowhere', [
        { id: 'N-1', properties: {}, display_name: '', geometry: null, is_deleted: false },
      ]),
    ).rejects.toThrow(/no profile nowhere/);
  });

  it('refuses to move an asset to another profile or group', async () => {
    expect(
      await code(
        sql`update assets set profile = 'crew' where user_group = ${GROUP} and profile = 'site' and id = 'S-0'`.execute(
          database.db,
        ),
      ),
    ).toBe('23503');
  });

  it('deletes a profile’s assets with the profile, and no other group’s', async () => {
    await applyProfiles(database.db, 'lookups-other', 'tester', [
      {
        profile: 'crew',
        title: 'Crew',
        displayNameProperty: 'name',
        properties: [{ name: 'name', type: 'STRING' }],
      },
    ]);
    await upsertAssets(database, 'lookups-other', 'crew', [
      { id: 'C-0', properties: { name: 'Other' }, display_name: 'Other', geometry: null, is_deleted: false },
    ]);
    await sql`delete from asset_profiles where user_group = ${GROUP} and profile = 'crew'`.execute(
      database.db,
    );
    const left = await sql<{ user_group: string; id: string }>`
      select user_group, id from assets where profile = 'crew' order by user_group, id`.execute(database.db);
    expect(left.rows).toEqual([{ user_group: 'lookups-other', id: 'C-0' }]);
  });
});
