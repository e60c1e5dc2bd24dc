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
        const map = new Map(rows.map((r) => [`${r.profile}\u0000${r.id}`, r]));
        return keys.map((k) => map.get(`${k.profile}\u0000${k.id}`) ?? null);
      },
      { cacheKeyFn: (k) => `${k.profile}\u0000${k.id}` },
    ),
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
