// Builds the service as JavaScript, with the files it reads at run time (SDL, the explorer page,
// the web console bundled by esbuild) beside it. The server runs from the build because type
// stripping keeps a TypeScript compiler (WebAssembly) resident: about 60 MB of a process at rest.
// Type checking is `npm run typecheck`'s job; this only emits.
//
// `node scripts/build.ts`: `dist` is a link to `.build/<id>`, where <id> is a digest of every
// input (the sources, the compiler settings, this script). When the link already points at a
// finished build of the same inputs, nothing is done (a warm `npm start` costs a digest of the
// sources, ~50 ms). Otherwise the build is made beside, in a folder of its own, and the link is
// swapped to it in one rename: a running server never sees `dist` missing or half-written, and
// the build it runs from is kept while it runs (each process of it leaves its pid in
// `.build/<id>/.serving/`); other builds are removed once a minute old (another build may be
// about to point `dist` at one), and never the one `dist` points at.
//
// `node scripts/build.ts <dir>`: one build into <dir> (inside the project, so that packages
// resolve), made beside and moved into place (the image and some tests).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');
/** The web console's sources: bundled (below), not compiled by tsc nor copied as they are. */
const consoleSources = join(src, 'console');
const builds = join(root, '.build');
const COMPLETE = '.complete';
/** What the explorer serves of @graphql-hive/laboratory's dist/ (src/gateway/explorer/index.ts). */
const EXPLORER_FILES = [
  'hive-laboratory.umd.js',
  'laboratory.css',
  ...['editor', 'json', 'graphql', 'ts'].map((w) => `monacoeditorwork/${w}.worker.bundle.js`),
];
/** A build younger than this is kept, served or not; one moved aside from an older layout, a day. */
const GRACE_MS = 60_000;
const MOVED_GRACE_MS = 24 * 60 * 60_000;

if (process.argv[2]) {
  const dir = resolve(root, process.argv[2]);
  const beside = `${dir}.next-${process.pid}`;
  await compile(beside);
  rmSync(`${dir}.old-${process.pid}`, { recursive: true, force: true });
  if (existsSync(dir)) renameSync(dir, `${dir}.old-${process.pid}`);
  renameSync(beside, dir);
  rmSync(`${dir}.old-${process.pid}`, { recursive: true, force: true });
} else {
  const id = inputsDigest();
  const target = join(builds, id);
  const dist = join(root, 'dist');
  const current = linkOf(dist);
  if (current === relative(root, target) && existsSync(join(target, COMPLETE))) {
    prune();
  } else {
    if (!existsSync(join(target, COMPLETE))) {
      const beside = join(builds, `${id}.next-${process.pid}`);
      await compile(beside);
      writeFileSync(join(beside, COMPLETE), `${new Date().toISOString()}\n`);
      try {
        // Only ever a finished build goes by its name: another one of the same inputs that
        // finished first stays (a server may run from it already), and this one goes.
        renameSync(beside, target);
      } catch (e) {
        if (!['ENOTEMPTY', 'EEXIST'].includes(String((e as { code?: unknown }).code))) throw e;
        rmSync(beside, { recursive: true, force: true });
      }
    }
    pointAt(dist, target);
    prune();
    process.stdout.write(`assetql: built ${relative(root, target)} (dist)\n`);
  }
}

/** Compiles the sources into `out` (a new folder), with the files they read beside them. */
async function compile(out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', out], {
    stdio: 'inherit',
  });
  cpSync(src, out, {
    recursive: true,
    filter: (path) => !path.endsWith('.ts') && path !== consoleSources,
  });
  // The explorer's prebuilt files (Hive Laboratory: React, Monaco and its workers), copied in so
  // that the service needs none of that package's dependencies installed to serve them.
  const laboratory = dirname(fileURLToPath(import.meta.resolve('@graphql-hive/laboratory')));
  const vendor = join(out, 'gateway', 'explorer', 'vendor');
  for (const file of EXPLORER_FILES) cpSync(join(laboratory, file), join(vendor, file));
  // The web console, bundled for browsers, beside the module that serves it
  // (src/gateway/console/index.ts); esbuild and the packages it bundles stay out of `dist`.
  // Loaded here, not at the top: a warm start (nothing to build) needs no development dependency.
  const { CONSOLE_FILES, consoleFiles } = await import('../src/console/build.ts');
  const made = await consoleFiles({ production: true });
  const consoleDir = join(out, 'gateway', 'console', 'static');
  mkdirSync(consoleDir, { recursive: true });
  for (const name of CONSOLE_FILES) writeFileSync(join(consoleDir, name), made[name]);
  // tsc writes files without the execute bit; `npx assetql` runs bin.js directly.
  chmodSync(join(out, 'cli', 'bin.js'), 0o755);
}

/** A digest of everything the build is made from. */
function inputsDigest(): string {
  const hash = createHash('sha256');
  const files = [
    ...readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.endsWith('.test.ts'))
      .map((e) => join(e.parentPath, e.name)),
    join(root, 'tsconfig.json'),
    join(root, 'tsconfig.build.json'),
    join(root, 'scripts', 'build.ts'),
  ].sort();
  for (const file of files) {
    const content = readFileSync(file);
    hash.update(`${relative(root, file)}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex').slice(0, 16);
}

/** Where the link `path` points, relative to the project; undefined when it is not a link. */
function linkOf(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Makes `link` point at `target` in one rename (a folder of an older layout is moved aside). */
function pointAt(link: string, target: string): void {
  if (existsSync(link) && !lstatSync(link).isSymbolicLink()) {
    mkdirSync(builds, { recursive: true });
    renameSync(link, join(builds, `moved-${Date.now()}`));
  }
  const next = `${link}.next-${process.pid}`;
  rmSync(next, { force: true });
  symlinkSync(relative(root, target), next, 'dir');
  renameSync(next, link);
}

/**
 * Removes what no process needs: builds but the one `dist` points at (read again here: another
 * build may have swapped it meanwhile), younger than a minute, or that a live process runs from;
 * and what builds that died halfway left. Each goes by a rename first, so that no half-removed
 * build keeps its name. Best effort: on a read-only checkout nothing is removed, and nothing
 * fails.
 */
function prune(): void {
  if (!existsSync(builds)) return;
  const current = linkOf(join(root, 'dist'));
  const now = Date.now();
  for (const name of readdirSync(builds)) {
    const dir = join(builds, name);
    if (current && relative(root, dir) === current) continue;
    const halfway = /\.next-(\d+)$/.exec(name);
    const moved = /^moved-(\d+)$/.exec(name);
    const trash = /\.trash-\d+$/.test(name);
    const keep = halfway
      ? alive(Number(halfway[1]))
      : moved
        ? now - Number(moved[1]) < MOVED_GRACE_MS
        : !trash && (served(dir) || now - finishedAt(dir) < GRACE_MS);
    if (keep) continue;
    try {
      const gone = trash ? dir : `${dir}.trash-${process.pid}`;
      if (!trash) renameSync(dir, gone);
      rmSync(gone, { recursive: true, force: true });
    } catch (e) {
      const code = String((e as { code?: unknown }).code);
      if (['EROFS', 'EACCES', 'EPERM', 'ENOENT', 'EBUSY'].includes(code)) continue;
      throw e;
    }
  }
}

/** When a build was finished (its `.complete` file), or 0 for a folder that is none. */
function finishedAt(dir: string): number {
  try {
    return statSync(join(dir, COMPLETE)).mtimeMs;
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return 0;
    throw e;
  }
}

/** Whether a live process left its pid in the build's `.serving/` folder. */
function served(dir: string): boolean {
  const serving = join(dir, '.serving');
  if (!existsSync(serving)) return false;
  return readdirSync(serving).some((pid) => /^\d+$/.test(pid) && alive(Number(pid)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === 'EPERM';
  }
}
