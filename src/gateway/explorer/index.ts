import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

// GraphiQL ships prebuilt (React, Monaco and all) in @graphql-yoga/graphiql; we serve its
// files ourselves so the explorer works offline, with no CDN.
const graphiqlDist = dirname(fileURLToPath(import.meta.resolve('@graphql-yoga/graphiql')));
const here = dirname(fileURLToPath(import.meta.url));

const ASSETS: Record<string, { file: string; type: string }> = {
  '/assets/graphiql.js': {
    file: join(graphiqlDist, 'yoga-graphiql.umd.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/assets/graphiql.css': { file: join(graphiqlDist, 'graphiql.css'), type: 'text/css; charset=utf-8' },
  '/assets/explorer.js': { file: join(here, 'explorer.js'), type: 'text/javascript; charset=utf-8' },
  '/assets/explorer.css': { file: join(here, 'explorer.css'), type: 'text/css; charset=utf-8' },
};
for (const worker of ['editor.worker.bundle.js', 'json.worker.bundle.js', 'graphql.worker..bundle.js']) {
  ASSETS[`/assets/monacoeditorwork/${worker}`] = {
    file: normalize(join(graphiqlDist, 'monacoeditorwork', worker)),
    type: 'text/javascript; charset=utf-8',
  };
}

/**
 * Only our own scripts; Monaco needs inline styles and workers from this origin, GraphiQL
 * blob: workers in some builds. Nothing may frame the page.
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

function html(graphqlPath: string) {
  page ??= readFileSync(join(here, 'explorer.html'), 'utf8');
  return page.replaceAll('__GRAPHQL_PATH__', graphqlPath);
}

/** Serves the explorer page (`subpath` '' or '/') and its assets. */
export function serveExplorer(request: Request, subpath: string, graphqlPath: string): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  if (subpath === '' || subpath === '/') {
    return new Response(html(graphqlPath), {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': CSP,
        'cache-control': 'no-store',
      },
    });
  }
  const asset = ASSETS[subpath];
  if (!asset || !existsSync(asset.file)) return new Response('Not found', { status: 404 });
  const body =
    request.method === 'HEAD' ? null : (Readable.toWeb(createReadStream(asset.file)) as ReadableStream);
  return new Response(body, {
    headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=3600' },
  });
}
