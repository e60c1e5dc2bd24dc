import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/storage/database.ts';
import { migrateUpTo } from '../../src/storage/migrate.ts';

export interface TestDatabase extends Database {
  /** A connection string other processes can use (PostgreSQL runs only). */
  readonly url: string | undefined;
}

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or a new
 * database on the PostgreSQL server named by DATABASE_URL (dropped again on close).
 */
export async function freshDatabase(
  options: {
    onConnect?: (c: pg.PoolClient) => void;
    /** Migrate only up to this migration (an older release's schema) @default all */
    upTo?: string;
  } = {},
): Promise<TestDatabase> {
  const admin = process.env.DATABASE_URL;
  if (!admin) {
    // Fully migrated: a copy of the migrated template, which opens in a fraction of the time.
    const from = options.upTo ? undefined : await migratedTemplate();
    const database = await openDatabase({ memory: true, ...(from ? { from } : {}) }, options);
    if (!from) await migrateUpTo(database.db, options.upTo ?? null);
    return Object.assign(database, { url: undefined, close: checkedClose(database) });
  }
  const name = `assetql_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`create database ${name}`);
  await adminClient.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() }, options);
  await migrateUpTo(database.db, options.upTo ?? null);
  const close = checkedClose(database);
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

/**
 * Runs `text` on a pooled connection of its own, not through `database.db`, as another process or
 * an operator would: the app does not hear of it as its own write (src/storage/table-writes.ts).
 */
export async function onOwnConnection(
  database: Database,
  text: string,
  values: unknown[] = [],
): Promise<void> {
  const client = await database.pool.connect();
  try {
    await client.query(text, values);
  } finally {
    client.release();
  }
}

/**
 * A fresh database (see {@link freshDatabase}) that counts the SQL statements sent to it by any
 * part of the app: `statements()` is the number so far.
 */
export async function countingDatabase(): Promise<{ database: TestDatabase; statements: () => number }> {
  let count = 0;
  const database = await freshDatabase({
    onConnect: (client) => {
      const query = client.query.bind(client);
      client.query = ((...args: Parameters<typeof query>) => {
        count++;
        return query(...args);
      }) as typeof client.query;
    },
  });
  return { database, statements: () => count };
}

/** The database's own close, after checking the lookup keys (whose failure still closes it). */
function checkedClose(database: Database): () => Promise<void> {
  const close = database.close.bind(database);
  return async () => {
    try {
      await expectLookupKeysCurrent(database);
    } finally {
      await close();
    }
  };
}

/**
 * Every writer of assets keeps `lookup` (src/subgraphs/assets/lookup.ts): whatever a test file
 * wrote, by whichever path, each asset's lookup keys must be its properties restricted to its
 * profile's lookup names, and those names must cover what the group's relationships look
 * up and the properties declared searchable (more is harmless: a profile deleted by hand
 * leaves its targets' names as they were).
 * Checked when the file's database closes, against a plain reimplementation of both rules.
 */
async function expectLookupKeysCurrent(database: Database): Promise<void> {
  const { rows: stale } = await database.pool.query(
    `select a.user_group, a.profile, a.id, a.lookup, p.lookup_names from assets a
     join asset_profiles p using (user_group, profile)
     where a.lookup is distinct from (
       select jsonb_object_agg(e.key, e.value) from jsonb_each(a.properties) e
       where e.key = any(p.lookup_names) and e.value <> 'null'::jsonb)
     limit 5`,
  );
  if (stale.length > 0) throw new Error(`assets with stale lookup keys: ${JSON.stringify(stale)}`);
  const { rows: names } = await database.pool.query(
    `select p.user_group, p.profile, p.lookup_names from asset_profiles p
     where not p.lookup_names @> array(
       select n from (
         select distinct r ->> 'lookupProperty' as n from (
           select definition from asset_profiles where user_group = p.user_group
           union all select definition from asset_profile_extensions where user_group = p.user_group) d,
           jsonb_array_elements(coalesce(d.definition -> 'relationships', '[]')) r
         where r ->> 'profile' = p.profile and r ->> 'lookupType' in ('PROPERTY', 'PROPERTY_LIST')
         union
         select x ->> 'name' from (
           select definition from asset_profiles where user_group = p.user_group and profile = p.profile
           union all select definition from asset_profile_extensions
             where user_group = p.user_group and profile = p.profile) d,
           jsonb_array_elements(coalesce(d.definition -> 'properties', '[]')) x
         where x -> 'searchable' = 'true'::jsonb) x)
     limit 5`,
  );
  if (names.length > 0) throw new Error(`profiles with stale lookup names: ${JSON.stringify(names)}`);
}

let template: Promise<Blob> | undefined;

/**
 * The files of an embedded database with every migration applied, made once for all test
 * processes of this checkout and kept in the system's temporary folder under a name that changes
 * with PGlite's version and with any migration's source: opening PGlite anew (its initdb) took
 * 3-5 s of a loaded CI machine, a copy under 1 s.
 */
function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const key = createHash('sha256');
    key.update(
      JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version,
    );
    for (const dir of ['src/storage/migrations', 'src/storage'])
      for (const f of readdirSync(join(root, dir)).sort())
        if (f.endsWith('.ts')) key.update(f).update(readFileSync(join(root, dir, f)));
    const file = join(tmpdir(), `assetql-pglite-migrated-${key.digest('hex').slice(0, 16)}.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const database = await openDatabase({ memory: true });
    try {
      await migrateUpTo(database.db, null);
      const blob = await database.snapshot!();
      // Whole or not at all, whichever process writes it first.
      const partial = `${file}.${process.pid}`;
      writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
      renameSync(partial, file);
      removeStaleTemplates(file);
      return blob;
    } finally {
      await database.close();
    }
  })();
  return template;
}

/** How long another template is left alone: a run of other code may be reading it. */
const TEMPLATE_KEPT_MS = 60 * 60 * 1000;

/**
 * Removes the templates of other code (other migrations, another PGlite) not written for an hour,
 * and partial files left by a process that died while writing: each is 40 MB, and without this
 * every change to the storage code would leave one behind in the temporary folder.
 */
export function removeStaleTemplates(kept: string): void {
  const now = Date.now();
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith('assetql-pglite-migrated-')) continue;
    const path = join(tmpdir(), name);
    if (path === kept) continue;
    try {
      if (now - statSync(path).mtimeMs > TEMPLATE_KEPT_MS) rmSync(path, { force: true });
    } catch {
      // Removed meanwhile by another process: nothing to do.
    }
  }
}

/**
 * A new, empty database on the PostgreSQL server DATABASE_URL names (else the machine's, user
 * postgres), for processes a test starts to migrate and fill themselves; `drop()` removes it.
 */
export async function emptyServerDatabase(
  prefix: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const admin = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const run = async (text: string) => {
    const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  const name = `assetql_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
