import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import { type AssetRow, assetsByKeys, profilesWithExtensions } from './assets.repository.ts';
import type { DatasetStats } from './datasets/rows.ts';
import { ProfileCache } from './profiles/cache.ts';
import { type EffectiveProfile, effectiveProfile } from './profiles/definition.ts';
import { createRelatedLoader, type RelatedKey } from './relationships.ts';

export interface AssetLoaders {
  profile: DataLoader<string, EffectiveProfile | null>;
  /**
   * The profile `name` as this request has already loaded it (null: there is none), or undefined
   * when it has not: a resolver of every row of a page then needs no promise for it.
   */
  loadedProfile(name: string): EffectiveProfile | null | undefined;
  /** The names of every profile of the group, kept between requests as definitions are. */
  profileNames(): Promise<readonly string[]>;
  asset: DataLoader<{ profile: string; id: string }, AssetRow | null, string>;
  /**
   * Assets this request has read otherwise (a page, related assets), for `asset` to answer without
   * a statement, as priming each would; indexed only when `asset` is first used.
   */
  noteAssets(rows: readonly AssetRow[]): void;
  related: DataLoader<RelatedKey, AssetRow[], string>;
  /** The dataset counters of a profile (one statement for every profile asked in a request). */
  datasetStats: DataLoader<string, DatasetStats[]>;
  /**
   * Forgets every profile definition this request and this process have read, after this request
   * committed a change to one: the next read is fresh here at once (other processes forget when
   * the database's change notice reaches them).
   */
  profilesChanged(): void;
}

/**
 * Per-request batching, fixed to one tenant group; profiles come from `profiles`, kept between
 * requests while the process hears of their changes (profiles/cache.ts).
 */
export function createAssetLoaders(
  db: Kysely<Tables>,
  group: string,
  profiles: ProfileCache = new ProfileCache(),
): AssetLoaders {
  const loaded = new Map<string, EffectiveProfile | null>();
  const notedAssets = new NotedAssets();
  /** Bumped when this request changes a profile: a load begun before it is not noted. */
  let generation = 0;
  const loaders: AssetLoaders = {
    profile: new DataLoader(async (names) => {
      const began = generation;
      const found = await profiles.load(group, names, async (missing) => {
        const rows = await profilesWithExtensions(db, group, missing);
        return new Map(rows.map((r) => [r.profile, effectiveProfile(r, r.extensions)]));
      });
      if (began === generation) for (const [i, name] of names.entries()) loaded.set(name, found[i] ?? null);
      return found;
    }),
    loadedProfile: (name) => loaded.get(name),
    profileNames: () =>
      profiles.names(group, async () =>
        (
          await db.selectFrom('asset_profiles').select('profile').where('user_group', '=', group).execute()
        ).map((r) => r.profile),
      ),
    asset: new DataLoader(
      async (keys) => {
        const rows = await assetsByKeys(db, group, keys);
        const map = new Map(rows.map((r) => [assetKey(r), r]));
        return keys.map((k) => map.get(assetKey(k)) ?? null);
      },
      { cacheKeyFn: assetKey, cacheMap: notedAssets },
    ),
    noteAssets: (rows) => notedAssets.note(rows),
    related: createRelatedLoader(db, group),
    datasetStats: new DataLoader(async (profiles) => {
      const rows = await db
        .selectFrom('asset_dataset_stats')
        .select([
          'profile',
          'dataset',
          'row_count',
          'observation_count',
          'columns',
          'modified_at',
          'latest_observation_at',
        ])
        .where('user_group', '=', group)
        .where('profile', 'in', [...profiles])
        .execute();
      return profiles.map((p) => rows.filter((r) => r.profile === p));
    }),
    profilesChanged() {
      profiles.invalidate();
      loaders.profile.clearAll();
      loaded.clear();
      generation++;
    },
  };
  return loaders;
}

const assetKey = (k: { profile: string; id: string }) => `${k.profile}\u0000${k.id}`;

/**
 * The asset loader's cache. Priming it with every row of a page made a key, a promise and an entry
 * for each of 100 rows, for a page that nothing then looks up by key (a sixteenth of what a page
 * of wells allocated). Rows are noted a page at a time instead and put in the cache, as priming
 * puts them (an asset already there stays), before anything else reads or changes it: what the
 * loader answers is the same.
 */
class NotedAssets {
  readonly #map = new Map<string, Promise<AssetRow | null>>();
  #pending: (readonly AssetRow[])[] = [];

  note(rows: readonly AssetRow[]): void {
    if (rows.length) this.#pending.push(rows);
  }

  #flush(): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const rows of pending)
      for (const row of rows) {
        const key = assetKey(row);
        if (!this.#map.has(key)) this.#map.set(key, Promise.resolve(row));
      }
  }

  get(key: string): Promise<AssetRow | null> | undefined {
    if (this.#pending.length) this.#flush();
    return this.#map.get(key);
  }

  set(key: string, value: Promise<AssetRow | null>): this {
    if (this.#pending.length) this.#flush();
    this.#map.set(key, value);
    return this;
  }

  delete(key: string): boolean {
    if (this.#pending.length) this.#flush();
    return this.#map.delete(key);
  }

  clear(): void {
    this.#pending = [];
    this.#map.clear();
  }
}
