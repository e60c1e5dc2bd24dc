import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../src/subgraphs/assets/filters/compile.ts';
import { type AssetFilterInput, FilterError } from '../../../src/subgraphs/assets/filters/types.ts';
import { validateFilter } from '../../../src/subgraphs/assets/filters/validate.ts';
import { lookup, profile, sqlIds, useFilterDatabase } from './harness.ts';

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

  it('limits a filter to 500 nodes', () => {
    const wide = (n: number): AssetFilterInput => ({ or: Array.from({ length: n }, () => ({})) });
    expect(validateFilter(wide(498), profile('well'), lookup)).toEqual({ ok: true });
    const result = validateFilter(wide(499), profile('well'), lookup);
    expect(result).toEqual({
      ok: false,
      type: 'INVALID_FILTER',
      message: 'filter.or[498]: the filter has more than 500 nodes',
    });
  });

  it('counts every list item, search word and JSON value against the size', () => {
    const refused = (f: AssetFilterInput) => validateFilter(f, profile('well'), lookup);
    const tooBig = (path: string) => ({
      ok: false,
      type: 'INVALID_FILTER',
      message: `${path}: the filter has more than 500 nodes`,
    });
    // The filter object and its condition are 2 nodes; 498 items fill it.
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `id-${i}`);
    expect(refused({ ids: ids(498) })).toEqual({ ok: true });
    expect(refused({ ids: ids(499) })).toEqual(tooBig('filter.ids'));
    expect(refused({ ids: ids(100_000) })).toEqual(tooBig('filter.ids'));
    const names = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);
    expect(refused({ property: { name: 'name', in: names(498) } })).toEqual({ ok: true });
    expect(refused({ property: { name: 'name', in: names(499) } })).toEqual(tooBig('filter.property.in'));
    // 16 search words in each of 31 `and` items: 1 + 1 + 31 × (1 + 1 + 16) = 560 nodes.
    const searches = Array.from({ length: 31 }, () => ({ search: names(16).join(' ') }));
    expect(refused({ and: searches }).ok).toBe(false);
    // A JSON operand counts every value inside it.
    expect(refused({ property: { name: 'tags', equals: names(499) } })).toEqual(
      tooBig('filter.property.equals'),
    );
    expect(refused({ property: { name: 'tags', equals: names(498) } })).toEqual({ ok: true });
    expect(refused({ property: { name: 'tags', equals: { a: [names(497)] } } }).ok).toBe(false);
    // bbox is 4 numbers: 1 + 1 + 4 + 1 + 493 = 500.
    expect(refused({ geometry: { bbox: [0, 0, 1, 1] }, ids: ids(493) })).toEqual({ ok: true });
    expect(refused({ geometry: { bbox: [0, 0, 1, 1] }, ids: ids(494) }).ok).toBe(false);
  });

  it('bounds search words, strings and dates, so that the database never refuses a filter', () => {
    const check = (f: AssetFilterInput) => validateFilter(f, profile('well'), lookup);
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(check({ search: words(32) })).toEqual({ ok: true });
    expect(check({ search: words(33) })).toEqual({
      ok: false,
      type: 'INVALID_FILTER',
      message: 'filter.search: may have at most 32 words, got 33',
    });
    const sixtyThousand = Array.from({ length: 60_000 }, () => 'a').join(' ');
    expect(check({ search: sixtyThousand })).toEqual({
      ok: false,
      type: 'INVALID_FILTER',
      message: 'filter.search: must have at most 1000 characters',
    });
    expect(check({ search: 'x'.repeat(1000) })).toEqual({ ok: true });
    const cases: [AssetFilterInput, string][] = [
      [
        { property: { name: 'name', equals: 'x'.repeat(1001) } },
        'filter.property.equals: must have at most 1000',
      ],
      [
        { property: { name: 'name', contains: 'a\u0000' } },
        'filter.property.contains: must not contain the NUL',
      ],
      [{ ids: ['ok', 'a\u0000b'] }, 'filter.ids[1]: must not contain the NUL'],
      [
        { property: { name: 'name', equals: 'a\ud800' } },
        'filter.property.equals: must be well-formed Unicode',
      ],
      [{ property: { name: 'tags', in: ['\udc00'] } }, 'filter.property.in[0]: must be well-formed Unicode'],
      [
        { property: { name: 'tags', equals: { 'k\u0000': 1 } } },
        'filter.property.equals: must not contain the NUL',
      ],
      [
        { modifiedAfter: '+275760-09-13T00:00:00.000Z' },
        'filter.modifiedAfter: must lie within the years 1 to 9999',
      ],
      [
        { modifiedBefore: new Date(-62198755200000) },
        'filter.modifiedBefore: must lie within the years 1 to 9999',
      ],
    ];
    for (const [filter, message] of cases) {
      const result = check(filter);
      expect(result.ok, message).toBe(false);
      expect(!result.ok && result.message).toContain(message);
    }
  });

  it('runs a filter at every limit in the database', async () => {
    const long = (i: number) => `${i}`.padEnd(1000, 'x');
    const atLimits: AssetFilterInput[] = [
      { property: { name: 'name', in: Array.from({ length: 498 }, (_, i) => long(i)) } },
      { ids: Array.from({ length: 498 }, (_, i) => long(i)) },
      { search: Array.from({ length: 32 }, () => 'w').join(' ') },
      { or: Array.from({ length: 249 }, (_, i) => ({ property: { name: 'depth', gt: i } })) },
      { modifiedAfter: '0001-01-01T00:00:00.000Z', modifiedBefore: '9999-12-31T23:59:59.999Z' },
    ];
    for (const filter of atLimits) {
      expect(validateFilter(filter, profile('well'), lookup)).toEqual({ ok: true });
      await expect(sqlIds('well', filter)).resolves.toBeInstanceOf(Array);
    }
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
