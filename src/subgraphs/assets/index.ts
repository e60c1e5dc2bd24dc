import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { ExportLimits } from '../../config/index.ts';
import type { AccountStanding } from '../../shared/identity.ts';
import type { Database } from '../../storage/database.ts';
import type { Tables } from '../../storage/tables.ts';
import { createSubgraph, runtimeOf, type SubgraphRuntime } from '../../subgraph-server/index.ts';
import type { AssetsContext } from './context.ts';
import { EXPORTS_ROUTE } from './descriptor.ts';
import { createExportHandler } from './exports/handler.ts';
import { ExportTokens } from './exports/tokens.ts';
import { createAssetLoaders } from './loaders.ts';
import { planPage } from './page-plans.ts';
import type { ProfileCache } from './profiles/cache.ts';
import { resolvers } from './resolvers/index.ts';
import { TelemetryRetention } from './telemetry/retention.ts';

export const assetsTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface AssetsDeps extends SubgraphRuntime {
  db: Kysely<Tables>;
  database: Pick<Database, 'db' | 'pool' | 'engine'>;
  /** Auth's rule of a user's standing in a group: export links work only while their maker's holds. */
  standing: AccountStanding;
  /**
   * The service's public base URL, the key export links are signed with, and the bounds on
   * downloads (@default DEFAULT_EXPORT_LIMITS).
   */
  exports: { baseUrl: string; key: Uint8Array; limits?: Partial<ExportLimits> };
  /**
   * Profile definitions kept between requests (profiles/cache.ts) @default none kept: each
   * request reads the profiles it uses.
   */
  profiles?: ProfileCache;
  /** How long a group keeps readings unless it has its own (docs/telemetry.md) @default 400 days */
  observationRetentionDays?: number;
}

/** The assets subgraph: profiles, assets, relationships, views, selection filters, exports. */
export function createAssetsSubgraph(deps: AssetsDeps) {
  const exports = { tokens: new ExportTokens(deps.exports.key), baseUrl: deps.exports.baseUrl };
  const serveExport = createExportHandler({
    database: deps.database,
    tokens: exports.tokens,
    standing: deps.standing,
    clock: deps.clock,
    log: deps.log.child({ subgraph: 'assets' }),
    limits: deps.exports.limits,
    metrics: deps.metrics,
  });
  const telemetry = new TelemetryRetention(deps.db, deps.observationRetentionDays ?? 400, deps.clock);
  return createSubgraph<AssetsContext>({
    ...runtimeOf(deps),
    name: 'assets',
    typeDefs: assetsTypeDefs,
    resolvers,
    // Pages of assets answered by one statement (page-plans.ts).
    planner: planPage,
    extendContext: (base) => ({
      ...base,
      db: deps.db,
      database: deps.database,
      loaders: createAssetLoaders(deps.db, base.identity.userGroup ?? '', deps.profiles),
      exports,
      telemetry,
    }),
    routes: { [EXPORTS_ROUTE.path]: serveExport },
  });
}
