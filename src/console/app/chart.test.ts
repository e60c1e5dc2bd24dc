import { describe, expect, it } from 'vitest';
import {
  defaultResolution,
  extent,
  linear,
  linePath,
  MAX_BUCKETS,
  niceStep,
  PERIODS,
  resolutionsFor,
  timeTicks,
  valueAxis,
} from './chart.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('the chart’s arithmetic', () => {
  it('maps linearly, a domain of one value to the middle', () => {
    const x = linear([10, 20], [0, 100]);
    expect([x(10), x(15), x(20), x(25)]).toEqual([0, 50, 100, 150]);
    const y = linear([0, 10], [200, 0]);
    expect(y(2.5)).toBe(150);
    expect(linear([5, 5], [0, 100])(123)).toBe(50);
  });

  it('steps by 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceStep(10, 5)).toBe(2);
    expect(niceStep(1, 5)).toBe(0.2);
    expect(niceStep(12, 5)).toBe(2.5);
    expect(niceStep(37, 5)).toBe(10);
    expect(niceStep(0.03, 5)).toBeCloseTo(0.01);
  });

  it('widens the value axis to whole steps, with ticks that read well', () => {
    expect(valueAxis(9.1, 9.9)).toEqual({
      domain: [9, 10],
      ticks: [9, 9.2, 9.4, 9.6, 9.8, 10],
    });
    expect(valueAxis(0.1, 0.3).ticks).toEqual([0.1, 0.15, 0.2, 0.25, 0.3]);
    expect(valueAxis(-3, 47)).toEqual({ domain: [-10, 50], ticks: [-10, 0, 10, 20, 30, 40, 50] });
    // One value: an axis around it; none: 0 to 1.
    const one = valueAxis(50, 50);
    expect(one.domain[0]).toBeLessThan(50);
    expect(one.domain[1]).toBeGreaterThan(50);
    expect(valueAxis(0, 0).domain).toEqual([-1, 1]);
    expect(valueAxis(Number.NaN, 1).domain).toEqual([0, 1]);
  });

  it('puts time ticks on whole steps of the reader’s zone, at most the count asked', () => {
    const from = Date.parse('2026-11-22T07:30:00Z');
    const week = timeTicks(from, from + 7 * DAY, 8);
    expect(week.step).toBe(DAY);
    expect(week.ticks.map((t) => new Date(t).toISOString())).toEqual(
      Array.from({ length: 7 }, (_, i) => `2026-11-${23 + i}T00:00:00.000Z`),
    );
    // Two hours ahead of UTC: the ticks fall on that zone's midnights.
    const ahead = timeTicks(from, from + 7 * DAY, 8, 2 * HOUR);
    expect(new Date(ahead.ticks[0]!).toISOString()).toBe('2026-11-22T22:00:00.000Z');
    const day = timeTicks(from, from + DAY, 6);
    expect(day.step).toBe(6 * HOUR);
    expect(day.ticks.length).toBeLessThanOrEqual(6);
    expect(day.ticks.every((t) => t % (6 * HOUR) === 0)).toBe(true);
  });

  it('breaks the line where a bucket has no reading', () => {
    expect(
      linePath([
        { x: 0, y: 10 },
        { x: 1.04, y: 20.06 },
        { x: 2, y: null },
        { x: 3, y: 5 },
        { x: 4, y: 6 },
      ]),
    ).toBe('M0 10 L1 20.1 M3 5 L4 6');
    expect(linePath([{ x: 0, y: null }])).toBe('');
    expect(extent([null, 3, -1, Number.NaN, 2])).toEqual([-1, 3]);
    expect(extent([null])).toBeNull();
  });

  it('offers the resolutions that give a period a readable number of buckets', () => {
    for (const period of PERIODS) {
      const offered = resolutionsFor(period.ms);
      expect(offered.length).toBeGreaterThan(1);
      for (const r of offered) expect(period.ms / r.ms).toBeLessThanOrEqual(MAX_BUCKETS);
      expect(offered).toContain(defaultResolution(period.ms));
      expect(period.ms / defaultResolution(period.ms).ms).toBeLessThanOrEqual(200);
    }
    expect(resolutionsFor(DAY).map((r) => r.value)).toEqual(['5m', '15m', '1h', '6h']);
    expect(defaultResolution(7 * DAY).value).toBe('1h');
  });
});
