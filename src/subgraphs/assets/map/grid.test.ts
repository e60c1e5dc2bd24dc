import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import fc from 'fast-check';
import { GraphQLError, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../../execution/cost.ts';
import { ParsedDocument } from '../../../execution/operation.ts';
import { cellOf, cellsSpanned, checkViewport, gridLevel, MAX_LIMIT, mercatorY } from './grid.ts';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof GraphQLError) return { message: e.message, ...e.extensions };
    throw e;
  }
  return null;
};

describe('checkViewport', () => {
  it('takes a viewport and the default limit', () => {
    expect(checkViewport([-120, 45, -100, 60], 5, null)).toEqual({
      minLon: -120,
      minLat: 45,
      maxLon: -100,
      maxLat: 60,
      zoom: 5,
      limit: 1000,
    });
  });

  it('refuses a bbox that is not four ordered numbers within range, naming the argument', () => {
    for (const bbox of [
      [1, 2, 3],
      [1, 2, 3, 4, 5],
      [-181, 0, 0, 1],
      [0, -91, 1, 1],
      [0, 0, 181, 1],
      [0, 0, 1, 90.5],
      [10, 0, -10, 1],
      [0, 10, 1, -10],
      [Number.NaN, 0, 1, 1],
      [0, 0, Number.POSITIVE_INFINITY, 1],
    ])
      expect(
        refusal(() => checkViewport(bbox, 3, 10)),
        JSON.stringify(bbox),
      ).toMatchObject({
        code: 'BAD_USER_INPUT',
        argument: 'bbox',
        message: expect.stringContaining('[minLongitude, minLatitude, maxLongitude, maxLatitude]'),
      });
  });

  it('refuses a zoom or limit out of range', () => {
    for (const zoom of [-1, 23, 2.5])
      expect(refusal(() => checkViewport([0, 0, 1, 1], zoom, null))).toMatchObject({ argument: 'zoom' });
    for (const limit of [0, MAX_LIMIT + 1, 1.5])
      expect(refusal(() => checkViewport([0, 0, 1, 1], 3, limit))).toMatchObject({
        argument: 'limit',
        maximum: MAX_LIMIT,
      });
  });
});

describe('the grid', () => {
  it('names cells as web map tiles are named', () => {
    // Tile 0/0/0 is the world; at level 1, the north-west quarter is 1/0/0.
    expect(cellOf(-179, 80, 0)).toEqual([0, 0]);
    expect(cellOf(-1, 1, 1)).toEqual([0, 0]);
    expect(cellOf(1, -1, 1)).toEqual([1, 1]);
    // Calgary at zoom 10: tile 10/187/342 by OpenStreetMap's slippy-map formula,
    // y = floor((1 − ln(tan φ + sec φ) / π) / 2 · 2^z).
    expect(cellOf(-114.07, 51.05, 10)).toEqual([187, 342]);
    expect(cellOf(180, -90, 4)).toEqual([15, 15]);
    expect(mercatorY(90)).toBeCloseTo(0, 12);
  });

  it('never spans more than `limit` cells, and is zoom + 2 where the viewport allows', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.integer({ min: 0, max: 22 }),
        fc.integer({ min: 1, max: MAX_LIMIT }),
        (a, b, c, d, zoom, limit) => {
          const v = checkViewport(
            [Math.min(a, b), Math.min(c, d), Math.max(a, b), Math.max(c, d)],
            zoom,
            limit,
          );
          const level = gridLevel(v);
          expect(level).toBeLessThanOrEqual(zoom + 2);
          expect(cellsSpanned(v, level)).toBeLessThanOrEqual(limit);
          if (level < zoom + 2) expect(cellsSpanned(v, level + 1)).toBeGreaterThan(limit);
        },
      ),
    );
  });

  it('clusters a screen of 1280 × 800 pixels on 64-pixel cells', () => {
    // About 20 × 12.5 cells: 21 × 14 at most, partly covered ones included.
    const v = checkViewport([-120, 50, -120 + (1280 / 256 / 2 ** 6) * 360, 55], 6, 1000);
    expect(gridLevel(v)).toBe(8);
    expect(cellsSpanned(v, 8)).toBeLessThanOrEqual(21 * 14);
  });
});

describe('the cost model', () => {
  const schema = buildSubgraphSchema({
    typeDefs: parse(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8')),
  });
  const cost = (query: string, variables: Record<string, unknown> = {}) =>
    estimateCost(schema, new ParsedDocument(parse(query)).operation(null), variables);

  it('prices a viewport at 100 and its features and clusters at `limit` each', () => {
    const viewport = (limit: string) =>
      `query($n: Int) { assets(profile: "well") { mapViewport(bbox: [0, 0, 1, 1], zoom: 3${limit}) {
        count features { id geometry { type } } clusters { key } } } }`;
    // assets (1) + mapViewport (100 + 1) + features: `limit` × (Asset 1 + geometry 1) + clusters: `limit` × 1.
    expect(cost(viewport(''))).toBe(1 + 101 + 1000 * 2 + 1000);
    expect(cost(viewport(', limit: 10'))).toBe(1 + 101 + 10 * 2 + 10);
    expect(cost(viewport(', limit: $n'), { n: 2000 })).toBe(1 + 101 + 2000 * 2 + 2000);
  });
});
