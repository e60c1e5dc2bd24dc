/**
 * A start as a user meets it when something is in the way: a busy port, a data dir that cannot
 * be written, a database that cannot be reached, a data dir another server owns. Each fails in one
 * line that names the setting to change, before any migration or demo data, and leaves the data
 * dir as it was. A server attached to another's embedded database (a subgraph of the distributed
 * form) stops when that owner does, instead of answering errors.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const SECRET = 'start-e2e-secret-0123456789abcdef0123456789';
const PG = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
let base: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  base = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-start-'));
});
afterAll(async () => {
  await Promise.all(children.map((c) => stop(c)));
  rmSync(base, { recursive: true, force: true });
});

/** Everything under `dir` with its contents, to compare before and after. */
function snapshot(dir: string): Record<string, string> | null {
  if (!existsSync(dir)) return null;
  const out: Record<string, string> = {};
  const walk = (at: string, prefix: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else out[`${prefix}${entry.name}`] = entry.isFile() ? readFileSync(path, 'base64').slice(0, 64) : '?';
    }
  };
  walk(dir, '');
  return out;
}

/** `assetql serve ...args` expected to fail: its exit code, its stderr, and how long it took. */
async function failedStart(args: string[], env: Record<string, string>) {
  const started = Date.now();
  const child = spawn(process.execPath, ['src/cli/bin.ts', 'serve', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - started, lines: stderr.trimEnd().split('\n') };
}

/** The environment of a demo start with the demo data on and no secret: it would write both. */
function demoEnv(extra: Record<string, string>): Record<string, string> {
  const env = serveEnv(SECRET, { ASSETQL_DEMO_DATA: 'true', ...extra });
  delete (env as Record<string, string | undefined>).ASSETQL_SECRET;
  return env;
}

function holdPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: (server.address() as { port: number }).port, server }),
    );
  });
}

describe('a start that cannot go on', () => {
  it('on a busy port says so naming PORT, before the demo data, and writes nothing', async () => {
    const { port, server } = await holdPort();
    try {
      const dataDir = join(base, 'busy-port');
      const r = await failedStart([], demoEnv({ PORT: String(port), DATA_DIR: dataDir }));
      expect(r.code, r.stderr).toBe(1);
      expect(r.lines, r.stderr).toEqual([
        `assetql: PORT ${port} on 127.0.0.1 is in use by another process: stop it, or set PORT to a free port`,
      ]);
      expect(r.stdout).not.toMatch(/demo tenant/);
      expect(snapshot(dataDir)).toBeNull();
    } finally {
      server.close();
    }
  });

  it('on a data dir it cannot write says so naming DATA_DIR, and leaves the data dir as it was', async () => {
    const file = join(base, 'a-file');
    writeFileSync(file, 'not a folder\n');
    for (const dataDir of [join(file, 'data'), file]) {
      const r = await failedStart([], demoEnv({ DATA_DIR: dataDir }));
      expect(r.code, r.stderr).toBe(1);
      expect(r.lines, r.stderr).toHaveLength(1);
      expect(r.lines[0]).toMatch(
        new RegExp(
          `^assetql: DATA_DIR ${dataDir} cannot be used \\(.*\\): set DATA_DIR to a folder this user can write$`,
        ),
      );
      expect(readFileSync(file, 'utf8')).toBe('not a folder\n');
    }
    // A folder made for a start that failed is taken away again.
    const nested = join(base, 'made', 'for', 'nothing');
    const { port, server } = await holdPort();
    try {
      const r = await failedStart([], demoEnv({ DATA_DIR: nested, PORT: String(port) }));
      expect(r.code, r.stderr).toBe(1);
    } finally {
      server.close();
    }
    expect(existsSync(join(base, 'made'))).toBe(false);
  });

  it('on a database it cannot reach says so naming DATABASE_URL, without its password, and writes nothing', async () => {
    const port = await freePort();
    const cases = [
      {
        url: `postgres://postgres:hunter2@127.0.0.1:${port}/assets?password=hunter3`,
        reason: /ECONNREFUSED/,
      },
      { url: PG.replace(/\/[^/]*$/, '/assetql_no_such_database'), reason: /does not exist/ },
    ];
    for (const { url, reason } of cases) {
      const dataDir = join(base, `unreachable-${port}`);
      const r = await failedStart([], demoEnv({ DATABASE_URL: url, DATA_DIR: dataDir }));
      expect(r.code, r.stderr).toBe(1);
      expect(r.lines, r.stderr).toHaveLength(1);
      expect(r.lines[0]).toMatch(/^assetql: cannot use the database DATABASE_URL names \(postgres:\/\//);
      expect(r.lines[0]).toMatch(reason);
      expect(r.lines[0]).toMatch(/check DATABASE_URL, and that PostgreSQL runs there$/);
      expect(r.stderr).not.toMatch(/hunter[23]/);
      expect(r.ms).toBeLessThan(20_000);
      expect(snapshot(dataDir)).toBeNull();
    }
  });
});

describe('a data dir another server owns', () => {
  let owner: Served;
  let dataDir: string;
  let before: Record<string, string> | null;

  beforeAll(async () => {
    dataDir = join(base, 'owned');
    owner = await serve('owner', [], serveEnv(SECRET, { DATA_DIR: dataDir }), 90_000);
    children.push(owner.child);
    before = snapshot(dataDir);
  }, 120_000);

  it('refuses a second server in one line naming the owner, and the owner goes on serving', async () => {
    const r = await failedStart([], serveEnv(SECRET, { DATA_DIR: dataDir }));
    expect(r.code, r.stderr).toBe(1);
    expect(r.lines, r.stderr).toEqual([
      `assetql: DATA_DIR ${dataDir} is in use by process ${owner.child.pid} (assetql serve): stop it, or set DATA_DIR to another folder`,
    ]);
    expect(snapshot(dataDir)).toEqual(before);
    const answer = await fetch(owner.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ session { authenticated } }' }),
    });
    expect(answer.status, lastOutput(owner)).toBe(200);
  });

  it('lets a subgraph attach, which stops with one line when the owner stops; the next server owns it', async () => {
    const subgraph = await serve(
      'subgraph',
      ['--subgraph', 'assets'],
      serveEnv(SECRET, { DATA_DIR: dataDir }),
    );
    children.push(subgraph.child);
    const ready = await fetch(new URL('/readyz', subgraph.url));
    expect(ready.status, lastOutput(subgraph)).toBe(200);

    await stop(owner.child);
    const code = await Promise.race([
      exited(subgraph.child),
      new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000)),
    ]);
    expect(code, lastOutput(subgraph)).toBe(1);
    expect(subgraph.output.join('')).toContain(
      `the process ${owner.child.pid} that owned DATA_DIR ${dataDir} stopped, and its database with it`,
    );

    // Killed outright, a server leaves its file behind: the next one takes the data dir over.
    const next = await serve('next', [], serveEnv(SECRET, { DATA_DIR: dataDir }), 90_000);
    children.push(next.child);
    next.child.kill('SIGKILL');
    await exited(next.child);
    const after = await serve('after', [], serveEnv(SECRET, { DATA_DIR: dataDir }), 90_000);
    children.push(after.child);
    const answer = await fetch(after.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ session { authenticated } }' }),
    });
    expect(answer.status, lastOutput(after)).toBe(200);
    await stop(after.child);
  }, 240_000);
});
