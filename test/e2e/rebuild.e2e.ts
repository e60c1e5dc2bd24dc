/**
 * `npm start` builds only what changed, beside what a running server serves: a second start with
 * the sources unchanged builds nothing, and a build made while a server serves (the sources
 * changed) never takes a file from under it — every request meanwhile answers as before — and
 * keeps the build the server runs from until it stops.
 *
 * In a copy of the project's sources under tmp/ (inside the project, so that packages resolve),
 * so that changing a source file here changes nothing of the repository.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, freePort, ROOT } from '../helpers/processes.ts';

const run = promisify(execFile);
const COPY = join(ROOT, `tmp/rebuild-e2e-${process.pid}`);
let dataDir: string;
let server: ChildProcess | undefined;

beforeAll(() => {
  mkdirSync(COPY, { recursive: true });
  for (const entry of ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'])
    cpSync(join(ROOT, entry), join(COPY, entry), { recursive: true });
  dataDir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-rebuild-'));
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    try {
      process.kill(-server.pid!, 'SIGKILL');
    } catch (e) {
      // Its group is already gone (it is exiting): nothing left to kill.
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
    await exited(server);
  }
  rmSync(COPY, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

const builds = () => readdirSync(join(COPY, '.build')).sort();
const target = () => readlinkSync(join(COPY, 'dist'));

/** `npm start` in the copy, in a process group of its own; resolves with its URL and output. */
async function npmStart(): Promise<{ url: string; output: () => string }> {
  const port = await freePort();
  let output = '';
  server = spawn('npm', ['start'], {
    cwd: COPY,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      DATA_DIR: dataDir,
      ASSETQL_DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no address:\n${output}`)), 180_000);
    const read = (b: Buffer) => {
      output += b.toString();
      const m = /assetql at (http:\/\/\S+)\/api\/graphql/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    server!.stdout!.on('data', read);
    server!.stderr!.on('data', read);
    server!.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  return { url, output: () => output };
}

async function stopServer(): Promise<void> {
  if (!server || server.exitCode !== null) return;
  process.kill(-server.pid!, 'SIGTERM');
  await exited(server);
}

describe('npm start, built beside', () => {
  it('builds once, then starts again without building', async () => {
    const first = await npmStart();
    expect(first.output()).toMatch(/^assetql: built \.build\/\w+ \(dist\)$/m);
    await stopServer();
    const [only] = builds();
    expect(builds()).toEqual([only]);
    expect(target()).toBe(join('.build', only!));
    const builtAt = statSync(join(COPY, '.build', only!, '.complete')).mtimeMs;

    const second = await npmStart();
    expect(second.output()).not.toMatch(/built/);
    expect(builds()).toEqual([only]);
    expect(statSync(join(COPY, '.build', only!, '.complete')).mtimeMs).toBe(builtAt);
    await stopServer();
  }, 300_000);

  it('swaps to a new build while the server serves, which answers every request meanwhile', async () => {
    const { url } = await npmStart();
    const served = target();
    const paths = [
      '/plugins/sr/apolloGraphql',
      '/plugins/sr/apolloGraphql/assets/explorer.js',
      '/plugins/sr/apolloGraphql/assets/explorer.css',
      '/plugins/sr/apolloGraphql/assets/examples.json',
    ];
    const statuses = new Map<string, number>();
    let requests = 0;
    let building = true;
    const poll = (async () => {
      while (building) {
        for (const path of paths) {
          const r = await fetch(`${url}${path}`);
          await r.arrayBuffer();
          statuses.set(`${path} ${r.status}`, (statuses.get(`${path} ${r.status}`) ?? 0) + 1);
          requests++;
        }
        const g = await fetch(`${url}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ session { authenticated } }' }),
        });
        await g.arrayBuffer();
        statuses.set(`graphql ${g.status}`, (statuses.get(`graphql ${g.status}`) ?? 0) + 1);
      }
    })();
    // A change of the sources, then `npm run build` (what a second `npm start` would run first).
    appendFileSync(join(COPY, 'src/cli/bin.ts'), '\n// changed\n');
    const built = await run('npm', ['run', 'build', '--silent'], { cwd: COPY, timeout: 240_000 });
    expect(built.stdout).toMatch(/^assetql: built/m);
    // A few more rounds against the new layout before stopping.
    const after = requests;
    while (requests < after + paths.length * 3) await new Promise((r) => setTimeout(r, 20));
    building = false;
    await poll;

    expect(target()).not.toBe(served);
    const bad = [...statuses].filter(([key]) => !key.endsWith(' 200'));
    expect(bad, JSON.stringify([...statuses])).toEqual([]);
    // The running server's build is kept beside the new one, and goes once nothing runs it.
    expect(builds()).toEqual([served.replace('.build/', ''), target().replace('.build/', '')].sort());
    await stopServer();
    // Another build only removes builds a minute old (one may be just made for another): this
    // one as if made a minute ago.
    const aMinuteAgo = new Date(Date.now() - 61_000);
    utimesSync(join(COPY, served, '.complete'), aMinuteAgo, aMinuteAgo);
    await run('npm', ['run', 'build', '--silent'], { cwd: COPY, timeout: 240_000 });
    expect(builds()).toEqual([target().replace('.build/', '')]);
  }, 300_000);
});
