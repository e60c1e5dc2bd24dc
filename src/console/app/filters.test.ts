import { describe, expect, it } from 'vitest';
import { currentFilter, filterId, filtersOf, type SavedFilter, subProfilesInput } from './filters.ts';

describe("the assets list's filter", () => {
  const producing = { property: { name: 'status', equals: 'producing' } };

  it('is the saved filter and the search together, either alone, or none', () => {
    expect(currentFilter(null, '')).toBeNull();
    expect(currentFilter({}, '')).toBeNull();
    expect(currentFilter(producing, '')).toEqual(producing);
    expect(currentFilter(null, 'red deer')).toEqual({ search: 'red deer' });
    expect(currentFilter(producing, 'red')).toEqual({ and: [producing, { search: 'red' }] });
  });

  it("keeps a saved filter's related profiles when saved again, without their target profiles", () => {
    expect(
      subProfilesInput([
        { relationship: 'facility', profile: 'facility', filter: null },
        {
          relationship: 'equipment',
          profile: 'equipment',
          filter: { property: { name: 'kind', in: ['esp'] } },
          subProfiles: [{ relationship: 'sensors', profile: 'sensor', filter: null, subProfiles: [] }],
        },
      ]),
    ).toEqual([
      { relationship: 'facility', subProfiles: [] },
      {
        relationship: 'equipment',
        filter: { property: { name: 'kind', in: ['esp'] } },
        subProfiles: [{ relationship: 'sensors', subProfiles: [] }],
      },
    ]);
    expect(subProfilesInput(null)).toEqual([]);
  });

  it('names a saved filter by its display name, with a number for a taken one', () => {
    expect(filterId('Producing red wells')).toBe('producing-red-wells');
    expect(filterId('  Pompes à chaleur — Île  ')).toBe('pompes-a-chaleur-ile');
    expect(filterId('Producing red wells', 3)).toBe('producing-red-wells-3');
    expect(filterId('***')).toBe('filter');
    const long = filterId('x'.repeat(300), 20);
    expect(long.length).toBeLessThanOrEqual(128);
    expect(long).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
  });

  it("lists one profile's filters", () => {
    const f = (id: string, profile: string): SavedFilter => ({
      id,
      displayName: id,
      description: null,
      profile,
      filter: null,
      subProfiles: [],
    });
    expect(filtersOf([f('a', 'well'), f('b', 'site'), f('c', 'well')], 'well').map((x) => x.id)).toEqual([
      'a',
      'c',
    ]);
  });
});
