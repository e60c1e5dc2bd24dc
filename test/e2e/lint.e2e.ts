/**
 * The architecture's rules hold because lint enforces them, not because people remember them:
 * an import cycle, or a subgraph importing another subgraph or the gateway, fails `npm run lint`.
 */

import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const run = promisify(execFile);
const biome = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');

/** Lints `files` (written under a scratch folder of the given place) as `npm run lint` would. */
async function lint(dir: string, files: Record<string, string>): Promise<{ code: number; output: string }> {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  try {
    const { stdout, stderr } = await run(process.execPath, [biome, 'lint', dir], { cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, output: err.stdout + err.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('lint', () => {
  it('fails on an import cycle', async () => {
    const dir = join(ROOT, 'src', `lint-probe-${process.pid}`);
    const { code, output } = await lint(dir, {
      'a.ts': "import { b } from './b.ts';\n\nexport const a = (): number => b() + 1;\n",
      'b.ts': "import { a } from './a.ts';\n\nexport const b = (): number => (a.length > 0 ? 1 : 0);\n",
    });
    expect(code).not.toBe(0);
    expect(output).toContain('noImportCycles');
  });

  it('fails when a subgraph imports another subgraph', async () => {
    const dir = join(ROOT, 'src', 'subgraphs', 'issues', `lint-probe-${process.pid}`);
    const { code, output } = await lint(dir, {
      'leak.ts': "export { ASSET_ERROR_TYPES } from '../../assets/error-codes.ts';\n",
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
