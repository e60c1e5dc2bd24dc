import { type ChildProcess, execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { SUBGRAPH_NAMES } from '../src/config/index.ts';
import { BIN, graphql, signedInUser, startServer } from './lib.ts';
import { startPinned } from './peers/procs.ts';
import { pageDocument } from './peers.ts';

const run = promisify(execFile);

/** What the collector does for each of `count` statements or requests, one after another. */
export interface GcCell {
  count: number;
  /** Bytes allocated in the young generation, each (KB). */
  allocatedKb: number;
  /** Bytes moved to the old generation by young collections, each (KB). */
  promotedKb: number;
  /** Full collections while they ran. */
  fullCollections: number;
}

export interface GcBenchResult {
  skipped?: string;
  rows: number;
  /** A page statement through the service's database layer. */
  ours?: GcCell;
  /** The same through Kysely over pg's own promise. */
  pg?: GcCell;
  /** A Q1 page request (100 wells, 5 properties) answered by the whole service in one process, over HTTP. */
  service?: GcCell;
  /** The same answered by the distributed form: the gateway's collector (the subgraphs are not traced). */
  gateway?: GcCell;
}

/**
 * The young generation's work for a page of 100 rows with a jsonb column, read through the
 * service's database layer (`ours`) and through Kysely over pg's own client (`pg`), which awaits
 * pg's own promise. A statement's rows should die young: what is promoted is copied twice and
 * left for a full collection (docs/performance.md, "Rows that outlived their statement").
 * Measured from V8's trace (`--trace-gc-nvp`) of a child process: bytes, not time, so the same on
 * a busy machine.
 */
export async function gcBench(options: { quick: boolean; smoke: boolean }): Promise<GcBenchResult> {
  const rows = 1000;
  const admin = process.env.DATABASE_URL;
  if (!admin) return { rows, skipped: 'measured on PostgreSQL only (set DATABASE_URL)' };
  const statements = options.smoke ? 600 : options.quick ? 2000 : 10_000;
  const own = `assetql_bench_gc_${process.pid}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(`create database ${own}`);
    const url = new URL(admin);
    url.pathname = `/${own}`;
    const d = new pg.Client({ connectionString: url.toString() });
    await d.connect();
    try {
      await d.query('create table gc_probe (grp text, id text, properties jsonb, primary key (grp, id))');
      await d.query(
        `insert into gc_probe select 'bench', 'W-' || lpad(i::text, 6, '0'),
           jsonb_build_object('name', 'AURORA PEMBINA ' || i, 'status', 'producing', 'depth', 1000 + i * 1.5,
             'uwi', '100/' || i || '-047-08W5/02', 'spudDate', '2019-11-20', 'facilityId', 'F-00001')
         from generate_series(1, $1::int) as i`,
        [rows],
      );
    } finally {
      await d.end();
    }
    const probe = async (client: 'ours' | 'pg'): Promise<GcCell> => {
      const { stdout } = await run(
        process.execPath,
        [
          '--trace-gc-nvp',
          join(import.meta.dirname, 'gc-probe.ts'),
          url.toString(),
          client,
          String(statements),
        ],
        { maxBuffer: 256 * 1024 * 1024 },
      );
      return gcCell(stdout, statements);
    };
    return {
      rows,
      ours: await probe('ours'),
      pg: await probe('pg'),
      ...(await serviceCells(options.smoke ? 400 : options.quick ? 2000 : 10_000)),
    };
  } finally {
    await c.query(`drop database if exists ${own} with (force)`).catch(() => {});
    await c.end();
  }
}

/** The peers bench's Q1: the first page of 100 wells, five properties each. */
const Q1 = pageDocument('first: 100');

/**
 * The whole service answering Q1 `requests` times, one after another, from this process over
 * HTTP: in one process (`assetql serve`), then distributed (`serve --gateway` in front of one
 * `serve --subgraph` per subgraph), PostgreSQL. V8's trace of the traced process's collections between two
 * marks it prints when signalled (bench/gc-marks.ts). Anything of a request kept past its answer
 * (a closure over it in a long-lived scope, a driver's promise) shows here as promoted bytes.
 */
async function serviceCells(requests: number): Promise<{ service: GcCell; gateway: GcCell }> {
  const flags = ['--trace-gc-nvp', '--import', join(import.meta.dirname, 'gc-marks.ts')];
  const server = await startServer({ ASSETQL_DEMO_DATA: 'false' }, { flags });
  try {
    await server.cli(['demo', 'generate', '--assets', '2000', '--group', 'gc']);
    const headers = { 'x-svc-sessionid': await signedInUser(server, 'gc') };
    const service = await traced(server.url, server.child, headers, requests);
    const started = await Promise.allSettled(
      SUBGRAPH_NAMES.map((name) =>
        startPinned(`subgraph ${name}`, BIN, ['serve', '--subgraph', name], server.env),
      ),
    );
    const subgraphs = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      const gateway = await startPinned(
        'gateway',
        BIN,
        ['serve', '--gateway'],
        {
          ...server.env,
          ...Object.fromEntries(
            SUBGRAPH_NAMES.map((name, i) => [
              `ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`,
              subgraphs[i]!.url,
            ]),
          ),
        },
        ['--max-semi-space-size=16', ...flags],
      );
      try {
        // It prints its GraphQL URL; graphql() adds the path itself.
        const origin = gateway.url.replace(/\/api\/graphql$/, '');
        return { service, gateway: await traced(origin, gateway.child, headers, requests) };
      } finally {
        await gateway.stop();
      }
    } finally {
      await Promise.all(subgraphs.map((s) => s.stop()));
    }
  } finally {
    await server.close();
  }
}

/** Q1 `requests` times from `url` between two marks of `child`, which is then stopped for its trace. */
async function traced(
  url: string,
  child: ChildProcess,
  headers: Record<string, string>,
  requests: number,
): Promise<GcCell> {
  let trace = '';
  child.stdout!.on('data', (b: Buffer) => {
    trace += b.toString();
  });
  const ended = new Promise((resolve) => child.stdout!.once('end', resolve));
  const page = async () => {
    const r = await graphql(url, Q1, {}, headers);
    if (r.body.errors || r.body.data?.assets?.all?.edges?.length !== 100)
      throw new Error(`gc: Q1 answered ${JSON.stringify(r.body).slice(0, 500)}`);
  };
  const mark = async (name: string) => {
    child.kill('SIGUSR2');
    const shown = new RegExp(`^${name} `, 'm');
    for (let waited = 0; !shown.test(trace); waited += 10) {
      if (waited > 10_000) throw new Error(`gc: the service printed no ${name} mark`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  // Warm-up: compiled code, caches and prepared statements settle before the counted part.
  for (let i = 0; i < 300; i++) await page();
  await mark('PROBE-START');
  for (let i = 0; i < requests; i++) await page();
  await mark('PROBE-END');
  // V8 writes its trace through the C library's buffer, flushed when the process exits; one that
  // does not drain in time is killed (and the run fails on the trace it did not write).
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await Promise.all([exited, ended]);
  clearTimeout(kill);
  return gcCell(trace, requests);
}

/**
 * Sums the young collections' trace lines between the probe's marks, told by the time each line
 * carries (ms since the process started), not by where it falls in the output: V8 writes through
 * the C library's buffer, the marks do not.
 */
export function gcCell(trace: string, count: number): GcCell {
  const start = Number(/^PROBE-START (\d+(?:\.\d+)?)$/m.exec(trace)?.[1]);
  const end = Number(/^PROBE(?:-END| \d+) (\d+(?:\.\d+)?)$/m.exec(trace)?.[1]);
  if (!(start >= 0 && end > start))
    throw new Error(`gc probe: no marks in its output:\n${trace.slice(-2000)}`);
  let allocated = 0;
  let promoted = 0;
  let full = 0;
  for (const line of trace.split('\n')) {
    const at = Number(/^\[[^\]]*\]\s+(\d+(?:\.\d+)?) ms: /.exec(line)?.[1]);
    if (!(at >= start && at <= end)) continue;
    if (/ gc=(mc|ms) /.test(line)) full++;
    if (!/ gc=s /.test(line)) continue;
    allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
    promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  const kb = (bytes: number) => Math.round((bytes / 1024 / count) * 100) / 100;
  return { count, allocatedKb: kb(allocated), promotedKb: kb(promoted), fullCollections: full };
}

export function gcMarkdown(r: GcBenchResult): string {
  if (r.skipped || !r.ours || !r.pg) return `## Collector\n\nSkipped: ${r.skipped ?? 'no result'}.\n`;
  const row = (name: string, c: GcCell) =>
    `| ${name} | ${c.count} | ${c.allocatedKb} | ${c.promotedKb} | ${c.fullCollections} |`;
  return [
    '## Collector',
    '',
    "A page of 100 rows (id and a jsonb of six properties) read one statement after another; V8's trace of the young collections (`--trace-gc-nvp`), per statement.",
    '',
    '| database layer | statements | allocated (KB) | promoted (KB) | full collections |',
    '|---|---|---|---|---|',
    row("the service's (callback form)", r.ours),
    row("Kysely over pg's own promise", r.pg),
    '',
    ...(r.service
      ? [
          'The whole service answering Q1, a page of 100 wells with five properties each, over HTTP, one request after another, on PostgreSQL; the same trace, per request: in one process (`assetql serve`), and at the gateway of the distributed form (`serve --gateway` in front of one `serve --subgraph` per subgraph).',
          '',
          '| service | requests | allocated (KB) | promoted (KB) | full collections |',
          '|---|---|---|---|---|',
          row('one process', r.service),
          ...(r.gateway ? [row('the gateway of the distributed form', r.gateway)] : []),
          '',
        ]
      : []),
  ].join('\n');
}
