import { describe, expect, it } from 'vitest';
import {
  boundsOf,
  fitBox,
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

  it('fits a box into the drawing, centred, keeping the shape, a lone point with room around it', () => {
    const { project, shown } = fitBox([-111, 52, -110, 53], 300, 200, 10);
    const [x0, y0] = project([-111, 52]);
    const [x1, y1] = project([-110, 53]);
    // North is up, east is right, and the box sits in the middle.
    expect(x1).toBeGreaterThan(x0);
    expect(y1).toBeLessThan(y0);
    expect((x0 + x1) / 2).toBeCloseTo(150, 0);
    expect((y0 + y1) / 2).toBeCloseTo(100, 0);
    // A degree of longitude at 52.5° N is about 0.61 of a degree of latitude.
    expect((x1 - x0) / (y0 - y1)).toBeCloseTo(Math.cos((52.5 * Math.PI) / 180), 1);
    expect(y0 - y1).toBeCloseTo(180, 0);
    expect(shown[1]).toBeLessThan(52);
    expect(shown[3]).toBeGreaterThan(53);
    const point = fitBox([-110.5, 52.5, -110.5, 52.5], 300, 200);
    expect(point.project([-110.5, 52.5])).toEqual([150, 100]);
    expect(point.shown[2] - point.shown[0]).toBeGreaterThan(0.02);
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
