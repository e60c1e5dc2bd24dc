/**
 * Read replicas (`ASSETQL_DATABASE_READ_URLS`, docs/deploy.md#read-replicas): a PostgreSQL of the
 * test's own (the machine's allows no replication connection) and a hot standby of it made with
 * `pg_basebackup -R` and started with Debian's `pg_ctl` on another port; two `assetql serve`
 * processes on the primary with the standby as their replica. Both servers log every statement,
 * so what each answered is counted in their logs. Shown: queries answered by the replica; the
 * router checks' session script through either process alike; a session's write read back at once
 * through the other process, 1,000 times under a concurrent write load; a replica whose replay is
 * paused skipped once past the lag bound, and used again once it caught up; a replica stopped
 * mid-run (`pg_ctl stop -m immediate`) with no failed request.
 *
 * PostgreSQL's binaries only (the PostgreSQL pass runs it); the machine's server is not touched.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLICA_CHECK_MS, REPLICA_MAX_LAG_MS } from '../../src/storage/replicas.ts';
import {
  lastOutput,
  type PrivateCluster,
  privateCluster,
  type Served,
  serve,
  serveEnv,
  stop,
} from '../helpers/processes.ts';
import {
  type Answer,
  askAt,
  type Client,
  createIssue,
  expectScriptAlike,
  ownWritesUnderLoad,
  signedIn,
} from '../helpers/session-script.ts';
import { type Standby, startStandby, statementsOn } from '../helpers/standby.ts';

const SECRET = 'replicas-e2e-secret-0123456789abcdefghijk';
const PAGE = '{ assets(profile: "well") { all(first: 5) { edges { node { id displayName } } } } }';
const READ = 'query($id: ID!) { issues { byId(id: $id) { displayName } } }';

let primary: PrivateCluster;
let standby: Standby;
let primaryLog: string;
let dataDir: string;
const servers: Served[] = [];
const output = () => `${servers.map((s) => lastOutput(s, 20)).join('\n')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Statements on `table` each server has run so far. */
const counts = (table: string) => ({
  replica: statementsOn(standby.log(), table),
  primary: statementsOn(readFileSync(primaryLog, 'utf8'), table),
});

async function onPrimary<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: primary.url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  primary = await privateCluster();
  await onPrimary(async (c) => {
    await c.query(`alter system set log_statement = 'all'`);
    await c.query('select pg_reload_conf()');
    const { rows } = await c.query<{ data_directory: string }>('show data_directory');
    primaryLog = join(dirname(rows[0]!.data_directory), 'log');
  });
  standby = await startStandby(primary.port, ['log_statement=all']);
  dataDir = mkdtempSync(join(tmpdir(), 'aq-replicas-'));
  const env = serveEnv(SECRET, {
    DATABASE_URL: primary.url,
    ASSETQL_DATABASE_READ_URLS: standby.url,
    ASSETQL_DEMO_DATA: 'true',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  });
  const started = await Promise.allSettled(
    ['a', 'b'].map((name) => serve(`server ${name}`, [], env, 120_000)),
  );
  for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
  const failed = started.filter((s) => s.status === 'rejected').map((s) => String(s.reason));
  expect(failed, failed.join('\n\n')).toEqual([]);
}, 180_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => stop(s.child)));
  await standby?.destroy();
  await primary?.destroy();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('with a streaming read replica', () => {
  it('answers queries from the replica, and writes on the primary', async () => {
    const [a, b] = servers;
    const client = await signedIn(a!.url, '203.0.113.20');
    const before = counts('assets');
    for (let i = 0; i < 50; i++) {
      const r = await askAt(i % 2 ? a!.url : b!.url, client, PAGE);
      expect(r.body.data?.assets?.all?.edges, JSON.stringify(r.body)).toHaveLength(5);
    }
    const after = counts('assets');
    console.log(
      `50 pages: ${after.replica - before.replica} asset statements on the replica, ${after.primary - before.primary} on the primary`,
    );
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(50);
    expect(after.primary - before.primary).toBe(0);
    // The write went to the primary, and the standby replayed it.
    const id = await createIssue(a!.url, client, 'on the primary');
    const found = await askAt(b!.url, client, READ, { id });
    expect(found.body.data?.issues?.byId?.displayName).toBe('on the primary');
  }, 60_000);

  it.each(['header', 'cookie'] as const)(
    'runs the session script carried by %s through either process alike',
    async (carrier) => {
      const [a, b] = servers;
      const address = carrier === 'header' ? '203.0.113.10' : '203.0.113.11';
      const viaA: Client = { carrier, session: undefined, address };
      const viaB: Client = { carrier, session: undefined, address };
      await expectScriptAlike(a!.url, viaA, b!.url, viaB, output);
    },
    60_000,
  );

  it('shows a session its own write at once through the other process, 1,000 times under a write load', async () => {
    const [a, b] = servers;
    const client = await signedIn(a!.url, '198.51.100.1');
    const before = counts('issues');
    const { stale, loaded, ms } = await ownWritesUnderLoad([b!.url, a!.url], client);
    const after = counts('issues');
    console.log(
      `1,000 writes read back in ${ms} ms beside ${loaded} other writes; issue statements: ` +
        `${after.replica - before.replica} on the replica, ${after.primary - before.primary} on the primary`,
    );
    expect(stale.slice(0, 5), output()).toEqual([]);
    expect(loaded).toBeGreaterThan(100);
    // Most reads waited for the replica rather than falling back to the primary.
    expect(after.replica - before.replica).toBeGreaterThan(500);
  }, 300_000);

  it('shows a session its own asset write while the replica has not replayed it (the upsert writes on the raw pool)', async () => {
    const [a, b] = servers;
    const client = await signedIn(a!.url, '198.51.100.2');
    const upsert =
      'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }';
    const read =
      'query($id: ID!) { assets(profile: "site") { byId(id: $id) { properties(only: ["name"]) } } }';
    const write = async (name: string) => {
      const wrote = await askAt(a!.url, client, upsert, {
        input: { profile: 'site', assets: [{ id: 'RYW-SITE', properties: { name } }] },
      });
      expect(wrote.body.data?.upsertAssets?.errors, JSON.stringify(wrote.body)).toEqual([]);
    };
    await write('replayed');
    await sleep(2 * REPLICA_CHECK_MS);
    // Replay paused, well within the lag bound: the replica still answers reads, and would answer
    // this one with the name before unless the session's write is known to be past it.
    await standby.query('select pg_wal_replay_pause()');
    try {
      await write('not replayed yet');
      const before = counts('assets');
      const seen = await askAt(b!.url, client, read, { id: 'RYW-SITE' });
      expect(seen.body.data?.assets?.byId?.properties?.name, output()).toBe('not replayed yet');
      // Another session's read of it still goes to the replica, which has not replayed it.
      const other = await signedIn(b!.url, '198.51.100.3');
      const theirs = await askAt(b!.url, other, read, { id: 'RYW-SITE' });
      expect(theirs.body.data?.assets?.byId?.properties?.name).toBe('replayed');
      expect(counts('assets').replica - before.replica).toBeGreaterThanOrEqual(1);
    } finally {
      await standby.query('select pg_wal_replay_resume()');
    }
    await sleep(2 * REPLICA_CHECK_MS + 500);
  }, 60_000);

  it('skips a replica that lags past the bound, and reads from it again once it caught up', async () => {
    const [a, b] = servers;
    const writer = await signedIn(a!.url, '192.0.2.30');
    const reader = await signedIn(b!.url, '192.0.2.31');
    await standby.query('select pg_wal_replay_pause()');
    try {
      const id = await createIssue(a!.url, writer, 'while the replica is paused');
      // Past the bound and the next check.
      await sleep(REPLICA_MAX_LAG_MS + 2 * REPLICA_CHECK_MS + 500);
      await createIssue(a!.url, writer, 'keeps the primary moving');
      const before = counts('issues');
      for (let i = 0; i < 20; i++) {
        const read = await askAt(i % 2 ? a!.url : b!.url, reader, READ, { id });
        // Another session's write, seen: the reads went to the primary.
        expect(read.body.data?.issues?.byId?.displayName, JSON.stringify(read.body)).toBe(
          'while the replica is paused',
        );
      }
      const after = counts('issues');
      expect(after.replica - before.replica).toBe(0);
      expect(after.primary - before.primary).toBeGreaterThanOrEqual(20);
    } finally {
      await standby.query('select pg_wal_replay_resume()');
    }
    await sleep(2 * REPLICA_CHECK_MS + 500);
    const before = counts('assets');
    for (let i = 0; i < 10; i++) await askAt(i % 2 ? a!.url : b!.url, reader, PAGE);
    expect(counts('assets').replica - before.replica).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('answers every request while the replica is stopped mid-run, from the primary', async () => {
    const [a, b] = servers;
    const clients = await Promise.all([1, 2, 3, 4].map((i) => signedIn(a!.url, `192.0.2.${40 + i}`)));
    let running = true;
    let answered = 0;
    const failures: string[] = [];
    const readers = clients.map(async (client, c) => {
      for (let n = 0; running; n++) {
        const url = (n + c) % 2 ? a!.url : b!.url;
        const r = await askAt(url, client, PAGE).catch(
          (e: Error): Answer => ({ headers: new Headers(), body: { errors: [{ message: e.message }] } }),
        );
        if (r.body.data?.assets?.all?.edges?.length !== 5) failures.push(JSON.stringify(r.body));
        else answered++;
      }
    });
    await sleep(1_000);
    const beforeStop = answered;
    await standby.stop('immediate');
    await sleep(3_000);
    running = false;
    await Promise.all(readers);
    console.log(
      `${answered} pages answered, ${answered - beforeStop} after the replica stopped; ${failures.length} failed`,
    );
    expect(failures.slice(0, 5), output()).toEqual([]);
    expect(answered - beforeStop).toBeGreaterThan(50);
  }, 60_000);
});
