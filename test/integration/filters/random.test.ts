import { describe, expect, it } from 'vitest';
import { RANDOM_FACILITY_FILTERS, RANDOM_FILTERS, rng, SEED } from './data.ts';
import { agree, lookup, pools, profile, stats, useFilterDatabase } from './harness.ts';
import { randomFilter } from './random.ts';

useFilterDatabase();

describe('random filter trees', () => {
  it(`${RANDOM_FILTERS} well filters and ${RANDOM_FACILITY_FILTERS} facility filters agree with the reference`, async () => {
    const r = rng(SEED ^ 0x5eed);
    for (let i = 0; i < RANDOM_FILTERS + RANDOM_FACILITY_FILTERS; i++) {
      const p = profile(i < RANDOM_FILTERS ? 'well' : 'facility');
      const filter = randomFilter(r, p, lookup, pools, 1);
      await agree(p.profile, filter, `random filter #${i}`);
    }
    // The random filters must not be vacuous: most select some rows but not all.
    expect(stats.nonTrivial).toBeGreaterThan((RANDOM_FILTERS + RANDOM_FACILITY_FILTERS) / 3);
  });
});
