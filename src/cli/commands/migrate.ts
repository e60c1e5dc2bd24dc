import { loadConfig } from '../../config/index.ts';
import { databaseTarget } from '../../server/app.ts';
import { openDatabase } from '../../storage/database.ts';
import { migrateToLatest } from '../../storage/migrate.ts';

/** `assetql migrate`: works beside a running server too (it attaches to its embedded database). */
export async function migrateCommand(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(databaseTarget(config));
  try {
    const { applied } = await migrateToLatest(database.db);
    process.stdout.write(
      `${JSON.stringify({ applied, engine: database.engine, attached: database.engine === 'pglite' && !database.ownsEmbedded })}\n`,
    );
  } finally {
    await database.close();
  }
}
