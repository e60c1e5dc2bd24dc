/**
 * PostgreSQL stopped and started again under load, with `assetql serve` in its own process
 * against a cluster of this test's own (never the machine's shared server): requests during
 * the outage fail fast with SERVICE_UNAVAILABLE, /readyz says so, the process stays up and
 * serves again by itself once the database is back, and every acknowledged write is kept.
 *
 * It needs only Debian's PostgreSQL binaries, not DATABASE_URL; it runs in CI's PostgreSQL
 * pass only, so the suite's two passes do not both pay for it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  lastOutput,
  type PrivateCluster,
  privateCluster,
  type Served,
  serve,
  serveEnv,
  signInDemo,
  stop,
} from '../helpers/processes.ts';

// The PostgreSQL pass runs it; without PostgreSQL's binaries there, privateCluster() fails naming them.
const enabled = Boolean(process.env.DATABASE_URL);
const SECRET = 'faults-e2e-secret-0123456789abcdefghijklmn';
/** No request may take longer than this, outage or not. */
const FAIL_FAST_MS = 5_000;
/** The service answers again within this long after the database accepts connections. */
const RECOVERY_MS = 10_000;
const OUTAGE_MS = 3_000;
/** How long the gateway answers a session from its cache (docs/auth.md §1): `session` reads need no statement. */
const IDENTITY_CACHE_MS = 2_000;

let cluster: PrivateCluster | undefined;
let server: Served | undefined;
let base: string;
let sessionId: string;

interface Outcome {
  /** `session` reads may be answered from the gateway's 2-s identity cache without the database. */
  kind: 'write' | 'read' | 'session';
  at: number;
  ms: number;
  status: number;
  ok: boolean;
  codes: string[];
  /** The created issue's id, when the write was acknowledged. */
  id?: string;
  /** Set when the request timed out or the connection failed. */
  transport?: string;
}

async function post(query: string, variables: Record<string, unknown> = {}) {
  return fetch(`${base}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-sessionid': sessionId },
    body: JSON.stringify({ query, variables }),
    // Longer than the bound, so a slow answer is measured rather than cut off.
    signal: AbortSignal.timeout(FAIL_FAST_MS * 3),
  });
}

type Body = {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
};

async function attempt(
  kind: Outcome['kind'],
  send: () => Promise<Response>,
  ack: (b: Body) => string | true | undefined,
): Promise<Outcome> {
  const at = performance.now();
  try {
    const r = await send();
    const body = (await r.json()) as Body;
    const codes = (body.errors ?? []).map((e) => e.extensions?.code ?? `(no code) ${e.message}`);
    const acked = r.status === 200 && !body.errors ? ack(body) : undefined;
    return {
      kind,
      at,
      ms: performance.now() - at,
      status: r.status,
      ok: acked !== undefined,
      codes,
      ...(typeof acked === 'string' ? { id: acked } : {}),
    };
  } catch (e) {
    return { kind, at, ms: performance.now() - at, status: 0, ok: false, codes: [], transport: String(e) };
  }
}

let counter = 0;
const write = () =>
  attempt(
    'write',
    () =>
      post(
        `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors { type message } issue { id displayName } } }`,
        { input: { displayName: `fault-${++counter}`, description: 'written during a database restart' } },
      ),
    (b) => {
      const r = b.data?.createIssue as { errors: unknown[]; issue: { id: string } | null } | undefined;
      return r && r.errors.length === 0 && r.issue ? r.issue.id : undefined;
    },
  );

const reads = [
  `{ assets(profile: "well") { all(first: 10) { edges { node { id displayName properties(only: ["status"]) } } } } }`,
  `{ session { authenticated username } }`,
  `{ assets(profile: "well") { all(first: 5, filter: { property: { name: "status", equals: "producing" } }) { edges { node { id } } } } }`,
];
let readIndex = 0;
const read = () => {
  const query = reads[readIndex++ % reads.length]!;
  return attempt(
    query.startsWith('{ session') ? 'session' : 'read',
    () => post(query),
    (b) => (b.data ? true : undefined),
  );
};

async function readyz(): Promise<number> {
  try {
    return (await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(FAIL_FAST_MS) })).status;
  } catch {
    return 0;
  }
}

describe.runIf(enabled)('PostgreSQL restarted under load (single process, private cluster)', () => {
  beforeAll(async () => {
    cluster = await privateCluster();
    server = await serve(
      'assetql',
      [],
      serveEnv(SECRET, { DATABASE_URL: cluster.url, ASSETQL_DEMO_DATA: 'true' }),
    );
    base = server.url.replace(/\/api\/graphql$/, '');
    sessionId = await signInDemo(`${base}/api/graphql`);
    expect(sessionId, lastOutput(server)).not.toBe('');
  }, 90_000);

  afterAll(async () => {
    if (server) await stop(server.child);
    await cluster?.destroy();
  }, 30_000);

  it('fails fast with SERVICE_UNAVAILABLE while it is down, recovers by itself, and keeps every acknowledged write', async () => {
    const outcomes: Outcome[] = [];
    const readiness: { at: number; status: number }[] = [];
    let running = true;
    const loop = (fn: () => Promise<Outcome>) =>
      (async () => {
        while (running) {
          const o = await fn();
          outcomes.push(o);
          // While the database is down answers come at once: do not spin.
          if (!o.ok) await new Promise((r) => setTimeout(r, 50));
        }
      })();
    const loops = [loop(write), loop(write), loop(write), loop(read), loop(read)];
    const probe = (async () => {
      while (running) {
        readiness.push({ at: performance.now(), status: await readyz() });
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    await new Promise((r) => setTimeout(r, 2_000));
    const down = performance.now();
    await cluster!.stop();
    const stopped = performance.now();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    const restarting = performance.now();
    await cluster!.start();
    const back = performance.now();

    // Recovery: the first read after the database is back that succeeds.
    let recovered: number | undefined;
    while (performance.now() - back < RECOVERY_MS + FAIL_FAST_MS) {
      const o = await read();
      outcomes.push(o);
      if (o.ok) {
        recovered = performance.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    // Some more load after recovery, then stop.
    await new Promise((r) => setTimeout(r, 1_500));
    running = false;
    await Promise.all([...loops, probe]);

    const context = () =>
      `${JSON.stringify(outcomes.filter((o) => !o.ok).slice(0, 10))}\n${lastOutput(server!)}`;
    // No request hung or lost its connection; every answer came within the bound.
    expect(
      outcomes.filter((o) => o.transport),
      context(),
    ).toEqual([]);
    const slowest = Math.max(...outcomes.map((o) => o.ms));
    expect(slowest, context()).toBeLessThan(FAIL_FAST_MS);

    // Requests during the outage failed, each with a clear code and nothing else.
    const outage = outcomes.filter((o) => o.at >= stopped && o.at < restarting);
    expect(outage.length, context()).toBeGreaterThan(0);
    // Everything that needs the database failed; the `session` query needs none while the
    // gateway's cached identity is fresh: at most IDENTITY_CACHE_MS after its last lookup, which
    // may have been made until the database had stopped.
    expect(
      outage.filter((o) => o.ok && !(o.kind === 'session' && o.at < stopped + IDENTITY_CACHE_MS)),
      context(),
    ).toEqual([]);
    const stale = outage.filter((o) => o.kind === 'session' && o.at >= stopped + IDENTITY_CACHE_MS + 500);
    expect(
      stale.every((o) => !o.ok),
      context(),
    ).toBe(true);
    const failed = outcomes.filter((o) => !o.ok);
    const codes = new Set(failed.flatMap((o) => o.codes));
    expect([...codes], context()).toEqual(['SERVICE_UNAVAILABLE']);
    expect(
      failed.every((o) => o.status === 200 || o.status === 503),
      context(),
    ).toBe(true);
    const outageWorst = Math.max(...outage.map((o) => o.ms));

    // It served again without a restart, soon after the database did.
    expect(server!.child.exitCode, lastOutput(server!)).toBeNull();
    expect(server!.child.signalCode).toBeNull();
    expect(recovered, context()).toBeDefined();
    const recoveryMs = recovered! - back;
    expect(recoveryMs).toBeLessThan(RECOVERY_MS);
    expect(outcomes.filter((o) => o.ok && o.at > recovered!).length).toBeGreaterThan(0);

    // /readyz: unavailable during the outage, ready before and after.
    expect(readiness.filter((r) => r.at > stopped && r.at < restarting).map((r) => r.status)).toContain(503);
    // Before it, ready: never 503. A probe that got no answer within its 5 s (0) is the machine's
    // load (CI runs two test passes side by side), not the service saying it is not ready.
    const before = readiness.filter((r) => r.at < down).map((r) => r.status);
    expect(before, `readiness before the outage: ${before.join(' ')}`).toContain(200);
    expect(
      before.filter((status) => status !== 200 && status !== 0),
      `readiness before the outage: ${before.join(' ')}`,
    ).toEqual([]);
    expect(await readyz()).toBe(200);

    // Every acknowledged write is in the database (read directly, not through the service).
    const acknowledged = outcomes.filter((o) => o.kind === 'write' && o.id).map((o) => o.id!);
    expect(acknowledged.length).toBeGreaterThan(10);
    const client = new pg.Client({ connectionString: cluster!.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>(
        `select id::text as id from issues where display_name like 'fault-%'`,
      );
      const stored = new Set(rows.map((r) => r.id));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      // Writes that were not acknowledged may or may not have landed; none are made up.
      expect(stored.size).toBeGreaterThanOrEqual(acknowledged.length);
      expect(stored.size).toBeLessThanOrEqual(counter);
    } finally {
      await client.end();
    }

    console.info(
      `faults: ${outcomes.length} requests, ${acknowledged.length} writes acknowledged, ` +
        `${failed.length} failed with SERVICE_UNAVAILABLE (slowest during the outage ${outageWorst.toFixed(0)} ms); ` +
        `database stop ${(stopped - down).toFixed(0)} ms, start ${(back - restarting).toFixed(0)} ms; ` +
        `served again ${recoveryMs.toFixed(0)} ms after it was back`,
    );
  }, 60_000);
});

describe.skipIf(enabled)('PostgreSQL restarted under load', () => {
  it.skip('runs only in the PostgreSQL pass (DATABASE_URL set)', () => {});
});
