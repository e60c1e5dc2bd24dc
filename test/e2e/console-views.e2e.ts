// The console's views and exports in a real headless Chromium, on the demo tenant: a view's
// layout by media type drawn from an asset's data, edited by drag, resize and the keyboard, saved
// and kept across a reload; a save meeting a layout changed meanwhile through the API shows the
// conflict and loses nothing of the reader's; a map widget counting every asset of a profile of
// thousands, clustered by the server; PRINTABLE in print media and as a PDF; exports of
// the filtered list as CSV and XLSX with their progress, read back and compared with the API's
// listing, and one cancelled. Every request goes to the server's origin, and axe-core finds no
// serious or critical fault on any screen. With ASSETQL_SCREENSHOTS=1 it writes the screenshots of
// docs/console.md to docs/images/.
//
// Needs Chromium at /usr/bin/chromium (Debian: `apt-get install -y chromium`).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORT_LIMIT, WORLD } from '../../src/console/app/map-data.ts';
import { compact } from '../../src/console/app/map-draw.ts';
import { viewportBbox } from '../../src/console/app/map-projection.ts';
import { formatPosition } from '../../src/console/app/view-charts.ts';
import { WIDGET_MAP, widgetPosition } from '../../src/console/app/view-map.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { audit, closeWatched, launchChromium, openConsole } from '../helpers/browser.ts';
import { ROOT } from '../helpers/processes.ts';

const UI_TIMEOUT = 15_000;
const TEST_TIMEOUT = 60_000;
const METERS = 3000;
const IMAGES = join(ROOT, 'docs', 'images');
/** Writes `name` of docs/images/ from what `target` shows, when asked to (ASSETQL_SCREENSHOTS=1). */
async function screenshot(target: Page | Locator, name: string, fullPage = false): Promise<void> {
  if (process.env.ASSETQL_SCREENSHOTS !== '1') return;
  mkdirSync(IMAGES, { recursive: true });
  await target.screenshot({ path: join(IMAGES, name), ...(fullPage ? { fullPage } : {}) });
}

let t: TestApp;
let server: Listening | undefined;
let browser: Browser | undefined;
let origin: string;
let demo: Record<string, string>;

type Rect = { x: number; y: number; w: number; h: number };
type Widget = { id: string; name: string; widget: string; settings: object; layout: Rect };

beforeAll(async () => {
  browser = await launchChromium('the console views e2e test');
  t = await startTestApp();
  await seedDemo(t.database.db, t.config);
  demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
  server = await listen(serve, 0, '127.0.0.1');
  origin = new URL(server.url).origin;
}, 60_000);

/** While true, export downloads come as over a slow link: 64 bytes every 100 ms. */
let slowExports = false;

/** The app, with its export downloads slowed while {@link slowExports} says so. */
async function serve(request: Request, remoteAddress?: string): Promise<Response> {
  const response = await t.handle(request, remoteAddress);
  if (!slowExports || !new URL(request.url).pathname.startsWith('/api/exports/') || !response.body)
    return response;
  const reader = response.body.getReader();
  let pending = new Uint8Array(0);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending.length === 0) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        pending = value;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.enqueue(pending.subarray(0, 64));
      pending = pending.subarray(64);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

afterAll(async () => {
  await browser?.close();
  await server?.close(500);
  await t?.close();
});

/** A new browser at `hash` of the console, signed in as demo, watched. */
const open = (hash: string) =>
  openConsole(browser!, origin, hash, { viewport: { width: 1280, height: 1000 }, acceptDownloads: true });

const heading = (page: Page) => page.getByRole('heading', { level: 1 });
const status = (page: Page) => page.locator('#status').innerText();
const state = (page: Page) => page.locator('#layout-state').innerText();

/** Asks the API as demo; an error fails the test. */
async function api<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const r = await t.graphql<any>(query, variables, demo);
  expect(r.body.errors).toBeUndefined();
  return r.body.data;
}

/** Waits until the view shows asset `id` in its widgets. */
async function shown(page: Page, id: string): Promise<void> {
  await expect.poll(() => page.locator('.view-subject').innerText(), { timeout: UI_TIMEOUT }).toContain(id);
  await expect.poll(() => page.getByText('Loading the asset…').count()).toBe(0);
}

/** Each widget's place as the page draws it, read back from its grid lines. */
function placed(page: Page): Promise<Record<string, Rect>> {
  return page.evaluate(() => {
    const read = (text: string) => (/^(\d+) \/ span (\d+)$/.exec(text) ?? []).slice(1).map(Number);
    return Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>('.view-grid > .widget')].map((el) => {
        const [column, w] = read(el.style.gridColumn);
        const [row, h] = read(el.style.gridRow);
        return [el.dataset.widget, { x: column! - 1, y: row! - 1, w: w!, h: h! }];
      }),
    );
  });
}

/** The view's version and the layout of `media` as stored. */
async function stored(media = 'WEB'): Promise<{ version: number; widgets: Widget[] }> {
  const r = await t.graphql<any>(
    `query($m: [AssetProfileViewLayoutMediaType!]) { assetProfiles { byId(profile: "well") {
      viewConfiguration(id: "operations") { version layouts(mediaTypes: $m) { widgets { id name widget settings layout { x y w h } } } } } } }`,
    { m: [media] },
    demo,
  );
  const view = r.body.data.assetProfiles.byId.viewConfiguration;
  return { version: view.version, widgets: view.layouts[0].widgets };
}

const places = (widgets: Widget[]) => Object.fromEntries(widgets.map((w) => [w.id, w.layout]));

/** Saves a layout through the API, as another client would. */
async function putLayout(media: string, widgets: Widget[], ifVersion: number): Promise<void> {
  const r = await t.graphql<any>(
    `mutation($input: UpdateAssetProfileViewLayoutInput!) { updateAssetProfileViewLayout(input: $input) { errors { type message } } }`,
    { input: { profile: 'well', viewConfiguration: 'operations', mediaType: media, widgets, ifVersion } },
    demo,
  );
  expect(r.body.data.updateAssetProfileViewLayout.errors).toEqual([]);
}

/** Drags `handle` by whole cells of the grid with the mouse (pointer events), in steps. */
async function drag(page: Page, handle: Locator, columns: number, rows: number): Promise<void> {
  const cell = await page.evaluate(() => {
    const grid = document.querySelector<HTMLElement>('.view-grid')!;
    const style = getComputedStyle(grid);
    const gap = Number.parseFloat(style.columnGap);
    return { across: (grid.clientWidth + gap) / 12, down: Number.parseFloat(style.gridAutoRows) + gap };
  });
  const box = (await handle.boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + columns * cell.across, y + rows * cell.down, { steps: 10 });
  await page.mouse.up();
}

/** The ids of the well profile's assets under `filter`, in the API's order. */
async function ids(filter?: object): Promise<string[]> {
  const r = await t.graphql<any>(
    'query($f: AssetFilter) { assets(profile: "well") { all(first: 1000, filter: $f) { edges { node { id } } } } }',
    { f: filter },
    demo,
  );
  return r.body.data.assets.all.edges.map((e: any) => e.node.id);
}

describe('views and exports in the web console', () => {
  it(
    'draws a view by media type, edits its layout by drag, resize and keys, saves it and keeps it across a reload',
    async () => {
      const watched = await open('#/profiles/well/views');
      const { page } = watched;
      await expect.poll(() => heading(page).innerText(), { timeout: UI_TIMEOUT }).toBe('Views of Well');
      expect(await page.locator('#views tbody tr').count()).toBe(1);
      await audit(page, 'views list');
      await page.getByRole('link', { name: 'Well operations' }).click();
      await expect.poll(() => heading(page).innerText()).toBe('Well operations');
      const first = (await ids())[0]!;
      await shown(page, first);

      // Every widget where its layout puts it, drawn from the first well's data.
      const before = await stored();
      expect(await placed(page)).toEqual(places(before.widgets));
      const box = async (id: string) => (await page.locator(`[data-widget="${id}"]`).boundingBox())!;
      const [map, details, scada] = [await box('map'), await box('details'), await box('scada')];
      expect(Math.abs(map.y - details.y)).toBeLessThan(1);
      expect(details.x).toBeGreaterThan(map.x + map.width);
      expect(scada.y).toBeGreaterThan(map.y + map.height);
      expect(map.width / details.width).toBeCloseTo(2, 0);
      // The map: the well among every well of its layer, as many as the API counts.
      const wells = (await ids({ isDeleted: false })).length.toLocaleString('en');
      await expect
        .poll(() => page.locator('[data-widget="map"] canvas[role="img"]').getAttribute('aria-label'))
        .toMatch(
          new RegExp(
            `° N, .*° W; Status: [\\w-]+\\. In view at zoom \\d+: Wells by status: ${wells} assets( in \\d+ clusters \\(largest [\\d.k]+\\))?\\.$`,
          ),
        );
      expect(await page.locator('[data-widget="details"] th').allInnerTexts()).toContain('Status');
      expect(await page.locator('[data-widget="scada"] svg').first().getAttribute('aria-label')).toMatch(
        /^Casing pressure over the last 3 days: \d+ averages from [\d.]+ to [\d.]+, the last [\d.]+\.$/,
      );
      expect(await page.locator('[data-widget="equipment"] tbody tr').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-widget="issues"]').innerText()).toContain(
        'Casing pressure above threshold',
      );
      await audit(page, 'view, web');
      await screenshot(page, 'console-view-web.png', true);

      // The mobile layout, then back: the media type is part of the address.
      await page.getByRole('link', { name: 'Mobile' }).click();
      await expect.poll(() => new URL(page.url()).hash).toBe('#/profiles/well/views/operations?media=MOBILE');
      await shown(page, first);
      expect(await placed(page)).toEqual(places((await stored('MOBILE')).widgets));
      expect((await page.locator('.view-frame').boundingBox())!.width).toBeLessThan(450);
      await page.getByRole('link', { name: 'Web' }).click();
      await shown(page, first);

      // Edited: the map made narrower by its corner, the details dragged left by their title,
      // then widened from the keyboard.
      await page.getByRole('button', { name: 'Edit layout' }).click();
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Move Map');
      await audit(page, 'view, editing');
      await drag(page, page.getByRole('button', { name: 'Resize Map' }), -2, 0);
      await expect.poll(async () => (await placed(page)).map).toEqual({ x: 0, y: 0, w: 6, h: 6 });
      expect(await status(page)).toBe('Map: column 1, row 1, 6 columns by 6 rows.');
      await drag(page, page.locator('[data-widget="details"] h2'), -2, 0);
      await expect.poll(async () => (await placed(page)).details).toEqual({ x: 6, y: 0, w: 4, h: 6 });
      await page.getByRole('button', { name: 'Resize Details' }).focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await expect.poll(async () => (await placed(page)).details).toEqual({ x: 6, y: 0, w: 6, h: 6 });
      expect(await status(page)).toBe('Details: column 7, row 1, 6 columns by 6 rows.');
      // A move the keyboard makes pushes what it covers down, as a drag does.
      await page.getByRole('button', { name: 'Move Open issues' }).focus();
      await page.keyboard.press('ArrowUp');
      const edited = await placed(page);
      expect(edited.issues).toEqual({ x: 0, y: 9, w: 12, h: 3 });
      expect(edited.scada!.y).toBe(12);
      await page.keyboard.press('ArrowDown');
      const mine = {
        ...places(before.widgets),
        map: { x: 0, y: 0, w: 6, h: 6 },
        details: { x: 6, y: 0, w: 6, h: 6 },
      };
      expect(await placed(page)).toEqual(mine);
      expect(await state(page)).toBe('Unsaved changes to the web layout.');
      expect(await page.getByRole('link', { name: 'Web (unsaved)' }).count()).toBe(1);

      await page.getByRole('button', { name: 'Save layout' }).click();
      await expect
        .poll(() => status(page))
        .toBe(`Saved the web layout; the view is at version ${before.version + 1}.`);
      const after = await stored();
      expect(places(after.widgets)).toEqual(mine);
      // Only the places changed: names and settings went back as they were.
      expect(after.widgets.map(({ layout, ...rest }) => rest)).toEqual(
        before.widgets.map(({ layout, ...rest }) => rest),
      );
      await page.reload();
      await shown(page, first);
      expect(await placed(page)).toEqual(mine);
      expect(await state(page)).toBe(`Version ${after.version}.`);
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'saves over a change elsewhere in the view, and shows a conflicting one with nothing of the reader’s lost',
    async () => {
      const watched = await open('#/profiles/well/views/operations');
      const { page } = watched;
      const first = (await ids())[0]!;
      await shown(page, first);
      const base = await stored();

      // Another client changes the mobile layout meanwhile: not this one, so the save goes through.
      await page.getByRole('button', { name: 'Edit layout' }).click();
      await page.getByRole('button', { name: 'Resize Open issues' }).focus();
      await page.keyboard.press('ArrowUp');
      const mobile = await stored('MOBILE');
      await putLayout(
        'MOBILE',
        mobile.widgets.map((w) => ({ ...w, layout: { ...w.layout, h: w.layout.h + 1 } })),
        base.version,
      );
      await page.getByRole('button', { name: 'Save layout' }).click();
      await expect
        .poll(() => status(page))
        .toBe(`Saved the web layout; the view is at version ${base.version + 2}.`);
      expect(places((await stored()).widgets).issues).toEqual({ x: 0, y: 10, w: 12, h: 2 });

      // Now this very layout: the reader makes the issues narrower, another client moves the details.
      let now = await stored();
      await page.getByRole('button', { name: 'Edit layout' }).click();
      await page.getByRole('button', { name: 'Resize Open issues' }).focus();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      const mine = await placed(page);
      expect(mine.issues).toEqual({ x: 0, y: 10, w: 10, h: 2 });
      const theirs = now.widgets.map((w) =>
        w.id === 'details' ? { ...w, layout: { ...w.layout, y: 14 } } : w,
      );
      await putLayout('WEB', theirs, now.version);
      await page.getByRole('button', { name: 'Save layout' }).click();
      await expect.poll(() => heading(page).nth(0).innerText()).toBe('Well operations');
      const conflict = page.locator('#layout-conflict');
      await expect.poll(() => conflict.isVisible(), { timeout: UI_TIMEOUT }).toBe(true);
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('conflict-title');
      expect(await page.locator('#conflict-changes').innerText()).toBe('What they changed: Details moved.');
      expect(await conflict.innerText()).toContain(`it is now at version ${now.version + 1}`);
      // Nothing of the reader's is lost: their layout is still the one shown, still unsaved.
      expect(await placed(page)).toEqual(mine);
      expect(await state(page)).toBe('Unsaved changes to the web layout.');
      await audit(page, 'view, conflict');
      await screenshot(page, 'console-view-conflict.png');

      // Overwrite: the reader's layout is stored, over theirs.
      await page.getByRole('button', { name: 'Overwrite with my layout' }).click();
      await expect
        .poll(() => status(page))
        .toBe(`Saved the web layout; the view is at version ${now.version + 2}.`);
      expect(places((await stored()).widgets)).toEqual(mine);
      expect(await conflict.count()).toBe(0);

      // Again, and this time their layout loaded: the reader's is set aside, and comes back.
      now = await stored();
      await page.getByRole('button', { name: 'Edit layout' }).click();
      await page.getByRole('button', { name: 'Move Open issues' }).focus();
      await page.keyboard.press('ArrowRight');
      const mine2 = await placed(page);
      expect(mine2.issues).toEqual({ x: 1, y: 10, w: 10, h: 2 });
      const theirs2 = now.widgets.map((w) => (w.id === 'map' ? { ...w, layout: { ...w.layout, h: 5 } } : w));
      await putLayout('WEB', theirs2, now.version);
      await page.getByRole('button', { name: 'Save layout' }).click();
      await expect
        .poll(() => page.locator('#conflict-changes').innerText(), { timeout: UI_TIMEOUT })
        .toBe('What they changed: Map resized.');
      await page.getByRole('button', { name: 'Load their layout' }).click();
      await expect.poll(() => placed(page)).toEqual(places(theirs2));
      expect(await state(page)).toBe(`Version ${now.version + 1}.`);
      await page.getByRole('button', { name: 'Bring back my changes' }).click();
      expect(await placed(page)).toEqual(mine2);
      expect(await state(page)).toBe('Unsaved changes to the web layout.');
      await page.getByRole('button', { name: 'Save layout' }).click();
      await expect
        .poll(() => status(page))
        .toBe(`Saved the web layout; the view is at version ${now.version + 2}.`);
      expect(places((await stored()).widgets)).toEqual(mine2);
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'prints the printable layout alone, its widgets in flow at their widths',
    async () => {
      const watched = await open('#/profiles/well/views/operations?media=PRINTABLE');
      const { page } = watched;
      const first = (await ids())[0]!;
      await shown(page, first);
      expect(await placed(page)).toEqual(places((await stored('PRINTABLE')).widgets));
      expect(await page.getByRole('button', { name: 'Print' }).count()).toBe(1);
      await audit(page, 'view, printable');

      await page.emulateMedia({ media: 'print' });
      const hidden = await page.evaluate(() =>
        ['header.top', '.view-controls', '.messages', 'footer.bottom', '.crumbs'].map(
          (s) => getComputedStyle(document.querySelector(s)!).display,
        ),
      );
      expect(hidden).toEqual(['none', 'none', 'none', 'none', 'none']);
      const box = async (id: string) => (await page.locator(`[data-widget="${id}"]`).boundingBox())!;
      const [details, map, equipment] = [await box('details'), await box('map'), await box('equipment')];
      const grid = (await page.locator('.view-grid').boundingBox())!;
      // Details and map side by side, half the width each; the equipment below them, the whole width.
      expect(Math.abs(details.y - map.y)).toBeLessThan(1);
      expect(details.width / grid.width).toBeCloseTo(0.5, 1);
      expect(map.x).toBeGreaterThan(details.x + details.width - 1);
      expect(equipment.y).toBeGreaterThan(Math.max(details.y + details.height, map.y + map.height) - 1);
      expect(equipment.width / grid.width).toBeCloseTo(1, 1);
      // In flow: nothing cut off, every widget as tall as what it holds.
      const clipped = await page.evaluate(
        () =>
          [...document.querySelectorAll<HTMLElement>('.widget-body')].filter(
            (b) => b.scrollHeight > b.clientHeight + 1,
          ).length,
      );
      expect(clipped).toBe(0);
      await screenshot(page, 'console-view-print.png', true);
      const pdf = await page.pdf({ format: 'A4', printBackground: true });
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g)?.length ?? 0).toBeGreaterThanOrEqual(1);
      await page.emulateMedia({ media: 'screen' });
      expect(
        await page.evaluate(() => getComputedStyle(document.querySelector('header.top')!).display),
      ).not.toBe('none');
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'exports the filtered list as CSV and XLSX with its progress, the rows those of the filter, and cancels one',
    async () => {
      const watched = await open('#/profiles/well?filter=wells-producing');
      const { page } = watched;
      const producing = await ids({ isDeleted: false, property: { name: 'status', equals: 'producing' } });
      expect(producing.length).toBeGreaterThan(0);
      await expect
        .poll(() => page.locator('#summary').innerText(), { timeout: UI_TIMEOUT })
        .toBe(`Showing 1–${producing.length} of ${producing.length} assets · filter “Producing wells”`);
      const headers = ['id', 'displayName', 'status', 'facilityId', 'depth'];
      await audit(page, 'assets with the export');

      // CSV: the rows of the filter, the columns shown.
      const [csv] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      expect(csv.suggestedFilename()).toBe('Well – Producing wells.csv');
      const rows = parse(
        await (await csv.createReadStream()).toArray().then((c) => Buffer.concat(c)),
        {},
      ) as string[][];
      expect(rows[0]).toEqual(headers);
      expect(rows.slice(1).map((r) => r[0])).toEqual(producing);
      expect(rows.slice(1).every((r) => r[2] === 'producing')).toBe(true);
      await expect
        .poll(() => page.locator('#export-result').innerText())
        .toMatch(
          new RegExp(
            `^Exported ${producing.length} assets to Well – Producing wells\\.csv \\([\\d.]+ (kB|bytes)\\)\\.$`,
          ),
        );
      expect(await status(page)).toBe(await page.locator('#export-result').innerText());
      expect(await page.locator('.export-progress').isHidden()).toBe(true);

      // XLSX, every property.
      await page.getByLabel('Every property, not only the columns shown').check();
      const [xlsx] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export XLSX' }).click(),
      ]);
      expect(xlsx.suggestedFilename()).toBe('Well – Producing wells.xlsx');
      const book = new ExcelJS.Workbook();
      await book.xlsx.read(await xlsx.createReadStream());
      const sheet = book.worksheets[0]!;
      const values = sheet.getSheetValues().slice(1) as unknown[][];
      expect(values[0]!.slice(1, 3)).toEqual(['id', 'displayName']);
      expect(values[0]!.length).toBeGreaterThan(headers.length + 1);
      expect(values.slice(1).map((r) => r[1])).toEqual(producing);

      // A slow link: the progress shows as the file comes, and Cancel stops it, with no file.
      await page.getByLabel('Every property, not only the columns shown').uncheck();
      await page.getByRole('link', { name: 'No saved filter' }).click();
      const all = await ids();
      await expect
        .poll(() => page.locator('#summary').innerText())
        .toBe(`Showing 1–${all.length} of ${all.length} assets`);
      slowExports = true;
      let downloads = 0;
      page.on('download', () => downloads++);
      await page.getByRole('button', { name: 'Export CSV' }).click();
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('export-cancel');
      await expect
        .poll(() => page.locator('#export-text').innerText(), { timeout: UI_TIMEOUT })
        .toMatch(new RegExp(`^[\\d.]+ (bytes|kB), ([3-9]|1\\d) of ${all.length} rows$`));
      expect(await page.locator('#export-label').innerText()).toBe('Exporting Well.csv');
      const bar = await page
        .locator('#export-bar')
        .evaluate((p: HTMLProgressElement) => ({ value: p.value, max: p.max }));
      expect(bar.max).toBe(all.length);
      expect(bar.value).toBeLessThan(all.length);
      await screenshot(page.locator('section.export'), 'console-export.png');
      await page.getByRole('button', { name: 'Cancel export' }).click();
      await expect.poll(() => page.locator('#export-result').innerText()).toBe('Export cancelled.');
      expect(await page.locator('.export-progress').isHidden()).toBe(true);
      slowExports = false;
      await page.waitForTimeout(500);
      expect(downloads).toBe(0);
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'draws a view’s map widget from the server’s clusters: every asset of a profile of thousands counted',
    async () => {
      // 3,000 meters on a grid around Calgary, and a view of them whose one widget is a map.
      const db = t.database.db;
      await sql`insert into asset_profiles (user_group, profile, title, owner_username, definition)
        values ('demo', 'meter', 'Meter', 'demo',
          '{"displayNameProperty": "name", "properties": [{"name": "name", "type": "STRING"}]}'::jsonb)`.execute(
        db,
      );
      await sql`insert into assets (user_group, profile, id, properties, geometry, display_name)
        select 'demo', 'meter', m.id, jsonb_build_object('name', m.id),
          jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(-114.5 + (i % 60) * 0.02, 50.6 + (i / 60) * 0.015)),
          m.id
        from generate_series(0, ${METERS - 1}) as i, lateral (select 'M-' || lpad(i::text, 4, '0') as id) as m`.execute(
        db,
      );
      const view = await api(
        `mutation($map: AssetProfileViewMapInput, $widgets: [AssetProfileViewWidgetInput!]!) {
          v: updateAssetProfileViewConfiguration(input: { profile: "meter", id: "grid", name: "Meter grid", map: $map }) { errors { message } }
          l: updateAssetProfileViewLayout(input: { profile: "meter", viewConfiguration: "grid", mediaType: WEB, widgets: $widgets }) { errors { message } }
        }`,
        {
          map: { layers: [{ id: 'meters', name: 'Meters' }] },
          widgets: [
            {
              id: 'map',
              name: 'Map',
              widget: 'map',
              settings: { layers: ['meters'] },
              layout: { x: 0, y: 0, w: 8, h: 6 },
            },
          ],
        },
      );
      expect([view.v.errors, view.l.errors]).toEqual([[], []]);

      const watched = await open('#/profiles/meter/views/grid');
      const { page } = watched;
      await expect.poll(() => heading(page).innerText(), { timeout: UI_TIMEOUT }).toBe('Meter grid');
      await shown(page, 'M-0000');

      // What the API answers for the widget's extent: the box around every meter, fitted.
      const total = (await api('{ assets(profile: "meter") { all(first: 0) { totalCount } } }')).assets.all
        .totalCount;
      expect(total).toBe(METERS);
      const world = await api(
        `{ assets(profile: "meter") { mapViewport(bbox: [${WORLD.join(', ')}], zoom: 0, limit: 1) { clusters { bbox } } } }`,
      );
      const at = widgetPosition(world.assets.mapViewport.clusters[0].bbox, [-114.5, 50.6, -114.5, 50.6]);
      const answer = (
        await api(
          `query($bbox: [Float!]!, $zoom: Int!) { assets(profile: "meter") {
            mapViewport(bbox: $bbox, zoom: $zoom, limit: ${VIEWPORT_LIMIT}) { count clustered clusters { count } } } }`,
          { bbox: viewportBbox(at, WIDGET_MAP.width, WIDGET_MAP.height), zoom: at.zoom },
        )
      ).assets.mapViewport;
      expect(answer).toMatchObject({ count: METERS, clustered: true });
      const counts: number[] = answer.clusters.map((c: { count: number }) => c.count);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(METERS);
      const words = `M-0000 at ${formatPosition([-114.5, 50.6])}. In view at zoom ${at.zoom}: Meters: 3,000 assets in ${counts.length} clusters (largest ${compact(Math.max(...counts))}).`;
      const map = page.locator('[data-widget="map"]');
      expect(await map.locator('figcaption').innerText()).toBe(words);
      expect(await map.locator('canvas[role="img"]').getAttribute('aria-label')).toBe(words);
      // Drawn: the clusters' colour on the canvas, over its background.
      const drawn = await map.locator('canvas').evaluate((canvas) => {
        const c = canvas as HTMLCanvasElement;
        const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
        let clustered = 0;
        for (let i = 0; i < data.length; i += 4)
          if (
            Math.abs(data[i]! - 0x0b) < 30 &&
            Math.abs(data[i + 1]! - 0x5c) < 30 &&
            Math.abs(data[i + 2]! - 0xad) < 30
          )
            clustered += 1;
        return clustered;
      });
      expect(drawn).toBeGreaterThan(counts.length * 100);
      await audit(page, 'view with a clustered map');
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );
});
