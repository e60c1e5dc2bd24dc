/**
 * A Node.js older than package.json's `engines.node` is named in one line before anything else
 * of the project runs: `scripts/check-node.cjs` is the first step of `npm install` (prepare) and
 * `npm start` (prestart). Run here under an old Node: the machine's own (/usr/bin/node, Node 20
 * on Debian 13), or the one OLD_NODE names.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const run = promisify(execFile);
const OLD_NODE = process.env.OLD_NODE ?? '/usr/bin/node';
const minimum = /(\d+)\.(\d+)/.exec(
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node,
)!;
const LINE = new RegExp(
  `^assetql needs Node\\.js ${minimum[1]}\\.${minimum[2]} or later \\(found (\\d+\\.\\d+\\.\\d+)\\); install .+$`,
);

let oldVersion: string;
let dataDir: string;

/** The environment of a command run by the old Node: its folder first on PATH, so `node` is it. */
function oldNodeEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: `${dirname(OLD_NODE)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  return env;
}

/** Exit code, stdout and stderr of a command expected to fail. */
async function failing(file: string, args: string[]) {
  try {
    const r = await run(file, args, { cwd: ROOT, env: oldNodeEnv(), timeout: 90_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const f = e as { code?: number | string; stdout?: string; stderr?: string };
    return { code: f.code, stdout: f.stdout ?? '', stderr: f.stderr ?? '' };
  }
}

beforeAll(() => {
  if (!existsSync(OLD_NODE))
    throw new Error(
      `this test runs the project under a Node.js older than ${minimum[0]}; none at ${OLD_NODE} ` +
        '(Debian: apt-get install nodejs, or set OLD_NODE to another old node binary)',
    );
  oldVersion = execFileSync(OLD_NODE, ['--version'], { encoding: 'utf8' }).trim().slice(1);
  const [major, minor] = oldVersion.split('.').map(Number) as [number, number];
  const old = major < Number(minimum[1]) || (major === Number(minimum[1]) && minor < Number(minimum[2]));
  if (!old)
    throw new Error(
      `${OLD_NODE} is Node.js ${oldVersion}, not older than ${minimum[0]}: set OLD_NODE to an older node binary`,
    );
  dataDir = mkdtempSync(join(tmpdir(), 'aq-oldnode-'));
});

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('an older Node.js', () => {
  it('is named in one line by the check script, which exits 1', async () => {
    const r = await failing(OLD_NODE, ['scripts/check-node.cjs']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(LINE);
    expect(LINE.exec(lines[0]!)![1]).toBe(oldVersion);
  });

  it('stops `npm start` at its first step, before the build, with that line', async () => {
    const dist = join(ROOT, 'dist/cli/bin.js');
    const before = existsSync(dist) ? statSync(dist).mtimeMs : undefined;
    const r = await failing('npm', ['start']);
    expect(r.code).not.toBe(0);
    const ours = r.stderr.split('\n').filter((l) => l.startsWith('assetql'));
    expect(ours, r.stderr).toHaveLength(1);
    expect(ours[0]).toMatch(LINE);
    // Nothing after the check ran: no build, no attempt to load TypeScript.
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION|listening/);
    expect(existsSync(dist) ? statSync(dist).mtimeMs : undefined).toBe(before);
  });

  it('stops the install step (`prepare`) the same way', async () => {
    const r = await failing('npm', ['run', 'prepare']);
    expect(r.code).not.toBe(0);
    const ours = r.stderr.split('\n').filter((l) => l.startsWith('assetql'));
    expect(ours, r.stderr).toHaveLength(1);
    expect(ours[0]).toMatch(LINE);
    expect(r.stderr).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION/);
  });

  it('is not this one: the check passes silently under the Node.js running the tests', async () => {
    const r = await run(process.execPath, ['scripts/check-node.cjs'], { cwd: ROOT });
    expect(r.stdout + r.stderr).toBe('');
  });
});
