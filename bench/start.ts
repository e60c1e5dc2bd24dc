/**
 * Start: what `npm install && npm start` costs a new user, on the embedded database (what
 * `npm start` runs). Times to `/readyz` answering 200 (the start done) from the process's spawn:
 * - cold: an empty data dir (the embedded database made, migrated, and the demo tenant loaded);
 * - warm: the same data dir again;
 * and `npm start`'s own step before it (`prestart`: the Node check and the build's digest, which
 * builds nothing when `dist/` is current), a build after a change of the sources, and the
 * server's memory: resident at rest after a warm start, at rest again after it served the
 * explorer, a sign-in, pages and an export, and its peak.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, median } from './lib.ts';

const ROOT = join(import.meta.dirname, '..');

export interface StartBenchResult {
  runs: number;
  /** `prestart` when dist/ is current (check-node + the build's digest), ms. */
  prestartMs: number;
  /** A build after a source changed (the compiler's whole run), ms. */
  buildMs: number;
  /** Spawn to /readyz 200 on an empty data dir, ms (median). */
  coldMs: number;
  /** Spawn to /readyz 200 on a data dir already made, ms (median). */
  warmMs: number;
  /** `npm start` itself, to /readyz 200, on a data dir already made (npm, prestart, the start), ms. */
  npmStartMs: number;
  /** Resident memory 10 s after a warm start, MB. */
  restRssMb: number;
  /** The same after serving the explorer, a sign-in, pages and an export, MB. */
  usedRestRssMb: number;
  /** How long after that visit, s (40; 3 in a smoke run). */
  usedRestSeconds: number;
  /** The most the process was resident, MB. */
  peakRssMb: number;
}

const ms = (from: number) => Math.round(performance.now() - from);

function statusOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
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

/**
 * Starts the built server on `dataDir` as `npm start` does (or `npm start` itself); resolves when
 * /readyz answers 200.
 */
async function startOn(
  dataDir: string,
  npm = false,
): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  const started = performance.now();
  const child = npm
    ? spawn('npm', ['start', '--silent'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      })
    : spawn(process.execPath, ['--max-semi-space-size=16', BIN, 'serve'], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, url, ms: ms(started) };
    if (performance.now() - started > 120_000) throw new Error(`no /readyz 200 in 120 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Stops the server (with `group`, npm and everything it started). */
async function stop(child: ChildProcess, group = false): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  if (group) process.kill(-child.pid!, 'SIGTERM');
  else child.kill('SIGTERM');
  await exited;
}

/** What a first visit does: the explorer and its files, a sign-in, pages of wells, an export. */
async function use(url: string): Promise<void> {
  const explorer = `${url}/plugins/sr/apolloGraphql`;
  for (const path of ['', '/assets/laboratory.js', '/assets/laboratory.css', '/assets/examples.json'])
    await (await fetch(`${explorer}${path}`)).arrayBuffer();
  const gql = async (query: string, session?: string) => {
    const r = await fetch(`${url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(session ? { 'x-svc-sessionid': session } : {}) },
      body: JSON.stringify({ query }),
    });
    return { session: r.headers.get('x-svc-sessionid'), body: (await r.json()) as { data?: any } };
  };
  const { session } = await gql(
    'mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type } } }',
  );
  if (!session) throw new Error('the demo user could not sign in');
  for (const profile of ['well', 'equipment', 'sensor'])
    await gql(
      `{ assets(profile: "${profile}") { all(first: 100) { totalCount edges { node { id properties } } } } }`,
      session,
    );
  const exported = await gql(
    '{ assetProfiles { byId(profile: "sensor") { assetsExport(isExcel: true) { csvFileDownloadUrl } } } }',
    session,
  );
  const link = exported.body.data?.assetProfiles?.byId?.assetsExport?.csvFileDownloadUrl;
  if (!link) throw new Error('no export link');
  await (await fetch(link)).arrayBuffer();
}

export async function startBench(options: { quick: boolean; smoke: boolean }): Promise<StartBenchResult> {
  const runs = options.smoke ? 1 : options.quick ? 3 : 5;
  // At rest: the background compilation of the embedded database's code done (a few seconds).
  const restMs = 10_000;
  // Long enough for what a burst leaves to go: the idle password workers (15 s) and the
  // process's own collection when it rests (30 s, src/server/at-rest.ts).
  const usedRestMs = options.smoke ? 3_000 : 40_000;

  let started = performance.now();
  execFileSync(process.execPath, [join(ROOT, 'scripts/check-node.cjs')]);
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.ts')], { stdio: 'ignore' });
  const prestartMs = ms(started);

  const out = `tmp/bench-start-build-${process.pid}`;
  started = performance.now();
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.ts'), out], { cwd: ROOT, stdio: 'ignore' });
  const buildMs = ms(started);
  rmSync(join(ROOT, out), { recursive: true, force: true });

  const cold: number[] = [];
  const warm: number[] = [];
  const npm: number[] = [];
  let restRssMb = 0;
  let usedRestRssMb = 0;
  let peakRssMb = 0;
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'aq-bench-start-'));
    try {
      const first = await startOn(dataDir);
      cold.push(first.ms);
      await stop(first.child);
      const second = await startOn(dataDir);
      warm.push(second.ms);
      if (i === runs - 1) {
        await new Promise((r) => setTimeout(r, restMs));
        restRssMb = statusOf(second.child.pid!, 'VmRSS');
        await use(second.url);
        await new Promise((r) => setTimeout(r, usedRestMs));
        usedRestRssMb = statusOf(second.child.pid!, 'VmRSS');
        peakRssMb = statusOf(second.child.pid!, 'VmHWM');
      }
      await stop(second.child);
      const viaNpm = await startOn(dataDir, true);
      npm.push(viaNpm.ms);
      await stop(viaNpm.child, true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return {
    runs,
    prestartMs,
    buildMs,
    coldMs: median(cold),
    warmMs: median(warm),
    npmStartMs: median(npm),
    restRssMb,
    usedRestRssMb,
    usedRestSeconds: usedRestMs / 1000,
    peakRssMb,
  };
}

export function startMarkdown(r: StartBenchResult): string {
  return [
    `### Start (embedded database, median of ${r.runs})`,
    '',
    'Spawn of `node dist/cli/bin.js serve` to `/readyz` answering 200 (ready to answer); memory from `/proc/<pid>/status`, 10 s after a warm start and again after a first visit.',
    '',
    '| what | figure |',
    '|---|---|',
    `| \`npm start\`'s own step when \`dist/\` is current (Node check, the build's digest) | ${r.prestartMs} ms |`,
    `| a build after a change of the sources | ${r.buildMs} ms |`,
    `| cold start: empty data dir, the demo tenant loaded | ${r.coldMs} ms |`,
    `| warm start | ${r.warmMs} ms |`,
    `| warm \`npm start\` (npm, its prestart step, the start) | ${r.npmStartMs} ms |`,
    `| resident at rest after a warm start | ${r.restRssMb} MB |`,
    `| resident ${r.usedRestSeconds} s after the explorer, a sign-in, pages and an export | ${r.usedRestRssMb} MB |`,
    `| peak resident | ${r.peakRssMb} MB |`,
    '',
  ].join('\n');
}
