import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** A running `assetql serve` child process. */
export interface Served {
  name: string;
  child: ChildProcess;
  /** The URL from its "at http://…" line: `/api/graphql`, or a subgraph's `/graphql`. */
  url: string;
  /** stdout and stderr as they came (pino logs to stdout). */
  output: string[];
}

/** The last lines a child wrote, to explain a failure. */
export function lastOutput(served: Pick<Served, 'name' | 'child' | 'output'>, lines = 30): string {
  const text = served.output.join('').trim().split('\n').slice(-lines).join('\n');
  const state = served.child.exitCode ?? served.child.signalCode ?? 'running';
  return `--- ${served.name} (pid ${served.child.pid}, exit ${state}):\n${text || '(no output)'}`;
}

const running = new Set<ChildProcess>();
/** Should the worker die without its afterAll, leave no servers behind. */
process.once('exit', () => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * Starts `node src/cli/bin.ts serve ...args` (or another `entry`, such as a build's
 * `cli/bin.js`) and resolves once it prints where it listens; rejects, with what it wrote,
 * when it exits first or takes longer than `timeoutMs`.
 */
export function serve(
  name: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 45_000,
  entry = 'src/cli/bin.ts',
): Promise<Served> {
  const child = spawn(process.execPath, [entry, 'serve', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    let stdout = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${name} ${why}\n${output.join('')}`));
    };
    const timer = setTimeout(() => fail(`printed no listening line within ${timeoutMs} ms`), timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output.push(chunk);
      stdout += chunk;
      const m = stdout.match(/^assetql (?:subgraph \w+ )?at (http:\/\/\S+)/m);
      if (m) {
        clearTimeout(timer);
        resolve({ name, child, url: m[1]!, output });
      }
    });
    child.stderr.on('data', (chunk: string) => output.push(chunk));
    child.once('error', (e) => fail(`could not start: ${e.message}`));
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before listening`));
  });
}

/** The environment of an `assetql serve` child: demo settings on a free port, plus `extra`. */
export function serveEnv(secret: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ASSETQL_SECRET: secret,
    ASSETQL_ENV: 'demo',
    ASSETQL_DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
    PORT: '0',
    HOST: '127.0.0.1',
    ...extra,
  };
}

/** Signs in as the demo user at `graphqlUrl`; returns the session ID ('' when refused). */
export async function signInDemo(graphqlUrl: string): Promise<string> {
  const response = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type } } }`,
    }),
  });
  return response.headers.get('x-svc-sessionid') ?? '';
}

/** Resolves with the exit code (or signal) once `child` has exited. */
export function exited(child: ChildProcess): Promise<number | NodeJS.Signals> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
}

/** SIGTERM, then SIGKILL after 10 s. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await done;
  clearTimeout(timer);
}

/**
 * Starts `node …command` in the repository (a third-party router, say) and resolves once `url`
 * answers `{ __typename }`; rejects with its last output if it exits or is not up in 60 s.
 */
export async function spawnGraphql(
  name: string,
  command: string[],
  env: Record<string, string>,
  url: string,
): Promise<Served> {
  const child = spawn(process.execPath, command, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const served: Served = { name, child, output: [], url };
  child.stdout!.setEncoding('utf8').on('data', (c: string) => served.output.push(c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => served.output.push(c));
  for (const deadline = Date.now() + 60_000; Date.now() < deadline && child.exitCode === null; ) {
    const up = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
      signal: AbortSignal.timeout(2_000),
    })
      .then((r) => r.ok)
      .catch(() => false);
    if (up) return served;
    await new Promise((r) => setTimeout(r, 300));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not start\n${lastOutput(served, 40)}`);
}

/**
 * The `hive-gateway` CLI over `supergraph` (a file), configured as docs/routers.md says
 * (examples/routers/hive-gateway.config.ts), on a free port; its `url` is its `/graphql`.
 */
export async function startHiveGateway(name: string, supergraph: string): Promise<Served> {
  const bin = join(
    dirname(createRequire(import.meta.url).resolve('@graphql-hive/gateway/package.json')),
    'dist/bin.js',
  );
  const port = await freePort();
  return spawnGraphql(
    name,
    [
      bin,
      'supergraph',
      supergraph,
      '--config-path',
      'examples/routers/hive-gateway.config.ts',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    `http://127.0.0.1:${port}/graphql`,
  );
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Debian's PostgreSQL binaries, newest version first; undefined when none are installed. */
export function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

/** A PostgreSQL cluster of a test's own, on a free port, that the test may stop and start. */
export interface PrivateCluster {
  url: string;
  port: number;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: open connections are ended at once. */
  stop(): Promise<void>;
  /** Stops the server and deletes its files. */
  destroy(): Promise<void>;
}

/**
 * `initdb` into a temporary folder (as the `postgres` user when this process is root, since
 * PostgreSQL refuses to run as root) and starts it on a free loopback port, with its socket
 * in the same folder: the machine's own PostgreSQL is never touched.
 */
export async function privateCluster(): Promise<PrivateCluster> {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error(
      'this test runs a PostgreSQL server of its own and needs initdb and pg_ctl under ' +
        '/usr/lib/postgresql/<version>/bin; install them with: apt-get install postgresql',
    );
  const dir = mkdtempSync('/tmp/aq-pg-');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  const data = join(dir, 'data');
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => {
    await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  };
  const stopServer = async () => {
    await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop: stopServer,
    async destroy() {
      await stopServer().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
