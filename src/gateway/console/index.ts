// The web console (src/console/app/, docs/console.md): its page and three files, served from this
// origin under a strict CSP. A build holds them beside this module in static/, made by
// scripts/build.ts with src/console/build.ts; run from the sources, that module makes them in
// memory on first use (esbuild, a development dependency). Either way they are read once and kept:
// a few hundred kilobytes.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
/** A build's files (scripts/build.ts writes them). */
const BUILT = join(here, 'static');
/** Run from the sources: the module that makes them (never part of a build). */
const MAKER = join(here, '..', '..', 'console', 'build.ts');

type Name = 'index.html' | 'console.js' | 'console.css' | 'licenses.txt';

/** The files by the path under `/console` that names them: a fixed list, no path is built from a request. */
const ASSETS: Record<string, { name: Name; type: string }> = {
  '/assets/console.js': { name: 'console.js', type: 'text/javascript; charset=utf-8' },
  '/assets/console.css': { name: 'console.css', type: 'text/css; charset=utf-8' },
  '/assets/licenses.txt': { name: 'licenses.txt', type: 'text/plain; charset=utf-8' },
};

/**
 * The page's policy: its own script, stylesheet and API only, no inline script or style, no
 * string-to-code or HTML sinks (Trusted Types with no policy), nothing may frame it, forms post
 * nowhere (the app sends them itself).
 */
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

interface Files {
  files: Record<Name, Uint8Array>;
  /** A digest of the files, in the page's links to them: a new build is a new URL. */
  version: string;
}

let files: Promise<Files> | undefined;

/** The files, read from the build or made from the sources, once per process. */
function load(): Promise<Files> {
  files ??= read().then(
    (found) => {
      const hash = createHash('sha256');
      for (const name of Object.keys(found).sort()) hash.update(name).update(found[name as Name]);
      return { files: found, version: hash.digest('hex').slice(0, 12) };
    },
    (e: unknown) => {
      // Made again at the next request (a source fixed meanwhile).
      files = undefined;
      throw e;
    },
  );
  return files;
}

async function read(): Promise<Record<Name, Uint8Array>> {
  if (existsSync(join(BUILT, 'console.js'))) {
    const file = (name: Name) => readFileSync(join(BUILT, name));
    return {
      'index.html': file('index.html'),
      'console.js': file('console.js'),
      'console.css': file('console.css'),
      'licenses.txt': file('licenses.txt'),
    };
  }
  if (!existsSync(MAKER)) throw new ConsoleMissing('this installation has no console files');
  const { consoleFiles } = (await import(pathToFileURL(MAKER).href)) as {
    consoleFiles(options: { production: boolean }): Promise<Record<Name, Uint8Array>>;
  };
  return consoleFiles({ production: false });
}

class ConsoleMissing extends Error {
  override name = 'ConsoleMissing';
}

export interface ConsoleOptions {
  graphqlPath: string;
  /** Where the console is served, `/console`. */
  consolePath: string;
}

/** Serves the console's page (`subpath` '' or '/') and its files. */
export async function serveConsole(
  request: Request,
  subpath: string,
  options: ConsoleOptions,
): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  const page = subpath === '' || subpath === '/';
  const asset = ASSETS[subpath];
  if (!page && !asset) return new Response('Not found', { status: 404 });
  let loaded: Files;
  try {
    loaded = await load();
  } catch (e) {
    // Only when run from the sources without the development dependencies, a broken source, or a
    // build missing a file. The reason (paths of this machine) is the operator's, not the caller's.
    process.emitWarning(`the console is not available: ${e instanceof Error ? e.message : String(e)}`);
    return new Response(
      'The console is not available in this installation. Run `npm install` and `npm run build`.\n',
      {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      },
    );
  }
  const head = request.method === 'HEAD';
  if (page) {
    const html = new TextDecoder()
      .decode(loaded.files['index.html'])
      .replaceAll('__GRAPHQL_PATH__', options.graphqlPath)
      .replaceAll('__CONSOLE_PATH__', options.consolePath)
      .replaceAll('__VERSION__', loaded.version);
    return new Response(head ? null : html, {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': CONSOLE_CSP,
        // Always asked again: the page names the current files.
        'cache-control': 'no-cache',
      },
    });
  }
  const { name, type } = asset!;
  // Linked with the current version, a file never changes at its URL; asked otherwise, it may.
  const current = new URL(request.url).searchParams.get('v') === loaded.version;
  return new Response(head ? null : (loaded.files[name] as Uint8Array<ArrayBuffer>), {
    headers: {
      'content-type': type,
      'cache-control': current ? 'public, max-age=31536000, immutable' : 'no-cache',
      'cross-origin-resource-policy': 'same-origin',
    },
  });
}
