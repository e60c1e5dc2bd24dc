import { type Config, loadConfig, withDemoSecret } from '../config/index.ts';
import { databaseTarget } from '../server/app.ts';
import { withChangeStamp } from '../storage/change-log.ts';
import { type Database, openDatabase } from '../storage/database.ts';
import { migrateToLatest } from '../storage/migrate.ts';
import { UsageError } from './errors.ts';

/**
 * Runs `fn` with the configured database open and migrated (attaching to a running server's
 * embedded one), closing it after: what every command that touches data does. What it changes is
 * recorded in the change log as made by the command (`assetql import`, `assetql profiles`…).
 */
export async function withDatabase<T>(
  fn: (database: Database, secret: string, config: Config) => Promise<T>,
): Promise<T> {
  const config = withDemoSecret(loadConfig());
  if (config.ephemeralSecret && config.env !== 'demo') throw new UsageError('ASSETQL_SECRET is required');
  const database = await openDatabase(databaseTarget(config));
  try {
    await migrateToLatest(database.db);
    const command = process.argv[2];
    const actor = command && /^[a-z-]{1,40}$/.test(command) ? `assetql ${command}` : 'assetql';
    return await withChangeStamp({ actorKind: 'SYSTEM', actor, correlationId: null }, () =>
      fn(database, config.secret, config),
    );
  } finally {
    await database.close();
  }
}
