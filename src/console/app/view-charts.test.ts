import { describe, expect, it } from 'vitest';
import {
  boundsOf,
  formatPosition,
  linePath,
  niceStep,
  pathOf,
  scale,
  shapesOf,
  ticks,
  valueRange,
} from './view-charts.ts';

describe("the views' drawings", () => {
  it('reads every GeoJSON geometry the views ask for', () => {
    expect(shapesOf({ type: 'Point', point: [-110.5, 52.5] })).toEqual({
      points: [[-110.5, 52.5]],
      lines: [],
      rings: [],
    });
    const polygon = [
      [
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 0],
      ],
    ];
    const shapes = shapesOf({ type: 'MultiPolygon', polygons: [polygon, polygon] });
    expect(shapes.rings).toHaveLength(2);
    expect(
      shapesOf({
        type: 'MultiLineString',
        lines: [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      }).lines,
    ).toEqual([
      [
        [0, 0],
        [1, 1],
      ],
    ]);
    expect(shapesOf(null)).toEqual({ points: [], lines: [], rings: [] });
    expect(boundsOf(shapes, [[2, -1]])).toEqual([0, -1, 2, 1]);
    expect(boundsOf(shapesOf(null))).toBeNull();
  });

  it('writes paths, closing rings', () => {
    expect(pathOf([])).toBe('');
    expect(
      pathOf(
        [
          [0, 0],
          [10, 5],
        ],
        true,
      ),
    ).toBe('M0 0L10 5Z');
  });

  it('picks round steps and ticks', () => {
    expect(niceStep(10, 4)).toBe(2);
    expect(niceStep(0.7, 4)).toBe(0.2);
    expect(niceStep(1000, 4)).toBe(200);
    expect(niceStep(0, 4)).toBe(1);
    expect(ticks(0.05, 0.95, 4)).toEqual([0.2, 0.4, 0.6, 0.8]);
    expect(ticks(4.1, 10.2)).toEqual([6, 8, 10]);
  });

  it('draws values over their own range, never an empty one', () => {
    expect(valueRange([5, 5])).toEqual([4.75, 5.25]);
    expect(valueRange([0, 0])).toEqual([-1, 1]);
    expect(valueRange([])).toEqual([0, 1]);
    expect(valueRange([0, 10])).toEqual([-0.5, 10.5]);
  });

  it('breaks a line where a bucket had no reading', () => {
    const x = scale(0, 4, 0, 40);
    const y = scale(0, 10, 100, 0);
    expect(
      linePath(
        [
          { t: 0, v: 0 },
          { t: 1, v: 10 },
          { t: 2, v: null },
          { t: 3, v: 5 },
          { t: 4, v: 5 },
        ],
        x,
        y,
      ),
    ).toBe('M0 100L10 0M30 50L40 50');
    expect(scale(1, 1, 0, 10)(5)).toBe(0);
  });

  it('says where a position is', () => {
    expect(formatPosition([-110.2041, 52.5123])).toBe('52.512° N, 110.204° W');
    expect(formatPosition([151.2, -33.87], 1)).toBe('33.9° S, 151.2° E');
  });
});
