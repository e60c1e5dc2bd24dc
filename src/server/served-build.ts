import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Leaves this process's pid (any `assetql` command's) in the build it runs from (`.build/<id>/.serving/<pid>`), so that a
 * build made beside it while it runs (`npm start` again, `npm run build`) keeps the files this
 * process may still load (scripts/build.ts); the pid goes at exit. Nothing happens when the
 * process runs from anything else (the sources, an image's `dist`) or cannot write there.
 */
export function markServedBuild(): void {
  const build = join(import.meta.dirname, '..');
  if (!existsSync(join(build, '.complete'))) return;
  const mark = join(build, '.serving', String(process.pid));
  try {
    mkdirSync(join(build, '.serving'), { recursive: true });
    writeFileSync(mark, '');
  } catch (e) {
    // A read-only build (nothing will be built beside it either), a full disk: the process runs
    // on, and only a build made beside it meanwhile could take its files.
    if (typeof (e as { code?: unknown }).code === 'string') return;
    throw e;
  }
  process.once('exit', () => rmSync(mark, { force: true }));
}
