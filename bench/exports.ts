import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { graphql, median, signedInUser, startServer } from './lib.ts';

export interface ExportsBenchResult {
  engine: string;
  rows: number;
  /** The server's resident set before the first export. */
  idleRssMb: number;
  csv: {
    rowsPerSecond: number;
    bareCopyRowsPerSecond: number;
    ratio: number;
    peakRssMb: number;
    bytes: number;
  };
  xlsx: {
    rowsPerSecond: number;
    bareExceljsRowsPerSecond: number;
    ratio: number;
    peakRssMb: number;
    bytes: number;
  };
}

const GROUP = 'bench';
const COLUMNS = ['name', 'status', 'depth', 'uwi', 'facilityId'];

/** Counts the bytes and line ends of a stream without keeping it. */
function counter() {
  let bytes = 0;
  let lines = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      done();
    },
  });
  return { sink, result: () => ({ bytes, lines }) };
}

/** The server's resident set in MB (Linux). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Samples the resident set every 20 ms until stopped; returns the highest seen. */
function rssSampler(pid: number) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMb(pid));
  };
}

/**
 * A million-asset export through the gateway, CSV and XLSX, each against its floor: a bare
 * `COPY ... TO STDOUT` of the same rows, and bare exceljs writing the same rows from memory.
 * Interleaved rounds, medians; the server's peak RSS during each export.
 */
export async function exportsBench(options: {
  quick: boolean;
  smoke?: boolean;
}): Promise<ExportsBenchResult> {
  const postgres = Boolean(process.env.DATABASE_URL);
  const n = options.smoke
    ? 300
    : options.quick
      ? postgres
        ? 100_000
        : 10_000
      : postgres
        ? 1_000_000
        : 20_000;
  const rounds = options.smoke ? 1 : options.quick ? 2 : 3;
  const step = (what: string) => process.stderr.write(`bench: exports: ${what}\n`);
  const server = await startServer({ ASSETQL_DEMO_DATA: 'false' });
  const client = server.env.DATABASE_URL
    ? new pg.Client({ connectionString: server.env.DATABASE_URL })
    : new pg.Client({ host: server.env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' });
  try {
    step(`generating ${n} wells`);
    await server.cli(['demo', 'generate', '--assets', String(n), '--group', GROUP]);
    const session = await signedInUser(server, GROUP);
    await client.connect();
    const rowsSql = `select id, display_name, ${COLUMNS.map((c) => `properties ->> '${c}'`).join(', ')}
      from assets where user_group = '${GROUP}' and profile = 'well' order by id`;
    const { rows: countRows } = await client.query(
      `select count(*)::int as n from assets where user_group = $1 and profile = 'well'`,
      [GROUP],
    );
    const total = countRows[0].n as number;

    const link = async (isExcel: boolean) => {
      const r = await graphql(
        server.url,
        `query($p: [String!], $x: Boolean) { assetProfiles { byId(profile: "well") { assetsExport(properties: $p, isExcel: $x) { csvFileDownloadUrl(exportName: "bench") } } } }`,
        { p: COLUMNS, x: isExcel },
        { 'x-svc-sessionid': session },
      );
      const url = r.body.data?.assetProfiles?.byId?.assetsExport?.csvFileDownloadUrl;
      if (!url) throw new Error(`no export link: ${JSON.stringify(r.body)}`);
      return new URL(new URL(url).pathname, server.url);
    };
    const viaGateway = async (isExcel: boolean) => {
      const url = await link(isExcel);
      const stop = rssSampler(server.child.pid!);
      const started = performance.now();
      const res = await fetch(url);
      if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
      const c = counter();
      await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), c.sink);
      const seconds = (performance.now() - started) / 1000;
      const { bytes, lines } = c.result();
      if (!isExcel && lines !== total + 1) throw new Error(`CSV had ${lines} lines for ${total} assets`);
      return { rowsPerSecond: total / seconds, peakRssMb: stop(), bytes };
    };
    const bareCopy = async () => {
      const started = performance.now();
      const c = counter();
      const db = server.env.DATABASE_URL ? client : null;
      if (!db) return Number.NaN; // PGlite's socket has no COPY
      await pipeline(db.query(copyTo(`copy (${rowsSql}) to stdout with (format csv)`)), c.sink);
      const { lines } = c.result();
      if (lines !== total) throw new Error(`COPY gave ${lines} lines for ${total} assets`);
      return total / ((performance.now() - started) / 1000);
    };

    step('reading the rows for bare exceljs');
    const memory: unknown[][] = [];
    {
      let after = '';
      for (;;) {
        const { rows } = await client.query({
          text: `select id, display_name, ${COLUMNS.map((c) => `properties -> '${c}'`).join(', ')}
            from assets where user_group = $1 and profile = 'well' and id > $2 order by id limit 10000`,
          values: [GROUP, after],
          rowMode: 'array',
        });
        for (const r of rows)
          memory.push(r.map((v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : v)));
        if (rows.length < 10000) break;
        after = String(rows.at(-1)![0]);
      }
    }
    const bareExceljs = async () => {
      const started = performance.now();
      const c = counter();
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
        stream: c.sink,
        useStyles: false,
        useSharedStrings: false,
      });
      const sheet = workbook.addWorksheet('well');
      sheet.addRow(['id', 'displayName', ...COLUMNS]).commit();
      for (const row of memory) sheet.addRow(row).commit();
      sheet.commit();
      await workbook.commit();
      return total / ((performance.now() - started) / 1000);
    };

    const idleRssMb = rssMb(server.child.pid!);
    // Warm-up, then interleaved rounds.
    await viaGateway(false);
    await bareCopy();
    const csv: { ours: number[]; bare: number[]; rss: number[]; bytes: number } = {
      ours: [],
      bare: [],
      rss: [],
      bytes: 0,
    };
    const xlsx: { ours: number[]; bare: number[]; rss: number[]; bytes: number } = {
      ours: [],
      bare: [],
      rss: [],
      bytes: 0,
    };
    for (let r = 0; r < rounds; r++) {
      step(`round ${r + 1}: CSV`);
      csv.bare.push(await bareCopy());
      const c = await viaGateway(false);
      csv.ours.push(c.rowsPerSecond);
      csv.rss.push(c.peakRssMb);
      csv.bytes = c.bytes;
      step(`round ${r + 1}: XLSX`);
      xlsx.bare.push(await bareExceljs());
      const x = await viaGateway(true);
      xlsx.ours.push(x.rowsPerSecond);
      xlsx.rss.push(x.peakRssMb);
      xlsx.bytes = x.bytes;
    }
    const summary = (s: typeof csv) => ({
      rowsPerSecond: median(s.ours),
      bare: median(s.bare),
      ratio: median(s.ours) / median(s.bare),
      peakRssMb: Math.max(...s.rss),
      bytes: s.bytes,
    });
    const cs = summary(csv);
    const xs = summary(xlsx);
    return {
      engine: postgres ? 'postgres' : 'pglite',
      rows: total,
      idleRssMb,
      csv: {
        rowsPerSecond: cs.rowsPerSecond,
        bareCopyRowsPerSecond: cs.bare,
        ratio: cs.ratio,
        peakRssMb: cs.peakRssMb,
        bytes: cs.bytes,
      },
      xlsx: {
        rowsPerSecond: xs.rowsPerSecond,
        bareExceljsRowsPerSecond: xs.bare,
        ratio: xs.ratio,
        peakRssMb: xs.peakRssMb,
        bytes: xs.bytes,
      },
    };
  } finally {
    await client.end().catch(() => {});
    await server.close();
  }
}

export function exportsMarkdown(r: ExportsBenchResult): string {
  const f = (x: number, d = 0) =>
    Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: d }) : '—';
  return [
    `### Exports (${r.engine}, ${r.rows.toLocaleString('en')} wells, id + display name + 5 properties)`,
    '',
    '| format | through the gateway | floor in the same run | ratio (target) | server peak RSS (target < 300 MB) | size |',
    '|---|---|---|---|---|---|',
    `| CSV | ${f(r.csv.rowsPerSecond)} rows/s | bare \`COPY ... TO STDOUT\`: ${f(r.csv.bareCopyRowsPerSecond)} rows/s | **${f(r.csv.ratio, 2)}×** (≥ 0.7×) | ${f(r.csv.peakRssMb)} MB | ${f(r.csv.bytes / 1e6, 1)} MB |`,
    `| XLSX | ${f(r.xlsx.rowsPerSecond)} rows/s | bare exceljs from memory: ${f(r.xlsx.bareExceljsRowsPerSecond)} rows/s | **${f(r.xlsx.ratio, 2)}×** (≥ 0.8×) | ${f(r.xlsx.peakRssMb)} MB | ${f(r.xlsx.bytes / 1e6, 1)} MB |`,
    '',
    `Server resident set before the first export: ${f(r.idleRssMb)} MB.`,
    '',
  ].join('\n');
}
