// The query explorer in a real headless Chromium: GraphiQL loads from this origin only
// (no CDN) under the page's CSP, runs queries, and sends the session either as the
// `x-svc-sessionid` header (typed into the bar) or as the `svc_sessionid` cookie.
//
// Needs Chromium at /usr/bin/chromium (Debian: `apt-get install -y chromium`).
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listening, listen } from '../../src/server/listen.ts';
import { SESSION_COOKIE } from '../../src/shared/session-policy.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const EXPLORER = '/plugins/sr/apolloGraphql';
const GRAPHQL = '/api/graphql';
const SESSION_QUERY = '{ session { authenticated username userGroup } }';
const UI_TIMEOUT = 20_000;
const TEST_TIMEOUT = 40_000;

let t: TestApp | undefined;
let server: Listening | undefined;
let browser: Browser | undefined;
let origin: string;

/** Everything the pages of this file did, for the no-CDN / no-CSP-violation checks. */
const seen = { urls: [] as string[], consoleErrors: [] as string[], pageErrors: [] as string[] };

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}; the explorer e2e test needs it. Install it with: ` +
        'apt-get update && apt-get install -y chromium',
    );
  }
  t = await startTestApp();
  server = await listen(t.handle, 0, '127.0.0.1');
  origin = new URL(server.url).origin;
  browser = await chromium.launch({
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
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close(500);
  await t?.close();
});

async function newContext(): Promise<BrowserContext> {
  if (!browser) throw new Error('Chromium did not start');
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.on('request', (request) => seen.urls.push(request.url()));
  return context;
}

/** Opens the explorer (optionally with `?query=`) and waits for GraphiQL's query editor. */
async function openExplorer(context: BrowserContext, query?: string) {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') seen.consoleErrors.push(`${message.text()} @ ${message.location().url}`);
  });
  page.on('pageerror', (error) => seen.pageErrors.push(error.message));
  // CSP violations in the document, reported however the browser phrases its console message.
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const search = query === undefined ? '' : `?${new URLSearchParams({ query })}`;
  const response = await page.goto(`${origin}${EXPLORER}${search}`, {
    waitUntil: 'load',
    timeout: UI_TIMEOUT,
  });
  if (!response) throw new Error('no response for the explorer page');
  expect(response.status()).toBe(200);
  await page.locator('.graphiql-query-editor .monaco-editor .view-lines').waitFor({ timeout: UI_TIMEOUT });
  return { page, response };
}

/** The text Monaco shows in an editor (it renders spaces as no-break spaces). */
async function editorText(page: Page, selector: string) {
  const lines = page.locator(`${selector} .monaco-editor .view-lines`).first();
  const text = await lines.innerText();
  return text.replaceAll('\u00a0', ' ');
}

/** Replaces the query by typing into the editor, as a person would. */
async function typeQuery(page: Page, query: string) {
  await page.locator('.graphiql-query-editor .monaco-editor .view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  // insertText commits the whole string at once, so Monaco adds no closing brackets.
  await page.keyboard.insertText(query);
  await expect.poll(() => editorText(page, '.graphiql-query-editor'), { timeout: UI_TIMEOUT }).toBe(query);
}

function isSessionQuery(request: Request) {
  return (
    request.method() === 'POST' &&
    new URL(request.url()).pathname === GRAPHQL &&
    (request.postData() ?? '').includes('authenticated')
  );
}

/** Clicks run, waits for the query's response, and returns the result pane's text. */
async function run(page: Page) {
  const responded = page.waitForResponse((response) => isSessionQuery(response.request()), {
    timeout: UI_TIMEOUT,
  });
  await page.locator('.graphiql-execute-button').click();
  const response = await responded;
  expect(response.status()).toBe(200);
  await expect
    .poll(() => editorText(page, '.graphiql-response'), { timeout: UI_TIMEOUT })
    .toContain('"authenticated"');
  return { text: await editorText(page, '.graphiql-response'), request: response.request() };
}

describe('query explorer in Chromium', () => {
  it(
    'loads GraphiQL and runs a typed query anonymously',
    async () => {
      const context = await newContext();
      try {
        const { page } = await openExplorer(context);
        // Our default query, not GraphiQL's welcome comment.
        expect(await editorText(page, '.graphiql-query-editor')).toContain('authenticated');

        await typeQuery(page, '{ session { authenticated } }');
        const { text, request } = await run(page);
        expect(text).toContain('"authenticated": false');
        expect(await request.headerValue('x-svc-sessionid')).toBeNull();
      } finally {
        await context.close();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'sends a session ID typed into the bar as x-svc-sessionid',
    async () => {
      const sessionId = await t!.sessionFor('demo', 'demo');
      const context = await newContext();
      try {
        const { page } = await openExplorer(context, SESSION_QUERY);
        const sent: Request[] = [];
        page.on('request', (request) => {
          if (isSessionQuery(request)) sent.push(request);
        });
        await page.locator('#assetql-session').fill(sessionId);

        const { text, request } = await run(page);
        expect(text).toContain('"authenticated": true');
        expect(text).toContain('"username": "demo"');
        expect(text).toContain('"userGroup": "demo"');
        expect(sent.length).toBeGreaterThan(0);
        expect(await sent[0]!.headerValue('x-svc-sessionid')).toBe(sessionId);
        expect(await request.headerValue('x-svc-sessionid')).toBe(sessionId);
      } finally {
        await context.close();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'uses the svc_sessionid cookie when no session ID is typed',
    async () => {
      const sessionId = await t!.sessionFor('demo', 'demo');
      const context = await newContext();
      try {
        await context.addCookies([
          { name: SESSION_COOKIE, value: sessionId, url: origin, httpOnly: true, sameSite: 'Lax' },
        ]);
        const { page } = await openExplorer(context, SESSION_QUERY);
        expect(await page.locator('#assetql-session').inputValue()).toBe('');

        const { text, request } = await run(page);
        expect(text).toContain('"authenticated": true');
        expect(text).toContain('"username": "demo"');
        expect(await request.headerValue('x-svc-sessionid')).toBeNull();
        expect(await request.headerValue('cookie')).toContain(`${SESSION_COOKIE}=${sessionId}`);
      } finally {
        await context.close();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'loads everything from its own origin under a strict CSP',
    async () => {
      const context = await newContext();
      try {
        const { page, response } = await openExplorer(context, SESSION_QUERY);
        const csp = (await response.headerValue('content-security-policy')) ?? '';
        expect(csp).toMatch(/(^|;)\s*script-src 'self'\s*(;|$)/);

        const { text } = await run(page);
        expect(text).toContain('"authenticated": false');
        // Monaco starts its GraphQL language worker once the schema is in; wait for it
        // (from this origin) before counting requests.
        await expect
          .poll(
            () =>
              seen.urls.some((url) => url.startsWith(`${origin}${EXPLORER}/assets/monacoeditorwork/graphql`)),
            {
              timeout: UI_TIMEOUT,
            },
          )
          .toBe(true);
        await page.waitForTimeout(500);
        const violations = await page.evaluate(
          () => (window as unknown as { __cspViolations: string[] }).__cspViolations,
        );
        expect(violations).toEqual([]);
      } finally {
        await context.close();
      }

      // Over every page this file opened.
      expect(seen.urls.length).toBeGreaterThan(0);
      expect(seen.urls.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin)).toEqual(
        [],
      );
      expect(seen.consoleErrors.filter((m) => /content security policy|CSP/i.test(m))).toEqual([]);
      expect(seen.consoleErrors).toEqual([]);
      expect(seen.pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
