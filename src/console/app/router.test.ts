import { describe, expect, it } from 'vitest';
import { assetsRoute, DEFAULT_PAGE_SIZE, href, parseRoute } from './router.ts';

describe('the console routes', () => {
  it('opens on the profiles', () => {
    for (const hash of ['', '#', '#/', '#/profiles', '#/profiles/'])
      expect(parseRoute(hash)).toEqual({ name: 'profiles' });
  });

  it("reads a profile's assets with the search, the filter and the page size", () => {
    expect(parseRoute('#/profiles/well?search=%20red%20%20deer&filter=wells-producing&size=10')).toEqual({
      name: 'assets',
      profile: 'well',
      query: { search: 'red deer', filter: 'wells-producing', size: 10 },
    });
    expect(parseRoute('#/profiles/well')).toEqual({
      name: 'assets',
      profile: 'well',
      query: { search: '', filter: null, size: DEFAULT_PAGE_SIZE },
    });
  });

  it('takes only the page sizes it offers', () => {
    for (const size of ['7', '1000', 'x', '-10'])
      expect(parseRoute(`#/profiles/well?size=${size}`)).toMatchObject({
        query: { size: DEFAULT_PAGE_SIZE },
      });
  });

  it('writes what it reads, profile names with any character included', () => {
    for (const route of [
      assetsRoute('well', { search: 'red deer', filter: 'a/b c', size: 50 }),
      assetsRoute('pump station/2', { search: '', filter: null, size: DEFAULT_PAGE_SIZE }),
      { name: 'profiles' as const },
    ]) {
      expect(parseRoute(href(route))).toEqual(route);
    }
    expect(href(assetsRoute('well', { search: '', filter: null, size: DEFAULT_PAGE_SIZE }))).toBe(
      '#/profiles/well',
    );
  });

  it('says what it does not know, a malformed address included', () => {
    expect(parseRoute('#/assets/well/W-1')).toEqual({ name: 'not-found', path: '/assets/well/W-1' });
    expect(parseRoute('#/profiles/%E0%A4%A')).toEqual({ name: 'not-found', path: '/profiles/%E0%A4%A' });
  });
});
