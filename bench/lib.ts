import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

/**
 * Whether servers are pinned to CPU 0 and the load generator to CPU 1 (with `taskset`), so that
 * they do not share a core. A smoke run turns it off: it measures nothing, and a dozen servers
 * starting on one core of a busy machine take most of its time.
 */
export const cpus = { pin: true };

/**
 * Pins this process (the load generator) and the processes it starts from now on to CPU 1, the
 * servers being on CPU 0 (`startServer`); returns false when it is not pinned (`taskset`
 * missing, or pinning off).
 */
export function pinLoadGenerator(): boolean {
  if (!cpus.pin) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The built service, as `npm start` runs it (`npm run bench` builds it first). */
export const BIN = join(import.meta.dirname, '../dist/cli/bin.js');
let databases = 0;
const run = promisify(execFile);

export interface Server {
  url: string;
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
  /** Runs an `assetql` command against the same database. */
  cli(args: string[], input?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts `assetql serve` in its own process, pinned to CPU 0 when `taskset` exists, so the
 * load generator (this process) does not share its core. PostgreSQL when DATABASE_URL is set.
 */
export async function startServer(
  extraEnv: Record<string, string> = {},
  options: {
    /** Node's own flags for the server (`--trace-gc-nvp`), after the service's. */
    flags?: readonly string[];
    /** Pin it to CPU 0 (when `taskset` exists) @default cpus.pin */
    pin?: boolean;
  } = {},
): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aq-bench-'));
  // Each scenario gets a database of its own on the server DATABASE_URL names, dropped after;
  // a server given a DATABASE_URL of its own (another process on a database already made) none.
  const admin = extraEnv.DATABASE_URL ? undefined : process.env.DATABASE_URL;
  const own = admin ? `assetql_bench_${process.pid}_${++databases}` : undefined;
  let databaseUrl: string | undefined;
  if (admin && own) {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`create database ${own}`);
    await c.end();
    const url = new URL(admin);
    url.pathname = `/${own}`;
    databaseUrl = url.toString();
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ASSETQL_ENV: 'demo',
    ASSETQL_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    ...extraEnv,
  };
  const pinned =
    (options.pin ?? cpus.pin) &&
    (await run('taskset', ['-c', '0', 'true']).then(
      () => true,
      () => false,
    ));
  // The same V8 flag as `npm start` and the `assetql` command's shebang; BENCH_SERVER_FLAGS adds
  // Node's own (`--cpu-prof`, `--trace-gc`) to look into a run.
  const flags = [
    ...(options.flags ?? []),
    ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? []),
  ];
  const node = [process.execPath, '--max-semi-space-size=16', ...flags, BIN, 'serve'];
  const child = pinned
    ? spawn('taskset', ['-c', '0', ...node], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(node[0]!, node.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  if (process.env.BENCH_DEBUG) child.stderr!.on('data', (b: Buffer) => process.stderr.write(`server: ${b}`));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const read = (b: Buffer) => {
      output += b.toString();
      const m = /assetql at (http:\/\/\S+)\/api\/graphql/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`server exited ${code}:\n${output}`)));
  });
  return {
    url,
    env,
    child,
    async cli(args, input) {
      const p = run(process.execPath, [BIN, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
      if (input !== undefined) p.child.stdin?.end(input);
      return (await p).stdout;
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
      if (admin && own) {
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        await c.query(`drop database if exists ${own} with (force)`);
        await c.end();
      }
    },
  };
}

export async function graphql(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const r = await fetch(`${url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  return { headers: r.headers, body: (await r.json()) as any };
}

/** Signs a benchmark user (`bencher` unless named) in as an explorer client; returns the new session's ID. */
export async function signIn(url: string, username = 'bencher'): Promise<string> {
  const signedIn = await graphql(
    url,
    'mutation($u: String!) { signIn(input: { loginUsername: $u, password: "a bench password here", clientApplicationType: EXPLORER }) { errors { type } } }',
    { u: username },
  );
  const sessionId = signedIn.headers.get('x-svc-sessionid');
  if (!sessionId) throw new Error(`sign-in failed: ${JSON.stringify(signedIn.body)}`);
  return sessionId;
}

/**
 * Adds the benchmark user to `group` with `assetql users add` and signs in as an explorer
 * client; returns the session ID to send in `x-svc-sessionid`.
 */
export async function signedInUser(server: Server, group: string): Promise<string> {
  await server.cli(
    ['users', 'add', 'bencher', '--group', group, '--password-stdin'],
    'a bench password here\n',
  );
  return signIn(server.url);
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Closed-loop load with autocannon; latencies in milliseconds. */
export async function load(options: {
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: `${options.url}/api/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify(options.body),
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    // autocannon's histogram reports p97.5, not p95; `sample` below gives exact percentiles.
    p95: (result.latency as unknown as Record<string, number>).p97_5 ?? result.latency.p99,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Sample {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  failures: number;
}

export function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Sends `request` from `concurrency` loops for `seconds`, or at a fixed `rate` per second,
 * and reports exact latency percentiles (ms). A response that is not 2xx, or whose JSON has
 * `errors`, counts as a failure.
 */
export async function sample(options: {
  request: () => Promise<{ ok: boolean; json(): Promise<unknown> }>;
  seconds: number;
  concurrency?: number;
  rate?: number;
  /**
   * Send at the same rate for this long first and discard it: the client's connections are
   * opened and the server warm before anything is counted @default 0
   */
  warmupSeconds?: number;
}): Promise<Sample> {
  if (options.warmupSeconds) {
    await sample({ ...options, seconds: options.warmupSeconds, warmupSeconds: 0 });
  }
  const latencies: number[] = [];
  let failures = 0;
  const end = performance.now() + options.seconds * 1000;
  const once = async () => {
    const t0 = performance.now();
    try {
      const r = await options.request();
      const body = (await r.json()) as { errors?: unknown };
      if (!r.ok || body.errors) failures++;
    } catch {
      failures++;
    }
    latencies.push(performance.now() - t0);
  };
  const started = performance.now();
  if (options.rate) {
    const interval = 1000 / options.rate;
    const inflight: Promise<void>[] = [];
    for (let next = performance.now(); next < end; next += interval) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inflight.push(once());
    }
    await Promise.all(inflight);
  } else {
    await Promise.all(
      Array.from({ length: options.concurrency ?? 1 }, async () => {
        while (performance.now() < end) await once();
      }),
    );
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    failures,
  };
}
