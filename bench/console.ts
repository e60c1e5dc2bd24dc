/**
 * The web console in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core),
 * against the built service (issue #40):
 * - the demo profile list's first paint: from the navigation to `/console#/profiles` to its table
 *   drawn (the group's profiles asked; their counts follow), with a cold and a warm browser cache;
 * - a profile of 100,000 wells (`assetql demo generate`) with the demo's map view (its layers
 *   and colours): the map's first draw, from the navigation to the first answer drawn, and pans
 *   answered at three zoom levels, from the arrow key's press to the new viewport drawn, with
 *   the request's own part beside it.
 * The console marks each viewport asked and drawn (`performance.mark`), so the times are the
 * page's own clock.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_VIEWS } from '../src/demo/views.ts';
import { SESSION_COOKIE } from '../src/shared/session-policy.ts';
import { launchChromium } from '../test/helpers/browser.ts';
import { graphql, median, percentile, type Server, signedInUser, startServer } from './lib.ts';

export interface PanFigure {
  zoom: number;
  runs: number;
  /** Key pressed to the new viewport drawn, ms. */
  p50: number;
  p95: number;
  /** Request sent to its answer drawn, ms (median). */
  requestP50: number;
  /** Whether the viewport was answered in clusters (at the last pan). */
  clustered: boolean;
  inView: number;
}

export interface ConsoleBenchResult {
  engine: string;
  assets: number;
  profileList: { runs: number; coldMs: number; warmMs: number };
  map: { firstDrawMs: number; firstRequestMs: number; inView: number; clusters: number };
  pans: PanFigure[];
  /** Page errors, console errors and refused requests: none in a healthy run. */
  problems: string[];
}

const GROUP = 'bench';
const step = (what: string) => process.stderr.write(`bench: console: ${what}\n`);

export async function consoleBench(options: {
  quick: boolean;
  smoke?: boolean;
}): Promise<ConsoleBenchResult> {
  const postgres = Boolean(process.env.DATABASE_URL);
  const n = options.smoke ? 300 : options.quick ? 20_000 : 100_000;
  const loads = options.smoke ? 2 : options.quick ? 4 : 8;
  const pans = options.smoke ? 2 : options.quick ? 6 : 12;
  const server = await startServer({});
  let browser: Browser | undefined;
  try {
    step(`generating ${n} wells`);
    await server.cli(['demo', 'generate', '--assets', String(n), '--group', GROUP]);
    const bencher = await signedInUser(server, GROUP);
    // The demo's map view of wells: centred on the basin at zoom 5, wells coloured by status.
    const operations = DEMO_VIEWS.find((v) => v.profile === 'well' && v.map)!;
    const saved = await graphql(
      server.url,
      `mutation($input: UpdateAssetProfileViewConfigurationInput!) {
        updateAssetProfileViewConfiguration(input: $input) { errors { message } } }`,
      { input: { profile: 'well', id: operations.id, name: operations.name, map: operations.map } },
      { 'x-svc-sessionid': bencher },
    );
    const refused = saved.body.data?.updateAssetProfileViewConfiguration?.errors ?? saved.body.errors;
    if (refused?.length) throw new Error(`the map view was not saved: ${JSON.stringify(refused)}`);
    const demo = await demoSession(server);

    browser = await launchChromium('the console benchmark');
    const problems: string[] = [];
    step('the demo profile list');
    const list = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signedIn(list, server, demo);
    const paints: number[] = [];
    for (let i = 0; i < loads; i++) paints.push(await profileListPaint(list, server, problems));
    await list.close();

    step('the map');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await signedIn(context, server, bencher);
    const page = await watched(context, problems, server);
    await page.goto(`${server.url}/console#/profiles/well/map`, { waitUntil: 'commit' });
    await drawn(page, 0);
    const first = await page.evaluate(() => ({
      drawn: performance.getEntriesByName('assetql:map-drawn')[0]!.startTime,
      asked: performance.getEntriesByName('assetql:map-request')[0]!.startTime,
    }));
    const firstView = await inView(page);
    const figures: PanFigure[] = [];
    await page.locator('.map-frame').focus();
    await page.evaluate(() => {
      const w = window as unknown as { keyAt: number };
      document.querySelector('.map-frame')!.addEventListener('keydown', (e) => {
        w.keyAt = e.timeStamp;
      });
    });
    for (const [zoomIn, zoom] of [
      [0, 5],
      [3, 8],
      [3, 11],
    ] as const) {
      for (let i = 0; i < zoomIn; i++) await press(page, '+');
      step(`pans at zoom ${zoom}`);
      const totals: number[] = [];
      const requests: number[] = [];
      for (let i = 0; i < pans; i++) {
        const t = await press(page, i % 2 ? 'ArrowLeft' : 'ArrowRight');
        totals.push(t.total);
        requests.push(t.request);
      }
      totals.sort((a, b) => a - b);
      const view = await inView(page);
      figures.push({
        zoom,
        runs: pans,
        p50: round(percentile(totals, 50)),
        p95: round(percentile(totals, 95)),
        requestP50: round(median(requests)),
        clustered: view.clustered,
        inView: view.count,
      });
    }
    await context.close();
    return {
      engine: postgres ? 'postgres' : 'pglite',
      assets: n,
      profileList: { runs: loads, coldMs: round(paints[0]!), warmMs: round(median(paints.slice(1))) },
      map: {
        firstDrawMs: round(first.drawn),
        firstRequestMs: round(first.drawn - first.asked),
        inView: firstView.count,
        clusters: firstView.clusters,
      },
      pans: figures,
      problems,
    };
  } finally {
    await browser?.close();
    await server.close();
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

/** The demo user's session, in group demo (the demo tenant the server loaded). */
async function demoSession(server: Server): Promise<string> {
  const r = await graphql(
    server.url,
    'mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type } } }',
  );
  const id = r.headers.get('x-svc-sessionid');
  if (!id) throw new Error(`the demo sign-in failed: ${JSON.stringify(r.body)}`);
  return id;
}

/** The browser holds the session's cookie, as after signing in through the console. */
async function signedIn(context: BrowserContext, server: Server, sessionId: string): Promise<void> {
  await context.addCookies([
    { name: SESSION_COOKIE, value: sessionId, url: server.url, httpOnly: true, sameSite: 'Lax' },
  ]);
}

/** A page whose errors, and requests to anywhere but the server, are noted as problems. */
async function watched(context: BrowserContext, problems: string[], server: Server): Promise<Page> {
  const page = await context.newPage();
  const origin = new URL(server.url).origin;
  page.on('pageerror', (e) => problems.push(`page: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`request elsewhere: ${r.url()}`);
  });
  return page;
}

/** Navigation to the profiles table drawn, ms, by the page's clock. */
async function profileListPaint(
  context: BrowserContext,
  server: Server,
  problems: string[],
): Promise<number> {
  const page = await watched(context, problems, server);
  await page.goto(`${server.url}/console#/profiles`, { waitUntil: 'commit' });
  const at = await page.waitForFunction(
    () => (document.querySelector('#profiles tbody tr') ? performance.now() : null),
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  const ms = (await at.jsonValue()) as number;
  await page.close();
  return ms;
}

/** Waits for the map's draw after the `before`-th. */
async function drawn(page: Page, before: number): Promise<void> {
  await page.waitForFunction((n) => performance.getEntriesByName('assetql:map-drawn').length > n, before, {
    polling: 'raf',
    timeout: 30_000,
  });
}

/** Presses `key` on the map and waits for its viewport drawn: key to drawn, and the request's part. */
async function press(page: Page, key: string): Promise<{ total: number; request: number }> {
  const before = await page.evaluate(() => performance.getEntriesByName('assetql:map-drawn').length);
  await page.keyboard.press(key);
  await drawn(page, before);
  // Apart by more than a step's debounce (40 ms), so that each key asks at once, as one press does.
  await page.waitForTimeout(80);
  return page.evaluate(() => {
    const last = (name: string) => performance.getEntriesByName(name).at(-1)!.startTime;
    const keyAt = (window as unknown as { keyAt: number }).keyAt;
    return {
      total: last('assetql:map-drawn') - keyAt,
      request: last('assetql:map-drawn') - last('assetql:map-request'),
    };
  });
}

/** What the map's summary says it shows. */
async function inView(page: Page): Promise<{ count: number; clusters: number; clustered: boolean }> {
  const text = await page.locator('#map-summary').innerText();
  const m = /: ([\d,]+) assets?(?: in (\d+) clusters)?/.exec(text);
  return {
    count: Number((m?.[1] ?? '0').replaceAll(',', '')),
    clusters: Number(m?.[2] ?? 0),
    clustered: Boolean(m?.[2]),
  };
}

export function consoleMarkdown(r: ConsoleBenchResult): string {
  const f = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '–' : `${x} ms`);
  return [
    `### Console in headless Chromium (${r.engine}, ${r.assets.toLocaleString('en')} wells)`,
    '',
    '| what | figure | target |',
    '|---|---|---|',
    `| demo profile list, navigation to the table drawn, cold cache | ${f(r.profileList.coldMs)} | < 1 s |`,
    `| the same, warm cache (median of ${r.profileList.runs - 1}) | ${f(r.profileList.warmMs)} | < 1 s |`,
    `| map of the wells, navigation to the first viewport drawn (${r.map.inView.toLocaleString('en')} wells in ${r.map.clusters} clusters) | ${f(r.map.firstDrawMs)} | < 1 s |`,
    `| its viewport's request, sent to drawn | ${f(r.map.firstRequestMs)} | |`,
    ...r.pans.map(
      (p) =>
        `| pan at zoom ${p.zoom} (${p.inView.toLocaleString('en')} wells in view, ${p.clustered ? 'clustered' : 'one by one'}), key to drawn, p50 / p95 of ${p.runs} (request alone, p50) | ${f(p.p50)} / ${f(p.p95)} (${f(p.requestP50)}) | < 200 ms |`,
    ),
    '',
  ].join('\n');
}
