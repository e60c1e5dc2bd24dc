import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** What one database layer costs the collector, per statement. */
export interface GcCell {
  statements: number;
  /** Bytes allocated in the young generation, per statement (KB). */
  allocatedKb: number;
  /** Bytes moved to the old generation by young collections, per statement (KB). */
  promotedKb: number;
  /** Full collections during the counted statements. */
  fullCollections: number;
}

export interface GcBenchResult {
  skipped?: string;
  rows: number;
  ours?: GcCell;
  pg?: GcCell;
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
    return { rows, ours: await probe('ours'), pg: await probe('pg') };
  } finally {
    await c.query(`drop database if exists ${own} with (force)`).catch(() => {});
    await c.end();
  }
}

/**
 * Sums the young collections' trace lines between the probe's marks, told by the time each line
 * carries (ms since the process started), not by where it falls in the output: V8 writes through
 * the C library's buffer, the marks do not.
 */
export function gcCell(trace: string, statements: number): GcCell {
  const start = Number(/^PROBE-START (\d+(?:\.\d+)?)$/m.exec(trace)?.[1]);
  const end = Number(/^PROBE \d+ (\d+(?:\.\d+)?)$/m.exec(trace)?.[1]);
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
  const kb = (bytes: number) => Math.round((bytes / 1024 / statements) * 100) / 100;
  return { statements, allocatedKb: kb(allocated), promotedKb: kb(promoted), fullCollections: full };
}

export function gcMarkdown(r: GcBenchResult): string {
  if (r.skipped || !r.ours || !r.pg) return `## Collector\n\nSkipped: ${r.skipped ?? 'no result'}.\n`;
  const row = (name: string, c: GcCell) =>
    `| ${name} | ${c.statements} | ${c.allocatedKb} | ${c.promotedKb} | ${c.fullCollections} |`;
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
  ].join('\n');
}
