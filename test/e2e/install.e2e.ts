/**
 * The install under an unsupported Node: `npm install` stops before any package is fetched
 * (`engine-strict` in the project's .npmrc). That a fresh clone's install prints no warning is
 * shown by test/e2e/front-door.e2e.ts, on the README's own `npm install`.
 *
 * The old Node is the machine's own (/usr/bin/node, 20 on Debian 13) or the one OLD_NODE names,
 * with the npm beside it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const run = promisify(execFile);
const OLD_NODE = process.env.OLD_NODE ?? '/usr/bin/node';
let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-install-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A command's exit code and its output, stdout and stderr together. */
async function outcome(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  try {
    const r = await run(file, args, { ...options, timeout: 600_000, maxBuffer: 64 << 20 });
    return { code: 0, output: `${r.stdout}\n${r.stderr}` };
  } catch (e) {
    const f = e as { code?: number | string; stdout?: string; stderr?: string };
    return { code: f.code, output: `${f.stdout ?? ''}\n${f.stderr ?? ''}` };
  }
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

// The PostgreSQL pass of CI would repeat it to no purpose.
describe.skipIf(process.env.DATABASE_URL)('installing', () => {
  it('under an unsupported Node stops before any package is fetched', async () => {
    if (!existsSync(OLD_NODE))
      throw new Error(
        `this test installs under a Node.js older than package.json's engines.node; none at ${OLD_NODE} ` +
          '(Debian: apt-get install nodejs npm, or set OLD_NODE to another old node binary)',
      );
    const npm = join(dirname(OLD_NODE), 'npm');
    if (!existsSync(npm)) throw new Error(`no npm beside ${OLD_NODE} (Debian: apt-get install npm)`);
    const project = join(home, 'old-node');
    const cache = join(home, 'old-node-cache');
    await run('mkdir', ['-p', project]);
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      await run('cp', [join(ROOT, file), join(project, file)]);
    const r = await outcome(npm, ['install', '--no-audit', '--no-fund', '--cache', cache], {
      cwd: project,
      env: { PATH: `${dirname(OLD_NODE)}:/usr/bin:/bin`, HOME: home },
    });
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toMatch(/EBADENGINE/);
    const wanted = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node;
    expect(r.output).toContain(wanted);
    expect(existsSync(join(project, 'node_modules'))).toBe(false);
    // npm's cache holds what it fetched: its content store and its index of requests.
    const fetched = filesUnder(join(cache, '_cacache')).filter(
      (f) => !f.includes(`${join('_cacache', 'tmp')}`),
    );
    expect(fetched, fetched.map((f) => readFileSync(f, 'utf8').slice(0, 200)).join('\n')).toEqual([]);
  }, 120_000);
});
