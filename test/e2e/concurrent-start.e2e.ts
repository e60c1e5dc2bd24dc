/**
 * Any number of processes may start at once on one database: the three subgraphs and the
 * gateway, started together on an EMPTY PostgreSQL database with the demo data on, all become
 * ready and answer (migrations and the demo data are loaded once, under advisory locks). And a
 * process whose start fails says why in one line and exits at once, holding nothing open.
 *
 * Always on PostgreSQL, where processes really run side by side: a new database on the server
 * DATABASE_URL names, or on postgres://postgres@127.0.0.1:5432/postgres on PGlite runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import {
  exited,
  freePort,
  lastOutput,
  ROOT,
  type Served,
  serve,
  serveEnv,
  stop,
} from '../helpers/processes.ts';

const SECRET = 'concurrent-start-e2e-secret-0123456789abcdef';
const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const READY_WITHIN_MS = 60_000;

let databaseUrl: string;
let databaseName: string;
let dataDir: string;
const children: Served[] = [];
let gatewayUrl: string;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Polls `url` until it answers 200; resolves with the last status otherwise. */
async function readyz(url: string, withinMs: number): Promise<number> {
  const until = Date.now() + withinMs;
  let status = 0;
  while (Date.now() < until) {
    status = await fetch(url, { signal: AbortSignal.timeout(3_000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return status;
    await new Promise((r) => setTimeout(r, 200));
  }
  return status;
}

beforeAll(async () => {
  try {
    await admin((c) => c.query('select 1'));
  } catch (e) {
    throw new Error(
      `this test needs PostgreSQL at ${ADMIN_URL} (set DATABASE_URL to another server; Debian: ` +
        `apt-get install postgresql): ${(e as Error).message}`,
    );
  }
  databaseName = `assetql_start_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin((c) => c.query(`create database ${databaseName}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${databaseName}`;
  databaseUrl = url.toString();
  dataDir = mkdtempSync(join(tmpdir(), 'aq-start-'));
}, 30_000);

afterAll(async () => {
  await Promise.all(children.map((c) => stop(c.child)));
  if (databaseName) await admin((c) => c.query(`drop database if exists ${databaseName} with (force)`));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const childOutput = () => children.map((c) => lastOutput(c, 15)).join('\n');

describe('the subgraphs and the gateway started at once on an empty database', () => {
  it('all become ready, load the demo tenant once, and answer a query', async () => {
    const ports = await Promise.all([...SUBGRAPH_NAMES, 'gateway'].map(() => freePort()));
    const env = serveEnv(SECRET, {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      ASSETQL_DEMO_DATA: 'true',
      LOG_LEVEL: 'info',
    });
    const subgraphUrls = Object.fromEntries(
      SUBGRAPH_NAMES.map((name, i) => [
        `ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`,
        `http://127.0.0.1:${ports[i]}/graphql`,
      ]),
    );
    const started = await Promise.allSettled([
      ...SUBGRAPH_NAMES.map((name, i) =>
        serve(`subgraph ${name}`, ['--subgraph', name], { ...env, PORT: String(ports[i]) }, 90_000),
      ),
      serve(
        'gateway',
        ['--gateway'],
        { ...env, ...subgraphUrls, PORT: String(ports[SUBGRAPH_NAMES.length]) },
        90_000,
      ),
    ]);
    for (const s of started) if (s.status === 'fulfilled') children.push(s.value);
    const failed = started.filter((s) => s.status === 'rejected').map((s) => String(s.reason));
    expect(failed, failed.join('\n\n')).toEqual([]);
    gatewayUrl = children.find((c) => c.name === 'gateway')!.url;

    for (const c of children) {
      const status = await readyz(new URL('/readyz', c.url).toString(), READY_WITHIN_MS);
      expect(status, `${c.name} /readyz\n${childOutput()}`).toBe(200);
    }
    // The three subgraphs each load the demo tenant at start: one did, the others found it.
    const loaded = children.filter((c) => c.output.join('').includes('loaded the demo tenant'));
    expect(loaded.map((c) => c.name)).toHaveLength(1);

    const signIn = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type } session { authenticated } } }`,
      }),
    });
    const sessionId = signIn.headers.get('x-svc-sessionid');
    expect(sessionId, `${JSON.stringify(await signIn.json())}\n${childOutput()}`).toBeTruthy();
    const page = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-sessionid': sessionId! },
      body: JSON.stringify({
        query: `{ assets(profile: "well") { all(first: 5) { edges { node { id displayName } } } } issues { all { edges { node { displayName } } } } }`,
      }),
    });
    const body = (await page.json()) as any;
    expect(body.errors, childOutput()).toBeUndefined();
    expect(body.data.assets.all.edges).toHaveLength(5);
    expect(body.data.issues.all.edges.map((e: any) => e.node.displayName)).toEqual([
      'Casing pressure above threshold',
    ]);
  }, 180_000);
});

/** Starts `assetql serve ...args` expected to fail; when its error line came and when it exited. */
function failingStart(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['src/cli/bin.ts', 'serve', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  let errorAt = 0;
  child.stdout!.on('data', (b: Buffer) => {
    stdout += b;
  });
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b;
    if (!errorAt && stderr.includes('\n')) errorAt = performance.now();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return exited(child).then((code) => {
    clearTimeout(timer);
    return { code, stderr, stdout, lingeredMs: performance.now() - errorAt };
  });
}

describe('a start that fails', () => {
  it('on a port already in use exits at once with one line naming PORT, before migrations and the demo data', async () => {
    const taken = new URL(gatewayUrl ?? 'http://127.0.0.1:1').port;
    expect(taken, 'the previous test left a gateway listening').not.toBe('1');
    const r = await failingStart(
      ['--subgraph', 'auth'],
      serveEnv(SECRET, { DATABASE_URL: databaseUrl, ASSETQL_DEMO_DATA: 'true', PORT: taken }),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toEqual([
      `assetql: PORT ${taken} on 127.0.0.1 is in use by another process: stop it, or set PORT to a free port`,
    ]);
    // Before, idle pool connections kept it alive for their 30 s timeout.
    expect(r.lingeredMs).toBeLessThan(3_000);
  }, 90_000);

  it('of a gateway without its subgraph URLs names the missing variables in one line', async () => {
    const r = await failingStart(
      ['--gateway'],
      serveEnv(SECRET, {
        DATABASE_URL: databaseUrl,
        PORT: '0',
        ASSETQL_SUBGRAPH_AUTH_URL: 'http://127.0.0.1:1/graphql',
      }),
    );
    expect(r.code, r.stderr).toBe(78);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'assetql: invalid configuration: serve --gateway needs ASSETQL_SUBGRAPH_ASSETS_URL, ASSETQL_SUBGRAPH_ISSUES_URL, ASSETQL_SUBGRAPH_EVENTS_URL',
    ]);
  }, 60_000);

  it('on a database that does not exist exits at once with one line naming it', async () => {
    const missing = new URL(databaseUrl);
    missing.pathname = `/${databaseName}_missing`;
    const r = await failingStart(
      ['--subgraph', 'issues'],
      serveEnv(SECRET, { DATABASE_URL: missing.toString(), PORT: '0' }),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toEqual([
      `assetql: cannot use the database DATABASE_URL names (${missing.toString()}): database "${databaseName}_missing" does not exist; check DATABASE_URL, and that PostgreSQL runs there`,
    ]);
    expect(r.lingeredMs).toBeLessThan(3_000);
  }, 90_000);
});
