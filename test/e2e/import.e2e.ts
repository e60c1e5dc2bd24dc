import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Database, openDatabase } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { freshDatabase } from '../helpers/database.ts';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../src/cli/bin.ts');
const SECRET = 'import-e2e-secret-import-e2e-secret';
let dir: string;
let database: Database;
let databaseUrl: string | undefined;

/**
 * PostgreSQL when DATABASE_URL is set (a fresh database the CLI reaches by URL); otherwise
 * embedded PGlite in a temporary DATA_DIR that this process owns and serves, so every CLI
 * command attaches to it over its socket, as beside a running server.
 */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aq-imp-'));
  if (process.env.DATABASE_URL) {
    const fresh = await freshDatabase();
    database = fresh;
    databaseUrl = fresh.url;
  } else {
    database = await openDatabase({ dataDir: join(dir, 'data') });
    await migrateToLatest(database.db);
  }
  await seedDemo(database.db, { env: 'demo', secret: SECRET });
});

afterAll(async () => {
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl ?? '',
    DATA_DIR: join(dir, 'data'),
    ASSETQL_ENV: 'demo',
    ASSETQL_SECRET: SECRET,
    LOG_LEVEL: 'warn',
  };
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout: string; stderr: string };
    if (typeof err.code !== 'number') throw e;
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function file(name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const asset = (profile: string, id: string) =>
  database.db
    .selectFrom('assets')
    .select(['id', 'properties', 'geometry', 'display_name', 'is_deleted', 'modified_at'])
    .where('user_group', '=', 'demo')
    .where('profile', '=', profile)
    .where('id', '=', id)
    .executeTakeFirst();

const count = async (group: string, profile: string) =>
  Number(
    (
      await database.db
        .selectFrom('assets')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_group', '=', group)
        .where('profile', '=', profile)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('assetql import', () => {
  /** The change log's entries of demo wells, oldest first. */
  const logged = () =>
    database.db
      .selectFrom('changes')
      .select(['entity_id', 'kind', 'actor_kind', 'actor'])
      .where('user_group', '=', 'demo')
      .where('entity', '=', 'ASSET')
      .where('profile', '=', 'well')
      .orderBy(sql`tx`)
      .orderBy(sql`seq`)
      .execute();

  it('imports a CSV of wells, updating an existing one', async () => {
    const wellsBefore = await count('demo', 'well');
    const logBefore = await logged();
    const csv = file(
      'wells.csv',
      [
        'id,name,uwi,status,facilityId,depth,spudDate,abandoned,longitude,latitude',
        'W-100-1-1,Red Deer 1-1 (redrilled),100/11-07-01-100W5,producing,F-100-1,3100.5,2012-04-12,,-113.9,52.3',
        'W-NEW-1,"New, with a comma",,drilling,F-100-1,,2024-06-01,no,-113.7,52.2',
        'W-NEW-2,Plugged,,abandoned,F-100-2,1500,1999-01-31,yes,,',
      ].join('\n'),
    );
    const { code, stdout, stderr } = await cli(['import', csv, '--profile', 'well', '--group', 'demo']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      profile: 'well',
      group: 'demo',
      dataset: null,
      format: 'csv',
      rows: 3,
      inserted: 2,
      updated: 1,
    });
    expect(summary.seconds).toBeGreaterThan(0);
    expect(summary.rowsPerSecond).toBeGreaterThan(0);
    expect(await count('demo', 'well')).toBe(wellsBefore + 2);

    expect(await asset('well', 'W-100-1-1')).toMatchObject({
      properties: {
        name: 'Red Deer 1-1 (redrilled)',
        uwi: '100/11-07-01-100W5',
        status: 'producing',
        facilityId: 'F-100-1',
        depth: 3100.5,
        spudDate: '2012-04-12',
      },
      geometry: { type: 'Point', coordinates: [-113.9, 52.3] },
      display_name: 'Red Deer 1-1 (redrilled)',
      is_deleted: false,
    });
    expect(await asset('well', 'W-NEW-1')).toMatchObject({
      properties: { name: 'New, with a comma', status: 'drilling', spudDate: '2024-06-01', abandoned: false },
      geometry: { type: 'Point', coordinates: [-113.7, 52.2] },
    });
    expect(await asset('well', 'W-NEW-2')).toMatchObject({
      properties: { name: 'Plugged', abandoned: true, depth: 1500 },
      geometry: null,
      is_deleted: true,
    });
    // One entry per asset written, in the import's transaction, as the command's (#38).
    expect(
      (await logged()).slice(logBefore.length).sort((a, b) => a.entity_id.localeCompare(b.entity_id)),
    ).toEqual([
      { entity_id: 'W-100-1-1', kind: 'UPDATED', actor_kind: 'SYSTEM', actor: 'assetql import' },
      { entity_id: 'W-NEW-1', kind: 'CREATED', actor_kind: 'SYSTEM', actor: 'assetql import' },
      { entity_id: 'W-NEW-2', kind: 'CREATED', actor_kind: 'SYSTEM', actor: 'assetql import' },
    ]);
  });

  it('imports a GeoJSON FeatureCollection of facilities', async () => {
    const square = [
      [-113.9, 52.2],
      [-113.8, 52.2],
      [-113.8, 52.3],
      [-113.9, 52.2],
    ];
    const geojson = file(
      'facilities.geojson',
      JSON.stringify(
        {
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              id: 'F-100-1',
              geometry: { type: 'Polygon', coordinates: [square] },
              properties: { name: 'Red Deer battery', kind: 'battery', siteId: 'S-100', capacity: 4200 },
            },
            {
              type: 'Feature',
              id: 'F-NEW-1',
              geometry: { type: 'Point', coordinates: [-113.5, 52.5] },
              properties: { name: 'New plant', kind: 'plant', capacity: '1500' },
            },
            {
              type: 'Feature',
              geometry: { type: 'Point', coordinates: [-113.6, 52.6] },
              properties: { id: 'F-NEW-2', name: 'Unkinded' },
            },
          ],
        },
        null,
        2,
      ),
    );
    const { code, stdout } = await cli(['import', geojson, '--profile', 'facility', '--group', 'demo']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      format: 'geojson',
      rows: 3,
      inserted: 2,
      updated: 1,
      dataset: null,
    });
    expect(await asset('facility', 'F-100-1')).toMatchObject({
      properties: { name: 'Red Deer battery', kind: 'battery', siteId: 'S-100', capacity: 4200 },
      geometry: { type: 'Polygon', coordinates: [square] },
      display_name: 'Red Deer battery (battery)',
    });
    expect(await asset('facility', 'F-NEW-1')).toMatchObject({
      properties: { capacity: 1500 },
      display_name: 'New plant (plant)',
    });
    expect(await asset('facility', 'F-NEW-2')).toMatchObject({
      properties: { name: 'Unkinded' },
      display_name: 'Unkinded (facility)',
    });
  });

  it('imports NDJSON sites, keeping a stored geometry when a row has none', async () => {
    const before = await asset('site', 'S-100');
    const ndjson = file(
      'sites.ndjson',
      [
        JSON.stringify({ id: 'S-100', properties: { name: 'Red Deer Field (renamed)', region: 'Alberta' } }),
        '',
        JSON.stringify({
          id: 'S-NEW',
          properties: { name: 'New field' },
          geometry: { type: 'Point', coordinates: [-110.5, 50.1] },
        }),
      ].join('\n'),
    );
    const { code, stdout } = await cli(['import', ndjson, '--profile', 'site', '--group', 'demo']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ format: 'ndjson', rows: 2, inserted: 1, updated: 1 });
    const after = await asset('site', 'S-100');
    expect(after).toMatchObject({
      properties: { name: 'Red Deer Field (renamed)', region: 'Alberta' },
      geometry: before!.geometry,
      display_name: 'Red Deer Field (renamed)',
    });
    expect(after!.modified_at.getTime()).toBeGreaterThanOrEqual(before!.modified_at.getTime());
    expect(await asset('site', 'S-NEW')).toMatchObject({
      geometry: { type: 'Point', coordinates: [-110.5, 50.1] },
    });
  });

  it('reports every bad row with its line and writes nothing', async () => {
    const snapshot = () =>
      database.db
        .selectFrom('assets')
        .select(['profile', 'id', 'properties', 'geometry', 'modified_at'])
        .where('user_group', '=', 'demo')
        .orderBy('profile')
        .orderBy('id')
        .execute();
    const before = await snapshot();
    const logBefore = await logged();
    const csv = file(
      'bad.csv',
      [
        'id,name,status,depth,spudDate',
        'W-100-1-2,Changed,producing,100,2001-01-01',
        'W-BAD-1,Bad status,pumping,100,2001-01-01',
        'W-OK-1,Fine,shut-in,,',
        'W-BAD-2,,producing,deep,2001-02-30',
        'W-OK-2,Also fine,producing,12,2010-10-10',
      ].join('\n'),
    );
    const { code, stdout, stderr } = await cli(['import', csv, '--profile', 'well', '--group', 'demo']);
    expect(code).toBe(1);
    const report = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(report).toEqual([
      {
        line: 3,
        id: 'W-BAD-1',
        errors: ['status: "pumping" is not one of drilling, producing, shut-in, abandoned'],
      },
      {
        line: 5,
        id: 'W-BAD-2',
        errors: [
          'depth: "deep" is not a number',
          'spudDate: "2001-02-30" is not a date (YYYY-MM-DD)',
          // Demo wells are fed by datasets: a row is their manual layer, and a required
          // property may come from another dataset, so it is checked on the merge.
        ],
      },
    ]);
    expect(stderr).toMatch(/2 of 5 rows are invalid; nothing was written/);
    expect(await snapshot()).toEqual(before);
    expect(await logged()).toEqual(logBefore);
  });

  it('refuses an unknown profile and an unreadable file', async () => {
    const csv = file('x.csv', 'id,name\nA,a\n');
    const r = await cli(['import', csv, '--profile', 'pump', '--group', 'demo']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('assetql import: group "demo" has no profile "pump"\n');
    const g = await cli([
      'import',
      file('x.geojson', '{"type":"Feature"}'),
      '--profile',
      'site',
      '--group',
      'demo',
    ]);
    expect(g.code).toBe(1);
    expect(g.stderr).toMatch(/expected a FeatureCollection/);
  });
});

describe('assetql import --dataset', () => {
  const stats = (dataset: string) =>
    database.db
      .selectFrom('asset_dataset_stats')
      .select(['row_count', 'observation_count', 'columns'])
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .where('dataset', '=', dataset)
      .executeTakeFirst();
  const rows = (dataset: string) =>
    database.db
      .selectFrom('asset_dataset_rows')
      .select(['asset_id', 'values', 'modified_at'])
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .where('dataset', '=', dataset)
      .orderBy('asset_id')
      .execute();

  it('writes registry rows under their own column names and re-merges the wells', async () => {
    const before = await stats('registry');
    const csv = file(
      'registry.csv',
      [
        'id,well_name,total_depth_m,uwi',
        'W-100-1-3,Red Deer 1-3 (resurveyed),2750,100/13-07-01-100W5',
        'W-REG-1,Registry only,1900,',
      ].join('\n'),
    );
    const r = await cli(['import', csv, '--profile', 'well', '--group', 'demo', '--dataset', 'registry']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({ dataset: 'registry', rows: 2, inserted: 1, updated: 1 });
    const w = await asset('well', 'W-100-1-3');
    expect(w).toMatchObject({
      properties: { name: 'Red Deer 1-3 (resurveyed)', depth: 2750, uwi: '100/13-07-01-100W5' },
      display_name: 'Red Deer 1-3 (resurveyed)',
    });
    // The operations feed (priority 20) fills status over the registry's (10).
    const ops = (await rows('operations')).find((x) => x.asset_id === 'W-100-1-3');
    expect((w!.properties as Record<string, unknown>).status).toBe(ops!.values.status);
    expect(await asset('well', 'W-REG-1')).toMatchObject({
      properties: { name: 'Registry only', depth: 1900 },
    });
    const stored = (await rows('registry')).find((x) => x.asset_id === 'W-REG-1');
    expect(stored!.values).toEqual({ well_name: 'Registry only', total_depth_m: 1900 });
    expect(Number((await stats('registry'))!.row_count)).toBe(Number(before!.row_count) + 1);
  });

  it('writes nothing when a row is bad, or when the merge would lack a required property', async () => {
    const snapshot = async () => ({
      assets: await database.db
        .selectFrom('assets')
        .select(['id', 'properties', 'modified_at'])
        .where('user_group', '=', 'demo')
        .where('profile', '=', 'well')
        .orderBy('id')
        .execute(),
      operations: await rows('operations'),
      stats: await stats('operations'),
    });
    const before = await snapshot();
    const bad = file(
      'ops-bad.csv',
      ['id,status', 'W-100-1-1,shut-in', 'W-100-1-2,pumping', 'W-100-1-3,producing'].join('\n'),
    );
    const r = await cli(['import', bad, '--profile', 'well', '--group', 'demo', '--dataset', 'operations']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ line: 3, id: 'W-100-1-2' });
    expect(await snapshot()).toEqual(before);

    // Every row is valid on its own, but a new well would have no name from any dataset.
    const orphan = file(
      'ops-orphan.csv',
      ['id,status', 'W-100-1-1,shut-in', 'W-NONAME,producing'].join('\n'),
    );
    const o = await cli([
      'import',
      orphan,
      '--profile',
      'well',
      '--group',
      'demo',
      '--dataset',
      'operations',
    ]);
    expect(o.code).toBe(1);
    expect(o.stderr).toMatch(/W-NONAME would lack a required property/);
    expect(await snapshot()).toEqual(before);

    const unknown = await cli(['import', bad, '--profile', 'well', '--group', 'demo', '--dataset', 'nope']);
    expect(unknown.stderr).toBe('assetql import: profile "well" declares no dataset "nope"\n');
  });

  it('appends SCADA observations; the newest value of each key is the observation', async () => {
    const before = await stats('scada');
    // Newer than the demo's readings (which end now), within the day ahead a reading may take.
    const base = Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 3 * 3_600_000;
    const z = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    // An hour after `base`, written at +01:00.
    const plusOne = `${new Date(base + 2 * 3_600_000).toISOString().slice(0, 19)}+01:00`;
    const csv = file(
      'scada.csv',
      [
        'id,observedAt,casingPressure,tubingPressure,alarm',
        `W-100-2-1,${z(base)},7.5,3.25,`,
        `W-100-2-1,${plusOne},7.0,,false`,
        `W-100-2-1,${z(base - 11 * 3_600_000)},1,,true`,
      ].join('\n'),
    );
    const r = await cli(['import', csv, '--profile', 'well', '--group', 'demo', '--dataset', 'scada']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({ dataset: 'scada', rows: 3, inserted: 3 });
    const row = await database.db
      .selectFrom('assets')
      .select(['observation'])
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .where('id', '=', 'W-100-2-1')
      .executeTakeFirstOrThrow();
    // The +01:00 one is the newest; tubingPressure only came with the first; the third is older.
    // oilRate was only in the demo's readings: it stays.
    expect(row.observation).toEqual({
      casingPressure: 7,
      tubingPressure: 3.25,
      alarm: false,
      oilRate: expect.any(Number),
    });
    const after = await stats('scada');
    expect(Number(after!.observation_count)).toBe(Number(before?.observation_count ?? 0) + 3);
    expect(after!.columns).toEqual(expect.arrayContaining(['alarm', 'casingPressure', 'tubingPressure']));

    const stray = file('scada-stray.csv', `id,observedAt,casingPressure\nW-GHOST,${z(base)},1\n`);
    const s = await cli(['import', stray, '--profile', 'well', '--group', 'demo', '--dataset', 'scada']);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/no well assets W-GHOST/);
    expect(Number((await stats('scada'))!.observation_count)).toBe(Number(after!.observation_count));
  });

  it("refuses a file with a reading older than the group's retention or more than a day ahead, and stores none of it", async () => {
    // As recordObservations refuses them (retention 400 days by default); the good row beside it
    // is not stored either. A test of its own: each CLI run is a process start.
    const before = Number((await stats('scada'))?.observation_count ?? 0);
    const z = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    const good = z(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
    for (const [at, message] of [
      [z(Date.now() - 401 * 86_400_000), /older than the group's retention/],
      [z(Date.now() + 26 * 3_600_000), /more than a day ahead/],
    ] as const) {
      const out = file(
        'scada-out.csv',
        `id,observedAt,casingPressure\nW-100-2-2,${good},2\nW-100-2-2,${at},1\n`,
      );
      const o = await cli(['import', out, '--profile', 'well', '--group', 'demo', '--dataset', 'scada']);
      expect({ code: o.code, stderr: o.stderr }).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(message),
      });
      expect(Number((await stats('scada'))?.observation_count ?? 0)).toBe(before);
    }
  });
});

describe('assetql demo generate', () => {
  it('fills a group with wells, their facilities and sites', async () => {
    const { code, stdout, stderr } = await cli(['demo', 'generate', '--assets', '2000']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const summary = JSON.parse(stdout);
    expect(summary).toMatchObject({
      group: 'demo-scale',
      profile: 'well',
      assets: 2000,
      rows: { site: 10, facility: 100, well: 2000 },
      inserted: 2110,
      updated: 0,
      method: databaseUrl ? 'copy' : 'insert',
    });
    expect(summary.rowsPerSecond).toBeGreaterThan(0);
    expect(await count('demo-scale', 'well')).toBe(2000);
    expect(await count('demo-scale', 'facility')).toBe(100);
    expect(await count('demo-scale', 'site')).toBe(10);

    const well = await database.db
      .selectFrom('assets')
      .select(['properties', 'geometry', 'display_name'])
      .where('user_group', '=', 'demo-scale')
      .where('profile', '=', 'well')
      .where('id', '=', 'W-001000')
      .executeTakeFirstOrThrow();
    expect(well.properties).toMatchObject({
      name: expect.any(String),
      uwi: expect.stringMatching(/^10\d\/\d\d-\d\d-\d{3}-\d\dW\d\/0\d$/),
      status: expect.stringMatching(/^(producing|shut-in|drilling|abandoned)$/),
      facilityId: expect.stringMatching(/^F-\d{3}$/),
      depth: expect.any(Number),
      spudDate: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
    });
    const [lon, lat] = (well.geometry as { coordinates: number[] }).coordinates;
    expect(lon).toBeGreaterThan(-121);
    expect(lon).toBeLessThan(-101);
    expect(lat).toBeGreaterThan(48.9);
    expect(lat).toBeLessThan(60);
    const facility = await database.db
      .selectFrom('assets')
      .select('id')
      .where('user_group', '=', 'demo-scale')
      .where('profile', '=', 'facility')
      .where('id', '=', (well.properties as { facilityId: string }).facilityId)
      .executeTakeFirst();
    expect(facility).toBeDefined();

    // Again: the same assets, rewritten.
    const again = await cli(['demo', 'generate', '--assets', '2000']);
    expect(JSON.parse(again.stdout)).toMatchObject({ inserted: 0, updated: 2110 });
    expect(await count('demo-scale', 'well')).toBe(2000);
  });
});
