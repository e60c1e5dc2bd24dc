/**
 * Three one-process servers on one PostgreSQL database behind Debian's HAProxy, configured as
 * docs/deploy.md says (round robin, `x-forwarded-for`, `/readyz` checks): whatever process a
 * request reaches, the session script of the router checks answers as through one process; a
 * sign-out on one is refused by the others within a second; 25 concurrent wrong passwords spread
 * over the three are checked at most 6 times (the account's backoff is counted in the database);
 * and a user disabled from outside (as `assetql users disable` does) loses its session on all.
 *
 * Always on PostgreSQL: a new database on the server DATABASE_URL names, or on
 * postgres://postgres@127.0.0.1:5432/postgres on PGlite runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/storage/database.ts';
import { createUser, disableUser } from '../../src/subgraphs/auth/users.ts';
import { emptyServerDatabase } from '../helpers/database.ts';
import { type Balancer, startHaproxy } from '../helpers/haproxy.ts';
import { lastOutput, type Served, serve, serveEnv, stop } from '../helpers/processes.ts';
import {
  askAt,
  type Client,
  expectScriptAlike,
  ownWritesUnderLoad,
  SCRIPT,
  signedIn,
} from '../helpers/session-script.ts';

const SECRET = 'balancer-e2e-secret-0123456789abcdefghijk';
const PASSWORD = 'a long passphrase for the balancer test';

let balancer: Balancer;
let scratch: { name: string; url: string; drop(): Promise<void> };
let database: Database;
let dataDir: string;
const servers: Served[] = [];
const output = () => `${servers.map((s) => lastOutput(s, 20)).join('\n')}\n--- haproxy:\n${balancer?.log()}`;

const signIn = (username: string, password: string) =>
  `mutation { signIn(input: { loginUsername: "${username}", password: "${password}", clientApplicationType: EXPLORER }) {
    errors { type } session { authenticated } } }`;

/** Polls `{ session }` as `client` at each of `urls` until none is signed in; the time it took. */
async function refusedEverywhere(urls: string[], client: Client, withinMs: number): Promise<number> {
  const started = Date.now();
  const signedIn = new Set(urls);
  while (signedIn.size > 0 && Date.now() - started < withinMs) {
    for (const url of [...signedIn]) {
      const r = await askAt(url, { ...client }, '{ session { authenticated } }');
      if (r.body.data?.session?.authenticated === false) signedIn.delete(url);
    }
    if (signedIn.size > 0) await new Promise((r) => setTimeout(r, 20));
  }
  expect([...signedIn], output()).toEqual([]);
  return Date.now() - started;
}

beforeAll(async () => {
  scratch = await emptyServerDatabase('lb');
  const url = new URL(scratch.url);
  dataDir = mkdtempSync(join(tmpdir(), 'aq-lb-'));
  const env = serveEnv(SECRET, {
    DATABASE_URL: url.toString(),
    ASSETQL_DEMO_DATA: 'true',
    // HAProxy is the one proxy in front: its x-forwarded-for names the client.
    ASSETQL_TRUST_PROXY: '1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  });
  const started = await Promise.allSettled(
    ['a', 'b', 'c'].map((n) => serve(`server ${n}`, [], env, 120_000)),
  );
  for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
  const failed = started.filter((s) => s.status === 'rejected').map((s) => String(s.reason));
  expect(failed, failed.join('\n\n')).toEqual([]);
  balancer = await startHaproxy(servers.map((s) => new URL(s.url)));
  database = await openDatabase({ url: url.toString() });
  for (const username of ['guessed', 'disabled'])
    await createUser(database.db, SECRET, { username, groups: ['demo'], password: PASSWORD });
}, 180_000);

afterAll(async () => {
  await database?.close();
  await balancer?.close();
  await Promise.all(servers.map((s) => stop(s.child)));
  await scratch?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('three processes behind HAProxy', () => {
  it.each(['header', 'cookie'] as const)(
    'answer the session script carried by %s as one process does',
    async (carrier) => {
      const address = carrier === 'header' ? '203.0.113.20' : '203.0.113.21';
      const balanced: Client = { carrier, session: undefined, address };
      const direct: Client = { carrier, session: undefined, address: `${address}1` };
      await expectScriptAlike(balancer.url, balanced, servers[0]!.url, direct, output);
      // The cleared cookie emptied the jar (a header client forgets its ID itself).
      if (carrier === 'cookie') expect(balanced.session).toBeUndefined();
    },
    60_000,
  );

  it('show a session its own write at once, 1,000 times under a write load', async () => {
    // Through HAProxy both ways: round robin sends a write and its read to different processes.
    const client = await signedIn(balancer.url, '198.51.100.60');
    const { stale, loaded, ms } = await ownWritesUnderLoad([balancer.url], client);
    console.log(`1,000 writes read back through HAProxy in ${ms} ms beside ${loaded} other writes`);
    expect(stale.slice(0, 5), output()).toEqual([]);
    expect(loaded).toBeGreaterThan(100);
  }, 300_000);

  it('refuse a session signed out on one of them within a second', async () => {
    const client: Client = { carrier: 'header', session: undefined, address: '192.0.2.60' };
    await askAt(servers[0]!.url, client, SCRIPT[0]!.query);
    const id = client.session;
    expect(id).toBeTruthy();
    const others = servers.slice(1).map((s) => s.url);
    for (const url of others)
      expect(
        (await askAt(url, { ...client }, '{ session { authenticated } }')).body.data.session.authenticated,
      ).toBe(true);
    await askAt(servers[0]!.url, client, 'mutation { signOut { errors { type } } }');
    expect(await refusedEverywhere(others, { ...client, session: id }, 3_000)).toBeLessThan(1_000);
  });

  it('check at most 6 of 25 concurrent wrong passwords spread over the three', async () => {
    const answers = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        askAt(
          servers[i % 3]!.url,
          // Each from an address of its own: the account's backoff, not an address's limit, is shown.
          { carrier: 'header', session: undefined, address: `198.51.100.${100 + i}` },
          signIn('guessed', `wrong guess ${i}`),
        ),
      ),
    );
    const types = answers.map((a) => a.body.data?.signIn?.errors?.[0]?.type ?? JSON.stringify(a.body));
    const checked = types.filter((t) => t === 'NOT_AUTHORIZED').length;
    expect(
      types.filter((t) => t !== 'NOT_AUTHORIZED' && t !== 'LIMIT_EXCEEDED'),
      output(),
    ).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(1);
    expect(checked).toBeLessThanOrEqual(6);
  });

  it('end a disabled user’s session on all three', async () => {
    const client: Client = { carrier: 'header', session: undefined, address: '192.0.2.70' };
    const r = await askAt(servers[1]!.url, client, signIn('disabled', PASSWORD));
    expect(r.body.data.signIn.errors, JSON.stringify(r.body)).toEqual([]);
    const urls = servers.map((s) => s.url);
    for (const url of urls)
      expect(
        (await askAt(url, { ...client }, '{ session { authenticated } }')).body.data.session.authenticated,
      ).toBe(true);
    // From outside the three, as `assetql users disable` does.
    expect((await disableUser(database.db, 'disabled')).sessionsEnded).toBe(1);
    expect(await refusedEverywhere(urls, client, 3_000)).toBeLessThan(1_000);
  });
});
