import { describe, expect, it } from 'vitest';
import { checkGeometry } from './validate.ts';

describe('checkGeometry', () => {
  const check = (g: unknown) => {
    const errors: string[] = [];
    const ok = checkGeometry(g, 'geometry', errors);
    expect(ok).toBe(errors.length === 0);
    return errors;
  };
  const square = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 0],
  ];

  it.each([
    { type: 'Point', coordinates: [-113.5, 53.1] },
    { type: 'Point', coordinates: [180, -90, 12.5] },
    {
      type: 'MultiPoint',
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    },
    { type: 'MultiPoint', coordinates: [] },
    {
      type: 'LineString',
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    },
    {
      type: 'MultiLineString',
      coordinates: [
        [
          [1, 2],
          [3, 4],
        ],
      ],
    },
    { type: 'Polygon', coordinates: [square] },
    { type: 'Polygon', coordinates: [square, square], bbox: [0, 0, 1, 1] },
    { type: 'MultiPolygon', coordinates: [[square]] },
    { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }] },
    { type: 'GeometryCollection', geometries: [] },
  ])('accepts $type', (g) => expect(check(g)).toEqual([]));

  it.each([
    ['not an object', 'x', 'geometry: not a GeoJSON object'],
    ['an array', [1, 2], 'geometry: not a GeoJSON object'],
    ['a Feature', { type: 'Feature' }, 'geometry: type "Feature": expected one of'],
    ['no type', { coordinates: [1, 2] }, 'geometry: type missing: expected one of'],
    [
      'a 1-number position',
      { type: 'Point', coordinates: [1] },
      'geometry.coordinates: a position is 2 or 3 numbers',
    ],
    ['a 4-number position', { type: 'Point', coordinates: [1, 2, 3, 4] }, 'a position is 2 or 3 numbers'],
    ['a string coordinate', { type: 'Point', coordinates: ['1', 2] }, 'a position is 2 or 3 numbers'],
    [
      'longitude out of range',
      { type: 'Point', coordinates: [-181, 0] },
      'longitude -181 is outside [-180, 180]',
    ],
    [
      'latitude out of range',
      { type: 'Point', coordinates: [0, 90.5] },
      'latitude 90.5 is outside [-90, 90]',
    ],
    [
      'a 1-position line',
      { type: 'LineString', coordinates: [[1, 2]] },
      'a line string needs at least 2 positions',
    ],
    [
      'a bad position in a multi line',
      { type: 'MultiLineString', coordinates: [[[1, 2], [3]]] },
      'geometry.coordinates[0][1]: a position is 2 or 3 numbers',
    ],
    [
      'an open ring',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [1, 1],
            [0, 1],
          ],
        ],
      },
      'geometry.coordinates[0]: a linear ring must end where it starts',
    ],
    [
      'a 3-position ring',
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 0],
            [0, 0],
          ],
        ],
      },
      'a linear ring needs at least 4 positions',
    ],
    [
      'a polygon of no rings',
      { type: 'Polygon', coordinates: [] },
      'a polygon needs at least one linear ring',
    ],
    [
      'an open ring in a multipolygon',
      {
        type: 'MultiPolygon',
        coordinates: [
          [square],
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [2, 2],
            ],
          ],
        ],
      },
      'geometry.coordinates[1][0]: a linear ring must end where it starts',
    ],
    ['no coordinates', { type: 'MultiPoint' }, 'geometry.coordinates: expected an array'],
    [
      'a collection without geometries',
      { type: 'GeometryCollection' },
      'geometry.geometries: expected an array',
    ],
    [
      'a bad member of a collection',
      { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [0, 100] }] },
      'geometry.geometries[0].coordinates: latitude 100 is outside [-90, 90]',
    ],
    [
      'a bad bbox',
      { type: 'Point', coordinates: [0, 0], bbox: [0, 0, 1] },
      'geometry.bbox: expected 4 or 6 numbers',
    ],
  ])('refuses %s', (_what, g, message) => {
    expect(check(g).join('\n')).toContain(message);
  });

  it('caps the messages for one geometry', () => {
    const many = { type: 'MultiPoint', coordinates: Array.from({ length: 50 }, () => [500, 500]) };
    expect(check(many)).toHaveLength(5);
  });
});
