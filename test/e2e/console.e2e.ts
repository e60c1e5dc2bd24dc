// The web console in a real headless Chromium, on the demo tenant: `/` leads the browser to it;
// sign-in with every challenge kind; the profiles, a profile's assets paged both ways, columns
// chosen, a search, a saved filter applied and a new one saved, a group switch, sign-out, and a
// session ended elsewhere bringing the sign-in back. Every request the pages make goes to the
// server's origin, nothing breaks the CSP, and axe-core finds no serious or critical fault on any
// screen. The server runs only trusted documents (`ASSETQL_TRUSTED_DOCUMENTS=require`): what the
// console sends before its session holds the explorer right (opening, sign-in, every challenge)
// must be trusted documents the service ships; `allow`, the default, refuses nothing.
//
// Needs Chromium at /usr/bin/chromium (Debian: `apt-get install -y chromium`).
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qrPath } from '../../src/console/app/qr.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { SESSION_COOKIE } from '../../src/shared/session-policy.ts';
import { otpauthUri } from '../../src/subgraphs/auth/mfa/totp.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { audit, closeWatched, launchChromium, type WatchedPage, watchPage } from '../helpers/browser.ts';

const UI_TIMEOUT = 10_000;
const TEST_TIMEOUT = 40_000;
const PASSWORD = 'correct horse battery';

let t: TestApp;
let server: Listening | undefined;
let browser: Browser | undefined;
let origin: string;
let tinaSecret: string;
/** Headers of a demo session, for asking the API what the console should show. */
let demo: Record<string, string>;

beforeAll(async () => {
  browser = await launchChromium('the console e2e test');
  t = await startTestApp({ config: { trustedDocuments: 'require' } });
  await seedDemo(t.database.db, t.config);
  const tina = await createUser(t.database.db, t.config.secret, {
    username: 'tina',
    groups: ['demo', 'demo-east'],
    password: PASSWORD,
    mfa: 'totp',
  });
  tinaSecret = tina.totp!.secret;
  await createUser(t.database.db, t.config.secret, {
    username: 'nora',
    groups: ['demo'],
    password: PASSWORD,
    requireNewPassword: true,
    requireMfa: true,
  });
  await createUser(t.database.db, t.config.secret, {
    username: 'sam',
    groups: ['demo'],
    password: PASSWORD,
    mfa: 'sms',
    phone: '+15551234567',
  });
  demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
  server = await listen(t.handle, 0, '127.0.0.1');
  origin = new URL(server.url).origin;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close(500);
  await t?.close();
});

/** A new browser and page, opened at `/` as a person types the address, watched. */
async function openConsole(): Promise<WatchedPage> {
  const watched = await watchPage(browser!, origin);
  const { page } = watched;
  const response = await page.goto(`${origin}/`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe('/console');
  expect(await response!.headerValue('content-security-policy')).toMatch(
    /script-src 'self'; style-src 'self'/,
  );
  return watched;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 });
/** What has the keyboard's focus: its tag and text. */
const focused = (page: Page) =>
  page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim()}`);
const summary = (page: Page) => page.locator('#summary');
const firstIds = (page: Page) => page.locator('#assets tbody td:nth-child(2) code').allInnerTexts();

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

function totp(secret: string): string {
  const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
  return code.generate({ timestamp: t.clock.now().getTime() });
}

/** The ids of a profile's assets in the API's order, under `filter`. */
async function ids(profile: string, filter?: object): Promise<string[]> {
  const r = await t.graphql<any>(
    'query($p: ID!, $f: AssetFilter) { assets(profile: $p) { all(first: 1000, filter: $f) { edges { node { id } } } } }',
    { p: profile, f: filter },
    demo,
  );
  return r.body.data.assets.all.edges.map((e: any) => e.node.id);
}

describe('the web console in Chromium', () => {
  it(
    'signs in with TOTP, browses, pages both ways, searches, applies and saves filters, switches group, signs out',
    async () => {
      const watched = await openConsole();
      const { page } = watched;
      await expect.poll(() => heading(page).innerText(), { timeout: UI_TIMEOUT }).toBe('Sign in');
      await audit(page, 'sign-in');

      // A typed password can be shown (ASVS 2.1.12), and hidden again.
      const password = page.getByLabel('Password', { exact: true });
      await password.fill('shown');
      await page.getByLabel('Show password').check();
      expect(await password.getAttribute('type')).toBe('text');
      await page.getByLabel('Show password').uncheck();
      expect(await password.getAttribute('type')).toBe('password');
      await signIn(page, 'tina', 'not the password');
      await expect
        .poll(() => page.locator('#sign-in-error').innerText())
        .toBe('Incorrect username or password.');
      // The password is cleared for another try, and the keyboard is back in it.
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('password');
      expect(await password.inputValue()).toBe('');
      await signIn(page, 'tina', PASSWORD);
      await expect.poll(() => heading(page).innerText()).toBe('Enter your authentication code');
      await audit(page, 'TOTP challenge');
      await page.getByLabel('Authentication code').fill(totp(tinaSecret));
      await page.getByRole('button', { name: 'Verify' }).click();

      // The profiles, with their counts.
      await expect.poll(() => heading(page).innerText()).toBe('Asset profiles');
      await expect.poll(() => page.locator('#status').innerText()).toBe('Signed in as tina, group demo.');
      await expect.poll(() => page.locator('td[data-profile="well"]').innerText()).toBe('24');
      expect(await page.locator('#profiles tbody tr').count()).toBe(5);
      await audit(page, 'profiles');

      // A profile's assets, ten a page: forwards to the end, and back.
      const wells = await ids('well');
      await page.getByRole('link', { name: 'Well', exact: true }).click();
      await expect.poll(() => summary(page).innerText()).toBe('Showing 1–24 of 24 assets');
      // A new page takes the keyboard to its heading.
      expect(await focused(page)).toBe('H1 Well');
      await page.getByLabel('Rows per page').selectOption('10');
      await expect.poll(() => summary(page).innerText()).toBe('Showing 1–10 of 24 assets');
      expect(new URL(page.url()).hash).toBe('#/profiles/well?size=10');
      expect(await firstIds(page)).toEqual(wells.slice(0, 10));
      const next = page.getByRole('button', { name: 'Next page' });
      const previous = page.getByRole('button', { name: 'Previous page' });
      expect(await previous.isDisabled()).toBe(true);
      await next.click();
      await expect.poll(() => summary(page).innerText()).toBe('Showing 11–20 of 24 assets');
      expect(await firstIds(page)).toEqual(wells.slice(10, 20));
      await page.keyboard.press('Enter'); // the focus stayed on Next
      await expect.poll(() => summary(page).innerText()).toBe('Showing 21–24 of 24 assets');
      expect(await next.isDisabled()).toBe(true);
      expect(await previous.evaluate((b) => b === document.activeElement)).toBe(true);
      await previous.click();
      await expect.poll(() => summary(page).innerText()).toBe('Showing 11–20 of 24 assets');
      expect(await firstIds(page)).toEqual(wells.slice(10, 20));

      // The columns: a property added, one taken away, kept across a reload.
      const headers = () => page.locator('#assets thead th').allInnerTexts();
      // By default the first three properties that are not the name or its second line (uwi).
      expect(await headers()).toEqual(['Display name', 'Id', 'Status', 'Facility', 'Total depth (m)']);
      const cell = (column: number) =>
        page.locator(`#assets tbody tr:first-child > :nth-child(${column})`).innerText();
      expect(await cell(5)).toMatch(/^[\d,]+ m$/);
      await page.getByText('Columns', { exact: true }).click();
      await page.getByLabel('Spud date').check();
      await page.getByLabel('Facility', { exact: true }).uncheck();
      const chosen = ['Display name', 'Id', 'Status', 'Total depth (m)', 'Spud date'];
      await expect.poll(headers).toEqual(chosen);
      expect(await cell(4)).toMatch(/^[\d,]+ m$/);
      expect(await cell(5)).toMatch(/^\d{4}-\d\d-\d\d$/);
      await audit(page, 'assets');
      await page.reload();
      await expect.poll(() => summary(page).innerText()).toBe('Showing 1–10 of 24 assets');
      expect(await headers()).toEqual(chosen);

      // A search, then a saved filter applied with it.
      await page.getByLabel('Search', { exact: true }).fill('  red ');
      await page.getByLabel('Search', { exact: true }).press('Enter');
      const red = await ids('well', { search: 'red' });
      expect(red.length).toBeGreaterThan(0);
      await expect
        .poll(() => summary(page).innerText())
        .toBe(`Showing 1–${red.length} of ${red.length} assets · search “red”`);
      const producing = { isDeleted: false, property: { name: 'status', equals: 'producing' } };
      const both = await ids('well', { and: [producing, { search: 'red' }] });
      expect(both.length).toBeGreaterThan(0);
      expect(both.length).toBeLessThan(red.length);
      await page.getByRole('link', { name: 'Producing wells' }).click();
      await expect
        .poll(() => summary(page).innerText())
        .toBe(`Showing 1–${both.length} of ${both.length} assets · filter “Producing wells” · search “red”`);
      expect(await firstIds(page)).toEqual(both);
      expect(await page.getByRole('link', { name: 'Producing wells' }).getAttribute('aria-current')).toBe(
        'true',
      );
      // The panel is drawn again; the keyboard stays on the filter it applied.
      expect(await focused(page)).toBe('A Producing wells');

      // Saved as a filter of its own, which is then applied.
      await page.getByLabel('Filter name').fill('Producing red wells');
      await page.getByLabel('Description (optional)').fill('Red Deer wells in production.');
      await page.getByRole('button', { name: 'Save filter' }).click();
      await expect
        .poll(() => page.locator('#status').innerText())
        .toBe('Saved the filter “Producing red wells”; it is applied.');
      await expect
        .poll(() => summary(page).innerText())
        .toBe(`Showing 1–${both.length} of ${both.length} assets · filter “Producing red wells”`);
      expect(await page.getByLabel('Search', { exact: true }).inputValue()).toBe('');
      expect(await focused(page)).toBe('A Producing red wells');
      const saved = await t.graphql<any>(
        '{ assetFilter(id: "producing-red-wells") { displayName description profile subProfiles { relationship } assets(first: 100) { edges { node { id } } } } }',
        {},
        demo,
      );
      expect(saved.body.data.assetFilter).toMatchObject({
        displayName: 'Producing red wells',
        description: 'Red Deer wells in production.',
        profile: 'well',
        subProfiles: [{ relationship: 'facility' }, { relationship: 'equipment' }],
      });
      expect(saved.body.data.assetFilter.assets.edges.map((e: any) => e.node.id)).toEqual(both);
      await audit(page, 'assets, filtered');

      // Another group: its own profiles.
      await page.getByLabel('Group').selectOption('demo-east');
      await page.getByRole('button', { name: 'Switch group' }).click();
      await expect.poll(() => page.locator('#status').innerText()).toBe('Switched to group demo-east.');
      await expect.poll(() => heading(page).innerText()).toBe('Asset profiles');
      await expect.poll(() => page.locator('td[data-profile="well"]').innerText()).toBe('0');
      expect(await page.locator('td[data-profile="sensor"]').innerText()).toBe('12');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => heading(page).innerText()).toBe('Sign in');
      expect(await page.locator('.notice').innerText()).toBe('You have signed out.');
      const cookies = await watched.context.cookies();
      expect(cookies.filter((c) => c.name === SESSION_COOKIE && c.value !== '')).toEqual([]);
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'brings the sign-in back when the session ends elsewhere, then returns to the same page',
    async () => {
      const watched = await openConsole();
      const { page } = watched;
      await page.goto(`${origin}/console#/profiles/well?size=10`);
      await signIn(page, 'demo', 'demo');
      await expect
        .poll(() => summary(page).innerText(), { timeout: UI_TIMEOUT })
        .toBe('Showing 1–10 of 24 assets');

      // The session ends behind the console's back, as from another tab or device.
      const cookie = (await watched.context.cookies()).find((c) => c.name === SESSION_COOKIE)!;
      const ended = await t.graphql<any>(
        'mutation { signOut { errors { type } } }',
        {},
        {
          cookie: `${SESSION_COOKIE}=${cookie.value}`,
        },
      );
      expect(ended.body.data.signOut.errors).toEqual([]);
      // The list's live updates hear it (SESSION_ENDED) and the API confirms it: no click needed.
      await expect.poll(() => heading(page).innerText(), { timeout: UI_TIMEOUT }).toBe('Sign in');
      expect(await page.locator('.notice').innerText()).toBe(
        'Your session has ended. Sign in again to continue.',
      );

      await signIn(page, 'demo', 'demo');
      await expect.poll(() => summary(page).innerText()).toBe('Showing 1–10 of 24 assets');
      expect(await heading(page).innerText()).toBe('Well');
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );

  it(
    'asks every other challenge: a new password, then an authenticator set up from a QR code; a code by SMS',
    async () => {
      const watched = await openConsole();
      const { page } = watched;
      await signIn(page, 'nora', PASSWORD);
      await expect
        .poll(() => heading(page).innerText(), { timeout: UI_TIMEOUT })
        .toBe('Choose a new password');
      await audit(page, 'new password');
      const setPassword = async (first: string, second: string) => {
        await page.getByLabel('New password', { exact: true }).fill(first);
        await page.getByLabel('Repeat the new password').fill(second);
        await page.getByRole('button', { name: 'Set password' }).click();
      };
      await setPassword('a much better passphrase', 'a much better passphrse');
      await expect
        .poll(() => page.locator('#sign-in-error').innerText())
        .toMatch(/^The two passwords differ/);
      await setPassword('password', 'password');
      await expect.poll(() => page.locator('#sign-in-error').innerText()).toMatch(/common/i);
      await setPassword('a much better passphrase', 'a much better passphrase');

      await expect.poll(() => heading(page).innerText()).toBe('Set up an authenticator app');
      const secret = (await page.locator('#totp-secret').innerText()).replaceAll(' ', '');
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      // The QR code is the URI the server made for this secret, drawn module for module.
      const drawn = await page.locator('svg.qr path').getAttribute('d');
      expect(drawn).toBe(qrPath(otpauthUri(secret, 'nora')).d);
      await audit(page, 'MFA setup');
      const right = totp(secret);
      await page.getByLabel('Code from the app').fill(right === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
      await expect.poll(() => page.locator('#sign-in-error').innerText()).not.toBe('');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('code');
      await page.getByLabel('Code from the app').fill(right);
      await page.getByRole('button', { name: 'Verify and sign in' }).click();
      await expect.poll(() => heading(page).innerText()).toBe('Asset profiles');
      await page.getByRole('button', { name: 'Sign out' }).click();

      await signIn(page, 'sam', PASSWORD);
      await expect.poll(() => heading(page).innerText()).toBe('Enter the code we sent');
      expect(await page.getByText('+1********67').count()).toBe(1);
      await audit(page, 'SMS challenge');
      const sms = await t.database.db
        .selectFrom('outbox')
        .select('body')
        .where('recipient', '=', '+15551234567')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      await page.getByLabel('Code from the text message').fill(/(\d{6})/.exec(sms.body)![1]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect.poll(() => heading(page).innerText()).toBe('Asset profiles');
      expect(await page.locator('#group').innerText()).toBe('demo');
      await closeWatched(watched);
    },
    TEST_TIMEOUT,
  );
});
