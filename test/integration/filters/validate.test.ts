import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../src/subgraphs/assets/filters/compile.ts';
import { type AssetFilterInput, FilterError } from '../../../src/subgraphs/assets/filters/types.ts';
import { validateFilter } from '../../../src/subgraphs/assets/filters/validate.ts';
import { lookup, profile, useFilterDatabase } from './harness.ts';

useFilterDatabase();

describe('validateFilter', () => {
  const invalid: [AssetFilterInput, string][] = [
    [
      { property: { name: 'nope', equals: 1 } },
      'filter.property.name: unknown property "nope" on profile "well"',
    ],
    [
      { and: [{}, { property: { name: 'nope', exists: true } }] },
      'filter.and[1].property.name: unknown property "nope"',
    ],
    [
      { property: { name: 'active', gt: true } },
      'filter.property.gt: does not apply to BOOLEAN property "active"',
    ],
    [
      { property: { name: 'depth', contains: '1' } },
      'filter.property.contains: does not apply to NUMBER property',
    ],
    [{ property: { name: 'tags', startsWith: 'a' } }, 'filter.property.startsWith: does not apply to JSON'],
    [
      { property: { name: 'depth', gt: 1, lt: 5 } },
      'filter.property: takes exactly one comparison operator, got gt, lt',
    ],
    [{ property: { name: 'depth' } }, 'filter.property: needs one comparison operator'],
    [
      { property: { name: 'depth', caseInsensitive: true } } as AssetFilterInput,
      'filter.property: needs one',
    ],
    [{ property: { name: 'status', in: [] } }, 'filter.property.in: must not be empty'],
    [{ property: { name: 'depth', equals: '5' } }, 'filter.property.equals: must be a number'],
    [{ property: { name: 'count', in: [1, 'x'] } }, 'filter.property.in[1]: must be a number'],
    [{ property: { name: 'status', equals: 3 } }, 'filter.property.equals: must be a string'],
    [{ property: { name: 'active', equals: 'true' } }, 'filter.property.equals: must be true or false'],
    [
      { property: { name: 'depth', equals: 5, caseInsensitive: true } },
      'filter.property.caseInsensitive: applies only',
    ],
    [
      { property: { name: 'name', gt: 'a', caseInsensitive: true } },
      'filter.property.caseInsensitive: applies only',
    ],
    [{ geometry: { bbox: [1, 2, 3] } }, 'filter.geometry.bbox: must be 4 numbers'],
    [
      { geometry: { bbox: [10, 0, 5, 1] } },
      'filter.geometry.bbox: minLongitude must not exceed maxLongitude',
    ],
    [{ geometry: { bbox: [0, 10, 5, 1] } }, 'filter.geometry.bbox: minLatitude must not exceed maxLatitude'],
    [{ geometry: { bbox: [-200, 0, 5, 1] } }, 'filter.geometry.bbox: longitudes must lie in [-180, 180]'],
    [{ geometry: { bbox: [0, 0, 5, 95] } }, 'filter.geometry.bbox: latitudes must lie in [-90, 90]'],
    [
      { geometry: { near: { longitude: 0, latitude: 0, distanceMeters: -1 } } },
      'filter.geometry.near.distanceMeters: must not be negative',
    ],
    [
      { geometry: { near: { longitude: 0, latitude: 91, distanceMeters: 1 } } },
      'filter.geometry.near.latitude',
    ],
    [{ geometry: {} }, 'filter.geometry: needs bbox or near'],
    [
      { related: { relationship: 'nope', some: {} } },
      'filter.related.relationship: unknown relationship "nope"',
    ],
    [
      { related: { relationship: 'byUwi', some: {} } },
      'filter.related.relationship: relationship "byUwi" takes a PARAMETER and is not usable in filters',
    ],
    [{ related: { relationship: 'facility' } }, 'filter.related: needs some or none'],
    [
      {
        or: [{ related: { relationship: 'facility', some: { property: { name: 'depth', exists: true } } } }],
      },
      'filter.or[0].related.some.property.name: unknown property "depth" on profile "facility"',
    ],
    [{ modifiedAfter: 'yesterday' }, 'filter.modifiedAfter: must be an ISO 8601 date-time'],
    [{ foo: 1 } as unknown as AssetFilterInput, 'filter.foo: is not an AssetFilter field'],
    [
      { not: { property: { name: 'depth', equal: 1 } } } as unknown as AssetFilterInput,
      'filter.not.property.equal: is not',
    ],
  ];
  it.each(invalid)('rejects %j', (filter, message) => {
    const result = validateFilter(filter, profile('well'), lookup);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toContain(message);
    expect(() => compileFilter(filter, { profile: profile('well'), profiles: lookup, group: 'g1' })).toThrow(
      FilterError,
    );
  });

  const nest = (levels: number): AssetFilterInput => (levels === 0 ? {} : { not: nest(levels - 1) });
  it('limits nesting to 8 levels', () => {
    expect(validateFilter(nest(7), profile('well'), lookup)).toEqual({ ok: true });
    expect(validateFilter(nest(8), profile('well'), lookup)).toEqual({
      ok: false,
      type: 'INVALID_FILTER',
      message: `filter${'.not'.repeat(8)}: filters may nest at most 8 levels deep`,
    });
    const related = {
      related: { relationship: 'facility', some: { related: { relationship: 'wells', some: nest(7) } } },
    };
    expect(validateFilter(related, profile('well'), lookup).ok).toBe(false);
  });

  it('limits a filter to 200 nodes', () => {
    const wide = (n: number): AssetFilterInput => ({ or: Array.from({ length: n }, () => ({})) });
    expect(validateFilter(wide(198), profile('well'), lookup)).toEqual({ ok: true });
    const result = validateFilter(wide(199), profile('well'), lookup);
    expect(result).toEqual({
      ok: false,
      type: 'INVALID_FILTER',
      message: 'filter.or[198]: the filter has more than 200 nodes',
    });
  });

  it('accepts the examples of docs/schema.md §5', () => {
    const examples: [string, AssetFilterInput][] = [
      [
        'well',
        {
          isDeleted: false,
          and: [
            { property: { name: 'status', equals: 'producing' } },
            { property: { name: 'depth', gt: 2000 } },
          ],
        },
      ],
      [
        'facility',
        { geometry: { bbox: [-114.5, 51.5, -113.0, 53.0] }, related: { relationship: 'wells', none: {} } },
      ],
      [
        'well',
        {
          or: [
            { ids: ['W-100-1-1', 'W-100-1-2'] },
            {
              geometry: { near: { longitude: -113.81, latitude: 52.27, distanceMeters: 5000 } },
              modifiedAfter: '2026-11-01T00:00:00Z',
              not: { property: { name: 'status', in: ['SHUT-IN', 'ABANDONED'], caseInsensitive: true } },
            },
          ],
        },
      ],
    ];
    for (const [p, filter] of examples)
      expect(validateFilter(filter, profile(p), lookup)).toEqual({ ok: true });
  });

  it('treats null fields as absent', () => {
    expect(validateFilter(null, profile('well'), lookup)).toEqual({ ok: true });
    expect(
      validateFilter(
        { and: null, property: { name: 'depth', equals: null, gt: 3 } },
        profile('well'),
        lookup,
      ),
    ).toEqual({ ok: true });
  });
});
