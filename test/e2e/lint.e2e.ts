/**
 * The architecture's rules hold because lint enforces them, not because people remember them:
 * an import cycle, or a subgraph importing another subgraph or the gateway, fails `npm run lint`.
 * The probes live in a scratch copy of the project's layout with its biome.json, never under
 * src/: a build or a scan running beside this test (the container test's tsc) would find them
 * there, then lose them mid-read.
 */

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const run = promisify(execFile);
const biome = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');

/**
 * Lints `files` (paths relative to the project's root) as `npm run lint` would: with the project's
 * biome.json, in a scratch folder outside the project (version control off, as it has none).
 */
async function lint(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const scratch = mkdtempSync(join(tmpdir(), 'aq-lint-probe-'));
  const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as Record<string, unknown>;
  delete config.$schema;
  config.vcs = { enabled: false };
  writeFileSync(join(scratch, 'biome.json'), JSON.stringify(config));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, name)), { recursive: true });
    writeFileSync(join(scratch, name), text);
  }
  try {
    const { stdout, stderr } = await run(process.execPath, [biome, 'lint', 'src'], { cwd: scratch });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, output: err.stdout + err.stderr };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe('lint', () => {
  it('fails on an import cycle', async () => {
    const { code, output } = await lint({
      'src/probe/a.ts': "import { b } from './b.ts';\n\nexport const a = (): number => b() + 1;\n",
      'src/probe/b.ts':
        "import { a } from './a.ts';\n\nexport const b = (): number => (a.length > 0 ? 1 : 0);\n",
    });
    expect(code).not.toBe(0);
    expect(output).toContain('noImportCycles');
  });

  it('fails when a subgraph imports another subgraph', async () => {
    const { code, output } = await lint({
      'src/subgraphs/issues/probe/leak.ts':
        "export { ASSET_ERROR_TYPES } from '../../assets/error-codes.ts';\n",
      'src/subgraphs/assets/error-codes.ts': "export const ASSET_ERROR_TYPES = ['NOT_FOUND'];\n",
    });
    expect(code).not.toBe(0);
    expect(output).toContain('Subgraphs meet only through federation keys');
  });

  it('passes on the code as it is', async () => {
    const { stdout } = await run(process.execPath, [biome, 'lint', 'src', 'test', 'bench', 'scripts'], {
      cwd: ROOT,
    });
    expect(stdout).not.toContain('noImportCycles');
  });
});
