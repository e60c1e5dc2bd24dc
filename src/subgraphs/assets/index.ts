import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import type { IdentitySigner } from '../../shared/identity.ts';
import type { Logger } from '../../shared/logger.ts';
import { createSubgraph } from '../../shared/subgraph.ts';
import type { Database } from '../../storage/database.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AssetsContext } from './context.ts';
import { createAssetLoaders } from './loaders.ts';
import { resolvers } from './resolvers.ts';

export const assetsTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface AssetsDeps {
  db: Kysely<Tables>;
  database: Pick<Database, 'db' | 'pool' | 'engine'>;
  signer: IdentitySigner;
  log: Logger;
  clock: Clock;
}

/** The assets subgraph: profiles, assets, relationships, views, selection filters, exports. */
export function createAssetsSubgraph(deps: AssetsDeps) {
  return createSubgraph<AssetsContext>({
    name: 'assets',
    typeDefs: assetsTypeDefs,
    resolvers,
    signer: deps.signer,
    log: deps.log,
    clock: deps.clock,
    extendContext: (base) => ({
      ...base,
      db: deps.db,
      database: deps.database,
      loaders: createAssetLoaders(deps.db, base.identity.userGroup ?? ''),
    }),
  });
}
