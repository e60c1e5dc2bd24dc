// The web console's files, made from its sources (src/console/app/): the app bundled by esbuild
// into one script, its stylesheets joined into one, its page as it is, and the licences of the packages the
// bundle holds. Build time only: `scripts/build.ts` writes them into the build beside the module
// that serves them (src/gateway/console/static/), and a server run from the sources makes them
// in memory on first use. esbuild and the bundled packages are development dependencies: neither
// this module nor they are part of `dist`, which holds only what they made.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { build } from 'esbuild';

const app = join(import.meta.dirname, 'app');

/** The files the console serves, by name: what `src/gateway/console/index.ts` lists. */
export const CONSOLE_FILES = ['index.html', 'console.js', 'console.css', 'licenses.txt'] as const;
export type ConsoleFile = (typeof CONSOLE_FILES)[number];

/** The stylesheets of src/console/app/, in order, served as the one console.css: the console's, the views'. */
const STYLESHEETS = ['console.css', 'views.css'];

export interface ConsoleBuildOptions {
  /** Minified, for a build; readable with an inline source map when served from the sources. */
  production: boolean;
}

/** Makes every file of {@link CONSOLE_FILES}. */
export async function consoleFiles(options: ConsoleBuildOptions): Promise<Record<ConsoleFile, Uint8Array>> {
  const result = await build({
    entryPoints: [join(app, 'main.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    // Browsers of the last few years: every one that has the features the app uses.
    target: ['chrome111', 'firefox115', 'safari16.4'],
    minify: options.production,
    sourcemap: options.production ? false : 'inline',
    // The licences go to licenses.txt, whole, rather than as comments a minifier may drop.
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: app,
  });
  const [script] = result.outputFiles;
  if (!script) throw new Error('esbuild made no console bundle');
  return {
    'index.html': readFileSync(join(app, 'index.html')),
    'console.js': script.contents,
    'console.css': Buffer.concat(STYLESHEETS.map((name) => readFileSync(join(app, name)))),
    'licenses.txt': new TextEncoder().encode(licences(Object.keys(result.metafile.inputs))),
  };
}

/**
 * The licence texts of the packages whose modules went into the bundle (`inputs`, paths as
 * esbuild's metafile gives them, relative to the app's folder), one after another.
 */
function licences(inputs: string[]): string {
  const packages = new Map<string, string>();
  for (const input of inputs) {
    const path = join(app, input);
    const marker = `${sep}node_modules${sep}`;
    const at = path.lastIndexOf(marker);
    if (at < 0) continue;
    const rest = path.slice(at + marker.length).split(sep);
    const name = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    packages.set(name, join(path.slice(0, at), 'node_modules', name));
  }
  const parts = ['The assetql console bundles these packages; each is distributed under the licence below.'];
  for (const [name, dir] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      version?: string;
      license?: string;
    };
    parts.push(
      `${'-'.repeat(78)}\n${name} ${manifest.version ?? ''} (${manifest.license ?? 'see below'})\n\n${licenceText(dir)}`,
    );
  }
  return `${parts.join('\n\n')}\n`;
}

/** A package's licence file, by the names packages give it. */
function licenceText(dir: string): string {
  for (const name of ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'license.md', 'LICENCE']) {
    try {
      return readFileSync(join(dir, name), 'utf8').trim();
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'ENOENT') throw e;
    }
  }
  throw new Error(`${relative(dirname(app), dir)} has no licence file to ship with the console`);
}
