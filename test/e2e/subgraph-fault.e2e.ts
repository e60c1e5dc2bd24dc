/**
 * The distributed form with its assets subgraph killed (SIGKILL) under a query that spans all
 * three subgraphs: the gateway still answers the other subgraphs' fields, gives a typed error
 * for the missing part within a bound, reports unavailable on /readyz, and serves the whole
 * query again once the subgraph is back on its port, without being restarted itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, SUBGRAPH_NAMES, type SubgraphName } from '../../src/config/index.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Database, openDatabase } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { freshDatabase } from '../helpers/database.ts';
import { exited, lastOutput, type Served, serve, serveEnv, signInDemo, stop } from '../helpers/processes.ts';

const SECRET = 'subgraph-fault-e2e-secret-0123456789abcdef';
/** A degraded answer must come within this long. */
const ANSWER_MS = 5_000;
/** The whole query is served again within this long of the subgraph listening again. */
const RECOVERY_MS = 10_000;

const served = new Map<string, Served>();
let database: Database;
let dataDir: string | undefined;
let env: Record<string, string>;
let gateway: string;
let sessionId: string;

const output = () => [...served.values()].map((s) => lastOutput(s, 15)).join('\n');

beforeAll(async () => {
  env = serveEnv(SECRET);
  if (process.env.DATABASE_URL) {
    const fresh = await freshDatabase();
    database = fresh;
    env.DATABASE_URL = fresh.url!;
  } else {
    // This process serves the embedded database on a socket in DATA_DIR; the children attach.
    dataDir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-sgf-'));
    database = await openDatabase({ dataDir });
    expect(database.ownsEmbedded).toBe(true);
    await migrateToLatest(database.db);
    env.DATA_DIR = dataDir;
  }
  await seedDemo(database.db, loadConfig({ env: 'demo', secret: SECRET, logLevel: 'silent' }, {}));

  const subgraphs = await Promise.all(
    SUBGRAPH_NAMES.map((name) => serve(`subgraph ${name}`, ['--subgraph', name], env)),
  );
  for (const s of subgraphs) served.set(s.name, s);
  const urls = Object.fromEntries(
    SUBGRAPH_NAMES.map((name: SubgraphName, i) => [
      `ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`,
      subgraphs[i]!.url,
    ]),
  );
  const g = await serve('gateway', ['--gateway'], { ...env, ...urls });
  served.set(g.name, g);
  gateway = g.url;

  sessionId = await signInDemo(gateway);
  expect(sessionId, output()).not.toBe('');
}, 120_000);

afterAll(async () => {
  await Promise.all([...served.values()].map((s) => stop(s.child)));
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

type Answer = {
  status: number;
  ms: number;
  body: {
    data?: {
      session?: { authenticated: boolean } | null;
      assetProfiles?: { all: { edges: { node: { profile: string } }[] } } | null;
      issues?: { all: { edges: { node: { id: string } }[] } } | null;
    } | null;
    errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
  };
};

const SPANNING = `{
  session { authenticated }
  assetProfiles { all { edges { node { profile } } } }
  issues { all(first: 5) { edges { node { id } } } }
}`;

/** Answered by the assets subgraph alone: the gateway sends it there whole, unplanned. */
const ASSETS_ONLY = `{ assetProfiles { all { edges { node { profile } } } } }`;

async function ask(query = SPANNING): Promise<Answer> {
  const t0 = performance.now();
  const r = await fetch(gateway, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-sessionid': sessionId },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(ANSWER_MS * 3),
  });
  const body = (await r.json()) as Answer['body'];
  return { status: r.status, ms: performance.now() - t0, body };
}

const readyz = async () =>
  (await fetch(new URL('/readyz', gateway), { signal: AbortSignal.timeout(ANSWER_MS) })).status;

describe('a subgraph killed under load (distributed form)', () => {
  it('degrades to the other subgraphs’ fields with a typed error, then recovers without a gateway restart', async () => {
    const before = await ask();
    expect(before.body.errors, output()).toBeUndefined();
    expect(before.body.data?.session?.authenticated).toBe(true);
    expect(before.body.data?.assetProfiles?.all.edges.length).toBeGreaterThan(0);
    expect(await readyz()).toBe(200);

    // Load from several clients while the subgraph dies.
    let running = true;
    const answers: Answer[] = [];
    const transport: string[] = [];
    const loops = Array.from({ length: 4 }, async () => {
      while (running)
        await ask().then(
          (a) => answers.push(a),
          (e) => transport.push(String(e)),
        );
    });
    await new Promise((r) => setTimeout(r, 500));
    const assets = served.get('subgraph assets')!;
    const assetsPort = new URL(assets.url).port;
    assets.child.kill('SIGKILL');
    expect(await exited(assets.child)).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 1_000));

    const degraded = await ask();
    const context = `${JSON.stringify(degraded.body)}\n${output()}`;
    expect(degraded.ms).toBeLessThan(ANSWER_MS);
    expect(degraded.status, context).toBe(200);
    // The other subgraphs' fields, with data.
    expect(degraded.body.data?.session?.authenticated, context).toBe(true);
    expect(degraded.body.data?.issues?.all.edges.length, context).toBeGreaterThan(0);
    // The missing part: null, with an error at its path and a code a client can act on.
    expect(degraded.body.data?.assetProfiles ?? null).toBeNull();
    const missing = degraded.body.errors?.filter((e) => e.path?.[0] === 'assetProfiles') ?? [];
    expect(missing.length, context).toBeGreaterThan(0);
    expect(missing[0]!.extensions?.code, context).toBe('SERVICE_UNAVAILABLE');
    expect(missing[0]!.extensions?.subgraph, context).toBe('assets');
    expect(missing[0]!.extensions?.requestId, context).toEqual(expect.any(String));
    // Nothing about the network behind the gateway: no address, no subrequest.
    expect(JSON.stringify(degraded.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|"request"/);
    // An operation for the missing subgraph alone: the same typed error, nothing leaked.
    const alone = await ask(ASSETS_ONLY);
    const aloneContext = `${JSON.stringify(alone.body)}\n${output()}`;
    expect(alone.ms).toBeLessThan(ANSWER_MS);
    expect(alone.body.data?.assetProfiles ?? null, aloneContext).toBeNull();
    expect(alone.body.errors?.[0]?.extensions?.code, aloneContext).toBe('SERVICE_UNAVAILABLE');
    expect(alone.body.errors?.[0]?.extensions?.subgraph, aloneContext).toBe('assets');
    expect(alone.body.errors?.[0]?.extensions?.requestId, aloneContext).toEqual(expect.any(String));
    expect(JSON.stringify(alone.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|fetch failed|"request"/);
    expect(await readyz()).toBe(503);

    // Back on the same port: the gateway notices by itself.
    const again = await serve('subgraph assets', ['--subgraph', 'assets'], { ...env, PORT: assetsPort });
    served.set(again.name, again);
    const listening = performance.now();
    let whole: Answer | undefined;
    while (performance.now() - listening < RECOVERY_MS) {
      const a = await ask();
      if (!a.body.errors) {
        whole = a;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const recoveryMs = performance.now() - listening;
    running = false;
    await Promise.all(loops);

    expect(whole, output()).toBeDefined();
    expect(whole!.body.data?.assetProfiles?.all.edges).toEqual(before.body.data?.assetProfiles?.all.edges);
    expect((await ask(ASSETS_ONLY)).body.data?.assetProfiles?.all.edges).toEqual(
      before.body.data?.assetProfiles?.all.edges,
    );
    expect(await readyz()).toBe(200);
    expect(served.get('gateway')!.child.exitCode).toBeNull();

    // Under load, every answer came within the bound; failures were typed, never a hang.
    expect(transport).toEqual([]);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(ANSWER_MS);
    const codes = new Set(answers.flatMap((a) => (a.body.errors ?? []).map((e) => e.extensions?.code)));
    expect([...codes].filter((c) => c !== 'SERVICE_UNAVAILABLE')).toEqual([]);
    expect(answers.every((a) => a.body.data?.session?.authenticated === true)).toBe(true);

    console.info(
      `subgraph fault: ${answers.length} answers under load, degraded answer in ${degraded.ms.toFixed(0)} ms, ` +
        `whole again ${recoveryMs.toFixed(0)} ms after the subgraph listened`,
    );
  }, 60_000);
});
