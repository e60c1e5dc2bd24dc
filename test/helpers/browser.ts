// Debian's Chromium driven by playwright-core, for the tests of the pages the gateway serves (the
// explorer, the console): found or named as missing, started headless with nothing of its own
// going to the network, and axe-core run in a page to find its accessibility faults. A console
// page is watched while a test drives it (every request, the GraphQL documents it sends, its event
// streams, its errors and CSP refusals) and checked when the test is done with it.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
  type Request,
} from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Starts Chromium, or fails naming it and its package when the machine has none. */
export async function launchChromium(forWhat: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}; ${forWhat} needs it. Install it with: ` +
        'apt-get update && apt-get install -y chromium',
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/** One accessibility fault axe found, as a failing test prints it. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

let axeSource: string | undefined;

/**
 * The serious and critical faults axe-core finds in the page as it is now. Its source goes in
 * through the DevTools protocol (`page.evaluate`), which no page CSP stops: a strict CSP refuses
 * an injected script tag, as it should.
 */
export async function axeFaults(page: Page): Promise<AxeFinding[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<any> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as any[]).map((v) => ({
      id: v.id as string,
      impact: (v.impact ?? null) as string | null,
      help: v.help as string,
      targets: (v.nodes as any[]).map((n) => String(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Fails on any serious or critical accessibility fault of the screen shown. */
export async function audit(page: Page, screen: string): Promise<void> {
  expect(await axeFaults(page), `axe on ${screen}`).toEqual([]);
}

/** A page in a browser context of its own, and what it did that a test checks. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** The server's origin: every request must go there. */
  origin: string;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** The GraphQL documents the page posted to the API, in order. */
  documents: string[];
  /** Errors on the page's console (a CSP refusal among them) and errors it did not catch. */
  problems: string[];
  /** The event streams the page has open now. */
  streams: Set<Request>;
  /** The most event streams the page had open at once. */
  mostStreams: number;
  /** The `after` each event stream was opened with, in order. */
  resumedAfter: (string | null)[];
}

/** The variables and document of a GraphQL request's body, or null when it has none. */
function graphqlBody(request: Request): { query?: string; variables?: { after?: string | null } } | null {
  const body = request.postData();
  if (!body) return null;
  try {
    return JSON.parse(body) as { query?: string; variables?: { after?: string | null } };
  } catch (e) {
    if (e instanceof SyntaxError) return null;
    throw e;
  }
}

/** A new browser context and page (1280 × 900 unless `options` say otherwise), watched. */
export async function watchPage(
  browser: Browser,
  origin: string,
  options: BrowserContextOptions = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  const watched: WatchedPage = {
    page,
    context,
    origin,
    requests: [],
    documents: [],
    problems: [],
    streams: new Set(),
    mostStreams: 0,
    resumedAfter: [],
  };
  page.on('request', (request) => {
    watched.requests.push(request.url());
    if (request.method() !== 'POST' || request.url() !== `${origin}/api/graphql`) return;
    const body = graphqlBody(request);
    if (body?.query) watched.documents.push(body.query);
    if (request.headers().accept === 'text/event-stream') {
      watched.streams.add(request);
      watched.mostStreams = Math.max(watched.mostStreams, watched.streams.size);
      watched.resumedAfter.push(body?.variables?.after ?? null);
    }
  });
  const ended = (request: Request) => watched.streams.delete(request);
  page.on('requestfailed', ended);
  page.on('requestfinished', ended);
  page.on('console', (m) => {
    if (m.type() === 'error') watched.problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => watched.problems.push(`page: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP ${e.violatedDirective} refused ${e.blockedURI}`),
    );
  });
  return watched;
}

/** A watched page of the console at `hash`, signed in (as demo unless told). */
export async function openConsole(
  browser: Browser,
  origin: string,
  hash: string,
  options: BrowserContextOptions & { username?: string; password?: string } = {},
): Promise<WatchedPage> {
  const { username = 'demo', password = 'demo', ...contextOptions } = options;
  const watched = await watchPage(browser, origin, contextOptions);
  const { page } = watched;
  await page.goto(`${origin}/console${hash}`, { waitUntil: 'load' });
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return watched;
}

/**
 * After a test: nothing left the origin (a `data:` URL is the page's own), the page talked to the
 * API, and nothing failed; then its context is closed.
 */
export async function closeWatched(watched: WatchedPage): Promise<void> {
  const elsewhere = watched.requests.filter(
    (url) => !url.startsWith('data:') && new URL(url).origin !== watched.origin,
  );
  expect(elsewhere).toEqual([]);
  expect(watched.requests).toContain(`${watched.origin}/api/graphql`);
  expect(watched.problems).toEqual([]);
  await watched.context.close();
}
