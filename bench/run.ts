import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { assetsBench, assetsMarkdown } from './assets.ts';
import { authBench, authMarkdown } from './auth.ts';
import { exportsBench, exportsMarkdown } from './exports.ts';
import { peersChart } from './peers/chart.ts';
import { peersBench, peersMarkdown } from './peers.ts';
import { soakBench, soakMarkdown } from './soak.ts';

/**
 * `npm run bench [-- --quick] [-- --only auth]`: runs the benchmark scenarios against this
 * machine's PostgreSQL when DATABASE_URL is set (else embedded PGlite) and writes Markdown
 * and JSON under bench/results/.
 */
const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string', multiple: true } },
});
const quick = values.quick ?? false;
const wanted = (name: string) => !values.only?.length || values.only.includes(name);

// The servers run the built service, as `npm start` does (dist/, no type stripping).
execFileSync(process.execPath, [join(import.meta.dirname, '../scripts/build.ts')], { stdio: 'inherit' });

const results: Record<string, unknown> = { at: new Date().toISOString(), quick, node: process.version };
const sections: string[] = [];

if (wanted('auth')) {
  process.stderr.write('bench: auth…\n');
  const r = await authBench({ quick });
  results.auth = r;
  sections.push(authMarkdown(r));
}

if (wanted('assets')) {
  process.stderr.write('bench: assets…\n');
  const r = await assetsBench({ quick });
  results.assets = r;
  sections.push(assetsMarkdown(r));
}

if (wanted('exports')) {
  process.stderr.write('bench: exports…\n');
  const r = await exportsBench({ quick });
  results.exports = r;
  sections.push(exportsMarkdown(r));
}

const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });

if (wanted('peers')) {
  process.stderr.write('bench: peers…\n');
  const r = await peersBench({ quick });
  results.peers = r;
  sections.push(peersMarkdown(r));
  // Its own files too: the comparison is read on its own, with its chart.
  const own = quick ? 'peers-latest-quick' : 'peers-latest';
  writeFileSync(join(dir, `${own}.json`), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(join(dir, `${own}.md`), `${peersMarkdown(r)}\n`);
  if (!r.skipped) writeFileSync(join(dir, `${own}.svg`), peersChart(r));
}
// Ten minutes (one with --quick): only when asked for by name, `--only soak`.
if (values.only?.includes('soak')) {
  process.stderr.write('bench: soak…\n');
  const r = await soakBench({ quick });
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
