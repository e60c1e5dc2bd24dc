import { LRUCache } from 'lru-cache';
import { onPrimary } from '../../../shared/session-work.ts';
import type { ChangeNotices } from '../../../storage/change-notices.ts';
import type { EffectiveProfile } from './definition.ts';

/** The channel the database announces profile changes on (migration 20261125T0200). */
export const PROFILE_CHANNEL = 'assetql_profiles';

/** The tables a definition is read from: a change to either changes definitions. */
export const PROFILE_TABLES = ['asset_profiles', 'asset_profile_extensions'] as const;

/** Profiles kept at most (tenants × profiles in use); beyond, the least recently used go. */
const MAX_ENTRIES = 20_000;

/**
 * Effective profile definitions kept between requests, so that a request reads its profiles
 * from memory instead of with a statement of its own (two of the five statements of a facility
 * with its wells and issues). Kept only while this process hears the database's change notices
 * ({@link watchProfileChanges}): every change to a profile or an extension, by any process,
 * empties it when its transaction commits. A load that overlaps a change is used for its own
 * request but not kept, so a definition read before a change can never outlive it here.
 * Entries are frozen: shared by every request of a tenant, they must not be changed by one.
 */
export class ProfileCache {
  /** A profile by group and name; `profile: null` is kept too: that name is no profile. */
  #entries = new LRUCache<string, { profile: EffectiveProfile | null }>({ max: MAX_ENTRIES });
  /** The names of each group's profiles, by group. */
  #names = new LRUCache<string, readonly string[]>({ max: MAX_ENTRIES });
  #generation = 0;
  #live = false;

  /** True while change notices are heard, and definitions therefore kept. */
  get live(): boolean {
    return this.#live;
  }

  /** Starts or stops keeping definitions; either way what is kept is forgotten. */
  setLive(live: boolean): void {
    this.#live = live;
    this.invalidate();
  }

  /** Forgets every definition: a profile changed somewhere, or a notice may have been missed. */
  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
    this.#names.clear();
  }

  /**
   * The names of `group`'s profiles, from memory where kept, else by `fetch` (a filter or a
   * saved filter may reach any profile of the group, so each such request needs them all).
   */
  async names(group: string, fetch: () => Promise<string[]>): Promise<readonly string[]> {
    const kept = this.#live ? this.#names.get(group) : undefined;
    if (kept) return kept;
    const generation = this.#generation;
    const fetched = Object.freeze(await this.#read(fetch));
    if (this.#live && generation === this.#generation) {
      this.#names.set(group, fetched);
    }
    return fetched;
  }

  /** The profiles `names` of `group`, from memory where kept, the rest by one call of `fetch`. */
  async load(
    group: string,
    names: readonly string[],
    fetch: (names: readonly string[]) => Promise<Map<string, EffectiveProfile>>,
  ): Promise<(EffectiveProfile | null)[]> {
    const key = (name: string) => `${group}\u0000${name}`;
    // What is kept is taken now: a change may empty the cache while the rest is fetched.
    const kept = new Map<string, EffectiveProfile | null>();
    const missing: string[] = [];
    for (const name of names) {
      const k = key(name);
      const entry = this.#live ? this.#entries.get(k) : undefined;
      if (entry) kept.set(name, entry.profile);
      else missing.push(name);
    }
    if (missing.length > 0) {
      const generation = this.#generation;
      const fetched = await this.#read(() => fetch(missing));
      for (const profile of fetched.values()) deepFreeze(profile);
      for (const name of missing) kept.set(name, fetched.get(name) ?? null);
      if (this.#live && generation === this.#generation) {
        for (const name of missing) this.#entries.set(key(name), { profile: fetched.get(name) ?? null });
      }
    }
    return names.map((n) => kept.get(n) ?? null);
  }

  /**
   * What is kept is read from the primary: a replica's copy could predate the change whose notice
   * has already emptied the cache, and would be kept until the next (storage/replicas.ts).
   */
  #read<T>(fetch: () => Promise<T>): Promise<T> {
    return this.#live ? onPrimary(fetch) : fetch();
  }
}

/**
 * Keeps `cache` live while the process hears the database's profile change notices
 * (storage/change-notices.ts): every notice empties it. Where notices do not travel (embedded
 * PGlite; a transaction-mode pooler) nothing is kept and every request reads its profiles, as
 * without a cache; while the listening connection is gone, nothing is kept until it is back.
 */
export function watchProfileChanges(notices: ChangeNotices, cache: ProfileCache): () => void {
  return notices.subscribe(PROFILE_CHANNEL, {
    notice: () => cache.invalidate(),
    live: (live) => cache.setLive(live),
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
