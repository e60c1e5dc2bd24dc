import { describe, expect, it } from 'vitest';
import { href, parseRoute } from './router.ts';

describe('the asset page’s route', () => {
  it('reads and writes an asset’s address, any character in its id', () => {
    expect(parseRoute('#/profiles/well/assets/W-100-1-1')).toEqual({
      name: 'asset',
      profile: 'well',
      id: 'W-100-1-1',
    });
    for (const route of [
      { name: 'asset' as const, profile: 'well', id: 'W-1' },
      { name: 'asset' as const, profile: 'pump station', id: 'a/b?c#d %' },
    ])
      expect(parseRoute(href(route))).toEqual(route);
    expect(href({ name: 'asset', profile: 'well', id: 'a/b' })).toBe('#/profiles/well/assets/a%2Fb');
  });

  it('leaves other paths under a profile to others', () => {
    expect(parseRoute('#/profiles/well/assets')).toMatchObject({ name: 'not-found' });
    expect(parseRoute('#/profiles/well/things/W-1')).toMatchObject({ name: 'not-found' });
  });
});
