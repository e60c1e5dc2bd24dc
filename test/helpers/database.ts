import pg from 'pg';
import { type Database, openDatabase } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';

export interface TestDatabase extends Database {
  /** A connection string other processes can use (PostgreSQL runs only). */
  readonly url: string | undefined;
}

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or a new
 * database on the PostgreSQL server named by DATABASE_URL (dropped again on close).
 */
export async function freshDatabase(
  options: { onConnect?: (c: pg.PoolClient) => void } = {},
): Promise<TestDatabase> {
  const admin = process.env.DATABASE_URL;
  if (!admin) {
    const database = await openDatabase({ memory: true }, options);
    await migrateToLatest(database.db);
    return Object.assign(database, { url: undefined });
  }
  const name = `assetql_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`create database ${name}`);
  await adminClient.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() }, options);
  await migrateToLatest(database.db);
  const close = database.close.bind(database);
  return Object.assign(database, {
    url: url.toString(),
    async close() {
      await close();
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  });
}
