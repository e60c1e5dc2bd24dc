import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_HISTORY_HOURS } from '../../src/demo/seed.ts';
import { profilesWithExtensions } from '../../src/subgraphs/assets/assets.repository.ts';
import type { DatasetRow, ObservationRow } from '../../src/subgraphs/assets/datasets/rows.ts';
import { effectiveProfile } from '../../src/subgraphs/assets/profiles/definition.ts';
import { applyProfiles, getProfileDocument } from '../../src/subgraphs/assets/profiles/profiles.service.ts';
import { writeUpDataset } from '../../src/subgraphs/assets/write/datasets.ts';
import { writeObservations } from '../../src/subgraphs/assets/write/observations.ts';
import { DatasetWriteError } from '../../src/subgraphs/assets/write/types.ts';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;

beforeAll(async () => {
  ({ app: t, demo, east } = await startDemoApp());
});
afterAll(() => t.close());

const method = () => (t.database.engine === 'postgres' ? 'copy' : 'insert') as 'copy' | 'insert';

async function well() {
  const [row] = await profilesWithExtensions(t.database.db, 'demo', ['well']);
  return effectiveProfile(row!, row!.extensions);
}

const PROFILE = `query($d: String!) { assetProfiles { byId(profile: "well") {
  upDatasets { dataset title priority columns rowCount modifiedAt }
  upDataset(dataset: $d) { dataset priority rowCount }
  stateUpdateDatasets { dataset title columns observationCount latestObservationAt }
  propertyMaps { dataset column property extension } } } }`;

async function datasets(headers = demo, d = 'operations') {
  const r = await t.graphql<any>(PROFILE, { d }, headers);
  expect(r.body.errors).toBeUndefined();
  return r.body.data.assetProfiles.byId;
}

async function asset(id: string, headers = demo) {
  const r = await t.graphql<any>(
    `query($id: ID!) { assets(profile: "well") { byId(id: $id) { id modifiedAt properties observation displayName } } }`,
    { id },
    headers,
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data.assets.byId;
}

async function rowOf(dataset: string, id: string) {
  return t.database.db
    .selectFrom('asset_dataset_rows')
    .select('values')
    .where('user_group', '=', 'demo')
    .where('profile', '=', 'well')
    .where('dataset', '=', dataset)
    .where('asset_id', '=', id)
    .executeTakeFirst();
}

describe('AssetProfile datasets (spec §2.1)', () => {
  it("lists the demo wells' datasets in merge order, with counters kept at write time", async () => {
    const p = await datasets();
    expect(p.upDatasets.map((d: any) => [d.dataset, d.priority, d.rowCount])).toEqual([
      ['registry', 10, 24],
      ['operations', 20, 24],
      ['manual', 21, 0], // direct writes: above every declared dataset
    ]);
    expect(p.upDatasets[0]).toMatchObject({
      title: 'Well registry',
      columns: ['facilityId', 'spud_date', 'status', 'total_depth_m', 'uwi', 'well_name'],
    });
    expect(Date.parse(p.upDatasets[0].modifiedAt)).not.toBeNaN();
    expect(p.upDatasets[2]).toMatchObject({ columns: [], modifiedAt: null });
    expect(p.upDataset).toEqual({ dataset: 'operations', priority: 20, rowCount: 24 });
    expect((await datasets(demo, 'nope')).upDataset).toBeNull();
    expect(p.stateUpdateDatasets).toEqual([
      {
        dataset: 'scada',
        title: 'SCADA readings',
        columns: ['casingPressure', 'oilRate', 'tubingPressure'],
        // A month of hourly readings for the first six wells (src/demo/seed.ts).
        observationCount: 6 * DEMO_HISTORY_HOURS,
        latestObservationAt: expect.any(String),
      },
    ]);
    expect(p.propertyMaps).toEqual([
      { dataset: 'registry', column: 'well_name', property: 'name', extension: null },
      { dataset: 'registry', column: 'total_depth_m', property: 'depth', extension: null },
      { dataset: 'registry', column: 'spud_date', property: 'spudDate', extension: null },
    ]);
    const site = await t.graphql<any>(
      '{ assetProfiles { byId(profile: "site") { upDatasets { dataset } stateUpdateDatasets { dataset } } } }',
      {},
      demo,
    );
    expect(site.body.data.assetProfiles.byId).toEqual({ upDatasets: [], stateUpdateDatasets: [] });
  });

  it('merges rows in ascending priority with columns renamed by the property maps', async () => {
    const registry = (await rowOf('registry', 'W-100-1-1'))!.values;
    const operations = (await rowOf('operations', 'W-100-1-1'))!.values;
    const a = await asset('W-100-1-1');
    expect(a.properties).toMatchObject({
      name: registry.well_name,
      depth: registry.total_depth_m,
      spudDate: registry.spud_date,
      uwi: registry.uwi,
      status: operations.status,
    });
    expect(a.properties).not.toHaveProperty('well_name');
    expect(a.displayName).toBe(registry.well_name);

    // A new registry row changes name and status; the operations feed still owns status.
    const before = await datasets();
    await writeUpDataset(
      t.database,
      'demo',
      await well(),
      'registry',
      [{ id: 'W-100-1-1', values: { ...registry, well_name: 'Renamed 1-1', status: 'abandoned' } }],
      { method: method() },
    );
    const b = await asset('W-100-1-1');
    expect(b.properties).toMatchObject({ name: 'Renamed 1-1', status: operations.status });
    expect(b.displayName).toBe('Renamed 1-1');
    const after = await datasets();
    expect(after.upDatasets[0].rowCount).toBe(before.upDatasets[0].rowCount); // replaced, not added
    expect(Date.parse(after.upDatasets[0].modifiedAt)).toBeGreaterThanOrEqual(
      Date.parse(before.upDatasets[0].modifiedAt),
    );
    const stored = await t.database.db
      .selectFrom('assets')
      .select(['display_name', 'properties'])
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .where('id', '=', 'W-100-1-1')
      .executeTakeFirstOrThrow();
    expect(stored.display_name).toBe('Renamed 1-1'); // what text search reads
    // Materialised, not merged at read time (the read adds only the profile's defaults).
    expect({ abandoned: false, ...stored.properties }).toEqual(b.properties);
  });

  it('takes upsertAssets as the manual layer, which a later dataset write keeps', async () => {
    const r = await t.graphql<any>(
      `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } updated } }`,
      { input: { profile: 'well', assets: [{ id: 'W-100-1-2', properties: { status: 'shut-in' } }] } },
      demo,
    );
    expect(r.body.data.upsertAssets).toEqual({ errors: [], updated: 1 });
    const registry = (await rowOf('registry', 'W-100-1-2'))!.values;
    expect((await asset('W-100-1-2')).properties).toMatchObject({
      name: registry.well_name,
      status: 'shut-in',
    });
    expect(await rowOf('manual', 'W-100-1-2')).toEqual({ values: { status: 'shut-in' } });
    await writeUpDataset(
      t.database,
      'demo',
      await well(),
      'operations',
      [{ id: 'W-100-1-2', values: { status: 'producing' } }],
      { method: method() },
    );
    expect((await asset('W-100-1-2')).properties.status).toBe('shut-in');
    const p = await datasets();
    expect(p.upDatasets[2]).toMatchObject({ dataset: 'manual', rowCount: 1, columns: ['status'] });

    // A new asset with no name from any layer is refused as a whole.
    const bad = await t.graphql<any>(
      `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } assets { id } } }`,
      {
        input: {
          profile: 'well',
          assets: [
            { id: 'W-100-1-4', properties: { status: 'shut-in' } },
            { id: 'W-NAMELESS', properties: { status: 'drilling' } },
          ],
        },
      },
      demo,
    );
    expect(bad.body.data.upsertAssets).toMatchObject({ assets: null, errors: [{ type: 'INVALID_INPUT' }] });
    expect(bad.body.data.upsertAssets.errors[0].message).toMatch(/W-NAMELESS/);
    expect(await rowOf('manual', 'W-100-1-4')).toBeUndefined();
    expect(await asset('W-NAMELESS')).toBeNull();
  });

  it('keeps the newest value of each observation key, whatever order observations arrive in', async () => {
    const profile = await well();
    const id = 'W-100-1-1';
    const seeded = (await asset(id)).observation;
    expect(seeded).toMatchObject({ casingPressure: 9.3 }); // the later of the two demo readings
    const before = await datasets();
    const observe = (rows: ObservationRow[]) =>
      writeObservations(t.database, 'demo', profile, 'scada', rows, { method: method() });
    await observe([{ id, observedAt: '2000-01-01T00:00:00Z', values: { casingPressure: 1, pumpSpeed: 5 } }]);
    expect((await asset(id)).observation).toEqual({ ...seeded, pumpSpeed: 5 }); // only the new key
    await observe([
      { id, observedAt: '2099-01-01T00:00:00Z', values: { casingPressure: 12.5 } },
      { id, observedAt: '2099-01-01T01:00:00+02:00', values: { casingPressure: 11 } }, // 23:00Z the day before
    ]);
    expect((await asset(id)).observation).toEqual({ ...seeded, pumpSpeed: 5, casingPressure: 12.5 });
    const after = await datasets();
    expect(after.stateUpdateDatasets[0].observationCount).toBe(
      before.stateUpdateDatasets[0].observationCount + 3,
    );
    expect(after.stateUpdateDatasets[0].latestObservationAt).toBe('2099-01-01T00:00:00.000Z');
    expect(after.stateUpdateDatasets[0].columns).toContain('pumpSpeed');
    // Observations are state, not properties: modifiedAt stays without forceAssetStateUpdates.
    await expect(
      observe([{ id: 'W-GONE', observedAt: '2099-01-01T00:00:00Z', values: { x: 1 } }]),
    ).rejects.toThrow(DatasetWriteError);
  });

  it('moves modifiedAt on every observation only with forceAssetStateUpdates', async () => {
    const id = 'W-100-2-2';
    const old = '2020-01-01T00:00:00.000Z';
    const age = () =>
      t.database.db
        .updateTable('assets')
        .set({ modified_at: old })
        .where('user_group', '=', 'demo')
        .where('profile', '=', 'well')
        .where('id', '=', id)
        .execute();
    const observe = async () =>
      writeObservations(
        t.database,
        'demo',
        await well(),
        'scada',
        [{ id, observedAt: new Date().toISOString(), values: { casingPressure: Math.random() } }],
        { method: method() },
      );
    await age();
    await observe();
    expect((await asset(id)).modifiedAt).toBe(old);

    const u = await t.graphql<any>(
      'mutation { updateAssetProfile(input: { profile: "well", forceAssetStateUpdates: true }) { errors { type } } }',
      {},
      demo,
    );
    expect(u.body.data.updateAssetProfile.errors).toEqual([]);
    await age();
    await observe();
    expect(Date.parse((await asset(id)).modifiedAt)).toBeGreaterThan(Date.parse(old));
    await t.graphql(
      'mutation { updateAssetProfile(input: { profile: "well", forceAssetStateUpdates: false }) { errors { type } } }',
      {},
      demo,
    );
  });

  it('writes all or nothing: a failing batch leaves rows, assets and counters as they were', async () => {
    const snapshot = async () => ({
      rows: await t.database.db
        .selectFrom('asset_dataset_rows')
        .selectAll()
        .where('user_group', '=', 'demo')
        .orderBy('dataset')
        .orderBy('asset_id')
        .execute(),
      assets: await t.database.db
        .selectFrom('assets')
        .select(['id', 'properties', 'modified_at'])
        .where('user_group', '=', 'demo')
        .where('profile', '=', 'well')
        .orderBy('id')
        .execute(),
      stats: await datasets(),
    });
    const before = await snapshot();
    const profile = await well();
    async function* failing(): AsyncGenerator<DatasetRow> {
      for (let i = 0; i < 2500; i++) yield { id: `W-BULK-${i}`, values: { well_name: `Bulk ${i}` } };
      throw new Error('the source broke off');
    }
    await expect(
      writeUpDataset(t.database, 'demo', profile, 'registry', failing(), {
        method: method(),
        chunkSize: 500,
      }),
    ).rejects.toThrow('the source broke off');
    // A batch whose last row would create a nameless well fails in the database, after staging.
    const rows: DatasetRow[] = [
      ...Array.from({ length: 50 }, (_, i) => ({
        id: `W-100-1-${(i % 4) + 1}`,
        values: { status: 'shut-in' },
      })).slice(0, 4),
      { id: 'W-ORPHAN', values: { status: 'drilling' } },
    ];
    await expect(
      writeUpDataset(t.database, 'demo', profile, 'operations', rows, { method: method() }),
    ).rejects.toThrow(/W-ORPHAN would lack a required property/);
    await expect(
      writeUpDataset(
        t.database,
        'demo',
        profile,
        'operations',
        [
          { id: 'W-100-1-3', values: { status: 'shut-in' } },
          { id: 'W-100-1-3', values: { status: 'producing' } },
        ],
        { method: method() },
      ),
    ).rejects.toThrow(DatasetWriteError);
    expect(await snapshot()).toEqual(before);
  });

  it('re-merges when priorities change and forgets a dataset that is no longer declared', async () => {
    const id = 'W-100-2-3';
    const registry = (await rowOf('registry', id))!.values;
    const doc = (await getProfileDocument(t.database.db, 'demo', 'well'))!;
    const { version: _v, extensions: _e, ...input } = doc as any;
    const swapped = {
      ...input,
      upDatasets: [
        { dataset: 'registry', title: 'Well registry', priority: 30 },
        { dataset: 'operations', title: 'Operations status feed', priority: 20 },
      ],
    };
    expect(await applyProfiles(t.database.db, 'demo', 'demo', [swapped])).toEqual({
      ok: true,
      value: ['well'],
    });
    expect((await asset(id)).properties.status).toBe(registry.status); // the registry now wins
    expect((await datasets()).upDatasets.map((d: any) => d.dataset)).toEqual([
      'operations',
      'registry',
      'manual',
    ]);

    const withoutOperations = { ...swapped, upDatasets: [swapped.upDatasets[0]], stateUpdateDatasets: [] };
    expect(await applyProfiles(t.database.db, 'demo', 'demo', [withoutOperations])).toMatchObject({
      ok: true,
    });
    const p = await datasets();
    expect(p.upDatasets.map((d: any) => d.dataset)).toEqual(['registry', 'manual']);
    expect(p.upDataset).toBeNull();
    expect(p.stateUpdateDatasets).toEqual([]);
    expect(await rowOf('operations', id)).toBeUndefined();
    expect((await asset('W-100-1-1')).observation).toBeNull(); // its only state dataset is gone
    expect((await asset('W-100-1-2')).properties.status).toBe('shut-in'); // manual layer stays
    // Removing the registry would leave wells nameless: refused, nothing changes.
    const nameless = { ...withoutOperations, upDatasets: [], propertyMaps: [] };
    const refused = await applyProfiles(t.database.db, 'demo', 'demo', [nameless]);
    expect(refused).toMatchObject({ ok: false, type: 'INVALID_DATASET' });
    expect((await datasets()).upDatasets.map((d: any) => d.dataset)).toEqual(['registry', 'manual']);
  });
});

describe('dataset declarations are validated (nothing changes on error)', () => {
  it('refuses bad declarations with INVALID_DATASET', async () => {
    const doc = (await getProfileDocument(t.database.db, 'demo', 'well'))!;
    const { version: _v, extensions: _e, ...base } = doc as any;
    const before = await datasets();
    const cases: [string, Record<string, unknown>][] = [
      ['a duplicate dataset id', { stateUpdateDatasets: [{ dataset: 'registry' }] }],
      [
        'an unknown dataset in a property map',
        { propertyMaps: [{ dataset: 'gis', column: 'n', property: 'name' }] },
      ],
      [
        'a map onto a state dataset',
        {
          stateUpdateDatasets: [{ dataset: 'scada' }],
          propertyMaps: [{ dataset: 'scada', column: 'p', property: 'name' }],
        },
      ],
      [
        'a column mapped twice',
        {
          propertyMaps: [
            { dataset: 'registry', column: 'a', property: 'name' },
            { dataset: 'registry', column: 'a', property: 'uwi' },
          ],
        },
      ],
      [
        'two columns filling one property',
        {
          propertyMaps: [
            { dataset: 'registry', column: 'a', property: 'name' },
            { dataset: 'registry', column: 'b', property: 'name' },
          ],
        },
      ],
      ['a fractional priority', { upDatasets: [{ dataset: 'registry', priority: 1.5 }] }],
      ['a bad dataset id', { upDatasets: [{ dataset: 'has space' }] }],
      ['manual as a state dataset', { stateUpdateDatasets: [{ dataset: 'manual' }] }],
    ];
    for (const [what, change] of cases) {
      const r = await applyProfiles(t.database.db, 'demo', 'demo', [{ ...base, ...change }]);
      expect(r, what).toMatchObject({ ok: false, type: 'INVALID_DATASET' });
    }
    const unknownProperty = await applyProfiles(t.database.db, 'demo', 'demo', [
      { ...base, propertyMaps: [{ dataset: 'registry', column: 'a', property: 'nope' }] },
    ]);
    expect(unknownProperty).toMatchObject({ ok: false, type: 'UNKNOWN_PROPERTY' });

    const ext = await t.graphql<any>(
      `mutation($input: putAssetProfileExtensionInput!) { putAssetProfileExtension(input: $input) {
        errors { type message } assetProfile { profile } } }`,
      {
        input: {
          profile: 'well',
          extension: 'gis',
          propertyMaps: [{ dataset: 'gis', column: 'n', property: 'name' }],
        },
      },
      demo,
    );
    expect(ext.body.data.putAssetProfileExtension).toMatchObject({
      assetProfile: null,
      errors: [{ type: 'INVALID_DATASET' }],
    });
    expect(await datasets()).toEqual(before);
    expect(await getProfileDocument(t.database.db, 'demo', 'well')).toEqual(doc);
  });

  it('lets an extension map a column of a declared dataset, and re-merges', async () => {
    const r = await t.graphql<any>(
      `mutation($input: putAssetProfileExtensionInput!) { putAssetProfileExtension(input: $input) {
        errors { type message } assetProfile { propertyMaps { dataset column property extension } } } }`,
      {
        input: {
          profile: 'well',
          extension: 'licensing',
          properties: [{ name: 'licenceNo', type: 'STRING' }],
          propertyMaps: [{ dataset: 'registry', column: 'uwi', property: 'licenceNo' }],
        },
      },
      demo,
    );
    expect(r.body.data.putAssetProfileExtension.errors).toEqual([]);
    expect(r.body.data.putAssetProfileExtension.assetProfile.propertyMaps).toContainEqual({
      dataset: 'registry',
      column: 'uwi',
      property: 'licenceNo',
      extension: 'licensing',
    });
    const registry = (await rowOf('registry', 'W-100-1-4'))!.values;
    const props = (await asset('W-100-1-4')).properties;
    expect(props.licenceNo).toBe(registry.uwi); // the stored rows were re-merged at once
    expect(props).not.toHaveProperty('uwi');
  });
});

describe('tenancy', () => {
  it("shows another group nothing of this group's datasets", async () => {
    const p = await datasets(east);
    // demo-east declares the same datasets on its own well profile, and holds no data in them.
    expect(p.upDatasets.map((d: any) => [d.dataset, d.rowCount])).toEqual([
      ['registry', 0],
      ['operations', 0],
      ['manual', 0],
    ]);
    expect(p.stateUpdateDatasets[0]).toMatchObject({
      observationCount: 0,
      latestObservationAt: null,
      columns: [],
    });
    expect(await asset('W-100-1-1', east)).toBeNull();
    const anonymous = await t.graphql<any>(PROFILE, { d: 'registry' });
    expect(anonymous.body.data?.assetProfiles ?? null).toBeNull();
  });
});
