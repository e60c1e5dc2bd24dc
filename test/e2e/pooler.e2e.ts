/**
 * The service behind Debian's PgBouncer in transaction mode, configured as docs/deploy.md says:
 * `DATABASE_URL` through the pooler, `ASSETQL_DATABASE_SESSION_URL` straight to PostgreSQL for
 * what needs a session (change notices, the start-up locks), `ASSETQL_DB_PREPARED_STATEMENTS=0`,
 * and the session settings given by the pooler's `connect_query`. Two processes start at once on
 * an empty database (migrations and the demo data under the start-up locks, which a lock taken
 * through the pooler would not hold), run the router checks' session script, keep answering
 * while their pools' 20 connections share 3 server connections, and hear each other's sign-outs
 * at once.
 *
 * Always on PostgreSQL: a new database on the server DATABASE_URL names, or on
 * postgres://postgres@127.0.0.1:5432/postgres on PGlite runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyServerDatabase } from '../helpers/database.ts';
import { type Pooler, startPgBouncer } from '../helpers/pgbouncer.ts';
import { lastOutput, type Served, serve, serveEnv, stop } from '../helpers/processes.ts';
import {
  askAt,
  type Client,
  expectScriptAlike,
  ownWritesUnderLoad,
  SCRIPT,
  signedIn,
} from '../helpers/session-script.ts';

const SECRET = 'pooler-e2e-secret-0123456789abcdefghijklm';
const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SERVER_CONNECTIONS = 3;

let pooler: Pooler;
let database: { name: string; url: string; drop(): Promise<void> };
let directUrl: string;
let dataDir: string;
const servers: Served[] = [];
const output = () => `${servers.map((s) => lastOutput(s, 20)).join('\n')}\n--- pgbouncer:\n${pooler?.log()}`;

beforeAll(async () => {
  const server = new URL(ADMIN_URL);
  pooler = await startPgBouncer(
    { host: server.hostname, port: Number(server.port || 5432), user: decodeURIComponent(server.username) },
    { serverPool: SERVER_CONNECTIONS },
  );
  database = await emptyServerDatabase('pooler');
  directUrl = database.url;
  dataDir = mkdtempSync(join(tmpdir(), 'aq-pooler-'));
  const env = serveEnv(SECRET, {
    DATABASE_URL: pooler.through(directUrl),
    ASSETQL_DATABASE_SESSION_URL: directUrl,
    ASSETQL_DB_PREPARED_STATEMENTS: '0',
    ASSETQL_DB_POOL_SIZE: '10',
    ASSETQL_DEMO_DATA: 'true',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  });
  // Both at once, on the empty database: one migrates and loads the demo data, the other waits.
  const started = await Promise.allSettled(
    ['a', 'b'].map((name) => serve(`server ${name}`, [], env, 120_000)),
  );
  for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
  const failed = started.filter((s) => s.status === 'rejected').map((s) => String(s.reason));
  expect(failed, failed.join('\n\n')).toEqual([]);
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => stop(s.child)));
  await pooler?.close();
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('behind PgBouncer in transaction mode', () => {
  it('loaded the demo data once, and listens for change notices on a direct connection', async () => {
    const direct = new pg.Client({ connectionString: directUrl });
    await direct.connect();
    try {
      const { rows: counts } = await direct.query<{ profiles: number; owners: number }>(
        `select
          (select count(*)::int from asset_profiles where user_group = 'demo') as profiles,
          (select count(*)::int from users where username = 'demo') as owners`,
      );
      expect(counts[0]!.profiles).toBeGreaterThan(0);
      expect(counts[0]!.owners).toBe(1);
      // One listening connection per process, both straight to the server, each past its first
      // probe (one not heard in 2 s is closed; on a busy machine a process just started may lose
      // its first and try again a second later).
      const until = Date.now() + 30_000;
      let listeners = 0;
      while (listeners !== 2 && Date.now() < until) {
        const { rows } = await direct.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and application_name = 'assetql change notices'
              and backend_start < now() - interval '5 seconds'`,
        );
        listeners = rows[0]!.n;
        if (listeners !== 2) await new Promise((r) => setTimeout(r, 200));
      }
      expect(listeners, output()).toBe(2);
    } finally {
      await direct.end();
    }
  });

  it.each(['header', 'cookie'] as const)(
    'runs the session script carried by %s through either process alike',
    async (carrier) => {
      const [a, b] = servers;
      const address = carrier === 'header' ? '203.0.113.10' : '203.0.113.11';
      const viaA: Client = { carrier, session: undefined, address };
      const viaB: Client = { carrier, session: undefined, address };
      await expectScriptAlike(a!.url, viaA, b!.url, viaB, output);
    },
    60_000,
  );

  it('answers 200 concurrent reads and writes over 3 server connections, each session seeing its own writes', async () => {
    const [a, b] = servers;
    // Signed in one after another: a user's concurrent sign-ins are checked a few at a time.
    const clients: Client[] = [];
    for (let i = 0; i < 10; i++) {
      const client: Client = { carrier: 'header', session: undefined, address: `198.51.100.${i + 1}` };
      const r = await askAt(a!.url, client, SCRIPT[0]!.query);
      expect(r.body.data?.signIn?.errors, JSON.stringify(r.body)).toEqual([]);
      clients.push(client);
    }
    const failures: string[] = [];
    await Promise.all(
      clients.map(async (client, i) => {
        for (let n = 0; n < 10; n++) {
          const url = (n + i) % 2 === 0 ? a!.url : b!.url;
          const name = `pooled ${i}-${n}`;
          const made = await askAt(
            url,
            client,
            `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors { type } issue { id } } }`,
            { input: { displayName: name, subject: { type: 'asset', reference: 'well/W-100-1-2' } } },
          );
          const id = made.body.data?.createIssue?.issue?.id;
          if (!id) {
            failures.push(`${name}: ${JSON.stringify(made.body)}`);
            continue;
          }
          // Read back at once through the other process.
          const other = url === a!.url ? b!.url : a!.url;
          const read = await askAt(
            other,
            client,
            `query($id: ID!) { issues { byId(id: $id) { displayName } } }`,
            {
              id,
            },
          );
          if (read.body.data?.issues?.byId?.displayName !== name)
            failures.push(`${name}: ${JSON.stringify(read.body)}`);
        }
      }),
    );
    expect(failures, output()).toEqual([]);
    // The pooler carried it, on no more server connections than it was given.
    const pools = await pooler.show('pools');
    const ours = pools.find((p) => p.database === database.name);
    expect(ours, JSON.stringify(pools)).toBeDefined();
    expect(Number(ours!.sv_active) + Number(ours!.sv_idle) + Number(ours!.sv_used)).toBeLessThanOrEqual(
      SERVER_CONNECTIONS,
    );
    const stats = await pooler.show('stats');
    expect(Number(stats.find((s) => s.database === database.name)!.total_xact_count)).toBeGreaterThan(200);
  }, 120_000);

  it('shows a session its own write at once through the other process, 1,000 times under a write load', async () => {
    const [a, b] = servers;
    const client = await signedIn(a!.url, '198.51.100.50');
    const { stale, loaded, ms } = await ownWritesUnderLoad([a!.url, b!.url], client);
    console.log(`1,000 writes read back through the pooler in ${ms} ms beside ${loaded} other writes`);
    expect(stale.slice(0, 5), output()).toEqual([]);
    expect(loaded).toBeGreaterThan(100);
  }, 300_000);

  it('refuses on one process a session signed out on the other within a second', async () => {
    const [a, b] = servers;
    const client: Client = { carrier: 'header', session: undefined, address: '192.0.2.50' };
    await askAt(a!.url, client, SCRIPT[0]!.query);
    const id = client.session;
    expect(id).toBeTruthy();
    // B knows the session (and keeps it: notices heard).
    const before = await askAt(b!.url, client, '{ session { authenticated } }');
    expect(before.body.data.session.authenticated).toBe(true);
    const out = await askAt(a!.url, client, 'mutation { signOut { errors { type } } }');
    expect(out.body.errors).toBeUndefined();
    const stale: Client = { ...client, session: id };
    const started = Date.now();
    let authenticated = true;
    while (authenticated && Date.now() - started < 3_000) {
      const r = await askAt(b!.url, { ...stale }, '{ session { authenticated } }');
      authenticated = r.body.data.session.authenticated;
      if (authenticated) await new Promise((r) => setTimeout(r, 20));
    }
    expect(authenticated).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
