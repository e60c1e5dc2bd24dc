/**
 * Scale: what copies of the one-process server behind a load balancer serve, against one process
 * (docs/deploy.md, "Several processes behind a load balancer"), with replica routing off and on
 * (docs/deploy.md#read-replicas). On a PostgreSQL of its own (`initdb`; the machine's server
 * allows no replication connection) and a hot standby of it (`pg_basebackup -R`,
 * test/helpers/standby.ts), both stopped and deleted at the end, also when the run fails. Q1, the
 * peers' first page of 100 wells with five properties, by a signed-in explorer session, closed
 * loop (autocannon, as the peers bench loads its servers: a fetch loop cost the shared cores a
 * quarter of a millisecond a request, which the cells that fill the machine paid and one process,
 * bound by its one thread, did not; answers are checked in each cell's warm-up), through:
 * - one process, directly;
 * - one process behind Debian's HAProxy (the balancer's own cost);
 * - three processes behind HAProxy, configured as the load balancer test is;
 * each set-up twice: three processes with every statement on the primary (routing off, database
 * `scale_off`), and three with `ASSETQL_DATABASE_READ_URLS` naming the standby (routing on,
 * database `scale_on`, a copy of `scale_off` made before the standby, so both hold the same data).
 * How many reads the replica answered: the standby's and the primary's statistics of `scale_on`
 * (transactions, rows returned, scans of `assets`) before the warm-ups and after the servers
 * closed (a closing connection writes out its statistics; an idle one may hold them for 10 s).
 * Unlike the other scenarios nothing is pinned: the servers, HAProxy, the load generator and
 * PostgreSQL share the machine's two cores, as they would on a host running copies of the server.
 * Pinned to one core, three processes measure that core's switching between them (0.67× in a run
 * on this machine), not what their shared state costs. Rounds alternate the six cells; during
 * each, only its own processes run (the others are stopped with SIGSTOP and continued for their
 * cells), so that idle copies take nothing from the one measured.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { haproxyConfig } from '../test/helpers/haproxy.ts';
import { type PrivateCluster, postgresBinDir, privateCluster } from '../test/helpers/processes.ts';
import { type Standby, startStandby } from '../test/helpers/standby.ts';
import { load, median, type Server, sample, signedInUser, signIn, startServer } from './lib.ts';
import { cpuMs, databaseCpuMs } from './peers/procs.ts';

const GROUP = 'scale';
const FIVE = '["name", "status", "depth", "uwi", "facilityId"]';
const Q1 = `{ assets(profile: "well") { all(first: 100) { edges { node { id displayName properties(only: ${FIVE}) } } } } }`;
const SETUPS = ['one process', 'one behind HAProxy', 'three behind HAProxy'] as const;
type Setup = (typeof SETUPS)[number];
const ROUTINGS = ['off', 'on'] as const;
type Routing = (typeof ROUTINGS)[number];
/** The database of each set of processes, on the same primary. */
const DATABASE: Record<Routing, string> = { off: 'scale_off', on: 'scale_on' };

interface Cell {
  rps: number;
  p50: number;
  /** Exact, from `sample` (results recorded before the cells were loaded by autocannon). */
  p95?: number;
  /** autocannon's histogram's 97.5th percentile (it keeps no 95th). */
  p97_5?: number;
  failures: number;
  /**
   * Where the time went, per request: CPU of the cell's server processes and of PostgreSQL (ms),
   * transactions committed in the set's database, and the share of the machine's CPU left idle.
   * Absent from results recorded before they were measured.
   */
  serverCpuMs?: number;
  databaseCpuMs?: number;
  transactions?: number;
  idle?: number;
}

/** CPU time of the whole machine so far, and how much of it was idle (/proc/stat, in ticks). */
function machineCpu(): { all: number; idle: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: idle and iowait are the idle time.
  return { all: ticks.reduce((a, b) => a + b, 0), idle: ticks[3]! + ticks[4]! };
}

/** `pg_stat_database` of a database, and the scans of its `assets` table, on one server. */
interface DatabaseStats {
  transactions: number;
  rows: number;
  assetScans: number;
}

export interface ScaleBenchResult {
  /** Why nothing was measured (no PostgreSQL programs, no HAProxy), if so. */
  skipped?: string;
  wells: number;
  rounds: number;
  seconds: number;
  concurrency: number;
  /** Median over the rounds, per set-up; replica routing off (every statement on the primary). */
  cells: Record<Setup, Cell> | undefined;
  /** Three behind HAProxy against one behind HAProxy, and against one process directly. */
  ratio?: { againstOneBehind: number; againstOneDirect: number };
  /** The same set-ups with replica routing on; absent from results recorded before it was measured. */
  replica?: {
    cells: Record<Setup, Cell>;
    ratio: { againstOneBehind: number; againstOneDirect: number };
    /** Each set-up's req/s with routing on against the same set-up with it off. */
    againstOff: Record<Setup, number>;
    /**
     * Who answered the routing-on processes, from before the warm-ups until they closed: the
     * standby, and the primary's `scale_on` database. Every read routed is one transaction on the
     * standby; each process adds one a second there for its check.
     */
    reads: {
      /** Q1 requests answered through the routing-on set-ups, warm-ups included. */
      requests: number;
      /** Seconds between the two readings. */
      seconds: number;
      processes: number;
      replica: DatabaseStats;
      primary: DatabaseStats;
    };
  };
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

/** A set of three processes: a signed-in session, and the URL and processes of each set-up. */
interface Fleet {
  session: string;
  targets: Record<Setup, string>;
  /** The processes a set-up's requests reach (servers and HAProxy): the others are stopped. */
  processes: Record<Setup, ChildProcess[]>;
  /** The process ids of a set-up's servers. */
  servers: Record<Setup, number[]>;
}

/** Interrupted: no process is stopped any more, whatever the measurement still under way asks. */
let stopping = false;

/**
 * Leaves running only `running` of `all`: the rest are stopped (SIGSTOP), so that a cell is
 * measured with only its own processes taking the cores, as a host running only that set-up
 * would, while every process stays warm (compiled, caches filled) for its next cell.
 */
function runOnly(all: ChildProcess[], running: ChildProcess[]): void {
  for (const c of all) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    c.kill(running.includes(c) || stopping ? 'SIGCONT' : 'SIGSTOP');
  }
}

interface Haproxy {
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** HAProxy in front of `servers`. */
async function haproxy(servers: Server[]): Promise<Haproxy> {
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
    if (i > 100 || child.exitCode !== null) {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
      throw new Error('haproxy did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
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

/** `url` with its database `database`. */
function inDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs `statements` one after another on a connection of their own to `url`. */
async function execute(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

/** The statistics of the database `url` names, on the server it names. */
async function databaseStats(url: string): Promise<DatabaseStats> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ transactions: string; rows: string; scans: string }>(
      `select d.xact_commit::text as transactions, d.tup_returned::text as rows,
         (select coalesce(sum(coalesce(t.seq_scan, 0) + coalesce(t.idx_scan, 0)), 0)
            from pg_stat_user_tables t where t.relname = 'assets')::text as scans
       from pg_stat_database d where d.datname = current_database()`,
    );
    const r = rows[0]!;
    return { transactions: Number(r.transactions), rows: Number(r.rows), assetScans: Number(r.scans) };
  } finally {
    await client.end();
  }
}

const minus = (a: DatabaseStats, b: DatabaseStats): DatabaseStats => ({
  transactions: a.transactions - b.transactions,
  rows: a.rows - b.rows,
  assetScans: a.assetScans - b.assetScans,
});

type Runs = Record<
  Setup,
  { [K in Exclude<keyof Cell, 'failures' | 'p95'>]-?: number[] } & { failures: number }
>;

function summarise(runs: Runs) {
  const cells = Object.fromEntries(
    SETUPS.map((s) => {
      const r = runs[s];
      const cell: Cell = {
        rps: median(r.rps),
        p50: median(r.p50),
        p97_5: median(r.p97_5),
        failures: r.failures,
        serverCpuMs: median(r.serverCpuMs),
        databaseCpuMs: median(r.databaseCpuMs),
        transactions: median(r.transactions),
        idle: median(r.idle),
      };
      return [s, cell];
    }),
  ) as Record<Setup, Cell>;
  const three = cells['three behind HAProxy'].rps;
  const ratio = {
    againstOneBehind: three / cells['one behind HAProxy'].rps,
    againstOneDirect: three / cells['one process'].rps,
  };
  return { cells, ratio };
}

export async function scaleBench(options: { quick: boolean; smoke: boolean }): Promise<ScaleBenchResult> {
  const { smoke, quick } = options;
  const wells = smoke ? 300 : quick ? 20_000 : 100_000;
  const rounds = smoke ? 1 : quick ? 2 : 3;
  const seconds = smoke ? 0.5 : quick ? 3 : 8;
  const concurrency = 16;
  const none = { wells, rounds, seconds, concurrency, cells: undefined };
  if (!postgresBinDir())
    return {
      ...none,
      skipped: "needs PostgreSQL's initdb, pg_ctl and pg_basebackup (Debian's postgresql package)",
    };
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
  const servers: Server[] = [];
  const balancers: Haproxy[] = [];
  let primary: PrivateCluster | undefined;
  let standby: Standby | undefined;
  const everyProcess = () => [...balancers.map((b) => b.child), ...servers.map((s) => s.child)];
  const closeServers = async () => {
    // A stopped process acts on SIGTERM only once continued.
    runOnly(everyProcess(), everyProcess());
    for (const b of balancers.splice(0)) await b.close();
    for (const s of servers.splice(0)) await s.close();
  };
  const removeClusters = async () => {
    const [s, p] = [standby, primary];
    [standby, primary] = [undefined, undefined];
    await s?.destroy();
    await p?.destroy();
  };
  // Interrupted: the clusters (started by pg_ctl, in sessions of their own) outlive this process
  // unless stopped; the servers and balancers are sent SIGTERM.
  const interrupted = (signal: NodeJS.Signals) => {
    stopping = true;
    const all = everyProcess();
    runOnly(all, all);
    for (const c of all) c.kill('SIGTERM');
    void removeClusters().finally(() => {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      process.kill(process.pid, signal);
    });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    step('starting a PostgreSQL of its own');
    primary = await privateCluster();
    // Room for six processes' pools (and a standby's, which must allow as many); autovacuum off,
    // so that it does not run in one cell and not another.
    await execute(primary.url, [
      'alter system set max_connections = 200',
      'alter system set autovacuum = off',
    ]);
    await primary.stop();
    await primary.start();
    await execute(primary.url, [`create database ${DATABASE.off}`]);
    // Migrated and filled by one process, closed before its database is copied.
    const loader = await startServer(
      { ...env, DATABASE_URL: inDatabase(primary.url, DATABASE.off) },
      { pin: false },
    );
    servers.push(loader);
    step(`generating ${wells} wells`);
    await loader.cli(['demo', 'generate', '--assets', String(wells), '--group', GROUP]);
    await signedInUser(loader, GROUP);
    await closeServers();
    await execute(primary.url, [`create database ${DATABASE.on} template ${DATABASE.off}`]);
    /** Three processes on `routing`'s database, one behind HAProxy and all three behind another. */
    const startSet = async (routing: Routing, readUrl?: string): Promise<Fleet> => {
      step(`starting three processes, replica routing ${routing}`);
      const url = inDatabase(primary!.url, DATABASE[routing]);
      const extra = {
        ...env,
        DATABASE_URL: url,
        ...(readUrl ? { ASSETQL_DATABASE_READ_URLS: readUrl } : {}),
      };
      // Unpinned for this scenario (above), whatever the run's setting.
      const started = await Promise.allSettled([1, 2, 3].map(() => startServer(extra, { pin: false })));
      const set = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      servers.push(...set);
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      const oneBehind = await haproxy(set.slice(0, 1));
      balancers.push(oneBehind);
      const threeBehind = await haproxy(set);
      balancers.push(threeBehind);
      const targets: Record<Setup, string> = {
        'one process': set[0]!.url,
        'one behind HAProxy': oneBehind.url,
        'three behind HAProxy': threeBehind.url,
      };
      const processes: Record<Setup, ChildProcess[]> = {
        'one process': [set[0]!.child],
        'one behind HAProxy': [set[0]!.child, oneBehind.child],
        'three behind HAProxy': [...set.map((s) => s.child), threeBehind.child],
      };
      const pids = set.map((s) => s.child.pid!);
      const ofSetup: Record<Setup, number[]> = {
        'one process': pids.slice(0, 1),
        'one behind HAProxy': pids.slice(0, 1),
        'three behind HAProxy': pids,
      };
      return { session: await signIn(set[0]!.url), targets, processes, servers: ofSetup };
    };
    // The processes without replicas start while the standby is made; those with it, after.
    const replicated = async () => {
      step('making a hot standby (pg_basebackup -R)');
      standby = await startStandby(primary!.port);
      return startSet('on', inDatabase(standby.url, DATABASE.on));
    };
    const [offSet, onSet] = await Promise.allSettled([startSet('off'), replicated()]);
    if (offSet.status === 'rejected') throw offSet.reason;
    if (onSet.status === 'rejected') throw onSet.reason;
    const sets: Record<Routing, Fleet> = { off: offSet.value, on: onSet.value };
    const replicaUrl = inDatabase(standby!.url, DATABASE.on);
    const request = (routing: Routing, setup: Setup) => () =>
      fetch(`${sets[routing].targets[setup]}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-sessionid': sets[routing].session },
        body: JSON.stringify({ query: Q1 }),
        signal: AbortSignal.timeout(60_000),
      });
    const primaryOn = inDatabase(primary.url, DATABASE.on);
    const before = { replica: await databaseStats(replicaUrl), primary: await databaseStats(primaryOn) };
    const readFrom = performance.now();
    let routedRequests = 0;
    /**
     * Continues the cell's processes and stops the rest, then sends its requests for a while
     * (discarded): a process continued runs its timers that fell due while it was stopped (its
     * change-notice probe and replica check among them), and is measured once they are done.
     */
    const only = async (routing: Routing, setup: Setup, seconds: number) => {
      runOnly(everyProcess(), sets[routing].processes[setup]);
      const s = await sample({ request: request(routing, setup), seconds, concurrency });
      if (routing === 'on') routedRequests += s.requests;
      return s.failures;
    };
    for (const setup of SETUPS) for (const routing of ROUTINGS) await only(routing, setup, smoke ? 0.2 : 2);
    const empty = () =>
      Object.fromEntries(
        SETUPS.map((s) => [
          s,
          {
            rps: [],
            p50: [],
            p97_5: [],
            failures: 0,
            serverCpuMs: [],
            databaseCpuMs: [],
            transactions: [],
            idle: [],
          },
        ]),
      ) as unknown as Runs;
    const runs = { off: empty(), on: empty() };
    for (let r = 0; r < rounds; r++) {
      for (const setup of SETUPS)
        for (const routing of ROUTINGS) {
          step(`round ${r + 1}: ${setup}, replica routing ${routing}`);
          // Answers checked (a GraphQL error is a failure) while warming; the timed load is
          // autocannon's, which checks statuses only.
          const warmFailures = await only(routing, setup, smoke ? 0.1 : 1.5);
          const cell = sets[routing].servers[setup];
          const database = inDatabase(primary.url, DATABASE[routing]);
          const serverCpu = () => cell.reduce((sum, pid) => sum + cpuMs(pid), 0);
          const before = {
            server: serverCpu(),
            database: databaseCpuMs(),
            machine: machineCpu(),
            stats: await databaseStats(database),
          };
          const s = await load({
            url: sets[routing].targets[setup],
            body: { query: Q1 },
            headers: { 'x-svc-sessionid': sets[routing].session },
            connections: concurrency,
            seconds,
          });
          const machine = machineCpu();
          const [server, db] = [serverCpu(), databaseCpuMs()];
          const stats = await databaseStats(database);
          const run = runs[routing][setup];
          run.rps.push(s.rps);
          run.p50.push(s.p50);
          run.p97_5.push(s.p95);
          run.failures += warmFailures + s.errors + s.non2xx;
          run.serverCpuMs.push((server - before.server) / s.requests);
          run.databaseCpuMs.push((db - before.database) / s.requests);
          // Less the one transaction the stats' own reading commits.
          run.transactions.push((stats.transactions - before.stats.transactions - 1) / s.requests);
          run.idle.push((machine.idle - before.machine.idle) / (machine.all - before.machine.all));
          if (routing === 'on') routedRequests += s.requests;
        }
    }
    const readSeconds = (performance.now() - readFrom) / 1000;
    // Closed, their connections write out what they counted.
    await closeServers();
    const after = { replica: await databaseStats(replicaUrl), primary: await databaseStats(primaryOn) };
    const off = summarise(runs.off);
    const on = summarise(runs.on);
    return {
      wells,
      rounds,
      seconds,
      concurrency,
      cells: off.cells,
      ratio: off.ratio,
      replica: {
        ...on,
        againstOff: Object.fromEntries(SETUPS.map((s) => [s, on.cells[s].rps / off.cells[s].rps])) as Record<
          Setup,
          number
        >,
        reads: {
          requests: routedRequests,
          seconds: readSeconds,
          processes: 3,
          replica: minus(after.replica, before.replica),
          primary: minus(after.primary, before.primary),
        },
      },
    };
  } finally {
    try {
      await closeServers();
    } finally {
      await removeClusters();
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
    }
  }
}

const perRequest = (c: Cell) =>
  c.serverCpuMs === undefined
    ? ''
    : ` ${c.serverCpuMs.toFixed(2)} | ${c.databaseCpuMs!.toFixed(2)} | ${c.transactions!.toFixed(2)} | ${Math.round(c.idle! * 100)} % |`;
/** The cell's upper latency: autocannon's p97.5, or the exact p95 of results recorded before. */
const upper = (c: Cell) => (c.p97_5 ?? c.p95 ?? Number.NaN).toFixed(1);
const upperName = (r: ScaleBenchResult) => (r.cells?.['one process'].p97_5 === undefined ? 'p95' : 'p97.5');
const row = (setup: Setup, routing: Routing, c: Cell) =>
  `| ${setup} | ${routing} | ${Math.round(c.rps)} | ${c.p50.toFixed(1)} | ${upper(c)} | ${c.failures} |${perRequest(c)}`;

/** The share of the routing-on processes' scans of `assets` that the replica answered. */
export function replicaShare(reads: NonNullable<ScaleBenchResult['replica']>['reads']): number {
  const all = reads.replica.assetScans + reads.primary.assetScans;
  return all === 0 ? 0 : reads.replica.assetScans / all;
}

export function scaleMarkdown(r: ScaleBenchResult): string {
  if (!r.cells) return `### Scale\n\nNot measured: ${r.skipped}.\n`;
  const ratio = (x: { againstOneBehind: number; againstOneDirect: number }) =>
    `**${x.againstOneBehind.toFixed(2)}×** one process behind it, ${x.againstOneDirect.toFixed(2)}× one process reached directly`;
  const head = `### Scale (PostgreSQL, ${r.wells.toLocaleString('en')} wells, Q1, ${r.concurrency} connections, median of ${r.rounds} × ${r.seconds} s)`;
  const unpinned =
    'Nothing pinned: the servers, HAProxy, the load generator and PostgreSQL share the two cores.';
  if (!r.replica)
    // Recorded before the cells with replica routing on were measured.
    return [
      head,
      '',
      unpinned,
      '',
      '| set-up | req/s | p50 ms | p95 ms | failed |',
      '|---|---|---|---|---|',
      ...SETUPS.map((s) => {
        const c = r.cells![s];
        return `| ${s} | ${Math.round(c.rps)} | ${c.p50.toFixed(1)} | ${upper(c)} | ${c.failures} |`;
      }),
      '',
      `Three processes behind HAProxy: ${ratio(r.ratio!)} (target ≥ 0.9×).`,
      '',
    ].join('\n');
  const { reads } = r.replica;
  const checks = Math.round(reads.processes * reads.seconds);
  return [
    head,
    '',
    `${unpinned} A PostgreSQL the bench starts (\`initdb\`) and a hot standby of it (\`pg_basebackup -R\`); replica routing on: \`ASSETQL_DATABASE_READ_URLS\` names the standby.`,
    '',
    ...(r.cells['one process'].serverCpuMs === undefined
      ? [
          `| set-up | replica routing | req/s | p50 ms | ${upperName(r)} ms | failed |`,
          '|---|---|---|---|---|---|',
        ]
      : [
          `| set-up | replica routing | req/s | p50 ms | ${upperName(r)} ms | failed | server CPU ms/req | PostgreSQL CPU ms/req | transactions/req | machine idle |`,
          '|---|---|---|---|---|---|---|---|---|---|',
        ]),
    ...SETUPS.flatMap((s) => [row(s, 'off', r.cells![s]), row(s, 'on', r.replica!.cells[s])]),
    '',
    ...(r.cells['one process'].serverCpuMs === undefined
      ? []
      : [
          "Per request, median of the rounds: the CPU time of the cell's server processes and of every PostgreSQL process (the standby's included), the transactions committed in the set's database on the primary, and the share of the machine's CPU left idle. Only the cell's own processes run during it; the others are stopped.",
          '',
        ]),
    `Three processes behind HAProxy, routing off: ${ratio(r.ratio!)}; routing on: ${ratio(r.replica.ratio)} (target ≥ 0.9×).`,
    `Routing on against off: ${SETUPS.map((s) => `${s} ${r.replica!.againstOff[s].toFixed(2)}×`).join(', ')}.`,
    '',
    `Reads of the routing-on processes (${reads.requests.toLocaleString('en')} Q1 requests, warm-ups included): the replica answered ${reads.replica.assetScans.toLocaleString('en')} of ${(reads.replica.assetScans + reads.primary.assetScans).toLocaleString('en')} scans of \`assets\` (${(replicaShare(reads) * 100).toFixed(1)} %); it committed ${reads.replica.transactions.toLocaleString('en')} transactions (about ${checks.toLocaleString('en')} of them the processes' checks) and returned ${reads.replica.rows.toLocaleString('en')} rows, the primary ${reads.primary.transactions.toLocaleString('en')} transactions and ${reads.primary.rows.toLocaleString('en')} rows of the same database.`,
    '',
  ].join('\n');
}
