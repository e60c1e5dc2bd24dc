import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { encodeCursor } from '../src/shared/cursors.ts';
import { median, sample, signedInUser, startServer } from './lib.ts';

export interface AssetsBenchResult {
  engine: string;
  assets: number;
  generateRowsPerSecond: number;
  importRowsPerSecond: number;
  importRows: number;
  shapes: Record<string, { p50: number; p95: number; rps: number; failures: number }>;
  deepToFirstRatio: number;
}

const GROUP = 'bench';
const FIVE = '["name", "status", "depth", "uwi", "facilityId"]';

/**
 * Issue: the asset graph at scale, through the gateway: first page, a page 900,000 deep,
 * a filtered page, a page with `related` MANY, and bulk import throughput.
 */
export async function assetsBench(options: { quick: boolean; smoke?: boolean }): Promise<AssetsBenchResult> {
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
  const seconds = options.smoke ? 0.3 : options.quick ? 2 : 6;
  const rounds = options.smoke ? 1 : options.quick ? 2 : 3;
  const step = (what: string) => process.stderr.write(`bench: assets: ${what}\n`);
  // The auth scenario's sign-in bursts share the rate-limit table when both run on one database.
  const server = await startServer({
    ASSETQL_DEMO_DATA: 'false',
    ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: 1_000_000, seconds: 60 } }),
  });
  try {
    step(`generating ${n} wells`);
    const generated = JSON.parse(
      await server.cli(['demo', 'generate', '--assets', String(n), '--group', GROUP]),
    );
    const sessionId = await signedInUser(server, GROUP);

    // The cursor 90% deep, read once from the store (clients get it by paging).
    const deepId = await nthWellId(server.env, Math.floor(n * 0.9));
    const deep = encodeCursor([deepId]);
    const facilities = await idsOf(server.env, 'facility');
    const facility = facilities[Math.floor(facilities.length / 2)]!;
    const shapes: Record<string, string> = {
      first: `{ assets(profile: "well") { all(first: 100) { edges { node { id properties(only: ${FIVE}) } } } } }`,
      deep: `{ assets(profile: "well") { all(first: 100, after: "${deep}") { edges { node { id properties(only: ${FIVE}) } } } } }`,
      filtered: `{ assets(profile: "well") { all(first: 100, filter: { property: { name: "status", equals: "producing" }, and: [{ property: { name: "depth", gt: 2500 } }] }) { edges { node { id properties(only: ${FIVE}) } } } } }`,
      byFacility: `{ assets(profile: "well") { all(first: 100, filter: { property: { name: "facilityId", equals: "${facility}" } }) { edges { node { id properties(only: ${FIVE}) } } } } }`,
      relatedMany: `{ assets(profile: "facility") { all(first: 100) { edges { node { id related(relationship: "wells") { ... on AssetRelationshipMany { assets { id } } } } } } } }`,
    };
    const post = (query: string) => () =>
      fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-sessionid': sessionId },
        body: JSON.stringify({ query }),
        signal: AbortSignal.timeout(60_000),
      });
    for (const q of Object.values(shapes))
      await sample({ request: post(q), seconds: options.smoke ? 0.1 : 1, concurrency: 2 }); // warm-up
    const runs: Record<string, { p50: number[]; p95: number[]; rps: number[]; failures: number }> = {};
    for (let r = 0; r < rounds; r++) {
      for (const [name, q] of Object.entries(shapes)) {
        step(`round ${r + 1}: ${name}`);
        const s = await sample({ request: post(q), seconds, concurrency: 4 });
        runs[name] ??= { p50: [], p95: [], rps: [], failures: 0 };
        const acc = runs[name];
        acc.p50.push(s.p50);
        acc.p95.push(s.p95);
        acc.rps.push(s.rps);
        acc.failures += s.failures;
      }
    }
    const result = Object.fromEntries(
      Object.entries(runs).map(([k, v]) => [
        k,
        { p50: median(v.p50), p95: median(v.p95), rps: median(v.rps), failures: v.failures },
      ]),
    );

    step('import');
    // Bulk throughput on PostgreSQL: 100,000 new rows (`--quick`) or a million, one transaction.
    const rows = options.smoke
      ? 500
      : postgres
        ? options.quick
          ? 100_000
          : 1_000_000
        : options.quick
          ? 20_000
          : 100_000;
    const file = join(tmpdir(), `assetql-bench-${process.pid}.csv`);
    // Each new well at one of the generated facilities, scattered (the relationship's lookup key).
    const lines = ['id,name,status,depth,uwi,facilityId'];
    for (let i = 0; i < rows; i++)
      lines.push(
        `IMP-${i},Imported ${i},producing,${1000 + (i % 3000)},100/${i},${facilities[(i * 7919) % facilities.length]}`,
      );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const imported = JSON.parse(await server.cli(['import', file, '--profile', 'well', '--group', GROUP]));

    return {
      engine: postgres ? 'postgres' : 'pglite',
      assets: n,
      generateRowsPerSecond: generated.rowsPerSecond,
      importRowsPerSecond: imported.rowsPerSecond,
      importRows: rows,
      shapes: result,
      deepToFirstRatio: result.deep!.p50 / result.first!.p50,
    };
  } finally {
    await server.close();
  }
}

/** Runs one query on the server's database: PostgreSQL by URL; PGlite by its socket in DATA_DIR. */
async function query<R extends pg.QueryResultRow>(env: NodeJS.ProcessEnv, text: string, values: unknown[]) {
  const client = env.DATABASE_URL
    ? new pg.Client({ connectionString: env.DATABASE_URL })
    : new pg.Client({ host: env.DATA_DIR, port: 5432, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function nthWellId(env: NodeJS.ProcessEnv, offset: number): Promise<string> {
  const rows = await query<{ id: string }>(
    env,
    'select id from assets where user_group = $1 and profile = $2 order by id offset $3 limit 1',
    [GROUP, 'well', offset],
  );
  return rows[0]!.id;
}

async function idsOf(env: NodeJS.ProcessEnv, profile: string): Promise<string[]> {
  const rows = await query<{ id: string }>(
    env,
    'select id from assets where user_group = $1 and profile = $2 order by id',
    [GROUP, profile],
  );
  return rows.map((r) => r.id);
}

export function assetsMarkdown(r: AssetsBenchResult): string {
  // Also renders results kept from an earlier run (a partial run merges with them), which may
  // lack what was added since: a shape or a figure shows as not measured.
  const f = (x: number | undefined, d = 1) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
  const row = (label: string, k: string) => {
    const s = r.shapes[k];
    if (!s) return `| ${label} | not measured in this run | | | |`;
    return `| ${label} | ${f(s.p50)} ms | ${f(s.p95)} ms | ${f(s.rps, 0)} | ${s.failures} |`;
  };
  return [
    `### Assets at scale (${r.engine}, ${r.assets.toLocaleString('en')} wells)`,
    '',
    '| shape (through the gateway, 4 connections) | p50 | p95 | req/s | failures |',
    '|---|---|---|---|---|',
    row('first page of 100, 5 properties', 'first'),
    row('same page 90% deep (keyset cursor)', 'deep'),
    row('page filtered by two property predicates', 'filtered'),
    row('wells of one facility (equality on a lookup property)', 'byFacility'),
    row('100 facilities with `related` MANY wells', 'relatedMany'),
    '',
    `Deep page / first page (p50): **${f(r.deepToFirstRatio, 2)}×** (target ≤ 1.2×).`,
    `Generation: ${f(r.generateRowsPerSecond, 0)} rows/s. Import of a ${r.importRows.toLocaleString('en')}-row CSV: ${f(r.importRowsPerSecond, 0)} rows/s (validated as read, COPY and merge in chunks on PostgreSQL).`,
    '',
  ].join('\n');
}
