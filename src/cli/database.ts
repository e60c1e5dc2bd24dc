import { type Config, loadConfig, withDemoSecret } from '../config/index.ts';
import { databaseTarget } from '../server/app.ts';
import { type Database, openDatabase } from '../storage/database.ts';
import { migrateToLatest } from '../storage/migrate.ts';
import { UsageError } from './errors.ts';

/**
 * Runs `fn` with the configured database open and migrated, closing it after: what every command
 * that touches data does.
 */
/** Opens the configured database (attaching to a running server's embedded one) for one command. */
export async function withDatabase<T>(
  fn: (database: Database, secret: string, config: Config) => Promise<T>,
): Promise<T> {
  const config = withDemoSecret(loadConfig());
  if (config.ephemeralSecret && config.env !== 'demo') throw new UsageError('ASSETQL_SECRET is required');
  const database = await openDatabase(databaseTarget(config));
  try {
    await migrateToLatest(database.db);
    return await fn(database, config.secret, config);
  } finally {
    await database.close();
  }
}
