/**
 * docs/deploy.md's walkthrough of the distributed form, run as written: the fenced shell block
 * between `<!-- walkthrough:begin -->` and `<!-- walkthrough:end -->`, in a built checkout, on a
 * PostgreSQL database of its own (DATABASE_URL's server, or 127.0.0.1:5432 as user postgres),
 * with free ports for the ones the walkthrough lets you choose. Needs `bash` and `curl`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const run = promisify(execFile);
const OUT = `tmp/deploy-e2e-${process.pid}`;

/** The walkthrough's shell block, exactly as the document shows it. */
function walkthrough(): string {
  const doc = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
  const section = /<!-- walkthrough:begin -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(doc);
  if (!section) throw new Error('docs/deploy.md has no walkthrough block between its markers');
  return section[1]!;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let adminUrl: string;
let database: string;
let script: ChildProcess | undefined;
let output = '';
let exitCode: number | null = null;
let ports: Record<string, number>;

beforeAll(async () => {
  for (const tool of ['bash', 'curl']) {
    await run('which', [tool]).catch(() => {
      throw new Error(`the deploy walkthrough test needs ${tool} (Debian package ${tool})`);
    });
  }
  adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch (e) {
    throw new Error(
      `the deploy walkthrough test needs PostgreSQL (Debian package postgresql) at ${adminUrl}: ${(e as Error).message}`,
    );
  }
  database = `assetql_deploy_${process.pid}`;
  await admin.query(`create database ${database}`);
  await admin.end();
  const target = new URL(adminUrl);
  target.pathname = `/${database}`;

  // A built checkout: dist/ (node_modules is the project's, found from inside it).
  await run(process.execPath, ['scripts/build.ts', join(OUT, 'dist')], { cwd: ROOT, timeout: 180_000 });

  ports = {
    ASSETS_PORT: await freePort(),
    AUTH_PORT: await freePort(),
    ISSUES_PORT: await freePort(),
    EVENTS_PORT: await freePort(),
    GATEWAY_PORT: await freePort(),
    METRICS_PORT: await freePort(),
  };
  // `node` in the walkthrough is this Node.
  const path = `${join(process.execPath, '..')}:${process.env.PATH ?? ''}`;
  script = spawn('bash', ['-c', walkthrough()], {
    cwd: join(ROOT, OUT),
    // Its own process group: the servers it starts in the background are stopped with it.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: path,
      HOME: process.env.HOME ?? '',
      DATABASE_URL: target.toString(),
      ASSETQL_SECRET: 'deploy-e2e-secret-0123456789abcdefghijklmnopq',
      ASSETQL_BASE_URL: 'https://assets.example.com',
      ADMIN_PASSWORD: 'Correct-Horse-Battery-Staple-42',
      LOG_LEVEL: 'warn',
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    },
  });
  script.stdout!.setEncoding('utf8').on('data', (c: string) => (output += c));
  script.stderr!.setEncoding('utf8').on('data', (c: string) => (output += c));
  exitCode = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), 150_000);
    script!.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}, 400_000);

afterAll(async () => {
  // The walkthrough leaves its four servers running, as an operator's would; stop them all.
  if (script?.pid) {
    try {
      process.kill(-script.pid, 'SIGTERM');
    } catch {}
    await new Promise((r) => setTimeout(r, 3000));
    try {
      process.kill(-script.pid, 'SIGKILL');
    } catch {}
  }
  rmSync(join(ROOT, OUT), { recursive: true, force: true });
  if (database) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}, 60_000);

it('runs to the end as written', () => {
  expect(exitCode, output).toBe(0);
});

it('signs the new administrator in through the gateway, and the gateway counts it', () => {
  expect(output).toContain('{"data":{"signIn":{"errors":[],"session":{"username":"admin"}}}}');
  expect(output).toMatch(
    /assetql_graphql_request_duration_seconds_count\{operation="CheckSignIn",outcome="ok"\} 1/,
  );
  // Metrics only where asked for: the gateway has a metrics port, the subgraphs none.
  expect(output.match(/^assetql metrics at /gm)).toHaveLength(1);
});

it('leaves the distributed form serving: four processes, the subgraphs on loopback', async () => {
  const ready = await fetch(`http://127.0.0.1:${ports.GATEWAY_PORT}/readyz`);
  expect(await ready.json()).toEqual({ status: 'ready' });
  for (const name of ['ASSETS_PORT', 'AUTH_PORT', 'ISSUES_PORT', 'EVENTS_PORT']) {
    const r = await fetch(`http://127.0.0.1:${ports[name]}/readyz`);
    expect(r.status).toBe(200);
  }
  const migrated = JSON.parse(output.slice(output.indexOf('{"applied"')).split('\n')[0]!);
  expect(migrated.engine).toBe('postgres');
  expect(migrated.applied.length).toBeGreaterThan(0);
});
