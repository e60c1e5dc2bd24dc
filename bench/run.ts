import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type AssetsBenchResult, assetsBench, assetsMarkdown } from './assets.ts';
import { type AuthBenchResult, authBench, authMarkdown } from './auth.ts';
import { type ConsoleBenchResult, consoleBench, consoleMarkdown } from './console.ts';
import { type EventsBenchResult, eventsBench, eventsMarkdown } from './events.ts';
import { exportsBench, exportsMarkdown } from './exports.ts';
import { type GcBenchResult, gcBench, gcMarkdown } from './gc.ts';
import { type HostileBenchResult, hostileBench, hostileMarkdown } from './hostile.ts';
import { cpus } from './lib.ts';
import { peersChart } from './peers/chart.ts';
import { type PeersResult, peersBench, peersMarkdown } from './peers.ts';
import { replicaShare, type ScaleBenchResult, scaleBench, scaleMarkdown } from './scale.ts';
import { type SoakResult, soakBench, soakMarkdown } from './soak.ts';
import { type StartBenchResult, startBench, startMarkdown } from './start.ts';
import { type TelemetryBenchResult, telemetryBench, telemetryMarkdown } from './telemetry.ts';

/**
 * `npm run bench [-- --quick] [-- --only auth]`: runs the benchmark scenarios against this
 * machine's PostgreSQL when DATABASE_URL is set (else embedded PGlite) and writes Markdown
 * and JSON under bench/results/.
 *
 * `npm run bench -- --smoke` runs every scenario, the soak too, at the smallest sizes and for
 * seconds: that each still runs from end to end (CI runs it after the tests), not figures. It
 * needs PostgreSQL (the peers do), fails on a scenario that throws or a request that failed,
 * and writes its results into a temporary copy of bench/results/, never over the kept ones.
 */
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
  },
});
const smoke = values.smoke ?? false;
const quick = (values.quick ?? false) || smoke;
const wanted = (name: string) => !values.only?.length || values.only.includes(name);
if (smoke && !process.env.DATABASE_URL) {
  process.stderr.write(
    'bench: --smoke runs every scenario, and the peers need PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)\n',
  );
  process.exit(1);
}

cpus.pin = !smoke;
// The servers run the built service, as `npm start` does (dist/, no type stripping).
execFileSync(process.execPath, [join(import.meta.dirname, '../scripts/build.ts')], { stdio: 'inherit' });

const kept = join(import.meta.dirname, 'results');
// A smoke run writes beside copies of the kept results, so that merging with them (and
// rendering what earlier runs recorded) is exercised too.
const dir = smoke ? mkdtempSync(join(tmpdir(), 'assetql-bench-smoke-')) : kept;
mkdirSync(dir, { recursive: true });
if (smoke)
  for (const file of ['latest.json', 'latest-quick.json'])
    if (existsSync(join(kept, file))) copyFileSync(join(kept, file), join(dir, file));

const results: Record<string, unknown> = { at: new Date().toISOString(), quick, node: process.version };
const sections: string[] = [];

if (wanted('auth')) {
  process.stderr.write('bench: auth…\n');
  const r = await authBench({ quick, smoke });
  results.auth = r;
  sections.push(authMarkdown(r));
}

if (wanted('assets')) {
  process.stderr.write('bench: assets…\n');
  const r = await assetsBench({ quick, smoke });
  results.assets = r;
  sections.push(assetsMarkdown(r));
}

if (wanted('exports')) {
  process.stderr.write('bench: exports…\n');
  const r = await exportsBench({ quick, smoke });
  results.exports = r;
  sections.push(exportsMarkdown(r));
}

if (wanted('events')) {
  process.stderr.write('bench: events…\n');
  const r = await eventsBench({ quick, smoke });
  results.events = r;
  sections.push(eventsMarkdown(r));
}

if (wanted('gc')) {
  process.stderr.write('bench: gc…\n');
  const r = await gcBench({ quick, smoke });
  results.gc = r;
  sections.push(gcMarkdown(r));
}

if (wanted('telemetry')) {
  process.stderr.write('bench: telemetry…\n');
  const r = await telemetryBench({ quick, smoke });
  results.telemetry = r;
  sections.push(telemetryMarkdown(r));
}

if (wanted('hostile')) {
  process.stderr.write('bench: hostile…\n');
  const r = await hostileBench({ quick, smoke });
  results.hostile = r;
  sections.push(hostileMarkdown(r));
}

if (wanted('start')) {
  process.stderr.write('bench: start…\n');
  const r = await startBench({ quick, smoke });
  results.start = r;
  sections.push(startMarkdown(r));
}

if (wanted('scale')) {
  process.stderr.write('bench: scale…\n');
  const r = await scaleBench({ quick, smoke });
  results.scale = r;
  sections.push(scaleMarkdown(r));
}

if (wanted('console')) {
  process.stderr.write('bench: console…\n');
  const r = await consoleBench({ quick, smoke });
  results.console = r;
  sections.push(consoleMarkdown(r));
}

if (wanted('peers')) {
  process.stderr.write('bench: peers…\n');
  const r = await peersBench({ quick, smoke });
  results.peers = r;
  sections.push(peersMarkdown(r));
  // Its own files too: the comparison is read on its own, with its chart.
  const own = quick ? 'peers-latest-quick' : 'peers-latest';
  writeFileSync(join(dir, `${own}.json`), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(join(dir, `${own}.md`), `${peersMarkdown(r)}\n`);
  if (!r.skipped) writeFileSync(join(dir, `${own}.svg`), peersChart(r));
}
// Ten minutes (one with --quick): only when asked for by name, `--only soak`, or in a smoke run.
if (values.only?.includes('soak') || smoke) {
  process.stderr.write('bench: soak…\n');
  const r = await soakBench({ quick, smoke });
  results.soak = r;
  sections.push(soakMarkdown(r));
  const own = quick ? 'soak-latest-quick' : 'soak-latest';
  writeFileSync(join(dir, `${own}.json`), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(join(dir, `${own}.md`), `${soakMarkdown(r)}\n`);
}
const stamp = quick ? 'latest-quick' : 'latest';
// A partial run (`--only`) replaces the results of its scenarios and keeps the others'.
const latest = join(dir, `${stamp}.json`);
const merged: Record<string, unknown> = {
  ...(existsSync(latest) ? JSON.parse(readFileSync(latest, 'utf8')) : {}),
  ...results,
};
const markdown: Record<string, (r: never) => string> = {
  auth: authMarkdown,
  assets: assetsMarkdown,
  exports: exportsMarkdown,
  events: eventsMarkdown,
  telemetry: telemetryMarkdown,
  gc: gcMarkdown,
  hostile: hostileMarkdown,
  start: startMarkdown,
  console: consoleMarkdown,
  scale: scaleMarkdown,
  soak: soakMarkdown,
};
writeFileSync(latest, `${JSON.stringify(merged, null, 2)}\n`);
writeFileSync(
  join(dir, `${stamp}.md`),
  `${Object.entries(markdown)
    .filter(([name]) => merged[name])
    .map(([name, render]) => render(merged[name] as never))
    .join('\n')}\n`,
);
process.stdout.write(`${sections.join('\n')}\n`);

if (smoke) {
  rmSync(dir, { recursive: true, force: true });
  const problems = smokeProblems(results);
  if (problems.length) {
    process.stderr.write(`bench: smoke run failed:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stderr.write('bench: smoke run passed: every scenario ran, no request failed\n');
}

/**
 * What a healthy smoke run never shows: a failed request, a peer answering other data, or a page
 * statement's rows outliving it.
 */
function smokeProblems(r: typeof results): string[] {
  const problems: string[] = [];
  const auth = r.auth as AuthBenchResult | undefined;
  if (auth?.burstSignInFailures) problems.push(`auth: ${auth.burstSignInFailures} failed requests`);
  const assets = r.assets as AssetsBenchResult | undefined;
  for (const [shape, s] of Object.entries(assets?.shapes ?? {}))
    if (s.failures) problems.push(`assets ${shape}: ${s.failures} failed requests`);
  const hostile = r.hostile as HostileBenchResult | undefined;
  if (hostile?.errors)
    problems.push(
      `hostile: ${hostile.errors} failed requests of the calm tenant: ${hostile.errorSamples.join('; ')}`,
    );
  if (hostile?.restarted) problems.push('hostile: the server did not survive the noisy tenant');
  if (hostile && (hostile.hostile.documents === 0 || hostile.hostile.signIns === 0))
    problems.push(`hostile: the noisy tenant sent nothing (${JSON.stringify(hostile.hostile)})`);
  const telemetry = r.telemetry as TelemetryBenchResult | undefined;
  if (
    telemetry &&
    (telemetry.skipped || telemetry.queries.length !== 4 || telemetry.mqtt.single.readings === 0)
  )
    problems.push(`telemetry: ${telemetry.skipped ?? 'a phase measured nothing'}`);
  const events = r.events as EventsBenchResult | undefined;
  if (events && (events.missing || events.duplicates || events.delivered !== events.expected))
    problems.push(
      `events: ${events.missing} changes missing, ${events.duplicates} duplicated (${events.delivered} of ${events.expected} delivered)`,
    );
  const hooks = events?.webhooks;
  if (hooks && (hooks.delivered !== hooks.changes || hooks.duplicates || hooks.unverified))
    problems.push(
      `events: webhooks delivered ${hooks.delivered} of ${hooks.changes}, ${hooks.duplicates} duplicated, ${hooks.unverified} not verified`,
    );
  const gc = r.gc as GcBenchResult | undefined;
  if (gc?.skipped) problems.push(`gc skipped: ${gc.skipped}`);
  if (gc && !gc.skipped && !(gc.service && gc.gateway)) problems.push('gc: the service was not measured');
  // At most this many kB promoted: a page's rows are 14-20 kB, and the service's layer lets them
  // die young; the whole service answering Q1 promotes under half a kB a request, where a closure
  // that kept a request's answer or rows alive promoted 18-47 kB (docs/performance.md).
  for (const [where, each, cell, bound] of [
    ['the database layer', 'a statement', gc?.ours, 2],
    ['the service in one process', 'a Q1 request', gc?.service, 5],
    ['the distributed gateway', 'a Q1 request', gc?.gateway, 5],
  ] as const) {
    if (!cell) continue;
    // A window without one young collection measured nothing (the trace not read, or its format
    // changed): it must not pass for a bound met.
    if (!(cell.allocatedKb > 0)) problems.push(`gc: no young collection traced for ${where}`);
    if (cell.promotedKb > bound)
      problems.push(`gc: ${where} promoted ${cell.promotedKb} kB ${each} (at most ${bound})`);
  }
  const start = r.start as StartBenchResult | undefined;
  // The README's promise: a server at rest within 300 MB (docs/performance.md).
  if (start && start.restRssMb > 300)
    problems.push(`start: ${start.restRssMb} MB resident at rest (at most 300)`);
  if (start && !(start.restRssMb > 0)) problems.push('start: memory at rest not measured');
  const scale = r.scale as ScaleBenchResult | undefined;
  if (scale?.skipped) problems.push(`scale skipped: ${scale.skipped}`);
  for (const [routing, cells] of [
    ['off', scale?.cells],
    ['on', scale?.replica?.cells],
  ] as const)
    for (const [setup, c] of Object.entries(cells ?? {}))
      if (c.failures || c.rps === 0)
        problems.push(
          `scale ${setup}, replica routing ${routing}: ${c.failures} failed requests of ${c.rps} req/s`,
        );
  if (scale?.cells && !scale.replica) problems.push('scale: the cells with replica routing on did not run');
  if (scale?.replica && !(replicaShare(scale.replica.reads) > 0))
    problems.push(`scale: the replica answered no reads (${JSON.stringify(scale.replica.reads)})`);
  const consoleRun = r.console as ConsoleBenchResult | undefined;
  for (const p of consoleRun?.problems ?? []) problems.push(`console: ${p}`);
  if (consoleRun && !(consoleRun.map.firstDrawMs > 0 && consoleRun.pans.length === 3))
    problems.push('console: the map was not measured');
  const peers = r.peers as PeersResult | undefined;
  if (peers?.skipped) problems.push(`peers skipped: ${peers.skipped}`);
  for (const [system, cells] of Object.entries(peers?.cells ?? {}))
    for (const [shape, c] of Object.entries(cells)) {
      if (c.failures) problems.push(`peers ${system} ${shape}: ${c.failures} failed requests`);
      if (c.same === false) problems.push(`peers ${system} ${shape}: answered other data than assetql`);
      if (c.na?.includes('exited')) problems.push(`peers ${system} ${shape}: ${c.na}`);
    }
  const soak = r.soak as SoakResult | undefined;
  if (soak?.errors) problems.push(`soak: ${soak.errors} errors: ${soak.errorSamples.join('; ')}`);
  if (soak && (soak.exports === 0 || soak.signIns === 0 || soak.writes === 0))
    problems.push(`soak: not every kind of request ran (${JSON.stringify(soak)})`);
  return problems;
}
