// The console's map in a real headless Chromium, on the demo tenant: opened from the assets list
// with its search, drawn with the layers and colours of the profile's map view, panned and zoomed
// from the keyboard (each move asking the server for the new viewport), a layer shown; a profile
// of thousands of points clustered by the server, a cluster clicked into; lines and polygons
// drawn where they are and listed; another client's writes (an asset moved into view, one made
// there, one deleted) shown live without a reload, a burst of them asking for few viewports, the
// page's one stream closed when it is left. Every request goes to the server's origin, nothing
// breaks the CSP, and axe-core finds no serious or critical fault.
//
// Needs Chromium at /usr/bin/chromium (Debian: `apt-get install -y chromium`). With
// ASSETQL_SCREENSHOTS=1 it writes the map's screenshots to docs/images/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compact } from '../../src/console/app/map-draw.ts';
import { MOST_WAIT_MS } from '../../src/console/app/map-live.ts';
import { type Bbox, parsePosition, project, viewportBbox } from '../../src/console/app/map-projection.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { audit, closeWatched, launchChromium, openConsole } from '../helpers/browser.ts';
import { ROOT } from '../helpers/processes.ts';

const TEST_TIMEOUT = 60_000;
const IMAGES = join(ROOT, 'docs', 'images');
const METERS = 3000;

let t: TestApp;
let server: Listening | undefined;
let browser: Browser | undefined;
let origin: string;
let demo: Record<string, string>;

/** Inserts profile `profile` of group demo with `rows` (id, kind, GeoJSON geometry). */
async function addProfile(profile: string, rows: [string, string, object][]): Promise<void> {
  const db = t.database.db;
  await sql`insert into asset_profiles (user_group, profile, title, owner_username, definition)
    values ('demo', ${profile}, ${profile[0]!.toUpperCase() + profile.slice(1)}, 'demo', ${JSON.stringify({
      displayNameProperty: 'name',
      properties: [
        { name: 'name', type: 'STRING' },
        { name: 'kind', type: 'STRING' },
      ],
    })}::jsonb)`.execute(db);
  await sql`insert into assets (user_group, profile, id, properties, geometry, display_name)
    select 'demo', ${profile}, r.id, jsonb_build_object('name', r.id || ' ' || r.kind, 'kind', r.kind), r.g, r.id || ' ' || r.kind
    from unnest(${rows.map((r) => r[0])}::text[], ${rows.map((r) => r[1])}::text[],
      ${rows.map((r) => JSON.stringify(r[2]))}::jsonb[]) as r(id, kind, g)`.execute(db);
}

beforeAll(async () => {
  browser = await launchChromium('the console map e2e test');
  t = await startTestApp();
  await seedDemo(t.database.db, t.config);
  // Meters on a grid around Calgary: more than a viewport answers one by one.
  await addProfile(
    'meter',
    Array.from({ length: METERS }, (_, i) => [
      `M-${String(i).padStart(4, '0')}`,
      i % 2 ? 'gas' : 'water',
      { type: 'Point', coordinates: [-114.5 + (i % 60) * 0.02, 50.6 + Math.floor(i / 60) * 0.015] },
    ]),
  );
  await addProfile('pipeline', [
    [
      'P-1',
      'line',
      {
        type: 'LineString',
        coordinates: [
          [-113, 52],
          [-112, 52],
          [-112, 53],
        ],
      },
    ],
    [
      'P-2',
      'line',
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [-111.5, 52.2],
            [-111, 52.6],
          ],
        ],
      },
    ],
    [
      'L-1',
      'lease',
      {
        type: 'Polygon',
        coordinates: [
          [
            [-113.8, 52.2],
            [-113.2, 52.2],
            [-113.2, 52.8],
            [-113.8, 52.8],
            [-113.8, 52.2],
          ],
        ],
      },
    ],
  ]);
  // Hydrants in Calgary, one far off to the north-east.
  await addProfile('hydrant', [
    ['H-1', 'red', { type: 'Point', coordinates: [-114.08, 51.05] }],
    ['H-2', 'red', { type: 'Point', coordinates: [-114.06, 51.04] }],
    ['H-3', 'red', { type: 'Point', coordinates: [-114.07, 51.06] }],
    ['H-4', 'red', { type: 'Point', coordinates: [-113.0, 52.0] }],
  ]);
  demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
  server = await listen(t.handle, 0, '127.0.0.1');
  origin = new URL(server.url).origin;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close(500);
  await t?.close();
});

/** A page of the console, signed in as demo at `hash`, watched. */
const open = (hash: string) => openConsole(browser!, origin, hash);

async function api<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const r = await t.graphql<any>(query, variables, demo);
  expect(r.body.errors).toBeUndefined();
  return r.body.data;
}

/** How many viewports the map has drawn. */
const draws = (page: Page) =>
  page.evaluate(() => Number(document.querySelector('.map-frame')?.getAttribute('data-draws') ?? 0));
/** Waits for the map to draw another viewport than the `before`-th, with nothing asked after it. */
async function drawnAfter(page: Page, before: number): Promise<void> {
  await expect.poll(() => draws(page), { timeout: 10_000 }).toBeGreaterThan(before);
  await expect.poll(() => page.locator('.map-frame[aria-busy]').count()).toBe(0);
}
const summary = (page: Page) => page.locator('#map-summary').innerText();
/** Where the map looks, as its address says. */
const position = (page: Page) =>
  parsePosition(new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('at'));
/** The canvas's size in CSS pixels. */
const canvasSize = (page: Page) =>
  page.locator('.map-canvas').evaluate((c) => [c.clientWidth, c.clientHeight] as [number, number]);

/** The screen pixel of a longitude and latitude on the map, its colour there, and its 3 × 3 patch's. */
async function pixel(page: Page, lon: number, lat: number) {
  const at = position(page)!;
  const [width, height] = await canvasSize(page);
  const [cx, cy] = project(at.lon, at.lat, at.zoom);
  const [px, py] = project(lon, lat, at.zoom);
  const x = Math.round(px - cx + width / 2);
  const y = Math.round(py - cy + height / 2);
  const patch = await page.locator('.map-canvas').evaluate(
    (c, [x, y]) => {
      const ratio = (c as HTMLCanvasElement).width / c.clientWidth;
      const g = (c as HTMLCanvasElement).getContext('2d')!;
      const out: number[][] = [];
      for (const [dx, dy] of [
        [0, 0],
        [-1, -1],
        [0, -1],
        [1, -1],
        [-1, 0],
        [1, 0],
        [-1, 1],
        [0, 1],
        [1, 1],
      ]) {
        const d = g.getImageData((x! + dx!) * ratio, (y! + dy!) * ratio, 1, 1).data;
        out.push([d[0]!, d[1]!, d[2]!]);
      }
      return out;
    },
    [x, y],
  );
  return { x, y, rgb: patch[0]!, patch };
}

const VIEWPORT = `query($p: ID!, $bbox: [Float!]!, $zoom: Int!, $f: AssetFilter) { assets(profile: $p) {
  mapViewport(bbox: $bbox, zoom: $zoom, filter: $f, limit: 500) { count clustered clusters { count centroid } } } }`;

describe('the console map in Chromium', () => {
  it(
    'shows the list’s assets with the profile’s map view, and pans and zooms from the keyboard',
    async () => {
      const watched = await open('#/profiles/well?search=Peace');
      const { page } = watched;
      await page.getByRole('link', { name: 'Show on a map' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Well on a map');
      await drawnAfter(page, 0);
      expect(new URL(page.url()).hash).toMatch(
        /^#\/profiles\/well\/map\?search=Peace&at=5%2F52\.50+%2F-110\.50+$/,
      );
      // The view's layer of wells not deleted, the search applied: the API's own count.
      const peace = await api(
        '{ assets(profile: "well") { all(first: 0, filter: { and: [{ search: "Peace" }, { isDeleted: false }] }) { totalCount } } }',
      );
      const n = peace.assets.all.totalCount;
      expect(n).toBeGreaterThan(0);
      expect(await summary(page)).toBe(`In view at zoom 5: Wells by status: ${n} assets.`);
      expect(await page.getByRole('link', { name: /^Peace/ }).count()).toBe(n);
      expect(await page.getByRole('checkbox', { name: 'Wells by status' }).isChecked()).toBe(true);
      expect(await page.getByRole('checkbox', { name: 'Wells with no surface equipment' }).isChecked()).toBe(
        false,
      );
      expect(await page.getByRole('list', { name: 'Colours of Wells by status' }).innerText()).toContain(
        'producing',
      );
      await audit(page, 'map');

      // Each well drawn where it is, in its status's colour: seen closer (the address moved to
      // them), those no other well's dot or label may cover.
      const wells = await api(
        '{ assets(profile: "well") { all(first: 100, filter: { search: "Peace", isDeleted: false }) { edges { node { properties(only: ["status"]) geometry { ... on GeoJSONPoint { coordinates } } } } } } }',
      );
      const points = wells.assets.all.edges.map((e: any) => e.node);
      const mean = (i: number) =>
        points.reduce((sum: number, p: any) => sum + p.geometry.coordinates[i], 0) / points.length;
      let before = await draws(page);
      await page.evaluate(
        (at) => {
          location.hash = location.hash.replace(/at=[^&]*/, `at=${encodeURIComponent(at)}`);
        },
        `9/${mean(1).toFixed(4)}/${mean(0).toFixed(4)}`,
      );
      await drawnAfter(page, before);
      const colours: Record<string, number[]> = {
        producing: [0x2e, 0x7d, 0x32],
        'shut-in': [0xf9, 0xa8, 0x25],
        drilling: [0x15, 0x65, 0xc0],
        abandoned: [0x75, 0x75, 0x75],
      };
      const spots: { status: string; x: number; y: number; rgb: number[] }[] = [];
      for (const node of points) {
        const [lon, lat] = node.geometry.coordinates;
        spots.push({ status: node.properties.status as string, ...(await pixel(page, lon, lat)) });
      }
      const [width, height] = await canvasSize(page);
      expect(spots.every((p) => p.x > 0 && p.x < width && p.y > 0 && p.y < height)).toBe(true);
      const alone = spots.filter(
        (a) => !spots.some((b) => b !== a && Math.abs(b.y - a.y) < 16 && a.x - b.x < 120 && b.x - a.x < 16),
      );
      expect(alone.length).toBeGreaterThan(0);
      for (const spot of alone)
        expect(spot.rgb, spot.status).toEqual(colours[spot.status] ?? [0x9e, 0x9e, 0x9e]);
      await page.locator('.map-frame').focus();
      before = await draws(page);
      await page.keyboard.press('Home');
      await drawnAfter(page, before);
      expect(position(page)).toEqual({ lon: -110.5, lat: 52.5, zoom: 5 });

      // Keys pan and zoom; each move asks for its viewport, the place kept in the address.
      const map = page.locator('.map-frame');
      await map.focus();
      before = await draws(page);
      await page.keyboard.press('ArrowRight');
      await drawnAfter(page, before);
      expect(position(page)!.lon).toBeGreaterThan(-110.5);
      expect(position(page)!.zoom).toBe(5);
      before = await draws(page);
      await page.keyboard.press('+');
      await drawnAfter(page, before);
      expect(position(page)!.zoom).toBe(6);
      before = await draws(page);
      await page.getByRole('button', { name: 'Zoom out' }).click();
      await drawnAfter(page, before);
      expect(position(page)!.zoom).toBe(5);
      before = await draws(page);
      await map.focus();
      await page.keyboard.press('Home');
      await drawnAfter(page, before);
      expect(position(page)).toEqual({ lon: -110.5, lat: 52.5, zoom: 5 });

      // Another layer shown: its own filter with the search.
      before = await draws(page);
      await page.getByRole('checkbox', { name: 'Wells with no surface equipment' }).check();
      await drawnAfter(page, before);
      const bare = await api(
        '{ assets(profile: "well") { all(first: 0, filter: { and: [{ search: "Peace" }, { related: { relationship: "equipment", none: {} } }] }) { totalCount } } }',
      );
      expect(await summary(page)).toBe(
        `In view at zoom 5: Wells by status: ${n} assets · Wells with no surface equipment: ${bare.assets.all.totalCount} ${bare.assets.all.totalCount === 1 ? 'asset' : 'assets'}.`,
      );
      await page.getByRole('link', { name: 'Show them as a list' }).click();
      await expect.poll(() => new URL(page.url()).hash).toBe('#/profiles/well?search=Peace');
      await closeWatched(watched);

      if (process.env.ASSETQL_SCREENSHOTS === '1') {
        const shot = await open('#/profiles/well/map?at=6%2F53.6%2F-114.0');
        await drawnAfter(shot.page, 0);
        mkdirSync(IMAGES, { recursive: true });
        await shot.page.screenshot({ path: join(IMAGES, 'console-map.png') });
        await shot.context.close();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'clusters thousands of assets on the server, and a click on a cluster zooms into it',
    async () => {
      const watched = await open('#/profiles/meter/map');
      const { page } = watched;
      await drawnAfter(page, 0);
      // No view configuration: the map fits every meter, counted per cell by the server.
      const at = position(page)!;
      const bbox: Bbox = viewportBbox(at, ...(await canvasSize(page)));
      expect(bbox[0]).toBeLessThanOrEqual(-114.5);
      expect(bbox[2]).toBeGreaterThanOrEqual(-114.5 + 59 * 0.02);
      const answer = (await api(VIEWPORT, { p: 'meter', bbox, zoom: at.zoom })).assets.mapViewport;
      expect(answer).toMatchObject({ count: METERS, clustered: true });
      expect(await summary(page)).toBe(
        `In view at zoom ${at.zoom}: Assets: 3,000 assets in ${answer.clusters.length} clusters (largest ${compact(Math.max(...answer.clusters.map((c: any) => c.count)))}).`,
      );
      expect(await page.locator('#map-list').innerText()).toBe(
        'Too many assets in view to list: zoom in, or click a cluster.',
      );
      await audit(page, 'clustered map');
      if (process.env.ASSETQL_SCREENSHOTS === '1') {
        mkdirSync(IMAGES, { recursive: true });
        await page.locator('.browse').screenshot({ path: join(IMAGES, 'console-map-clusters.png') });
      }

      // The largest cluster, clicked where it is drawn: the map zooms in, centred on it.
      const largest = answer.clusters.reduce((a: any, b: any) => (b.count > a.count ? b : a));
      const { x, y } = await pixel(page, largest.centroid[0], largest.centroid[1]);
      const before = await draws(page);
      await page.locator('.map-canvas').click({ position: { x, y } });
      await drawnAfter(page, before);
      const closer = position(page)!;
      expect(closer.zoom).toBeGreaterThan(at.zoom);
      expect(closer.lon).toBeCloseTo(largest.centroid[0], 3);
      // Closer still, from the keyboard, until the meters show one by one, listed with links.
      const map = page.locator('.map-frame');
      for (let zoom = closer.zoom; zoom < 16 && (await summary(page)).includes('clusters'); zoom++) {
        const n = await draws(page);
        await map.focus();
        await page.keyboard.press('+');
        await drawnAfter(page, n);
      }
      expect(await summary(page)).not.toContain('clusters');
      const links = page.locator('#map-list a');
      expect(await links.count()).toBeGreaterThan(0);
      expect(await links.first().getAttribute('href')).toMatch(/^#\/profiles\/meter\/assets\/M-\d{4}$/);
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'draws lines and polygons where they are, and lists them',
    async () => {
      const watched = await open('#/profiles/pipeline/map');
      const { page } = watched;
      await drawnAfter(page, 0);
      expect(await summary(page)).toMatch(/: Assets: 3 assets\.$/);
      expect(await page.locator('#map-list a').allInnerTexts()).toEqual([
        'L-1 lease',
        'P-1 line',
        'P-2 line',
      ]);
      const background = [0xe8, 0xee, 0xf3];
      const blue = [0x0b, 0x5c, 0xad];
      /** How far apart two colours are, channel by channel. */
      const distance = (a: number[], b: number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
      // The polygon's inside is the layer's colour at a quarter over the background.
      const tint = background.map((v, i) => 0.75 * v + 0.25 * blue[i]!);
      expect(distance((await pixel(page, -113.63, 52.37)).rgb, tint)).toBeLessThan(4);
      // The lines in the layer's colour, in their middle (their edges are smoothed).
      const nearest = (patch: number[][], to: number[]) => Math.min(...patch.map((c) => distance(c, to)));
      expect(nearest((await pixel(page, -112.5, 52)).patch, blue)).toBeLessThan(24);
      expect(nearest((await pixel(page, -111.25, 52.4)).patch, blue)).toBeLessThan(24);
      // Away from them: the background.
      expect((await pixel(page, -112.63, 52.71)).rgb).toEqual(background);
      await audit(page, 'map of lines and polygons');
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'shows another client’s writes live where the map looks, a burst of them asking for few viewports',
    async () => {
      const at = '12/51.05/-114.07';
      const watched = await open(`#/profiles/hydrant/map?at=${encodeURIComponent(at)}`);
      const { page } = watched;
      await drawnAfter(page, 0);
      const listed = () => page.locator('#map-list a').allInnerTexts();
      expect(await listed()).toEqual(['H-1 red', 'H-2 red', 'H-3 red']);
      await expect
        .poll(() => page.locator('#live-status').innerText())
        .toBe('Live: changes show as they are made.');
      // The page is not loaded again: what it holds stays, and the map looks where it did.
      await page.evaluate(() => {
        (window as unknown as { kept: boolean }).kept = true;
      });
      const kept = () => page.evaluate(() => (window as unknown as { kept?: boolean }).kept === true);
      const write = async (assets: object[]) => {
        const data = await api(
          'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } } }',
          { input: { profile: 'hydrant', assets } },
        );
        expect(data.upsertAssets.errors).toEqual([]);
      };
      const hydrant = (id: string, lon: number, lat: number) => ({
        id,
        properties: { name: `${id} red`, kind: 'red' },
        geometry: { type: 'Point', coordinates: [lon, lat] },
      });

      // Moved into view; made there; deleted: each shown within seconds.
      await write([hydrant('H-4', -114.05, 51.055)]);
      await expect.poll(listed).toEqual(['H-1 red', 'H-2 red', 'H-3 red', 'H-4 red']);
      await write([hydrant('H-5', -114.09, 51.045)]);
      await expect.poll(listed).toEqual(['H-1 red', 'H-2 red', 'H-3 red', 'H-4 red', 'H-5 red']);
      // (Removed: a deleted asset stays on a map that does not filter it out, as the API answers.)
      await api(
        'mutation { deleteAssets(input: { profile: "hydrant", ids: ["H-2"], hard: true }) { errors { message } } }',
      );
      await expect.poll(listed).toEqual(['H-1 red', 'H-3 red', 'H-4 red', 'H-5 red']);
      expect(await kept()).toBe(true);
      expect(position(page)).toEqual(parsePosition(at));
      await audit(page, 'map, changed live');

      // 200 writes, ten at a time, as fast as the server takes them: a handful of viewports, at
      // most one a second while they keep coming and one after, never one a write.
      const asked = () => watched.documents.filter((d) => d.includes('mapViewport')).length;
      const before = asked();
      const started = Date.now();
      for (let i = 0; i < 200; i += 10)
        await Promise.all(
          Array.from({ length: 10 }, (_, j) =>
            write([
              hydrant(
                `H-${100 + i + j}`,
                -114.1 + ((i + j) % 20) * 0.003,
                51.03 + Math.floor(i / 20) * 0.003,
              ),
            ]),
          ),
        );
      const took = Date.now() - started;
      await expect.poll(() => summary(page)).toBe('In view at zoom 12: Assets: 204 assets.');
      // Nothing more is asked once the last write is drawn.
      await page.waitForTimeout(2 * MOST_WAIT_MS);
      const viewports = asked() - before;
      expect(viewports).toBeGreaterThan(0);
      expect(viewports).toBeLessThanOrEqual(Math.min(20, Math.ceil(took / MOST_WAIT_MS) + 3));
      expect(await kept()).toBe(true);
      expect(position(page)).toEqual(parsePosition(at));
      expect(watched.mostStreams).toBe(1);

      // Leaving the map closes its stream.
      await page.goto(`${origin}/console#/profiles`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Asset profiles');
      await expect.poll(() => watched.streams.size).toBe(0);
      await closeWatched(watched);
    },
    TEST_TIMEOUT * 2,
  );
});
