/**
 * A clone is all a user has: no code, test, benchmark, script or configuration may reach a path
 * outside the repository (such as a folder beside it). test/e2e/front-door.e2e.ts shows it on a
 * real clone; this finds such a path in seconds, wherever it is written.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

/** What runs or configures the project, and the documentation that links into it. */
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'docs', 'examples', '.ci'];
const FILES = [
  'package.json',
  'vitest.config.ts',
  'tsconfig.json',
  'tsconfig.build.json',
  'codegen.ts',
  'README.md',
];
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|json|md|graphql|txt|ya?ml|sh)$|^run$/;

function sources(): string[] {
  const found = FILES.map((f) => join(ROOT, f));
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && TEXT.test(entry.name) && !entry.parentPath.includes('__generated__'))
        found.push(join(entry.parentPath, entry.name));
    }
  }
  // This file holds such paths on purpose, as examples.
  return found.filter((f) => f !== fileURLToPath(import.meta.url));
}

/** Relative paths (`../x`, `../../x/y`) in `text` that lead out of the repository from `file`'s folder. */
function leavingPaths(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\.\.\/)+[\w.-]+/g)) {
    // Scripts in package.json and .ci/run run from the root; codegen's mappers are relative to
    // the generated file; everything else resolves from its own folder.
    const base =
      file === join(ROOT, 'package.json') || file.startsWith(join(ROOT, '.ci'))
        ? ROOT
        : file === join(ROOT, 'codegen.ts')
          ? join(ROOT, 'src/__generated__')
          : dirname(file);
    const target = resolve(base, m[0]);
    if (relative(ROOT, target).startsWith('..')) out.push(m[0]);
  }
  return out;
}

describe('the repository is self-contained', () => {
  it('reaches no path outside itself', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const outside = files.flatMap((f) =>
      leavingPaths(f, readFileSync(f, 'utf8')).map((p) => `${relative(ROOT, f)}: ${p}`),
    );
    expect(outside).toEqual([]);
  });

  it('would notice one (the check itself can fail)', () => {
    const file = join(ROOT, 'test/integration/composition.test.ts');
    // The sibling folder a checkout once read, spelled in parts so that this file does not read
    // as reaching it.
    const sibling = ['..', '..', '..', 'shared'].join('/');
    expect(leavingPaths(file, `new URL('${sibling}/spec/surface.txt', import.meta.url)`)).toEqual([
      '../../../shared',
    ]);
    expect(leavingPaths(file, "new URL('../fixtures/spec/surface.txt', import.meta.url)")).toEqual([]);
    expect(leavingPaths(join(ROOT, 'package.json'), '"node ../shared/x.mjs"')).toEqual(['../shared']);
  });
});
