// How the gateway serves the web console (src/gateway/console/index.ts): its page under a strict
// CSP, its files from a fixed list (anything else 404), their caching, and `/` leading a browser
// to it while any other client still goes to the explorer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PATH, EXPLORER_PATH } from '../../src/gateway/gateway.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  t.handle(new Request(`${BASE}${path}`, { method, headers, redirect: 'manual' }));

/** What Chromium and Firefox send when a person opens an address. */
const BROWSER_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('the console page', () => {
  it('is served at /console and /console/ under a strict CSP, naming its files by version', async () => {
    for (const path of [CONSOLE_PATH, `${CONSOLE_PATH}/`]) {
      const r = await get(path, { accept: BROWSER_ACCEPT });
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      const csp = Object.fromEntries(
        r.headers
          .get('content-security-policy')!
          .split(';')
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...values]) => [name, values.join(' ')]),
      );
      expect(csp).toMatchObject({
        'default-src': "'self'",
        'script-src': "'self'",
        'style-src': "'self'",
        'connect-src': "'self'",
        'frame-ancestors': "'none'",
        'object-src': "'none'",
        'base-uri': "'none'",
        'form-action': "'none'",
        'require-trusted-types-for': "'script'",
      });
      const html = await r.text();
      // No inline script or style: every script and stylesheet is a file of this origin.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|\sstyle=/);
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).toContain('<meta name="assetql-graphql" content="/api/graphql">');
      expect(html).toMatch(
        /<script type="module" src="\/console\/assets\/console\.js\?v=[0-9a-f]{12}"><\/script>/,
      );
    }
  });

  it('serves its files, kept for good at their versioned URL', async () => {
    const html = await (await get(CONSOLE_PATH)).text();
    const version = /console\.js\?v=([0-9a-f]{12})/.exec(html)![1];
    for (const [file, type] of [
      ['console.js', 'text/javascript; charset=utf-8'],
      ['console.css', 'text/css; charset=utf-8'],
      ['licenses.txt', 'text/plain; charset=utf-8'],
    ] as const) {
      const r = await get(`${CONSOLE_PATH}/assets/${file}?v=${version}`);
      expect(r.status, file).toBe(200);
      expect(r.headers.get('content-type')).toBe(type);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(100);
      // Asked without the current version (an old page, a hand-typed URL), it is checked again.
      const plain = await get(`${CONSOLE_PATH}/assets/${file}`);
      expect(plain.headers.get('cache-control')).toBe('no-cache');
      await plain.body?.cancel();
    }
    const licences = await (await get(`${CONSOLE_PATH}/assets/licenses.txt`)).text();
    expect(licences).toMatch(/^qrcode [\d.]+ \(MIT\)$/m);
  });

  it('answers 404 for any other path under it, and 405 for other methods', async () => {
    for (const path of [
      '/console/index.html',
      '/console/main.ts',
      '/console/assets/',
      '/console/assets/console.js.map',
      '/console/assets/nope.js',
      '/console/assets/%2e%2e%2fbuild.ts',
      '/console/assets/..%2F..%2Fpackage.json',
      '/consoles',
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      await r.body?.cancel();
    }
    const post = await get(CONSOLE_PATH, {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await get(`${CONSOLE_PATH}/assets/console.css`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('/', () => {
  it('leads a browser to the console', async () => {
    for (const accept of [BROWSER_ACCEPT, 'text/html', 'TEXT/HTML; q=0.5']) {
      const r = await get('/', { accept });
      expect(r.status, accept).toBe(302);
      expect(r.headers.get('location')).toBe(CONSOLE_PATH);
      expect(r.headers.get('vary')).toMatch(/accept/i);
    }
  });

  it('leads curl and other clients to the explorer, as before', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'text/html;q=0, */*']) {
      const r = await get('/', accept === undefined ? {} : { accept });
      expect(r.status, accept).toBe(302);
      expect(r.headers.get('location')).toBe(EXPLORER_PATH);
      expect(r.headers.get('vary')).toMatch(/accept/i);
    }
  });
});
