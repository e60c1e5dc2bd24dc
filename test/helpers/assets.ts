import type { Kysely } from 'kysely';
import type { Tables } from '../../src/storage/tables.ts';
import { createAssetLoaders } from '../../src/subgraphs/assets/loaders.ts';

/** The ids `relationship` of asset `profile`/`id` resolves to, through the batched loader. */
export async function relatedIds(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  id: string,
  relationship: string,
): Promise<string[]> {
  const loaders = createAssetLoaders(db, group);
  const source = (await loaders.asset.load({ profile, id }))!;
  const r = (await loaders.profile.load(profile))!.relationships.find(
    (x) => x.relationship === relationship,
  )!;
  return (await loaders.related.load({ source, relationship: r, params: null })).map((a) => a.id);
}
