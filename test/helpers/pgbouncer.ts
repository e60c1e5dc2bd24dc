import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.ts';
import { requireTool } from './tools.ts';

export interface Pooler {
  port: number;
  /** `url` (a PostgreSQL URL) with the pooler's address in its place. */
  through(url: string): string;
  /** A row set of PgBouncer's admin console (`SHOW POOLS`, `SHOW STATS`, ...). */
  show(what: string): Promise<Record<string, unknown>[]>;
  log(): string;
  close(): Promise<void>;
}

/**
 * Debian's PgBouncer in transaction mode in front of the machine's PostgreSQL at `server`
 * (host:port), configured as docs/deploy.md says: every database by name, the session settings
 * assetql would SET given to each server connection by `connect_query`, and `serverPool` server
 * connections per database, fewer than the clients' pools, so that transactions of different
 * clients share them.
 */
export async function startPgBouncer(
  server: { host: string; port: number; user: string },
  options: { serverPool?: number; connectQuery?: string } = {},
): Promise<Pooler> {
  const binary = existsSync('/usr/sbin/pgbouncer')
    ? '/usr/sbin/pgbouncer'
    : requireTool(['pgbouncer'], { package: 'pgbouncer', for: 'the transaction-mode pooler tests' });
  const dir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-pgbouncer-'));
  // PgBouncer refuses to run as root: started as root, it runs as the postgres user, who must
  // read this folder.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chmodSync(dir, 0o755);
  const port = await freePort();
  const connectQuery = options.connectQuery ?? 'set jit = off; set statement_timeout = 5000';
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.host} port=${server.port} user=${server.user} connect_query='${connectQuery}'`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${options.serverPool ?? 4}`,
      'max_client_conn = 500',
      `admin_users = ${server.user}`,
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const output: string[] = [];
  const child: ChildProcess = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', binary, ini], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(binary, [ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => output.push(String(c)));
  child.stderr!.on('data', (c) => output.push(String(c)));
  const admin = () =>
    new pg.Client({
      host: '127.0.0.1',
      port,
      user: server.user,
      database: 'pgbouncer',
      connectionTimeoutMillis: 2_000,
    });
  for (let i = 0; ; i++) {
    const c = admin();
    const up = await c.connect().then(
      () => true,
      () => false,
    );
    await c.end().catch(() => {});
    if (up) break;
    if (i > 100 || child.exitCode !== null) throw new Error(`pgbouncer did not start:\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    through(url) {
      const u = new URL(url);
      u.host = `127.0.0.1:${port}`;
      return u.toString();
    },
    async show(what) {
      const c = admin();
      await c.connect();
      try {
        // The admin console speaks the simple protocol only.
        const r = await c.query({ text: `show ${what}`, queryMode: 'simple' } as pg.QueryConfig);
        return r.rows;
      } finally {
        await c.end();
      }
    },
    log: () => output.join(''),
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
