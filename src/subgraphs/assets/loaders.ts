import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import { type AssetRow, assetsByKeys, profilesWithExtensions } from './assets.repository.ts';
import type { DatasetStats } from './datasets/rows.ts';
import { type EffectiveProfile, effectiveProfile } from './profiles/definition.ts';
import { createRelatedLoader, type RelatedKey } from './relationships.ts';

export interface AssetLoaders {
  profile: DataLoader<string, EffectiveProfile | null>;
  asset: DataLoader<{ profile: string; id: string }, AssetRow | null, string>;
  related: DataLoader<RelatedKey, AssetRow[], string>;
  /** The dataset counters of a profile (one statement for every profile asked in a request). */
  datasetStats: DataLoader<string, DatasetStats[]>;
}

/** Per-request batching, fixed to one tenant group. */
export function createAssetLoaders(db: Kysely<Tables>, group: string): AssetLoaders {
  return {
    profile: new DataLoader(async (names) => {
      const rows = await profilesWithExtensions(db, group, names);
      const byName = new Map(rows.map((r) => [r.profile, r]));
      return names.map((n) => {
        const row = byName.get(n);
        return row ? effectiveProfile(row, row.extensions) : null;
      });
    }),
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
  };
}
