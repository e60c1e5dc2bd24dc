import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../src/subgraphs/assets/filters/compile.ts';
import type { AssetFilterInput } from '../../../src/subgraphs/assets/filters/types.ts';
import { agree, database, lookup, profile, sqlIds, useFilterDatabase } from './harness.ts';

useFilterDatabase();

describe('hand-written filters (SQL = reference, and the expected fixtures)', () => {
  const X = ['X-absent', 'X-like', 'X-null', 'X-pct'];
  /** Runs the filter (restricted to the fixtures) both ways and returns the fixtures matched. */
  const fixtures = async (filter: AssetFilterInput, label: string, profileName = 'well') => {
    await agree(profileName, filter, label);
    return agree(profileName, { ids: X, and: [filter] }, label);
  };
  const cases: [string, AssetFilterInput, string[]][] = [
    ['empty filter', {}, X],
    ['and []', { and: [] }, X],
    ['or []', { or: [] }, []],
    ['not {}', { not: {} }, []],
    ['ids', { ids: ['X-pct', 'W-0001', 'nope'] }, ['X-pct']],
    ['ids []', { ids: [] }, []],
    ['equals STRING', { property: { name: 'name', equals: 'Oil 100% pure_grade' } }, ['X-pct']],
    [
      'equals caseInsensitive',
      { property: { name: 'name', equals: 'oil 100% PURE_GRADE', caseInsensitive: true } },
      ['X-pct'],
    ],
    ['equals case-sensitive misses', { property: { name: 'name', equals: 'oil 100% pure_grade' } }, []],
    [
      'notEquals (missing is true)',
      { property: { name: 'name', notEquals: 'Oil 100% pure_grade' } },
      ['X-absent', 'X-like', 'X-null'],
    ],
    ['equals NUMBER default', { property: { name: 'depth', equals: 1000 } }, ['X-absent', 'X-null']],
    ['equals NUMBER string is no number', { property: { name: 'depth', equals: 1500 } }, ['X-like']],
    ['gt NUMBER guard', { property: { name: 'depth', gt: 1200 } }, ['X-like']],
    ['gte NUMBER', { property: { name: 'depth', gte: 1000 } }, ['X-absent', 'X-like', 'X-null']],
    ['lt NUMBER', { property: { name: 'depth', lt: 1000 } }, []],
    ['lte NUMBER', { property: { name: 'depth', lte: 1000 } }, ['X-absent', 'X-null']],
    ['in INTEGER', { property: { name: 'count', in: [3, 5] } }, ['X-pct']],
    ['notEquals INTEGER', { property: { name: 'count', notEquals: 3 } }, ['X-absent', 'X-like', 'X-null']],
    [
      'not equals INTEGER',
      { not: { property: { name: 'count', equals: 3 } } },
      ['X-absent', 'X-like', 'X-null'],
    ],
    ['exists default', { property: { name: 'depth', exists: true } }, X],
    ['exists false', { property: { name: 'count', exists: false } }, ['X-absent', 'X-null']],
    ['BOOLEAN equals', { property: { name: 'active', equals: false } }, ['X-like']],
    ['BOOLEAN in', { property: { name: 'active', in: [true, false] } }, ['X-like', 'X-pct']],
    [
      'ENUM in caseInsensitive',
      { property: { name: 'status', in: ['PRODUCING'], caseInsensitive: true } },
      ['X-pct'],
    ],
    ['DATE gt', { property: { name: 'spud', gt: '2021-04-30' } }, ['X-pct']],
    ['DATE lt', { property: { name: 'spud', lt: '2021-05-01' } }, []],
    ['DATE lte', { property: { name: 'spud', lte: '2021-05-01' } }, ['X-pct']],
    ['contains escapes % and _', { property: { name: 'name', contains: '100%_p' } }, []],
    ['contains escapes % and _ (hit)', { property: { name: 'name', contains: '100% p' } }, ['X-pct']],
    ['contains _ literally', { property: { name: 'name', contains: '_' } }, ['X-pct']],
    [
      'contains caseInsensitive',
      { property: { name: 'name', contains: 'PURE', caseInsensitive: true } },
      ['X-like', 'X-pct'],
    ],
    ['startsWith', { property: { name: 'name', startsWith: 'Oil 100%' } }, ['X-pct']],
    [
      'startsWith caseInsensitive',
      { property: { name: 'name', startsWith: 'oil', caseInsensitive: true } },
      ['X-like', 'X-pct'],
    ],
    ['JSON equals (order matters in arrays)', { property: { name: 'tags', equals: ['a', 'b'] } }, ['X-pct']],
    ['JSON equals other order', { property: { name: 'tags', equals: ['b', 'a'] } }, []],
    ['JSON contains element', { property: { name: 'tags', contains: 'b' } }, ['X-pct']],
    ['JSON in', { property: { name: 'tags', in: [['a', 'b'], 'x'] } }, ['X-pct']],
    ['modifiedAfter is strict', { modifiedAfter: '2026-06-01T12:00:00.000Z' }, ['X-like']],
    [
      'modifiedBefore is strict',
      { modifiedBefore: new Date('2026-06-01T12:00:00.001Z') },
      ['X-absent', 'X-null', 'X-pct'],
    ],
    ['isDeleted', { isDeleted: true }, ['X-like']],
    ['search words, any case, any order', { search: ' GRADE\toil ' }, ['X-like', 'X-pct']],
    ['search escapes %', { search: '100%' }, ['X-pct']],
    ['search blank', { search: '   ' }, X],
    ['bbox', { geometry: { bbox: [-114, 52, -113, 53] } }, ['X-pct']],
    ["bbox within the vertices' box", { geometry: { bbox: [-99.8, 40.2, -99.5, 40.4] } }, ['X-like']],
    ['bbox touching a vertex', { geometry: { bbox: [-99, 41, -98, 42] } }, ['X-like']],
    ['bbox touching the other vertex', { geometry: { bbox: [-101, 39, -100, 40] } }, ['X-like']],
    ['bbox of a point', { geometry: { bbox: [-113.81, 52.27, -113.81, 52.27] } }, ['X-pct']],
    ['bbox missing a point', { geometry: { bbox: [-113.8, 52.27, -113.7, 52.3] } }, []],
    ['near', { geometry: { near: { longitude: -113.8, latitude: 52.27, distanceMeters: 700 } } }, ['X-pct']],
    ['near too far', { geometry: { near: { longitude: -113.8, latitude: 52.27, distanceMeters: 600 } } }, []],
    [
      'near a vertex, distance 0',
      { geometry: { near: { longitude: -99, latitude: 41, distanceMeters: 0 } } },
      ['X-like'],
    ],
    ['related some {} (same group only)', { related: { relationship: 'facility', some: {} } }, ['X-pct']],
    [
      'related none {}',
      { related: { relationship: 'facility', none: {} } },
      ['X-absent', 'X-like', 'X-null'],
    ],
    ['related PROPERTY_LIST', { related: { relationship: 'partners', some: { ids: ['F-02'] } } }, ['X-pct']],
    [
      'related PROPERTY_LIST ignores g2',
      { related: { relationship: 'partners', some: { ids: ['F-31'] } } },
      [],
    ],
    [
      'related PROPERTY → PROPERTY',
      { related: { relationship: 'siblings', some: { ids: ['X-pct'] } } },
      ['X-pct'],
    ],
  ];
  it.each(cases)('%s', async (label, filter, expected) => {
    expect(await fixtures(filter, label)).toEqual(expected);
  });

  it('related from the target side (ID → PROPERTY and ID → PROPERTY_LIST)', async () => {
    const f01 = await agree(
      'facility',
      { related: { relationship: 'wells', some: { ids: ['X-pct'] } } },
      'wells',
    );
    expect(f01).toEqual(['F-01']);
    const listed = await agree(
      'facility',
      { related: { relationship: 'listedWells', some: { ids: ['X-pct'] } } },
      'listedWells',
    );
    expect(listed).toEqual(['F-02']);
    const kindDefault = await agree(
      'facility',
      { property: { name: 'kind', equals: 'plant' } },
      'kind default',
    );
    expect(kindDefault.length).toBeGreaterThan(0);
    await agree('facility', { related: { relationship: 'wells', none: {} } }, 'no wells');
    await agree(
      'facility',
      {
        related: {
          relationship: 'wells',
          some: { related: { relationship: 'siblings', none: { isDeleted: true } } },
        },
      },
      'nested related',
    );
  });

  it('compares odd operands as the reference does, never as a server error', async () => {
    const strings = ['a"b\\c', 'a\nb', '\u2028', 'say "hi"', 'line\nbreak', '😀', '$.x', '" || true'];
    for (const equals of strings) {
      await agree('well', { property: { name: 'name', equals } }, `name equals ${JSON.stringify(equals)}`);
      await agree('well', { property: { name: 'name', notEquals: equals } }, `name notEquals ${equals}`);
    }
    for (const v of [-1e21, 1e21, 5e-324, 0.1, -0, 1500, 1500.0, 2 ** 53 + 1])
      for (const op of ['equals', 'notEquals', 'gt', 'gte', 'lt', 'lte'] as const)
        await agree('well', { property: { name: 'count', [op]: v } }, `count ${op} ${v}`);
    expect(await fixtures({ property: { name: 'count', equals: 3.0 } }, 'count 3.0')).toEqual(['X-pct']);
    expect(await fixtures({ property: { name: 'count', lte: 3 } }, 'count <= 3')).toEqual(['X-pct']);
  });

  it('uses any table alias and binds every value', async () => {
    const filter: AssetFilterInput = {
      or: [
        { property: { name: 'name', equals: "'; drop table assets; --" } },
        { search: "o'brien" },
        { property: { name: 'depth', gt: 1200 } },
        {
          related: {
            relationship: 'facility',
            some: { property: { name: 'region', contains: "x' or '1'='1" } },
          },
        },
      ],
    };
    expect(await sqlIds('well', filter, 'w')).toEqual(await sqlIds('well', filter));
    const compiled = compileFilter(filter, {
      profile: profile('well'),
      profiles: lookup,
      group: "g'1",
    }).compile(database.db);
    expect(compiled.sql).not.toContain('drop table');
    expect(compiled.sql).not.toContain("o'brien");
    expect(compiled.sql).not.toContain("g'1");
    // The string comparison's value is in its bound jsonpath (docs/performance.md "Filters").
    expect(compiled.parameters.some((v) => String(v).includes('"\'; drop table assets; --"'))).toBe(true);
    expect(compiled.parameters).toContain("g'1");
  });
});
