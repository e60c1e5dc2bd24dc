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
        // Years 1 BC to 9999 (toISOString's six-digit years aside), in milliseconds.
        fc.integer({ min: -62_198_755_200_000, max: 253_402_300_799_000 - 400 * 86_400_000 }),
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
});
