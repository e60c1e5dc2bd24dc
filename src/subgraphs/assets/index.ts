import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { ExportLimits } from '../../config/index.ts';
import type { Clock } from '../../shared/clock.ts';
import type { AccountStanding, IdentitySigner } from '../../shared/identity.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Metrics } from '../../shared/metrics.ts';
import { createSubgraph, type ForwardedSessions, type RequestLimits } from '../../shared/subgraph.ts';
import type { Database } from '../../storage/database.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AssetsContext } from './context.ts';
import { EXPORTS_ROUTE } from './descriptor.ts';
import { createExportHandler } from './exports/handler.ts';
import { ExportTokens } from './exports/tokens.ts';
import { createAssetLoaders } from './loaders.ts';
import { resolvers } from './resolvers/index.ts';

export const assetsTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface AssetsDeps {
  db: Kysely<Tables>;
  database: Pick<Database, 'db' | 'pool' | 'engine'>;
  signer: IdentitySigner;
  log: Logger;
  clock: Clock;
  /** Resolve sessions forwarded by another router @default none (docs/routers.md) */
  forwarded?: ForwardedSessions;
  /** Where the subgraph counts what the operator watches @default NO_METRICS */
  metrics?: Metrics;
  /** Auth's rule of a user's standing in a group: export links work only while their maker's holds. */
  standing: AccountStanding;
  /**
   * The service's public base URL, the key export links are signed with, and the bounds on
   * downloads (@default DEFAULT_EXPORT_LIMITS).
   */
  exports: { baseUrl: string; key: Uint8Array; limits?: Partial<ExportLimits> };
  /** The document limits, cost model, introspection rule and string limit of every request @default the defaults */
  requestLimits?: RequestLimits;
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
  return createSubgraph<AssetsContext>({
    name: 'assets',
    typeDefs: assetsTypeDefs,
    resolvers,
    signer: deps.signer,
    log: deps.log,
    clock: deps.clock,
    forwarded: deps.forwarded,
    limits: deps.requestLimits,
    metrics: deps.metrics,
    extendContext: (base) => ({
      ...base,
      db: deps.db,
      database: deps.database,
      loaders: createAssetLoaders(deps.db, base.identity.userGroup ?? ''),
      exports,
    }),
    routes: { [EXPORTS_ROUTE.path]: serveExport },
  });
}
