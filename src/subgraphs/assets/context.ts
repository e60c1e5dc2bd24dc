import type { Kysely } from 'kysely';
import type { BaseContext } from '../../shared/subgraph.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AssetLoaders } from './loaders.ts';

export interface AssetsContext extends BaseContext {
  db: Kysely<Tables>;
  loaders: AssetLoaders;
}
