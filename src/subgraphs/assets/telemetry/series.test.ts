import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Exec } from '../exec.ts';
import { parseResolution } from './resolution.ts';
import { planBuckets } from './series.ts';

// UTC plans are laid without the database: a statement would be a mistake.
const noDatabase: Exec = () => Promise.reject(new Error('no statement expected'));

describe('planBuckets in UTC', () => {
  it("writes each bucket's time as toISOString does, whatever the time and the width", async () => {
    const resolutions = ['1s', '7s', '1m', '15m', '1h', 'PT7M', '1d', '1w', 'P1M', 'P3M', 'P1Y'];
    await fc.assert(
      fc.asyncProperty(
        // From the first of year 1 to the last of 9997 (a year's buckets and 300 days after stay
        // within 9999), in milliseconds.
        fc.integer({ min: -62_135_596_800_000, max: 253_339_228_799_999 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.constantFrom(...resolutions),
        async (from, buckets, text) => {
          const resolution = parseResolution(text)!;
          const width = resolution.kind === 'fixed' ? resolution.seconds * 1000 : 86_400_000;
          const to = from + Math.min(buckets * width, 300 * 86_400_000);
          const plan = await planBuckets(noDatabase, new Date(from), new Date(to), resolution, 'UTC');
          expect(plan.texts).toEqual([...plan.starts, plan.end].map((d) => d.toISOString()));
        },
      ),
      { numRuns: 300, seed: 20261129 },
    );
  });

  it('refuses buckets outside years 1 to 9999, where neither the database nor DateTime goes', async () => {
    const week = parseResolution('1w')!;
    const month = parseResolution('P1M')!;
    await expect(
      planBuckets(noDatabase, new Date(-62_135_596_800_001), new Date('0001-03-01T00:00:00Z'), week, 'UTC'),
    ).rejects.toThrow(/within years 1 to 9999/);
    await expect(
      planBuckets(
        noDatabase,
        new Date('9999-06-01T00:00:00Z'),
        new Date('9999-12-31T23:59:59Z'),
        month,
        'UTC',
      ),
    ).rejects.toThrow(/within years 1 to 9999/);
    const first = await planBuckets(
      noDatabase,
      new Date('0001-01-01T00:00:00Z'),
      new Date('0001-02-01T00:00:00Z'),
      week,
      'UTC',
    );
    expect(first.texts[0]).toBe('0001-01-01T00:00:00.000Z');
  });
});
