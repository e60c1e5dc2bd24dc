// The console's asset page and live updates in a real headless Chromium, on the demo tenant: an
// asset opened from the table shows its properties with their definitions and units, its latest
// readings with their times, its relationships (followed both ways, by mouse and by keyboard),
// its issues, its history a page at a time, and a chart of a reading whose resolution and
// aggregate the reader changes. Changes made through the API by another client show up live in
// an open table and on an open asset page, also after the connection dropped (resumed from the
// last cursor); the page's one stream closes when the page is left and at sign-out. Every request
// goes to the server's origin, nothing breaks the CSP, and axe-core finds no serious or critical
// fault.
//
// Needs Chromium at /usr/bin/chromium (Debian: `apt-get install -y chromium`). With
// ASSETQL_SCREENSHOTS=1 it writes the asset page's screenshot to docs/images/.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { audit, closeWatched, launchChromium, openConsole } from '../helpers/browser.ts';

const UI_TIMEOUT = 10_000;
const TEST_TIMEOUT = 60_000;
const WELL = 'W-100-1-1';

let t: TestApp;
let server: Listening | undefined;
let browser: Browser | undefined;
let origin: string;
/** Headers of another client of the demo group, writing through the API. */
let demo: Record<string, string>;

beforeAll(async () => {
  browser = await launchChromium('the console asset page e2e test');
  t = await startTestApp();
  await seedDemo(t.database.db, t.config);
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
const open = (hash: string) => openConsole(browser!, origin, hash, { timezoneId: 'UTC' });

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();
const live = (page: Page) => page.locator('#live-status').innerText();
const cell = (page: Page, selector: string) => page.locator(selector).innerText();
/** A depth as the console shows it (the browser's locale is en-US). */
const m = (metres: number) => `${metres.toLocaleString('en-US')} m`;

async function api<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const r = await t.graphql<any>(query, variables, demo);
  expect(r.body.errors).toBeUndefined();
  return r.body.data as T;
}

async function asset(profile: string, id: string): Promise<any> {
  const data = await api(
    `query($p: ID!, $id: ID!) { assets(profile: $p) { byId(id: $id) {
      id displayName properties latestObservations { property value at }
      related(relationship: "facility") { ... on AssetRelationshipOne { asset { id displayName } } }
    } } }`,
    { p: profile, id },
  );
  return data.assets.byId;
}

/** Writes `change` over an asset's properties, as another client would. */
async function write(profile: string, id: string, change: Record<string, unknown>): Promise<void> {
  const { properties } = await asset(profile, id);
  const data = await api(
    `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { updated errors { type message } } }`,
    { input: { profile, assets: [{ id, properties: { ...properties, ...change } }] } },
  );
  expect(data.upsertAssets).toEqual({ updated: 1, errors: [] });
}

describe('the console’s asset page', () => {
  it(
    'opens an asset from the table: properties, readings, relationships both ways, issues, history, a chart',
    async () => {
      const watched = await open('#/profiles/well?size=10');
      const { page } = watched;
      const well = await asset('well', WELL);
      await page.getByRole('link', { name: well.displayName, exact: true }).click({ timeout: UI_TIMEOUT });
      await expect.poll(() => heading(page), { timeout: UI_TIMEOUT }).toBe(well.displayName);
      expect(new URL(page.url()).hash).toBe(`#/profiles/well/assets/${WELL}`);
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

      // Properties, with their definitions and units.
      await expect
        .poll(() => cell(page, '#properties tr[data-property="depth"] td:nth-child(2)'))
        .toBe(m(well.properties.depth));
      expect(await cell(page, '#properties tr[data-property="depth"] th')).toMatch(/^Total depth\s+depth$/);
      expect(await cell(page, '#properties tr[data-property="depth"] td:nth-child(3)')).toBe('Number in m.');
      expect(await cell(page, '#properties tr[data-property="status"] td:nth-child(3)')).toBe(
        'One of drilling, producing, shut-in, abandoned.',
      );
      expect(await cell(page, '#properties tr[data-property="name"] td:nth-child(3)')).toBe(
        'Text; required.',
      );

      // The latest readings, with the time each was read.
      const pressure = well.latestObservations.find((o: any) => o.property === 'casingPressure');
      const reading = page.locator('#readings tr[data-reading="casingPressure"]');
      expect(await reading.locator('td').first().innerText()).toBe(String(pressure.value));
      expect(await reading.locator('time').getAttribute('datetime')).toBe(pressure.at);
      expect(await reading.locator('.secondary').innerText()).toBe('1 hour ago');

      // Its issue, and its history: created, then its status changed, by the demo loader.
      expect(await page.locator('#issues li').innerText()).toMatch(/^Open\s+Casing pressure above threshold/);
      const history = page.locator('#history tbody tr');
      await expect.poll(() => history.count()).toBe(2);
      expect(await history.nth(0).innerText()).toMatch(
        /Updated\s+version 2\s+assetql demo \(assetql\)\s+Status: drilling\s*→\s*changed to\s*producing/,
      );
      expect(await history.nth(1).locator('td').first().innerText()).toMatch(/^Created/);
      expect(await history.nth(1).innerText()).toContain(`Name: ${well.properties.name}`);
      expect(await page.locator('#history-summary').innerText()).toBe(
        'Changes 1–2, newest first (the oldest is the last)',
      );

      // The chart: a week of hourly averages, then daily highs.
      const caption = () => cell(page, '#chart-caption');
      await expect.poll(caption).toBe('Average of casingPressure, per 1 hour, last 7 days');
      expect(await page.locator('svg.chart path.line').getAttribute('d')).toMatch(/^M[\d.]+ [\d.]+ L/);
      expect(await page.locator('svg.chart').getAttribute('role')).toBe('img');
      await page.getByLabel('Resolution').selectOption('1d');
      await expect.poll(caption).toBe('Average of casingPressure, per 1 day, last 7 days');
      await page.getByLabel('Each bucket’s').selectOption('MAX');
      await expect.poll(caption).toBe('Highest of casingPressure, per 1 day, last 7 days');
      // Each whole day's highest reading, as the API gives it for the same days.
      await page.getByText('The chart’s numbers').click();
      const rows = page.locator('.chart-data tbody tr');
      expect(await rows.count()).toBeGreaterThanOrEqual(7);
      const withReadings = (await rows.locator('td:last-child').allInnerTexts()).filter((v) => v !== '—');
      expect(await page.locator('svg.chart circle').count()).toBe(withReadings.length);
      const days = await api(
        `query($from: DateTime!, $to: DateTime!) { assets(profile: "well") { byId(id: "${WELL}") {
          observationSeries(property: "casingPressure", from: $from, to: $to, resolution: "1d", aggregates: [MAX]) {
            buckets { start max } } } } }`,
        {
          from: `${new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`,
          to: `${new Date().toISOString().slice(0, 10)}T00:00:00Z`,
        },
      );
      const expected = days.assets.byId.observationSeries.buckets as { start: string; max: number }[];
      expect(expected.length).toBe(6);
      for (const day of expected) {
        const row = rows.filter({ has: page.locator(`time[datetime="${day.start}"]`) });
        expect(await row.locator('td').last().innerText()).toBe(String(day.max));
      }
      await audit(page, 'asset page');
      if (process.env.ASSETQL_SCREENSHOTS === '1') {
        mkdirSync('docs/images', { recursive: true });
        await page.getByText('The chart’s numbers').click();
        writeFileSync('docs/images/console-asset.png', await page.screenshot({ fullPage: true }));
      }

      // Its facility, and back from the facility's wells: by mouse, then by keyboard.
      const facility = well.related.asset;
      await page.getByRole('link', { name: facility.displayName, exact: true }).click();
      await expect.poll(() => heading(page)).toBe(facility.displayName);
      expect(new URL(page.url()).hash).toBe(`#/profiles/facility/assets/${facility.id}`);
      const wells = page.locator('#related').getByRole('list', { name: /^wells/ });
      await expect.poll(() => wells.getByRole('link').count()).toBeGreaterThan(1);
      const back = wells.getByRole('link', { name: well.displayName, exact: true });
      for (let i = 0; i < 80 && !(await back.evaluate((a) => a === document.activeElement)); i++)
        await page.keyboard.press('Tab');
      expect(await back.evaluate((a) => a === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => heading(page)).toBe(well.displayName);
      await expect.poll(() => history.count()).toBe(2);

      // The browser's Back returns to the facility.
      await page.goBack();
      await expect.poll(() => heading(page)).toBe(facility.displayName);
      await audit(page, 'a facility’s page');
      expect(watched.mostStreams).toBe(1);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => heading(page)).toBe('Sign in');
      await expect.poll(() => watched.streams.size).toBe(0);
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'pages the history both ways',
    async () => {
      const id = 'W-100-1-2';
      const { properties } = await asset('well', id);
      const { version } = (await api(`{ assets(profile: "well") { byId(id: "${id}") { version } } }`)).assets
        .byId;
      for (let i = 1; i <= 11; i++) await write('well', id, { depth: properties.depth + i });
      const changes = version + 11;
      const watched = await open(`#/profiles/well/assets/${id}`);
      const { page } = watched;
      const summary = () => cell(page, '#history-summary');
      await expect.poll(summary, { timeout: UI_TIMEOUT }).toBe('Changes 1–10, newest first');
      const first = page.locator('#history tbody tr').first();
      expect(await first.innerText()).toMatch(
        new RegExp(`Updated\\s+version ${changes}\\s+demo\\s+Total depth: ${m(properties.depth + 10)}\\s*→`),
      );
      const newer = page.getByRole('button', { name: 'Newer changes' });
      const older = page.getByRole('button', { name: 'Older changes' });
      expect(await newer.isDisabled()).toBe(true);
      await older.click();
      await expect.poll(summary).toBe(`Changes 11–${changes}, newest first (the oldest is the last)`);
      expect(await page.locator('#history tbody tr').last().innerText()).toMatch(/^.*\s+Created/);
      // The last page: the keyboard goes to the other button.
      expect(await older.isDisabled()).toBe(true);
      expect(await newer.evaluate((b) => b === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(summary).toBe('Changes 1–10, newest first');
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'shows another client’s changes live in an open table and an open asset page, also after the connection dropped',
    async () => {
      const watched = await open('#/profiles/well?size=10');
      const { page } = watched;
      await expect
        .poll(() => live(page), { timeout: UI_TIMEOUT })
        .toBe('Live: changes show as they are made.');
      const id = 'W-100-1-3';
      const row = page.locator(`#assets tr[data-id="${id}"]`);
      const status = () => row.locator('td:nth-child(3)').innerText();
      const before = await status();
      const next = before === 'shut-in' ? 'producing' : 'shut-in';
      await write('well', id, { status: next });
      await expect.poll(status, { timeout: UI_TIMEOUT }).toBe(next);
      await expect.poll(() => row.getAttribute('class')).toBe('changed');
      await expect.poll(() => cell(page, '#status')).toBe('1 asset changed; 1 on this page, marked.');
      await audit(page, 'assets, changed live');

      // The asset's page: its own stream (the table's closed), which a change reaches.
      await row.getByRole('link').click();
      const { displayName, properties } = await asset('well', id);
      await expect.poll(() => heading(page)).toBe(displayName);
      await expect.poll(() => live(page)).toBe('Live: changes show as they are made.');
      await expect.poll(() => watched.streams.size).toBe(1);
      expect(watched.mostStreams).toBe(1);
      const depth = () => cell(page, '#properties tr[data-property="depth"] td:nth-child(2)');
      await write('well', id, { depth: properties.depth + 5 });
      await expect.poll(depth, { timeout: UI_TIMEOUT }).toBe(m(properties.depth + 5));
      await expect
        .poll(() => cell(page, '#status'))
        .toBe('This asset changed. Updated by demo: Total depth.');
      expect(await page.locator('#history tbody tr').first().innerText()).toMatch(
        new RegExp(
          `Updated\\s+version \\d+\\s+demo\\s+Total depth: ${m(properties.depth)}\\s*→\\s*changed to\\s*${m(properties.depth + 5)}`,
        ),
      );

      // The connection drops (the server cuts every connection); a change made meanwhile arrives
      // once the console is back, resumed after the last change it read.
      const last = await api(
        `{ changes(filter: { entities: [ASSET], profiles: ["well"], ids: ["${id}"] }, first: 1) { edges { cursor } } }`,
      );
      const opened = watched.resumedAfter.length;
      server!.server.closeAllConnections();
      await write('well', id, { depth: properties.depth + 7 });
      await expect.poll(depth, { timeout: 40_000 }).toBe(m(properties.depth + 7));
      expect(watched.resumedAfter.slice(opened)[0]).toBe(last.changes.edges[0].cursor);
      await expect.poll(() => live(page)).toBe('Live: changes show as they are made.');
      // The cut stream as the browser reports it; nothing else went wrong.
      watched.problems = watched.problems.filter(
        (p) => !/ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_EMPTY_RESPONSE/.test(p),
      );
      expect(watched.mostStreams).toBe(1);

      // Leaving the page closes its stream.
      await page.goto(`${origin}/console#/profiles`);
      await expect.poll(() => heading(page)).toBe('Asset profiles');
      await expect.poll(() => watched.streams.size).toBe(0);
      await closeWatched(watched);
    },
    TEST_TIMEOUT * 2,
  );
});
