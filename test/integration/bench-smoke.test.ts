/**
 * CI runs every benchmark scenario in its smoke form (`npm run bench -- --smoke`, .ci/run), so a
 * scenario that no longer runs fails CI rather than the next full run. This keeps that true as
 * scenarios are added: each one bench/ exports is run by the smoke run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the benchmarks’ smoke run', () => {
  it('is run by CI, on PostgreSQL', () => {
    expect(read('.ci/run')).toMatch(/^\s*DATABASE_URL=\S+ npm run bench -- --smoke\b/m);
  });

  it('runs every scenario bench/ defines', () => {
    const scenarios = readdirSync(join(ROOT, 'bench'))
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...read(`bench/${f}`).matchAll(/^export async function (\w+Bench)\(/gm)].map((m) => m[1]!),
      );
    expect(scenarios.sort()).toEqual([
      'assetsBench',
      'authBench',
      'consoleBench',
      'eventsBench',
      'exportsBench',
      'gcBench',
      'hostileBench',
      'peersBench',
      'scaleBench',
      'soakBench',
      'startBench',
      'telemetryBench',
    ]);
    const run = read('bench/run.ts');
    for (const name of scenarios)
      expect(run, name).toMatch(new RegExp(`await ${name}\\(\\{ quick, smoke \\}\\)`));
    // The soak is the one scenario a plain run leaves out unless named.
    expect(run).toMatch(/if \(values\.only\?\.includes\('soak'\) \|\| smoke\)/);
  });
});
