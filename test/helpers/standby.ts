import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, postgresBinDir } from './processes.ts';

const run = promisify(execFile);

/** A streaming replica of a test's own PostgreSQL, made and started by the test. */
export interface Standby {
  url: string;
  /** `pg_ctl stop`: `immediate` is a crash, connections cut without a word. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** One statement on a connection of its own (`select pg_wal_replay_pause()`). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string): Promise<R[]>;
  /** Its server log so far (statements, with `log_statement = all`). */
  log(): string;
  destroy(): Promise<void>;
}

/**
 * `pg_basebackup -R` of the PostgreSQL at 127.0.0.1:`primaryPort` (which must allow replication
 * connections from there) into a temporary folder, started with Debian's `pg_ctl` on a free
 * port as a hot standby streaming from it; as the `postgres` user when this process is root.
 * `settings` are added to its command line (`log_statement=all`).
 */
export async function startStandby(primaryPort: number, settings: string[] = []): Promise<Standby> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('a standby needs pg_basebackup and pg_ctl: apt-get install postgresql');
  const dir = mkdtempSync('/tmp/aq-standby-');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(uid.trim()), Number(gid.trim()));
  }
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args]) : run(join(bin, name), args);
  const data = join(dir, 'data');
  await tool('pg_basebackup', [
    ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
    ...['-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync'],
  ]);
  const port = await freePort();
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c hot_standby=on`,
    ...settings.map((s) => `-c ${s}`),
  ].join(' ');
  const logFile = join(dir, 'log');
  const start = async () => {
    await tool('pg_ctl', ['-D', data, '-o', options, '-l', logFile, '-w', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await tool('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    start,
    stop,
    async query<R extends pg.QueryResultRow>(sql: string) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        return (await client.query<R>(sql)).rows;
      } finally {
        await client.end();
      }
    },
    log: () => readFileSync(logFile, 'utf8'),
    async destroy() {
      await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The statements a server ran that touch `table`, in its log under `log_statement = all`
 * (`statement: …` sent simply, `execute <name>: …` by the extended protocol).
 */
export function statementsOn(log: string, table: string): number {
  const entries = log.split(/\n(?=\d{4}-\d\d-\d\d )/);
  const named = new RegExp(`"${table}"|\\b${table}\\b`);
  return entries.filter((e) => /LOG:\s+(statement|execute [^:]*):/.test(e) && named.test(e)).length;
}
