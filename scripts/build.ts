// Builds dist/: the service as JavaScript, with the files it reads at run time (SDL, the
// explorer page) beside it. The server runs from dist/ because type stripping keeps a
// TypeScript compiler (WebAssembly) resident: about 60 MB of a ~250 MB process at rest.
// Type checking is `npm run typecheck`'s job; this only emits.
// `node scripts/build.ts [dir]`: into dir (inside the project, so that packages resolve) @default dist
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');
const dist = join(root, process.argv[2] ?? 'dist');

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', dist], {
  stdio: 'inherit',
});
cpSync(src, dist, {
  recursive: true,
  filter: (path) => !path.endsWith('.ts'),
});
// tsc writes files without the execute bit, and the build replaces the bin.js that npm made
// executable at install: without this, `npx assetql` fails with "Permission denied" once
// `npm start` or `npm run build` has rebuilt dist/.
chmodSync(join(dist, 'cli', 'bin.js'), 0o755);
