import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.ts';
import type { Tables } from '../../storage/tables.ts';
import type { BaseContext } from '../../subgraph-server/index.ts';
import type { ExportTokens } from './exports/tokens.ts';
import type { AssetLoaders } from './loaders.ts';
import type { TelemetryRetention } from './telemetry/retention.ts';

export interface AssetsContext extends BaseContext {
  db: Kysely<Tables>;
  /** The pool behind `db`, for bulk writes (COPY on PostgreSQL). */
  database: Pick<Database, 'db' | 'pool' | 'engine'>;
  loaders: AssetLoaders;
  /** Signs export links under the service's public base URL. */
  exports: { tokens: ExportTokens; baseUrl: string };
  /** How long each group keeps readings (telemetry/retention.ts). */
  telemetry: TelemetryRetention;
}
