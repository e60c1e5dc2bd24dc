/**
 * The front door, as a new user meets it: a fresh clone of the repository (its committed HEAD,
 * with nothing beside it), the README's two commands — `npm install` (with no warning printed),
 * `npm start` — then a
 * query, the `assetql` binary through npx, the spec-surface check against the running server,
 * and the suite's own configuration run in the clone. Slow by nature (an install of every
 * dependency, from npm's cache where it can): one test, minutes long.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, freePort, ROOT } from '../helpers/processes.ts';
import { requireTool } from '../helpers/tools.ts';

const run = promisify(execFile);
let home: string;
let clone: string;
let server: ChildProcess | undefined;
let output = '';
const timings: Record<string, number> = {};

/** A user's shell: this Node first on PATH, no npm settings or project variables inherited. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '',
    ...extra,
  };
}

/** Runs a command in the clone; rejects with its output when it fails. */
async function inClone(file: string, args: string[], timeoutMs: number, extra: Record<string, string> = {}) {
  const started = performance.now();
  try {
    return await run(file, args, {
      cwd: clone,
      env: userEnv(extra),
      timeout: timeoutMs,
      maxBuffer: 32 << 20,
    });
  } catch (e) {
    const f = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${f.message}\n${f.stdout ?? ''}\n${f.stderr ?? ''}`);
  } finally {
    timings[`${file} ${args[0]}`] = Math.round(performance.now() - started);
  }
}

beforeAll(async () => {
  if (process.env.DATABASE_URL) return;
  const git = requireTool(['git'], { package: 'git', for: 'cloning the repository as a new user does' });
  // The clone's parent holds nothing else: no ../shared or any other folder beside it.
  home = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-front-'));
  clone = join(home, 'assetql');
  await run(git, ['clone', '--quiet', ROOT, clone], { timeout: 60_000 });
}, 90_000);

afterAll(async () => {
  process.stderr.write(`front door, ms: ${JSON.stringify(timings)}\n`);
  if (server && server.exitCode === null && server.signalCode === null) {
    process.kill(-server.pid!, 'SIGKILL');
    await exited(server);
  }
  if (home) rmSync(home, { recursive: true, force: true });
}, 120_000);

// The clone runs as a new user's does, on the embedded database whatever DATABASE_URL says: the
// PostgreSQL pass of CI would repeat the same minutes to no purpose.
describe.skipIf(process.env.DATABASE_URL)('a fresh clone', () => {
  it('installs, starts, answers, and runs its CLI and its own tests with nothing beside it', async () => {
    expect(readdirSync(home)).toEqual(['assetql']);

    // 1. `npm install` (from the npm cache where it can: the dependencies, not the point here),
    // which prints no warning: a page of `npm warn ERESOLVE` lines looks broken, whatever it means.
    const installed = await inClone(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund'],
      480_000,
    );
    const said = `${installed.stdout}\n${installed.stderr}`;
    expect(
      said.split('\n').filter((line) => /^npm (warn|WARN)/.test(line)),
      said,
    ).toEqual([]);
    // The install's prepare step built dist/, its binary executable.
    expect(statSync(join(clone, 'dist/cli/bin.js')).mode & 0o111).toBe(0o111);

    // 2. `npm start`, on a free port, with its data in a folder of its own.
    const port = await freePort();
    const started = performance.now();
    // A process group of its own, so that stopping it stops npm's shell and the server under it.
    server = spawn('npm', ['start'], {
      cwd: clone,
      env: userEnv({ PORT: String(port), DATA_DIR: join(home, 'data'), LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`npm start printed no address in 180 s:\n${output}`)),
        180_000,
      );
      const read = (b: Buffer) => {
        output += b.toString();
        const m = /assetql at (http:\/\/\S+\/api\/graphql)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      server!.stdout!.on('data', read);
      server!.stderr!.on('data', read);
      server!.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
    });
    timings['npm start, until listening'] = Math.round(performance.now() - started);
    expect(url).toBe(`http://127.0.0.1:${port}/api/graphql`);
    // The start names the demo user, and built nothing (the install's build is current).
    expect(output).toMatch(/^demo tenant loaded: sign in as demo with password demo$/m);
    expect(output).not.toMatch(/assetql: built/);

    // 3. The README's first query: sign in as demo/demo, then a page of wells.
    const signIn = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type message } session { authenticated username userGroup } } }`,
      }),
    });
    const signedIn = (await signIn.json()) as any;
    expect(signedIn.data?.signIn, `${JSON.stringify(signedIn)}\n${output}`).toMatchObject({
      errors: [],
      session: { authenticated: true, username: 'demo', userGroup: 'demo' },
    });
    const page = (await (
      await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-sessionid': signIn.headers.get('x-svc-sessionid')!,
        },
        body: JSON.stringify({
          query: `{ assets(profile: "well") { all(first: 5) { edges { node { id displayName properties } } } } }`,
        }),
      })
    ).json()) as any;
    expect(page.errors, output).toBeUndefined();
    expect(page.data.assets.all.edges).toHaveLength(5);

    // 4. The spec-surface checker the repository carries, against the running server.
    const surface = await inClone('node', ['scripts/check-surface.mjs', url], 60_000);
    expect(surface.stdout).toMatch(/^(\d+) of \1 surface checks hold$/m);

    // Stop it as a user does (Ctrl-C): the whole group, and it exits cleanly.
    process.kill(-server.pid!, 'SIGINT');
    const code = await exited(server);
    expect([0, 130, 'SIGINT'], output).toContain(code);

    // 5. The binary, after `npm start` rebuilt dist/: `npx assetql` finds and runs it. (npm_config_yes
    // false: should it not find it, npx fails rather than fetch a package of that name.)
    const help = await inClone('npx', ['assetql', '--help'], 60_000, { npm_config_yes: 'false' });
    expect(help.stdout).toMatch(/^Usage: assetql \[options\] \[command\]/);
    expect(help.stdout).toMatch(/^ {2}serve /m);

    // 6. The suite's own configuration in the clone: the tests that read the spec surface and
    // look for paths leaving the repository pass there too.
    const tests = await inClone(
      'npx',
      [
        'vitest',
        'run',
        'test/integration/composition.test.ts',
        'test/integration/self-contained.test.ts',
        '--maxWorkers=1',
      ],
      180_000,
    );
    expect(tests.stdout).toMatch(/Test Files\s+.*2 passed/);
    expect(existsSync(join(home, 'shared'))).toBe(false);
  }, 900_000);
});
