import { describe, expect, it } from 'vitest';
import { innerSpan } from './cached-clusters.ts';
import { addTo, type CachedGrid, ClusterCache, SUB_LEVELS, subCells, sumWithin } from './cell-cache.ts';
import { cellBounds, gridLevel, gridOf, latitudeOfRow, type Viewport } from './grid.ts';
import type { CellSums } from './viewport.ts';

const sums = (count: number, lon: number, lat: number): CellSums => ({
  count,
  sum_lon: lon * count,
  sum_lat: lat * count,
  min_lon: lon,
  min_lat: lat,
  max_lon: lon,
  max_lat: lat,
});

function grid(cells: number, x = 0): CachedGrid {
  return {
    level: 7,
    region: { x0: 0, x1: 1024, y0: 0, y1: 1024 },
    snapshot: '1:1:',
    xmin: '1',
    cells: subCells(Array.from({ length: cells }, (_, i) => ({ ...sums(1, 0, 0), x: x + i, y: 0 }))),
  };
}

describe('the cluster cache', () => {
  it('holds at most `entries` grids, dropping the least recently used', () => {
    const cache = new ClusterCache({ entries: 2, cells: 1000 });
    cache.set('a', grid(10));
    cache.set('b', grid(10));
    expect(cache.get('a')).toBeDefined(); // a is now the most recently used
    cache.set('c', grid(10));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.entries).toBe(2);
    expect(cache.cells).toBe(20);
  });

  it('holds at most `cells` sub-cells in all, and refuses a grid larger than that', () => {
    const cache = new ClusterCache({ entries: 10, cells: 25 });
    cache.set('a', grid(10));
    cache.set('b', grid(10));
    cache.set('c', grid(10));
    expect(cache.entries).toBe(2);
    expect(cache.cells).toBe(20);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.set('big', grid(26))).toBe(false);
    expect(cache.get('big')).toBeUndefined();
    expect(cache.markOf('big')).toBe('too-large');
    expect(cache.cells).toBe(20);
    // Replacing a key counts its cells once.
    cache.set('b', grid(5));
    expect(cache.cells).toBe(15);
    cache.delete('b');
    cache.delete('c');
    expect([cache.entries, cache.cells]).toEqual([0, 0]);
  });

  it('remembers at most `marks` keys', () => {
    const cache = new ClusterCache({ marks: 3 });
    for (const k of ['a', 'b', 'c', 'd']) cache.mark(k, 'narrow');
    expect(cache.markOf('a')).toBeUndefined();
    expect(cache.markOf('d')).toBe('narrow');
  });

  it("adds the sub-cells within a span into their cells' sums", () => {
    const g = grid(0);
    const s = 2 ** SUB_LEVELS;
    g.cells = subCells([
      { ...sums(2, -100, 50), x: 3 * s, y: 5 * s },
      { ...sums(1, -99, 51), x: 3 * s + s - 1, y: 5 * s + 1 },
      { ...sums(4, -98, 52), x: 4 * s, y: 5 * s },
      { ...sums(8, -97, 53), x: 2 * s, y: 5 * s }, // outside the span
    ]);
    const cells = new Map<string, CellSums & { x: number; y: number }>();
    sumWithin(g, { x0: 3 * s, x1: 5 * s, y0: 0, y1: 10 * s }, cells);
    addTo(cells, 4, 5, sums(1, -98.5, 52.5));
    expect(cells.get('3/5')).toEqual({
      x: 3,
      y: 5,
      count: 3,
      sum_lon: -299,
      sum_lat: 151,
      min_lon: -100,
      min_lat: 50,
      max_lon: -99,
      max_lat: 51,
    });
    expect(cells.get('4/5')).toMatchObject({ count: 5, min_lon: -98.5, max_lon: -98, max_lat: 52.5 });
    expect(cells.size).toBe(2);
  });
});

describe('the inner part of a viewport', () => {
  const viewports: [number, number, number, number, number][] = [
    [-132.47, 43.09, -88.53, 60.25, 5],
    [-118.3, 47.2, -101.9, 57.8, 5],
    [-180, -90, 180, 90, 0],
    [-180, -85.1, 180, 85.1, 2],
    [10.001, -5.5, 10.9, -5.1, 9],
    [-1e-10, -1e-10, 1e-10, 1e-10, 14],
  ];
  for (const [minLon, minLat, maxLon, maxLat, zoom] of viewports) {
    it(`is whole sub-cells inside [${minLon}, ${minLat}, ${maxLon}, ${maxLat}] at zoom ${zoom}, within its grid`, () => {
      const v: Viewport = { minLon, minLat, maxLon, maxLat, zoom, limit: 1000 };
      const level = gridLevel(v);
      const g = gridOf(v, level);
      const inner = innerSpan(v, g);
      if (!inner) {
        // Only a viewport narrower than a sub-cell has none.
        expect(maxLon - minLon < 360 / 2 ** (level + SUB_LEVELS) || maxLat - minLat < 1).toBe(true);
        return;
      }
      const sub = level + SUB_LEVELS;
      const [west] = cellBounds(inner.x0, 0, sub);
      const [, , east] = cellBounds(inner.x1 - 1, 0, sub);
      expect(west).toBeGreaterThan(minLon);
      expect(east).toBeLessThan(maxLon);
      expect(latitudeOfRow(inner.y0, sub)).toBeLessThan(maxLat);
      expect(latitudeOfRow(inner.y1, sub)).toBeGreaterThan(minLat);
      expect(inner.x0 >> SUB_LEVELS).toBeGreaterThanOrEqual(g.x0);
      expect((inner.x1 - 1) >> SUB_LEVELS).toBeLessThanOrEqual(g.x1);
      expect(inner.y0 >> SUB_LEVELS).toBeGreaterThanOrEqual(g.y0);
      expect((inner.y1 - 1) >> SUB_LEVELS).toBeLessThanOrEqual(g.y1);
      // A sub-cell's edges where it meets its cell's are the cell's own numbers.
      for (let x = g.x0; x <= g.x1 + 1; x++)
        expect(cellBounds(x << SUB_LEVELS, 0, sub)[0]).toBe(cellBounds(x, 0, level)[0]);
      for (let y = g.y0; y <= g.y1 + 1; y++)
        expect(latitudeOfRow(y << SUB_LEVELS, sub)).toBe(latitudeOfRow(y, level));
    });
  }
});
