/**
 * The architecture's rules hold because lint enforces them, not because people remember them:
 * an import cycle, or a subgraph importing another subgraph or the gateway, fails `npm run lint`.
 * The probes live in a scratch copy of the project's layout with its biome.json, never under
 * src/: a build or a scan running beside this test (the container test's tsc) would find them
 * there, then lose them mid-read.
 */

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  // The rooms' arrows run one way (docs/architecture.md, #36): a probe of each arrow turned back.
  it.each([
    [
      'shared/ importing a room',
      'src/shared/probe.ts',
      "export { DEFAULT_DOCUMENT_LIMITS } from '../config/limits.ts';\n",
      'src/shared/ holds the contracts',
    ],
    [
      'config/ importing storage/',
      'src/config/probe.ts',
      "export { openDatabase } from '../storage/database.ts';\n",
      'src/config/ imports only',
    ],
    [
      'execution/ importing the gateway',
      'src/execution/probe.ts',
      "export { createGateway } from '../gateway/gateway.ts';\n",
      'src/execution/ knows the other rooms',
    ],
    [
      'the subgraph server importing a subgraph',
      'src/subgraph-server/probe.ts',
      "export { assetsTypeDefs } from '../subgraphs/assets/index.ts';\n",
      'The subgraph server builds any subgraph',
    ],
    [
      'observability/ importing the gateway',
      'src/observability/probe.ts',
      "export type { Plugin } from '../gateway/http.ts';\n",
      'src/observability/ implements',
    ],
    [
      'the gateway importing observability/',
      'src/gateway/probe.ts',
      "export { activeTracing } from '../observability/active.ts';\n",
      'The gateway meets the subgraphs',
    ],
  ])('fails on %s', async (_name, file, text, message) => {
    const { code, output } = await lint({ [file]: text });
    expect(code).not.toBe(0);
    expect(output).toContain(message);
  });

  it('passes on the code as it is', async () => {
    const { stdout } = await run(process.execPath, [biome, 'lint', 'src', 'test', 'bench', 'scripts'], {
      cwd: ROOT,
    });
    expect(stdout).not.toContain('noImportCycles');
  });
});

/** Every source file under src/, by its path from the project's root, with its text. */
function sources(): [string, string][] {
  const out: [string, string][] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.test.ts'))
        out.push([path, readFileSync(join(ROOT, path), 'utf8')]);
    }
  };
  walk('src');
  return out;
}

describe('the sources (#36)', () => {
  const files = sources();
  const calling = (pattern: RegExp) => files.filter(([, text]) => pattern.test(text)).map(([path]) => path);

  it('hold no file over 400 lines, generated code and demo data aside', () => {
    const long = files
      .filter(([path]) => !path.startsWith('src/__generated__/') && !path.startsWith('src/demo/'))
      .filter(([, text]) => text.split('\n').length > 401)
      .map(([path]) => path);
    expect(long).toEqual([]);
  });

  it('hold no bare catch: an error is caught by what it is, or not at all', () => {
    expect(calling(/catch\s*\{/)).toEqual([]);
  });

  it("coerce a request's variables in one module, and call the cost estimator from one", () => {
    expect(calling(/\bgetVariableValues\(/)).toEqual(['src/execution/variables.ts']);
    expect(calling(/\bestimateCost\(/).filter((p) => p !== 'src/execution/cost.ts')).toEqual([
      'src/execution/admit.ts',
    ]);
  });
});
