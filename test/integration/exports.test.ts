import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApp, type TestApp } from '../helpers/app.ts';
import { requireTool } from '../helpers/tools.ts';

let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;

const TRICKY = [
  { id: 'X-1', name: 'Comma, "quoted" and\nnew line' },
  { id: 'X-2', name: '=HYPERLINK("http://example.com")' },
  { id: 'X-3', name: 'Ünïcødé — 井 🛢️' },
  { id: 'X-4', name: 'tab\there, back\\slash, \\N and \\t' },
  { id: 'X-5', name: '\\N' },
];

beforeAll(async () => {
  ({ app: t, demo, east } = await startDemoApp());
  const r = await t.graphql<any>(
    `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } } }`,
    {
      input: {
        profile: 'well',
        assets: TRICKY.map((a) => ({
          id: a.id,
          properties: { name: a.name, status: 'drilling', depth: 1234.5 },
        })),
      },
    },
    demo,
  );
  expect(r.body.data.upsertAssets.errors).toEqual([]);
});
afterAll(() => t.close());

const EXPORT = `query($properties: [String!], $isExcel: Boolean, $filter: AssetFilter, $name: String) {
  assetProfiles { byId(profile: "well") {
    assetsExport(properties: $properties, isExcel: $isExcel, filter: $filter) { csvFileDownloadUrl(exportName: $name) } } } }`;

async function exportUrl(variables: Record<string, unknown>, headers = demo): Promise<string> {
  const r = await t.graphql<any>(EXPORT, variables, headers);
  expect(r.body.errors).toBeUndefined();
  return r.body.data.assetProfiles.byId.assetsExport.csvFileDownloadUrl;
}

/** The same assets through the listing API: what an export must contain. */
async function listed(filter?: unknown): Promise<{ id: string; displayName: string; properties: any }[]> {
  const r = await t.graphql<any>(
    `query($filter: AssetFilter) { assetProfiles { byId(profile: "well") {
      assets(first: 1000, filter: $filter) { edges { node { id displayName properties } } } } } }`,
    { filter },
    demo,
  );
  return r.body.data.assetProfiles.byId.assets.edges.map((e: any) => e.node);
}

const download = (url: string) => t.handle(new Request(url));

/** A CSV cell holds the JSON value's text; numbers are compared as numbers. */
function expectCell(cell: string, value: unknown, where: string) {
  if (value === undefined || value === null) expect(cell, where).toBe('');
  else if (typeof value === 'number') expect(Number(cell), where).toBe(value);
  else if (typeof value === 'string') expect(cell, where).toBe(value);
  else expect(cell, where).toBe(JSON.stringify(value));
}

const COLUMNS = ['name', 'status', 'depth', 'abandoned'];

describe('assetsExport → csvFileDownloadUrl (§2.1, §7.2)', () => {
  it('streams exactly the assets and columns asked for as RFC 4180 CSV', async () => {
    const url = await exportUrl({ properties: COLUMNS, name: 'Wells, all' });
    expect(url.startsWith(`${t.config.baseUrl}/api/exports/`)).toBe(true);
    const res = await download(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Wells, all.csv"');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const records: string[][] = parse(await res.text(), { relax_column_count: false });
    expect(records[0]).toEqual(['id', 'displayName', ...COLUMNS]);
    const expected = await listed();
    expect(expected.length).toBeGreaterThan(TRICKY.length);
    expect(records.slice(1).map((r) => r[0])).toEqual(expected.map((a) => a.id));
    for (const [i, asset] of expected.entries()) {
      const row = records[i + 1]!;
      expect(row[1]).toBe(asset.displayName);
      for (const [j, c] of COLUMNS.entries())
        expectCell(row[j + 2]!, asset.properties[c], `${asset.id}.${c}`);
    }
    // Values that need quoting survive; formulas stay data; defaults fill gaps.
    const byId = new Map(records.map((r) => [r[0], r]));
    for (const a of TRICKY) expect(byId.get(a.id)?.[2]).toBe(a.name);
    expect(byId.get('X-1')?.[5]).toBe('false');
  });

  it('applies the filter and defaults to every property', async () => {
    const filter = { property: { name: 'status', equals: 'producing' } };
    const url = await exportUrl({ filter });
    const records: string[][] = parse(await (await download(url)).text());
    const expected = await listed(filter);
    expect(expected.length).toBeGreaterThan(0);
    expect(records.slice(1).map((r) => r[0])).toEqual(expected.map((a) => a.id));
    expect(records[0]).toEqual([
      'id',
      'displayName',
      'name',
      'uwi',
      'status',
      'facilityId',
      'depth',
      'spudDate',
      'abandoned',
    ]);
  });

  it('names the file from exportName, safely, with a UTF-8 filename*', async () => {
    const url = await exportUrl({ properties: ['name'], name: '../Bohrlöcher/井' });
    const res = await download(url);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="_Bohrlöcher_?.csv"; filename*=UTF-8''_Bohrl%C3%B6cher_%E4%BA%95.csv`,
    );
    // Only the headers matter here: the download is cancelled, giving its slot back at once.
    await res.body?.cancel();
    const fallback = await download(await exportUrl({ properties: ['name'] }));
    expect(fallback.headers.get('content-disposition')).toBe('attachment; filename="well-assets.csv"');
    await fallback.body?.cancel();
  });

  it('writes XLSX that exceljs reads back with typed cells', async () => {
    const url = await exportUrl({ properties: COLUMNS, isExcel: true, name: 'wells' });
    const res = await download(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="wells.xlsx"');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await res.arrayBuffer()) as any);
    const sheet = workbook.getWorksheet('well')!;
    const rows: unknown[][] = [];
    sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    expect(rows[0]).toEqual(['id', 'displayName', ...COLUMNS]);
    const expected = await listed();
    expect(rows.length).toBe(expected.length + 1);
    for (const [i, asset] of expected.entries()) {
      const row = rows[i + 1]!;
      expect(row[0]).toBe(asset.id);
      expect(row[1]).toBe(asset.displayName);
      COLUMNS.forEach((c, j) => {
        const v = asset.properties[c];
        expect(row[j + 2] ?? null, `${asset.id}.${c}`).toEqual(v ?? null);
      });
    }
  });

  it('converts back to the same CSV with LibreOffice', async () => {
    const soffice = requireTool(['soffice', 'libreoffice'], {
      package: 'libreoffice-calc-nogui',
      for: 'reading the XLSX export back with LibreOffice',
    });
    const url = await exportUrl({ properties: ['name', 'status'], isExcel: true });
    const dir = await mkdtemp(join(tmpdir(), 'assetql-xlsx-'));
    try {
      await writeFile(join(dir, 'wells.xlsx'), Buffer.from(await (await download(url)).arrayBuffer()));
      await promisify(execFile)(
        soffice,
        [
          `-env:UserInstallation=file://${dir}/profile`,
          '--headless',
          '--convert-to',
          'csv:Text - txt - csv (StarCalc):44,34,76',
          '--outdir',
          dir,
          join(dir, 'wells.xlsx'),
        ],
        { timeout: 120_000 },
      );
      const records: string[][] = parse(await readFile(join(dir, 'wells.csv'), 'utf8'));
      const expected = await listed();
      expect(records[0]).toEqual(['id', 'displayName', 'name', 'status']);
      expect(records.slice(1)).toEqual(
        expected.map((a) => [a.id, a.displayName, a.properties.name ?? '', a.properties.status ?? '']),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses a tampered link with 403 and an expired one with 410, sending no data', async () => {
    const url = await exportUrl({ properties: ['name'] });
    const token = url.slice(url.lastIndexOf('/') + 1);
    const [data, mac] = token.split('.') as [string, string];
    const flipped = `${data.slice(0, 10)}${data[10] === 'A' ? 'B' : 'A'}${data.slice(11)}.${mac}`;
    for (const bad of [flipped, `${data}.${mac.slice(0, -2)}`, 'garbage', `${data}.`]) {
      const res = await download(`${t.config.baseUrl}/api/exports/${bad}`);
      expect(res.status, bad).toBe(403);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const body = await res.json();
      expect(body).toMatchObject({ status: 403, title: 'Invalid link' });
      expect(JSON.stringify(body)).not.toContain('W-');
    }
    t.clock.advance(60 * 60 * 1000 + 1000);
    try {
      const res = await download(url);
      expect(res.status).toBe(410);
      expect(await res.json()).toMatchObject({ status: 410, title: 'Link expired' });
    } finally {
      t.clock.advance(-(60 * 60 * 1000 + 1000));
    }
  });

  it('checks the columns and the filter when the link is made', async () => {
    const unknown = await t.graphql<any>(EXPORT, { properties: ['name', 'nope'] }, demo);
    expect(unknown.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      type: 'UNKNOWN_PROPERTY',
    });
    const badFilter = await t.graphql<any>(
      EXPORT,
      { filter: { property: { name: 'nope', equals: 1 } } },
      demo,
    );
    expect(badFilter.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      type: 'INVALID_FILTER',
    });
  });

  it('answers 409 when the profile no longer has a column the link names', async () => {
    const put = `mutation($input: putAssetProfileExtensionInput!) { putAssetProfileExtension(input: $input) { errors { type } } }`;
    const rm = `mutation($input: removeAssetProfileExtensionInput!) { removeAssetProfileExtension(input: $input) { errors { type } } }`;
    const added = await t.graphql<any>(
      put,
      { input: { profile: 'well', extension: 'extra', properties: [{ name: 'api14', type: 'STRING' }] } },
      demo,
    );
    expect(added.body.data.putAssetProfileExtension.errors).toEqual([]);
    const url = await exportUrl({ properties: ['name', 'api14'] });
    const fits = await download(url);
    expect(fits.status).toBe(200);
    await fits.body?.cancel();
    await t.graphql(rm, { input: { profile: 'well', extension: 'extra' } }, demo);
    const res = await download(url);
    expect(res.status).toBe(409);
    expect((await res.json()).detail).toMatch(/api14/);
  });

  it('keeps tenants apart: no export of another group, and no link without a session', async () => {
    // demo-east has a well profile of its own: its export holds its wells and none of demo's.
    const mine = new Set((await listed()).map((a) => a.id));
    const seeded = await t.graphql<any>(
      `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type } } }`,
      {
        input: {
          profile: 'well',
          assets: [{ id: 'E-1', properties: { name: 'East one', status: 'drilling' } }],
        },
      },
      east,
    );
    expect(seeded.body.data.upsertAssets.errors).toEqual([]);
    const theirs = parse(
      await (await download(await exportUrl({ properties: ['name'] }, east))).text(),
    ) as string[][];
    const eastIds = theirs.slice(1).map((r) => r[0]);
    expect(eastIds.length).toBeGreaterThan(0);
    for (const a of TRICKY) expect(eastIds).not.toContain(a.id);
    const eastListing = await t.graphql<any>(
      `{ assetProfiles { byId(profile: "well") { assets(first: 1000) { edges { node { id displayName } } } } } }`,
      {},
      east,
    );
    const eastNodes = eastListing.body.data.assetProfiles.byId.assets.edges.map((e: any) => e.node);
    expect(theirs.slice(1).map((r) => [r[0], r[1]])).toEqual(
      eastNodes.map((n: any) => [n.id, n.displayName]),
    );
    expect(mine.size).toBeGreaterThan(0);
    const anonymous = await t.graphql<any>(EXPORT, { properties: ['name'] }, {});
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('streams many rows in batches and gives the connection back when the reader goes away', async () => {
    for (let b = 0; b < 3; b++) {
      const assets = Array.from({ length: 1000 }, (_, i) => ({
        id: `BULK-${String(b * 1000 + i).padStart(5, '0')}`,
        properties: { name: `Bulk ${b * 1000 + i}`, status: 'shut-in', depth: i },
      }));
      const r = await t.graphql<any>(
        `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type } } }`,
        { input: { profile: 'well', assets } },
        demo,
      );
      expect(r.body.data.upsertAssets.errors).toEqual([]);
    }
    const filter = { property: { name: 'status', equals: 'shut-in' }, search: 'Bulk' };
    const inUse = () => t.database.pool.totalCount - t.database.pool.idleCount;
    for (const isExcel of [false, true]) {
      const full = await download(await exportUrl({ properties: ['name', 'depth'], isExcel, filter }));
      const bytes = Buffer.from(await full.arrayBuffer());
      if (!isExcel) {
        const records: string[][] = parse(bytes);
        expect(records.length).toBe(3001);
        expect(records[3000]).toEqual(['BULK-02999', 'Bulk 2999', 'Bulk 2999', '999']);
        expect(new Set(records.slice(1).map((r) => r[0])).size).toBe(3000);
      } else {
        const workbook = new ExcelJS.Workbook();
        await workbook.xlsx.load(bytes as any);
        expect(workbook.getWorksheet('well')!.rowCount).toBe(3001);
      }
      const partial = await download(await exportUrl({ properties: ['name', 'depth'], isExcel, filter }));
      const reader = partial.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      await reader.cancel();
      await expect.poll(inUse, { timeout: 5000 }).toBe(0);
    }
  });

  it('forwards only GET and HEAD', async () => {
    const url = await exportUrl({ properties: ['name'] });
    const head = await t.handle(new Request(url, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('content-disposition')).toContain('well-assets.csv');
    expect((await t.handle(new Request(url, { method: 'POST' }))).status).toBe(405);
  });
});

const DOWNLOAD_FIELDS = `id filterId filter { id displayName } name format status properties createdAt createdBy expiresAt downloadUrl`;
const CREATE_DOWNLOAD = `mutation($input: CreateAssetFilterDownloadInput!, $cid: String) {
  createAssetFilterDownload(input: $input, correlationId: $cid) { correlationId errors { type message } download { ${DOWNLOAD_FIELDS} } } }`;

describe('assetFilterDownloads and createAssetFilterDownload', () => {
  beforeAll(async () => {
    const r = await t.graphql<any>(
      `mutation($input: CreateAssetFilterInput!) { createAssetFilter(input: $input) { errors { type } } }`,
      {
        input: {
          id: 'producing',
          displayName: 'Producing wells',
          profile: 'well',
          filter: { property: { name: 'status', equals: 'producing' } },
          subProfiles: [],
        },
      },
      demo,
    );
    expect(r.body.data.createAssetFilter.errors).toEqual([]);
  });

  it('makes a download of a saved filter, lists it newest first and serves it', async () => {
    const first = await t.graphql<any>(
      CREATE_DOWNLOAD,
      { input: { filterId: 'producing', properties: ['name', 'depth'] }, cid: 'dl-1' },
      demo,
    );
    const made = first.body.data.createAssetFilterDownload;
    expect(made.correlationId).toBe('dl-1');
    expect(made.errors).toEqual([]);
    expect(made.download).toMatchObject({
      filterId: 'producing',
      filter: { id: 'producing', displayName: 'Producing wells' },
      name: 'Producing wells',
      format: 'CSV',
      status: 'READY',
      properties: ['name', 'depth'],
      createdBy: 'demo',
    });
    expect(Date.parse(made.download.expiresAt) - Date.parse(made.download.createdAt)).toBe(
      7 * 24 * 3600 * 1000,
    );
    const records: string[][] = parse(await (await download(made.download.downloadUrl)).text());
    const expected = await listed({ property: { name: 'status', equals: 'producing' } });
    expect(records.slice(1).map((r) => r[0])).toEqual(expected.map((a) => a.id));
    expect(records[0]).toEqual(['id', 'displayName', 'name', 'depth']);

    t.clock.advance(1000);
    const second = await t.graphql<any>(
      CREATE_DOWNLOAD,
      { input: { filterId: 'producing', name: 'xl', isExcel: true } },
      demo,
    );
    expect(second.body.data.createAssetFilterDownload.download).toMatchObject({ format: 'XLSX', name: 'xl' });
    const list = await t.graphql<any>(`{ assetFilterDownloads { ${DOWNLOAD_FIELDS} } }`, {}, demo);
    const ids = list.body.data.assetFilterDownloads.map((d: any) => d.id);
    expect(ids.slice(0, 2)).toEqual([
      second.body.data.createAssetFilterDownload.download.id,
      made.download.id,
    ]);

    const others = await t.graphql<any>(`{ assetFilterDownloads { id } }`, {}, east);
    expect(others.body.data.assetFilterDownloads).toEqual([]);
  });

  it('expires after seven days: EXPIRED, no URL, and the old URL gets 410', async () => {
    const made = (await t.graphql<any>(CREATE_DOWNLOAD, { input: { filterId: 'producing' } }, demo)).body.data
      .createAssetFilterDownload.download;
    const week = 7 * 24 * 3600 * 1000;
    t.clock.advance(week);
    try {
      // The old session has expired by now; a new one sees the download as EXPIRED.
      const later = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
      const list = await t.graphql<any>(`{ assetFilterDownloads { id status downloadUrl } }`, {}, later);
      expect(list.body.data.assetFilterDownloads.find((d: any) => d.id === made.id)).toEqual({
        id: made.id,
        status: 'EXPIRED',
        downloadUrl: null,
      });
      expect((await download(made.downloadUrl)).status).toBe(410);
    } finally {
      t.clock.advance(-week);
    }
  });

  it('deleteAssetDownload withdraws the link, in the caller’s group only', async () => {
    const made = (await t.graphql<any>(CREATE_DOWNLOAD, { input: { filterId: 'producing' } }, demo)).body.data
      .createAssetFilterDownload.download;
    const DELETE = `mutation($id: ID!, $cid: String) {
      deleteAssetDownload(id: $id, correlationId: $cid) { correlationId errors { type message } download { id } } }`;
    const remove = async (id: string, headers: Record<string, string>) =>
      (await t.graphql<any>(DELETE, { id, cid: 'del-1' }, headers)).body.data.deleteAssetDownload;
    // Another group does not find it, and nobody signed out may delete anything.
    expect(await remove(made.id, east)).toMatchObject({ download: null, errors: [{ type: 'NOT_FOUND' }] });
    expect(await remove(made.id, {})).toMatchObject({
      download: null,
      errors: [{ type: 'UNAUTHENTICATED' }],
    });
    const still = await download(made.downloadUrl);
    expect(still.status).toBe(200);
    await still.body?.cancel();

    expect(await remove(made.id, demo)).toEqual({ correlationId: 'del-1', errors: [], download: null });
    const gone = await download(made.downloadUrl);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ status: 404, title: 'No such download' });
    const list = await t.graphql<any>(`{ assetFilterDownloads { id } }`, {}, demo);
    expect(list.body.data.assetFilterDownloads.map((d: any) => d.id)).not.toContain(made.id);
    expect(await remove(made.id, demo)).toMatchObject({ errors: [{ type: 'NOT_FOUND' }] });
    // An id no download can have is not looked for, and not repeated whole.
    const long = await remove('x'.repeat(100_000), demo);
    expect(long.errors).toMatchObject([{ type: 'NOT_FOUND' }]);
    expect(long.errors[0].message.length).toBeLessThan(200);
  });

  it('answers typed errors and writes nothing for bad input', async () => {
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('asset_downloads')
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const cases: [Record<string, unknown>, Record<string, string>, string][] = [
      [{ filterId: 'nope' }, demo, 'NOT_FOUND'],
      [{ filterId: 'producing', properties: ['nope'] }, demo, 'UNKNOWN_PROPERTY'],
      [{ filterId: 'producing' }, east, 'NOT_FOUND'],
      [{ filterId: 'producing' }, {}, 'UNAUTHENTICATED'],
    ];
    for (const [input, headers, type] of cases) {
      const r = await t.graphql<any>(CREATE_DOWNLOAD, { input }, headers);
      expect(r.body.data.createAssetFilterDownload, JSON.stringify(input)).toMatchObject({
        download: null,
        errors: [{ type }],
      });
    }
    expect(await count()).toBe(before);
  });
});
