import { describe, expect, it } from 'vitest';
import { ProfileCache } from './cache.ts';
import type { EffectiveProfile } from './definition.ts';

const profile = (name: string, title = name) => ({ profile: name, title }) as unknown as EffectiveProfile;

describe('ProfileCache', () => {
  it('keeps nothing until live, then keeps what it loads, per group', async () => {
    const cache = new ProfileCache();
    let fetches = 0;
    const fetch = async (names: readonly string[]) => {
      fetches++;
      return new Map(names.map((n) => [n, profile(n)]));
    };
    await cache.load('g', ['a'], fetch);
    await cache.load('g', ['a'], fetch);
    expect(fetches).toBe(2);
    cache.setLive(true);
    await cache.load('g', ['a'], fetch);
    await cache.load('g', ['a'], fetch);
    expect(fetches).toBe(3);
    await cache.load('other', ['a'], fetch);
    expect(fetches).toBe(4);
  });

  it('answers a kept profile even when a change empties the cache while the rest is fetched', async () => {
    const cache = new ProfileCache();
    cache.setLive(true);
    await cache.load('g', ['a'], async () => new Map([['a', profile('a')]]));
    const [a, b] = await cache.load('g', ['a', 'b'], async () => {
      cache.invalidate();
      return new Map([['b', profile('b')]]);
    });
    expect(a?.profile).toBe('a');
    expect(b?.profile).toBe('b');
  });

  it('does not keep a load that overlapped a change, and freezes what it hands out', async () => {
    const cache = new ProfileCache();
    cache.setLive(true);
    const [old] = await cache.load('g', ['a'], async () => {
      cache.invalidate(); // a change committed while this read was in flight
      return new Map([['a', profile('a', 'old')]]);
    });
    expect(old?.title).toBe('old');
    expect(Object.isFrozen(old)).toBe(true);
    const [fresh] = await cache.load('g', ['a'], async () => new Map([['a', profile('a', 'new')]]));
    expect(fresh?.title).toBe('new');
  });
});
