// The query explorer in a real headless Chromium: Hive Laboratory loads from this origin only
// (no CDN) under the page's CSP, opens on a tab of example operations that work on the demo
// tenant, fits the window, runs queries, and sends the session either as the
// `x-svc-sessionid` header (typed into the bar) or as the `svc_sessionid` cookie.
//
// Needs Chromium at /usr/bin/chromium (Debian: `apt-get install -y chromium`).
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { EXAMPLES } from '../../src/gateway/explorer/examples.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { SESSION_COOKIE } from '../../src/shared/session-policy.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/browser.ts';

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
  browser = await launchChromium('the explorer e2e test');
  t = await startTestApp();
  await seedDemo(t.database.db, t.config);
  server = await listen(t.handle, 0, '127.0.0.1');
  origin = new URL(server.url).origin;
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

/** The explorer's editors, in the order Laboratory lays them out. */
const OPERATION = 0;
const RESPONSE = 2;

/** Opens the explorer and waits for the operation editor of its first tab. */
async function openExplorer(context: BrowserContext) {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') seen.consoleErrors.push(`${message.text()} @ ${message.location().url}`);
  });
  page.on('pageerror', (error) => seen.pageErrors.push(error.message));
  // CSP violations in the document, reported however the browser phrases its console message.
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      // Zod (inside Laboratory) tries `Function('')` once to learn whether it may compile its
      // checks, and without it checks without compiling: the CSP's refusal is the answer it
      // asks for, not a broken page.
      if (
        e.violatedDirective === 'script-src' &&
        e.blockedURI === 'eval' &&
        e.sourceFile.endsWith('/laboratory.js')
      )
        return;
      w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const response = await page.goto(`${origin}${EXPLORER}`, { waitUntil: 'load', timeout: UI_TIMEOUT });
  if (!response) throw new Error('no response for the explorer page');
  expect(response.status()).toBe(200);
  await editor(page, OPERATION).locator('.view-lines').waitFor({ timeout: UI_TIMEOUT });
  return { page, response };
}

function editor(page: Page, index: number) {
  return page.locator('.monaco-editor').nth(index);
}

/** The text Monaco shows in an editor (it renders spaces as no-break spaces). */
async function editorText(page: Page, index: number) {
  const text = await editor(page, index).locator('.view-lines').innerText();
  return text.replaceAll('\u00a0', ' ');
}

/** Replaces the operation by typing into its editor, as a person would. */
async function typeQuery(page: Page, query: string) {
  await editor(page, OPERATION).locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  // insertText commits the whole string at once, so Monaco adds no closing brackets.
  await page.keyboard.insertText(query);
  await expect.poll(() => editorText(page, OPERATION), { timeout: UI_TIMEOUT }).toBe(query);
}

function isOperation(request: Request, text: string) {
  return (
    request.method() === 'POST' &&
    new URL(request.url()).pathname === GRAPHQL &&
    (request.postData() ?? '').includes(text)
  );
}

/** Clicks Run, waits for the answer to a request whose body holds `text`, and returns the response pane's text. */
async function run(page: Page, text = 'authenticated', expected = '"authenticated"') {
  const responded = page.waitForResponse((response) => isOperation(response.request(), text), {
    timeout: UI_TIMEOUT,
  });
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const response = await responded;
  expect(response.status()).toBe(200);
  await expect.poll(() => editorText(page, RESPONSE), { timeout: UI_TIMEOUT }).toContain(expected);
  return { text: await editorText(page, RESPONSE), request: response.request() };
}

describe('query explorer in Chromium', () => {
  it(
    'opens on a tab of the example operations, fitting the window, and runs them on the demo data',
    async () => {
      const context = await newContext();
      try {
        const { page } = await openExplorer(context);
        const shown = await editorText(page, OPERATION);
        expect(shown.startsWith('mutation SignIn {')).toBe(true);
        expect(shown).toContain('query WellsPage');
        // The examples are a collection too, each by its name.
        await page.getByText('assetql examples').click();
        for (const example of EXAMPLES)
          await expect
            .poll(() => page.getByText(example.name, { exact: true }).count(), { timeout: UI_TIMEOUT })
            .toBeGreaterThan(0);
        // The page is the window: the bar, then the explorer to its bottom edge, no page scrolling.
        const fit = await page.evaluate(() => {
          const host = document.getElementById('laboratory')!.getBoundingClientRect();
          const scroller = document.scrollingElement!;
          return {
            scroll: [scroller.scrollWidth, scroller.scrollHeight],
            window: [innerWidth, innerHeight],
            bottom: Math.round(host.bottom),
          };
        });
        expect(fit.scroll).toEqual(fit.window);
        expect(fit.bottom).toBe(fit.window[1]);

        // Run as it opens: the cursor is in the first operation, SignIn, which sets the cookie.
        const signedIn = await run(page, 'mutation SignIn', '"authenticated": true');
        expect(signedIn.text).toContain('"username": "demo"');
        // Then the page of wells, with the cursor put in it, answered for the signed-in user.
        await editor(page, OPERATION).locator('.view-line', { hasText: 'query WellsPage' }).click();
        const wells = await run(page, 'query WellsPage', '"totalCount": 24');
        expect(wells.text).toContain('"displayName"');
        expect(await wells.request.headerValue('cookie')).toContain(`${SESSION_COOKIE}=`);
      } finally {
        await context.close();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'runs a typed query anonymously',
    async () => {
      const context = await newContext();
      try {
        const { page } = await openExplorer(context);
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
        const { page } = await openExplorer(context);
        await typeQuery(page, SESSION_QUERY);
        const sent: Request[] = [];
        page.on('request', (request) => {
          if (isOperation(request, 'authenticated')) sent.push(request);
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
        const { page } = await openExplorer(context);
        expect(await page.locator('#assetql-session').inputValue()).toBe('');
        await typeQuery(page, SESSION_QUERY);

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
    'keeps what was typed across a reload, and no answer',
    async () => {
      const context = await newContext();
      try {
        const { page } = await openExplorer(context);
        await typeQuery(page, '{ session { authenticated username } }');
        await run(page);
        await page.reload({ waitUntil: 'load' });
        await editor(page, OPERATION).locator('.view-lines').waitFor({ timeout: UI_TIMEOUT });
        await expect
          .poll(() => editorText(page, OPERATION), { timeout: UI_TIMEOUT })
          .toBe('{ session { authenticated username } }');
        const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
        expect(stored).not.toContain('"authenticated":');
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
        const { page, response } = await openExplorer(context);
        const csp = (await response.headerValue('content-security-policy')) ?? '';
        expect(csp).toMatch(/(^|;)\s*script-src 'self'\s*(;|$)/);
        await typeQuery(page, SESSION_QUERY);

        const { text } = await run(page);
        expect(text).toContain('"authenticated": false');
        // Monaco starts its GraphQL language worker once the schema is in; wait for it
        // (from this origin) before counting requests.
        await expect
          .poll(
            () =>
              seen.urls.some((url) => url.startsWith(`${origin}${EXPLORER}/assets/monacoeditorwork/graphql`)),
            { timeout: UI_TIMEOUT },
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
