/**
 * Scale: what copies of the one-process server behind a load balancer serve, against one process
 * (docs/deploy.md, "Several processes behind a load balancer"). On PostgreSQL only (the processes
 * share one database). Q1, the peers' first page of 100 wells with five properties, by a signed-in
 * explorer session, closed loop, through:
 * - one process, directly;
 * - one process behind Debian's HAProxy (the balancer's own cost);
 * - three processes behind HAProxy, configured as the load balancer test is.
 * Unlike the other scenarios nothing is pinned: the servers, HAProxy, the load generator and
 * PostgreSQL share the machine's two cores, as they would on a host running copies of the server.
 * Pinned to one core, three processes measure that core's switching between them (0.67× in a run
 * on this machine), not what their shared state costs. Rounds alternate the three set-ups.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { haproxyConfig } from '../test/helpers/haproxy.ts';
import { median, type Server, sample, signedInUser, startServer } from './lib.ts';

const GROUP = 'scale';
const FIVE = '["name", "status", "depth", "uwi", "facilityId"]';
const Q1 = `{ assets(profile: "well") { all(first: 100) { edges { node { id displayName properties(only: ${FIVE}) } } } } }`;
const SETUPS = ['one process', 'one behind HAProxy', 'three behind HAProxy'] as const;
type Setup = (typeof SETUPS)[number];

export interface ScaleBenchResult {
  /** Why nothing was measured (no PostgreSQL, no HAProxy), if so. */
  skipped?: string;
  wells: number;
  rounds: number;
  seconds: number;
  concurrency: number;
  /** Median over the rounds, per set-up. */
  cells: Record<Setup, { rps: number; p50: number; p95: number; failures: number }> | undefined;
  /** Three behind HAProxy against one behind HAProxy, and against one process directly. */
  ratio?: { againstOneBehind: number; againstOneDirect: number };
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** HAProxy in front of `servers`. */
async function haproxy(servers: Server[]): Promise<{ url: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'aq-bench-haproxy-'));
  const port = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    haproxyConfig(
      port,
      servers.map((s) => new URL(s.url)),
    ),
  );
  const command = ['/usr/sbin/haproxy', '-db', '-f', cfg];
  const child: ChildProcess = spawn(command[0]!, command.slice(1), { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (i > 100 || child.exitCode !== null) throw new Error('haproxy did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async close() {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function scaleBench(options: { quick: boolean; smoke: boolean }): Promise<ScaleBenchResult> {
  const { smoke, quick } = options;
  const wells = smoke ? 300 : quick ? 20_000 : 100_000;
  const rounds = smoke ? 1 : quick ? 2 : 3;
  const seconds = smoke ? 0.5 : quick ? 3 : 8;
  const concurrency = 16;
  const none = { wells, rounds, seconds, concurrency, cells: undefined };
  if (!process.env.DATABASE_URL) return { ...none, skipped: 'needs PostgreSQL (DATABASE_URL)' };
  try {
    execFileSync('/usr/sbin/haproxy', ['-v'], { stdio: 'ignore' });
  } catch {
    return { ...none, skipped: "needs HAProxy (Debian's haproxy package)" };
  }
  const step = (what: string) => process.stderr.write(`bench: scale: ${what}\n`);
  const env = {
    ASSETQL_DEMO_DATA: 'false',
    ASSETQL_TRUST_PROXY: '1',
    ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: 1_000_000, seconds: 60 } }),
  };
  // Unpinned for this scenario (above), whatever the run's setting.
  const first = await startServer(env, { pin: false });
  const servers = [first];
  const balancers: { url: string; close(): Promise<void> }[] = [];
  try {
    step(`generating ${wells} wells`);
    await first.cli(['demo', 'generate', '--assets', String(wells), '--group', GROUP]);
    const sessionId = await signedInUser(first, GROUP);
    // Two more on the same database (each skips the migrations the first applied).
    const others = Promise.all(
      [1, 2].map(() => startServer({ ...env, DATABASE_URL: first.env.DATABASE_URL! }, { pin: false })),
    );
    servers.push(...(await others));
    const oneBehind = await haproxy([first]);
    balancers.push(oneBehind);
    const threeBehind = await haproxy(servers);
    balancers.push(threeBehind);
    const targets: Record<Setup, string> = {
      'one process': first.url,
      'one behind HAProxy': oneBehind.url,
      'three behind HAProxy': threeBehind.url,
    };
    const request = (base: string) => () =>
      fetch(`${base}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-sessionid': sessionId },
        body: JSON.stringify({ query: Q1 }),
        signal: AbortSignal.timeout(60_000),
      });
    for (const setup of SETUPS)
      await sample({ request: request(targets[setup]), seconds: smoke ? 0.2 : 2, concurrency }); // warm-up
    const runs = Object.fromEntries(
      SETUPS.map((s) => [s, { rps: [] as number[], p50: [] as number[], p95: [] as number[], failures: 0 }]),
    ) as Record<Setup, { rps: number[]; p50: number[]; p95: number[]; failures: number }>;
    for (let r = 0; r < rounds; r++) {
      for (const setup of SETUPS) {
        step(`round ${r + 1}: ${setup}`);
        const s = await sample({ request: request(targets[setup]), seconds, concurrency });
        runs[setup].rps.push(s.rps);
        runs[setup].p50.push(s.p50);
        runs[setup].p95.push(s.p95);
        runs[setup].failures += s.failures;
      }
    }
    const cells = Object.fromEntries(
      SETUPS.map((s) => [
        s,
        {
          rps: median(runs[s].rps),
          p50: median(runs[s].p50),
          p95: median(runs[s].p95),
          failures: runs[s].failures,
        },
      ]),
    ) as ScaleBenchResult['cells'] & object;
    const three = cells['three behind HAProxy'].rps;
    return {
      wells,
      rounds,
      seconds,
      concurrency,
      cells,
      ratio: {
        againstOneBehind: three / cells['one behind HAProxy'].rps,
        againstOneDirect: three / cells['one process'].rps,
      },
    };
  } finally {
    for (const b of balancers) await b.close();
    // The first owns the database: the others close first.
    for (const s of servers.slice(1)) await s.close();
    await first.close();
  }
}

export function scaleMarkdown(r: ScaleBenchResult): string {
  if (!r.cells) return `### Scale\n\nNot measured: ${r.skipped}.\n`;
  const row = (s: Setup) => {
    const c = r.cells![s];
    return `| ${s} | ${Math.round(c.rps)} | ${c.p50.toFixed(1)} | ${c.p95.toFixed(1)} | ${c.failures} |`;
  };
  return [
    `### Scale (PostgreSQL, ${r.wells.toLocaleString('en')} wells, Q1, ${r.concurrency} connections, median of ${r.rounds} × ${r.seconds} s)`,
    '',
    'Nothing pinned: the servers, HAProxy, the load generator and PostgreSQL share the two cores.',
    '',
    '| set-up | req/s | p50 ms | p95 ms | failed |',
    '|---|---|---|---|---|',
    ...SETUPS.map(row),
    '',
    `Three processes behind HAProxy: **${r.ratio!.againstOneBehind.toFixed(2)}×** one process behind it, ${r.ratio!.againstOneDirect.toFixed(2)}× one process reached directly (target ≥ 0.9×).`,
    '',
  ].join('\n');
}
