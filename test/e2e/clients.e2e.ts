/**
 * Every client example of docs/clients.md (examples/clients/), run against a running assetql:
 * Apollo Client and urql in Node with the session in `x-svc-sessionid` and the cache keyed by
 * profile and id, and a page on another site in Chromium, which reads the session header through
 * CORS, while a page on an unlisted origin gets no CORS header at all.
 *
 * Needs Chromium at /usr/bin/chromium (Debian: `apt-get install -y chromium`).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as apollo from '../../examples/clients/apollo-client.ts';
import type { SessionStore } from '../../examples/clients/session-fetch.ts';
import * as urql from '../../examples/clients/urql.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/browser.ts';
import { ROOT } from '../helpers/processes.ts';

let app: TestApp;
let api: Listening;
let endpoint: string;
/** Pages on other sites than the API: one listed in ASSETQL_CORS_ORIGINS, one not. */
let listedPage: Server;
let unlistedPage: Server;
const answered: { origin: string; method: string; cors: string[] }[] = [];
const origin = (s: Server) => `http://localhost:${(s.address() as AddressInfo).port}`;

/** A static site serving the cross-site example as `/client.js` and a page that loads it. */
async function pageServer(): Promise<Server> {
  const script = readFileSync(new URL('../../examples/clients/browser-cross-site.js', import.meta.url));
  const server = createServer((req, res) => {
    if (req.url === '/client.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><script type="module">import * as c from "/client.js"; window.client = c;</script>',
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  listedPage = await pageServer();
  unlistedPage = await pageServer();
  app = await startTestApp({ config: { corsOrigins: [origin(listedPage)] } });
  await seedDemo(app.database.db, app.config);
  // What the API answered each browser origin, as the browser received it.
  api = await listen(
    async (request, remote) => {
      const response = await app.handle(request, remote);
      const from = request.headers.get('origin');
      if (from) {
        const cors = [...response.headers.keys()].filter((h) => h.startsWith('access-control-'));
        answered.push({ origin: from, method: request.method, cors });
      }
      return response;
    },
    0,
    '127.0.0.1',
  );
  endpoint = `${api.url}/api/graphql`;
  // A site and a well with the same id: ids are unique only within a profile.
  const session = await app.sessionFor('demo', 'demo');
  for (const [profile, name] of [
    ['facility', 'Shared-id site'],
    ['well', 'Shared-id well'],
  ]) {
    const r = await app.graphql<any>(
      `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } } }`,
      { input: { profile, assets: [{ id: 'SHARED-1', properties: { name } }] } },
      { 'x-svc-sessionid': session },
    );
    expect(r.body.data?.upsertAssets.errors, JSON.stringify(r.body)).toEqual([]);
  }
}, 60_000);

afterAll(async () => {
  await api?.close(500);
  await app?.close();
  listedPage?.close();
  unlistedPage?.close();
});

const SIGN_IN = gql`
  mutation SignIn {
    signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: MOBILE_IOS }) {
      errors { type }
      session { authenticated username }
    }
  }
`;
const TWO_ASSETS = gql`
  query TwoAssets {
    site: assets(profile: "facility") { byId(id: "SHARED-1") { profile id displayName } }
    well: assets(profile: "well") { byId(id: "SHARED-1") { profile id displayName } }
  }
`;
/** The two display names (a site's display name template adds its kind). */
const NAMES = [expect.stringMatching(/^Shared-id site/), 'Shared-id well'];
const SESSION = gql`
  query Session { session { authenticated username userGroup } }
`;

/** `node examples/clients/<file>` against the running API: its exit code and what it printed. */
async function runExample(file: string) {
  const { execFile } = await import('node:child_process');
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [`examples/clients/${file}`],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ASSETQL_URL: endpoint }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the client examples, run as they are', () => {
  it.each(['apollo-client.ts', 'urql.ts'])(
    'node examples/clients/%s signs in and prints a page of wells',
    async (file) => {
      const r = await runExample(file);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      // 24 demo wells and the one this file added.
      expect(r.stdout).toMatch(/^10 of 25 wells$/m);
      expect(r.stdout).toMatch(/W-100-1-1/);
    },
    90_000,
  );

  it('says in one line what went wrong when nothing answers', async () => {
    const { execFile } = await import('node:child_process');
    const r = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['examples/clients/apollo-client.ts'],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ASSETQL_URL: 'http://127.0.0.1:1/api/graphql' } },
        (error, _stdout, stderr) => resolve({ code: Number(error?.code ?? 0), stderr }),
      ),
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^apollo-client example: .* \(is assetql running at http:\/\/127\.0\.0\.1:1\/api\/graphql\?\)$/,
      ),
    ]);
  }, 60_000);
});

describe('Apollo Client (docs/clients.md)', () => {
  it('signs in by header, keeps a site and a well of the same id apart, and signs out', async () => {
    const session: SessionStore = { id: undefined };
    const client = apollo.headerSessionClient(endpoint, session);
    const signedIn = await client.mutate<any>({ mutation: SIGN_IN });
    expect(signedIn.data.signIn.session).toEqual({
      __typename: 'Session',
      authenticated: true,
      username: 'demo',
    });
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const { data } = await client.query<any>({ query: TWO_ASSETS });
    expect([data.site.byId.displayName, data.well.byId.displayName]).toEqual(NAMES);
    // Read back from the cache: two entries, one per profile.
    const cached = client.readQuery<any>({ query: TWO_ASSETS });
    expect([cached.site.byId.displayName, cached.well.byId.displayName]).toEqual(NAMES);
    expect(
      Object.keys(client.cache.extract() as object)
        .filter((k) => k.startsWith('Asset:'))
        .sort(),
    ).toEqual(['Asset:{"profile":"facility","id":"SHARED-1"}', 'Asset:{"profile":"well","id":"SHARED-1"}']);

    await client.mutate({ mutation: gql`mutation { signOut { session { authenticated } } }` });
    session.id = undefined;
    const after = await client.query<any>({ query: SESSION, fetchPolicy: 'network-only' });
    expect(after.data.session.authenticated).toBe(false);
  });

  it('without the type policy, the default cache mixes the two (why the docs insist on it)', async () => {
    const session: SessionStore = { id: await app.sessionFor('demo', 'demo') };
    const { sessionFetch } = await import('../../examples/clients/session-fetch.ts');
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new HttpLink({ uri: endpoint, fetch: sessionFetch(session) }),
    });
    const { data } = await client.query<any>({ query: TWO_ASSETS });
    expect(data.site.byId.displayName).toBe(data.well.byId.displayName);
  });
});

describe('urql with Graphcache (docs/clients.md)', () => {
  it('signs in by header and keeps a site and a well of the same id apart', async () => {
    const session: SessionStore = { id: undefined };
    const client = urql.headerSessionClient(endpoint, session);
    const signedIn = await client.mutation(SIGN_IN, {}).toPromise();
    expect(signedIn.error).toBeUndefined();
    expect(signedIn.data.signIn.session).toMatchObject({ authenticated: true, username: 'demo' });
    expect(session.id).toBeTruthy();
    const first = await client.query(TWO_ASSETS, {}).toPromise();
    expect([first.data.site.byId.displayName, first.data.well.byId.displayName]).toEqual(NAMES);
    // From the cache this time.
    const again = await client.query(TWO_ASSETS, {}, { requestPolicy: 'cache-only' }).toPromise();
    expect([again.data.site.byId.displayName, again.data.well.byId.displayName]).toEqual(NAMES);
    const who = await client.query(SESSION, {}, { requestPolicy: 'network-only' }).toPromise();
    expect(who.data.session).toMatchObject({ authenticated: true, username: 'demo', userGroup: 'demo' });
  });
});

describe('a browser page on another site (Chromium)', () => {
  it('reads the session header through CORS from a listed origin; an unlisted origin gets no CORS header', async () => {
    const browser = await launchChromium('the cross-origin client test');
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${origin(listedPage)}/`);
      await page.waitForFunction(() => (window as any).client !== undefined);
      const result = await page.evaluate(async (apiUrl) => {
        const c = (window as any).client;
        const signedIn = await c.signIn(apiUrl, 'demo', 'demo');
        const kept = c.hasSession();
        const who = await c.graphql(apiUrl, '{ session { authenticated username } }');
        const out = await c.signOut(apiUrl);
        const after = await c.graphql(apiUrl, '{ session { authenticated } }');
        return { signedIn, kept, who: who.data.session, out, after: after.data.session };
      }, endpoint);
      expect(result).toEqual({
        signedIn: { errors: [], session: { authenticated: true, username: 'demo' } },
        kept: true,
        who: { authenticated: true, username: 'demo' },
        out: { session: { authenticated: false } },
        after: { authenticated: false },
      });

      const other = await context.newPage();
      await other.goto(`${origin(unlistedPage)}/`);
      await other.waitForFunction(() => (window as any).client !== undefined);
      const refused = await other.evaluate(async (apiUrl) => {
        try {
          await (window as any).client.signIn(apiUrl, 'demo', 'demo');
          return 'answered';
        } catch (e) {
          return (e as Error).name;
        }
      }, endpoint);
      expect(refused).toBe('TypeError');
      // The preflight's answer carried no CORS header, so the browser never sent the POST; the
      // listed origin's answers carried the grant and the exposed header.
      const unlisted = answered.filter((a) => a.origin === origin(unlistedPage));
      expect(unlisted).toEqual([{ origin: origin(unlistedPage), method: 'OPTIONS', cors: [] }]);
      const listed = answered.filter((a) => a.origin === origin(listedPage) && a.method === 'POST');
      expect(listed.length).toBe(4);
      for (const a of listed) expect(a.cors).toContain('access-control-expose-headers');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
