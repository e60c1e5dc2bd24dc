/**
 * The soak scenario of `npm run bench -- --only soak` in its short form: the mixed workload
 * (asset pages, filtered pages, the session query, sign-ins, issue writes, CSV exports) paced at
 * 80% of the measured saturation for 30 s against `assetql serve`, with no failed request. The
 * ten-minute form, with its memory series, runs through the benchmark.
 */
import { describe, expect, it } from 'vitest';
import { soakBench } from '../../bench/soak.ts';

describe('soak, short form', () => {
  it('serves the mixed workload at 80% of saturation for 30 s without a failed request', async () => {
    const r = await soakBench({ quick: true, seconds: 30 });
    expect(r.errors, r.errorSamples.join('\n')).toBe(0);
    expect(r.requests).toBeGreaterThan(100);
    expect(r.signIns).toBeGreaterThan(0);
    expect(r.writes).toBeGreaterThan(0);
    expect(r.exports).toBeGreaterThan(0);
    // Not the flatness check (30 s is too short to judge): no runaway growth either.
    expect(r.rss.max).toBeLessThan(r.rss.start * 2);
  }, 180_000);
});
