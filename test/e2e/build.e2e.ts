/**
 * The built service (`npm run build`, what `npm start` and the `assetql` binary run): compiled
 * JavaScript with the files it reads beside it, no TypeScript left to strip. Serves the demo,
 * signs in (the password hashing worker is a module of its own), pages assets, streams
 * both export formats (loaded on first use), and serves the web console the build bundled.
 */

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastOutput, ROOT, type Served, serve, serveEnv, signInDemo, stop } from '../helpers/processes.ts';

const run = promisify(execFile);
const SECRET = 'build-e2e-secret-0123456789abcdefghijklmnop';
// Inside the project, so that the built modules find node_modules; tmp/ is ignored by git.
const OUT = `tmp/build-e2e-${process.pid}`;

let server: Served | undefined;
let dataDir: string;
let sessionId: string;

beforeAll(async () => {
  await run(process.execPath, ['scripts/build.ts', OUT], { cwd: ROOT, timeout: 120_000 });
  dataDir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-build-'));
  server = await serve(
    'built assetql',
    [],
    serveEnv(SECRET, { ASSETQL_DEMO_DATA: 'true', DATA_DIR: dataDir, DATABASE_URL: '' }),
    60_000,
    join(OUT, 'cli/bin.js'),
  );
  sessionId = await signInDemo(server.url);
}, 180_000);

afterAll(async () => {
  if (server) await stop(server.child);
  rmSync(join(ROOT, OUT), { recursive: true, force: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

async function graphql(query: string) {
  const r = await fetch(server!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-sessionid': sessionId },
    body: JSON.stringify({ query }),
  });
  return (await r.json()) as { data?: any; errors?: unknown[] };
}

describe('the built service', () => {
  it('is JavaScript with its schema files and explorer page, no TypeScript', () => {
    const built = files(join(ROOT, OUT));
    expect(built.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(built.filter((f) => f.endsWith('.test.js'))).toEqual([]);
    for (const f of ['cli/bin.js', 'subgraphs/assets/schema.graphql', 'subgraphs/auth/schema.graphql'])
      expect(existsSync(join(ROOT, OUT, f)), f).toBe(true);
  });

  it('keeps cli/bin.js executable, so that `npx assetql` runs it after a rebuild', async () => {
    const bin = join(ROOT, OUT, 'cli/bin.js');
    expect((statSync(bin).mode & 0o111).toString(8), 'execute bits of cli/bin.js').toBe('111');
    // Run as a program (its shebang line), as npx and the shell do, not through `node bin.js`.
    const { stdout } = await run(bin, ['--help'], { cwd: ROOT, timeout: 30_000 });
    expect(stdout).toMatch(/^Usage: assetql /);
  });

  it('signs the demo user in (hashing on its worker) and pages assets', async () => {
    expect(sessionId, lastOutput(server!)).not.toBe('');
    const page = await graphql(
      `{ session { authenticated } assets(profile: "well") { all(first: 5) { edges { node { id displayName } } } } }`,
    );
    expect(page.errors, lastOutput(server!)).toBeUndefined();
    expect(page.data.session.authenticated).toBe(true);
    expect(page.data.assets.all.edges).toHaveLength(5);
  });

  it('serves the web console from the files the build made, not from its sources', async () => {
    const made = join(ROOT, OUT, 'gateway/console/static');
    for (const f of ['index.html', 'console.js', 'console.css', 'licenses.txt'])
      expect(existsSync(join(made, f)), f).toBe(true);
    // The app's sources and the module that bundles them (esbuild) are no part of the build: of
    // src/console only the texts of its operations, which the gateway trusts
    // (src/gateway/console/documents.ts).
    expect(readdirSync(join(ROOT, OUT, 'console'), { recursive: true }).sort()).toEqual([
      'app',
      'app/documents.js',
    ]);
    const origin = new URL(server!.url).origin;
    const page = await fetch(`${origin}/console`);
    expect(page.status, lastOutput(server!)).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = /src="(\/console\/assets\/console\.js\?v=[0-9a-f]+)"/.exec(await page.text())![1]!;
    const js = await fetch(`${origin}${script}`);
    expect(js.status).toBe(200);
    expect(Buffer.from(await js.arrayBuffer()).equals(readFileSync(join(made, 'console.js')))).toBe(true);
  });

  it('streams CSV and XLSX exports', async () => {
    for (const isExcel of [false, true]) {
      const link = await graphql(
        `{ assetProfiles { byId(profile: "well") { assetsExport(properties: ["name"], isExcel: ${isExcel}) { csvFileDownloadUrl(exportName: "wells") } } } }`,
      );
      expect(link.errors, lastOutput(server!)).toBeUndefined();
      // The link names the configured base URL; this server listens on a port of its own.
      const url = new URL(link.data.assetProfiles.byId.assetsExport.csvFileDownloadUrl);
      const file = await fetch(new URL(url.pathname + url.search, server!.url));
      expect(file.status, lastOutput(server!)).toBe(200);
      const body = Buffer.from(await file.arrayBuffer());
      if (isExcel) expect(body.subarray(0, 2).toString()).toBe('PK');
      else expect(body.toString().split('\n')[0]).toMatch(/name/);
    }
  });
});
