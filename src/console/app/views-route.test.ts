import { describe, expect, it } from 'vitest';
import { href, parseRoute } from './router.ts';
import { parseViewsRoute, viewsHref } from './views-route.ts';

describe('the views routes', () => {
  it("reads a profile's views and one view with its media type and asset", () => {
    expect(parseRoute('#/profiles/well/views')).toEqual({ name: 'views', profile: 'well' });
    expect(parseRoute('#/profiles/well/views/operations?media=printable&asset=W-100-1-1')).toEqual({
      name: 'view',
      profile: 'well',
      view: 'operations',
      media: 'PRINTABLE',
      asset: 'W-100-1-1',
    });
    expect(parseRoute('#/profiles/well/views/operations')).toEqual({
      name: 'view',
      profile: 'well',
      view: 'operations',
      media: 'WEB',
      asset: null,
    });
  });

  it('takes only the media types the API has, WEB otherwise', () => {
    for (const media of ['TV', '', 'web ', 'x'])
      expect(parseRoute(`#/profiles/well/views/operations?media=${media}`)).toMatchObject({ media: 'WEB' });
  });

  it('leaves other paths to the router', () => {
    expect(parseViewsRoute(['profiles', 'well'], '')).toBeNull();
    expect(parseViewsRoute(['profiles', 'well', 'map'], '')).toBeNull();
    expect(parseViewsRoute(['profiles', 'well', 'views', 'a', 'b'], '')).toBeNull();
    expect(parseRoute('#/profiles/well/views/a/b')).toEqual({
      name: 'not-found',
      path: '/profiles/well/views/a/b',
    });
  });

  it('writes what it reads, any character in the names included', () => {
    const routes = [
      { name: 'views', profile: 'wells & pads/east' },
      { name: 'view', profile: 'well', view: 'ops?#1', media: 'WEB', asset: null },
      { name: 'view', profile: 'wéll', view: 'a b', media: 'MOBILE', asset: 'W/7 & 8' },
    ] as const;
    for (const route of routes) {
      expect(viewsHref(route)).toBe(href(route));
      expect(parseRoute(href(route))).toEqual(route);
    }
    expect(viewsHref({ name: 'view', profile: 'well', view: 'operations', media: 'WEB', asset: null })).toBe(
      '#/profiles/well/views/operations',
    );
  });
});
