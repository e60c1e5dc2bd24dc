import { describe, expect, it } from 'vitest';
import { KeptSessions } from './kept.ts';

const of = (username: string) => ({ identity: { username } });

describe('kept sessions', () => {
  it('keep at most their size, the least recently used going first', () => {
    const kept = new KeptSessions<ReturnType<typeof of>>(2);
    kept.set('a', of('ana'));
    kept.set('b', of('bo'));
    expect(kept.get('a')).toBeDefined();
    kept.set('c', of('cy'));
    expect(kept.get('b')).toBeUndefined();
    expect(kept.get('a')).toBeDefined();
    expect(kept.get('c')).toBeDefined();
  });

  it("a user's eviction takes that user's sessions only, whatever was evicted or replaced before", () => {
    const kept = new KeptSessions<ReturnType<typeof of>>(3);
    kept.set('a1', of('ana'));
    kept.set('a2', of('ana'));
    kept.set('k', of('ana'));
    // The same key now another user's: ana's eviction must leave it.
    kept.set('k', of('bo'));
    kept.deleteUser('ana');
    expect(kept.get('a1')).toBeUndefined();
    expect(kept.get('a2')).toBeUndefined();
    expect(kept.get('k')).toEqual(of('bo'));
    // Evicted by the bound, then kept again: bo's eviction still finds it.
    kept.set('x', of('cy'));
    kept.set('y', of('cy'));
    kept.set('z', of('cy'));
    expect(kept.get('k')).toBeUndefined();
    kept.set('k', of('bo'));
    kept.deleteUser('bo');
    expect(kept.get('k')).toBeUndefined();
    expect(kept.get('z')).toBeDefined();
    kept.deleteUser('nobody');
    kept.clear();
    expect(kept.get('z')).toBeUndefined();
  });
});
