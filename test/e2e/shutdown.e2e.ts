/**
 * `assetql serve` on SIGTERM: requests already in flight (a request whose body is still
 * arriving, a download read slowly, concurrent queries) complete successfully, new
 * connections are refused, and the process exits with code 0 within a bound.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { exited, lastOutput, type Served, serve, serveEnv, signInDemo, stop } from '../helpers/processes.ts';

const SECRET = 'shutdown-e2e-secret-0123456789abcdefghijklm';
const EXIT_MS = 15_000;

let server: Served;
let base: URL;
let database: TestDatabase | undefined;
let dataDir: string | undefined;
let sessionId: string;

beforeAll(async () => {
  const env: Record<string, string> = serveEnv(SECRET, { ASSETQL_DEMO_DATA: 'true' });
  if (process.env.DATABASE_URL) {
    database = await freshDatabase();
    env.DATABASE_URL = database.url!;
  } else {
    dataDir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-shut-'));
    env.DATA_DIR = dataDir;
  }
  server = await serve('assetql', [], env);
  base = new URL(server.url);
  sessionId = await signInDemo(server.url);
  expect(sessionId, lastOutput(server)).not.toBe('');
}, 90_000);

afterAll(async () => {
  if (server) await stop(server.child);
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

interface Raw {
  status: number;
  body: string;
}

/**
 * A request on a connection of its own (no pooling): `send` writes the body, possibly in
 * pieces over time. Resolves with the whole answer; rejects with the socket's error.
 */
function raw(
  method: string,
  path: string,
  options: {
    body?: string;
    headers?: Record<string, string>;
    pauseAfterHeadersMs?: number;
    /** Sends `expect: 100-continue` and calls this when the server has begun the request. */
    begun?: () => void;
  } = {},
  send?: (write: (chunk: string) => void, end: () => void) => void,
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent: false,
        headers: {
          ...(options.body !== undefined ? { 'content-length': Buffer.byteLength(options.body) } : {}),
          ...(options.begun ? { expect: '100-continue' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        // A slow reader: nothing is read until the pause is over.
        res.pause();
        setTimeout(() => {
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
          res.on('error', reject);
          res.resume();
        }, options.pauseAfterHeadersMs ?? 0);
      },
    );
    req.on('error', reject);
    if (options.begun) req.on('continue', options.begun);
    if (send)
      send(
        (c) => req.write(c),
        () => req.end(),
      );
    else req.end(options.body);
  });
}

const graphqlHeaders = () => ({ 'content-type': 'application/json', 'x-svc-sessionid': sessionId });

describe('assetql serve on SIGTERM', () => {
  it('completes in-flight requests, refuses new connections, and exits 0 in time', async () => {
    const link = (await (
      await fetch(server.url, {
        method: 'POST',
        headers: graphqlHeaders(),
        body: JSON.stringify({
          query: `{ assetProfiles { byId(profile: "well") { assetsExport(properties: ["name", "status", "depth"]) { csvFileDownloadUrl(exportName: "wells") } } } }`,
        }),
      })
    ).json()) as { data: { assetProfiles: { byId: { assetsExport: { csvFileDownloadUrl: string } } } } };
    const exportPath = new URL(link.data.assetProfiles.byId.assetsExport.csvFileDownloadUrl).pathname;

    // 1. A GraphQL request whose body is half sent when the signal comes.
    const body = JSON.stringify({
      query: `mutation { createIssue(input: { displayName: "sent across a shutdown" }) { errors { type } issue { id } } }`,
    });
    let finishBody: (() => void) | undefined;
    const halfSent = raw('POST', base.pathname, { body, headers: graphqlHeaders() }, (write, end) => {
      write(body.slice(0, 40));
      finishBody = () => {
        write(body.slice(40));
        end();
      };
    });
    // 2. An export download whose answer is read only 2 s after the signal.
    const slowDownload = raw('GET', exportPath, { pauseAfterHeadersMs: 2_500 }).catch((e: Error) => {
      throw new Error(`download: ${e.message}`);
    });
    await new Promise((r) => setTimeout(r, 300));
    // 3. Concurrent queries, still running when the signal comes.
    const query = JSON.stringify({
      query: `{ assets(profile: "well") { all(first: 50) { edges { node { id displayName properties } } } } session { authenticated } }`,
    });
    // Half of them hold back the end of their body, and the signal waits until the server has
    // begun each (its headers parsed: it answered `100 Continue`): these are in flight for sure
    // and must all be answered. The other half are sent whole; one the busy server had not yet
    // read when the signal came is reset (Node closes idle connections on close): that query
    // was never in flight, and the client sees the reset, never a wrong answer.
    const held: Array<() => void> = [];
    const begun: Promise<void>[] = [];
    const inFlight = Array.from({ length: 8 }, () => {
      let onBegun!: () => void;
      begun.push(new Promise<void>((r) => (onBegun = r)));
      return raw(
        'POST',
        base.pathname,
        { body: query, headers: graphqlHeaders(), begun: onBegun },
        (write, end) => {
          write(query.slice(0, 20));
          held.push(() => {
            write(query.slice(20));
            end();
          });
        },
      );
    });
    const whole = Array.from({ length: 8 }, () =>
      raw('POST', base.pathname, { body: query, headers: graphqlHeaders() }).catch(
        (e: NodeJS.ErrnoException): Raw => {
          if (e.code !== 'ECONNRESET') throw e;
          return { status: 0, body: 'reset' };
        },
      ),
    );
    await new Promise((r) => setTimeout(r, 150));
    await Promise.all(begun);

    const signalled = performance.now();
    const exit = exited(server.child);
    server.child.kill('SIGTERM');

    // Soon after the signal (once its handler runs; a busy process may take a moment) new
    // connections are refused (or reset, when one races the close), or answered 503, never
    // served, while the requests above wait.
    let late: number | string = 200;
    while (late === 200 && performance.now() - signalled < 3_000) {
      late = await raw('GET', '/healthz').then(
        (r) => r.status,
        (e: NodeJS.ErrnoException) => e.code ?? String(e),
      );
      if (late === 200) await new Promise((r) => setTimeout(r, 100));
    }
    const refusedMs = performance.now() - signalled;
    expect(['ECONNREFUSED', 'ECONNRESET', 503], lastOutput(server)).toContain(late);
    const again = await raw('POST', base.pathname, { body: query, headers: graphqlHeaders() }).then(
      (r) => r.status,
      (e: NodeJS.ErrnoException) => e.code ?? String(e),
    );
    expect(['ECONNREFUSED', 'ECONNRESET', 503]).toContain(again);

    await new Promise((r) => setTimeout(r, 1_000));
    finishBody!();
    for (const finish of held) finish();
    const [mutation, download, ...queries] = await Promise.all([
      halfSent,
      slowDownload,
      ...inFlight,
      ...whole,
    ]);
    const settledMs = performance.now() - signalled;

    expect(mutation.status, `${mutation.body}\n${lastOutput(server)}`).toBe(200);
    const created = JSON.parse(mutation.body) as {
      data?: { createIssue: { errors: unknown[]; issue: { id: string } | null } };
    };
    expect(created.data?.createIssue.errors).toEqual([]);
    expect(created.data?.createIssue.issue?.id).toMatch(/^[0-9a-f-]{36}$/);

    expect(download.status).toBe(200);
    const lines = download.body.trim().split('\n');
    expect(lines[0]).toMatch(/name/);
    expect(lines.length).toBeGreaterThan(10);

    const answered = queries.filter((q) => q.status !== 0);
    // Every held query was in flight; of the whole ones, those taken in time.
    expect(queries.slice(0, 8).every((q) => q.status !== 0)).toBe(true);
    expect(answered.length).toBeGreaterThanOrEqual(8);
    for (const q of answered) {
      expect(q.status).toBe(200);
      const parsed = JSON.parse(q.body) as {
        data?: { assets: { all: { edges: unknown[] } } };
        errors?: unknown;
      };
      expect(parsed.errors, `${q.body}\n${lastOutput(server)}`).toBeUndefined();
      expect(parsed.data?.assets.all.edges.length).toBeGreaterThan(0);
    }

    const code = await Promise.race([
      exit,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), EXIT_MS)),
    ]);
    const shutdownMs = performance.now() - signalled;
    expect(code, lastOutput(server)).toBe(0);
    expect(shutdownMs).toBeLessThan(EXIT_MS);
    console.info(
      `shutdown: ${answered.length}/16 queries taken before the signal; new connections refused ${refusedMs.toFixed(0)} ms, in-flight requests done ${settledMs.toFixed(0)} ms and exit 0 ${shutdownMs.toFixed(0)} ms after SIGTERM`,
    );
  }, 60_000);
});
