import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { EXAMPLES, examplesDocument } from './examples.ts';

// Hive Laboratory (the explorer Hive Gateway serves) ships prebuilt: React, Monaco and its
// workers in @graphql-hive/laboratory's dist/. We serve its files ourselves, from this origin,
// so that the explorer works offline, with no CDN and no inline script: from the build, which
// copies them in (scripts/build.ts), or, run from the sources, from the package itself.
const here = import.meta.dirname;
const laboratory = join(here, 'vendor');

/** Where Laboratory's files are: beside this module in a build, else the installed package. */
function laboratoryDir(): string | undefined {
  if (existsSync(laboratory)) return laboratory;
  try {
    return dirname(fileURLToPath(import.meta.resolve('@graphql-hive/laboratory')));
  } catch (e) {
    // Neither (a production install run from the sources): the page says the explorer is missing.
    if ((e as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw e;
  }
}

const JS = 'text/javascript; charset=utf-8';
const OURS: Record<string, { file: string; type: string }> = {
  '/assets/explorer.js': { file: 'explorer.js', type: JS },
  '/assets/explorer.css': { file: 'explorer.css', type: 'text/css; charset=utf-8' },
};
const LABORATORY: Record<string, { file: string; type: string }> = {
  '/assets/laboratory.js': { file: 'hive-laboratory.umd.js', type: JS },
  '/assets/laboratory.css': { file: 'laboratory.css', type: 'text/css; charset=utf-8' },
};
for (const worker of ['editor', 'json', 'graphql', 'ts']) {
  LABORATORY[`/assets/monacoeditorwork/${worker}.worker.bundle.js`] = {
    file: join('monacoeditorwork', `${worker}.worker.bundle.js`),
    type: JS,
  };
}

/** The file an asset path names (a fixed list: no path is built from the request), if any. */
function assetFile(subpath: string): { file: string; type: string } | undefined {
  const ours = OURS[subpath];
  if (ours) return { file: join(here, ours.file), type: ours.type };
  const theirs = LABORATORY[subpath];
  const dir = theirs && laboratoryDir();
  return theirs && dir ? { file: join(dir, theirs.file), type: theirs.type } : undefined;
}

/**
 * Only our own scripts; Monaco needs inline styles and workers from this origin. Nothing may
 * frame the page.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let page: string | undefined;
let examples: string | undefined;

function html(graphqlPath: string, demo: boolean) {
  page ??= readFileSync(join(here, 'explorer.html'), 'utf8');
  return page.replaceAll('__GRAPHQL_PATH__', graphqlPath).replace('__DEMO__', demo ? '' : 'hidden');
}

/** The examples as the explorer's script takes them (src/gateway/explorer/examples.ts). */
function examplesJson(): string {
  examples ??= JSON.stringify({
    document: examplesDocument(),
    operations: EXAMPLES.map(({ name, description, query, variables }) => ({
      name,
      description,
      query,
      variables: JSON.stringify(variables ?? {}, null, 2),
    })),
  });
  return examples;
}

export interface ExplorerOptions {
  graphqlPath: string;
  /** The demo environment: the page names the demo user. */
  demo: boolean;
}

/** Serves the explorer page (`subpath` '' or '/') and its assets. */
export function serveExplorer(request: Request, subpath: string, options: ExplorerOptions): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  if (subpath === '' || subpath === '/') {
    return new Response(html(options.graphqlPath, options.demo), {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': CSP,
        'cache-control': 'no-store',
      },
    });
  }
  if (subpath === '/assets/examples.json') {
    return new Response(request.method === 'HEAD' ? null : examplesJson(), {
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' },
    });
  }
  const asset = assetFile(subpath);
  if (!asset || !existsSync(asset.file)) return new Response('Not found', { status: 404 });
  const body =
    request.method === 'HEAD' ? null : (Readable.toWeb(createReadStream(asset.file)) as ReadableStream);
  return new Response(body, {
    headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=3600' },
  });
}
