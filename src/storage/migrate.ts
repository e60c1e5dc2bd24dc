import { type Kysely, sql } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import { LOCKS, withAdvisoryLock } from './locks.ts';
import * as foundation from './migrations/20261122T0300_foundation.ts';
import * as auth from './migrations/20261122T0400_auth.ts';
import * as rateLimits from './migrations/20261122T0500_rate_limits.ts';
import * as federated from './migrations/20261122T0600_federated_identities.ts';
import * as assetIndexes from './migrations/20261122T0700_asset_indexes.ts';
import * as assetFilters from './migrations/20261122T0800_asset_filters.ts';
import * as assetViews from './migrations/20261122T0900_asset_views.ts';
import * as assetConversions from './migrations/20261122T1000_asset_conversions.ts';
import * as assetDownloads from './migrations/20261122T1100_asset_downloads.ts';
import * as assetDatasets from './migrations/20261122T1200_asset_datasets.ts';
import * as assetSearchIndex from './migrations/20261122T1300_asset_search_index.ts';
import * as assetGeometryIndex from './migrations/20261122T1400_asset_geometry_index.ts';
import * as sessionRefs from './migrations/20261122T1500_session_refs.ts';
import * as partialGeometryIndex from './migrations/20261123T2200_partial_geometry_index.ts';
import * as lookupKeys from './migrations/20261124T0100_lookup_keys.ts';
import * as profileCheck from './migrations/20261124T0200_profile_check_per_statement.ts';
import * as rememberedDevices from './migrations/20261125T0100_remembered_devices.ts';
import * as profileNotices from './migrations/20261125T0200_profile_change_notices.ts';
import * as sessionNotices from './migrations/20261127T0100_session_change_notices.ts';
import * as changeLog from './migrations/20261128T0100_change_log.ts';
import * as webhooks from './migrations/20261128T0200_webhooks.ts';
import * as changeRelay from './migrations/20261128T0300_change_relay.ts';
import * as changeDiffCached from './migrations/20261128T0400_change_diff_cached.ts';
import * as observationReadings from './migrations/20261129T0100_observation_readings.ts';
import * as assetGeometryBox from './migrations/20261130T0100_asset_geometry_box.ts';
import * as trustedDocuments from './migrations/20261130T0200_trusted_documents.ts';
import * as sessionWriteLsn from './migrations/20261201T0100_session_write_lsn.ts';
import * as webhookStartSnapshot from './migrations/20261201T0200_webhook_start_snapshot.ts';
import * as changeActorKey from './migrations/20261202T0100_change_actor_key.ts';

/**
 * The forward migrations, oldest first. Listed here rather than read from the folder so
 * that the set is fixed at build time and the same in every process.
 */
const migrations: Record<string, Migration> = {
  '20261122T0300_foundation': foundation,
  '20261122T0400_auth': auth,
  '20261122T0500_rate_limits': rateLimits,
  '20261122T0600_federated_identities': federated,
  '20261122T0700_asset_indexes': assetIndexes,
  '20261122T0800_asset_filters': assetFilters,
  '20261122T0900_asset_views': assetViews,
  '20261122T1000_asset_conversions': assetConversions,
  '20261122T1100_asset_downloads': assetDownloads,
  '20261122T1200_asset_datasets': assetDatasets,
  '20261122T1300_asset_search_index': assetSearchIndex,
  '20261122T1400_asset_geometry_index': assetGeometryIndex,
  '20261122T1500_session_refs': sessionRefs,
  '20261123T2200_partial_geometry_index': partialGeometryIndex,
  '20261124T0100_lookup_keys': lookupKeys,
  '20261124T0200_profile_check_per_statement': profileCheck,
  '20261125T0100_remembered_devices': rememberedDevices,
  '20261125T0200_profile_change_notices': profileNotices,
  '20261127T0100_session_change_notices': sessionNotices,
  '20261128T0100_change_log': changeLog,
  '20261128T0200_webhooks': webhooks,
  '20261128T0300_change_relay': changeRelay,
  '20261128T0400_change_diff_cached': changeDiffCached,
  '20261129T0100_observation_readings': observationReadings,
  '20261130T0100_asset_geometry_box': assetGeometryBox,
  '20261130T0200_trusted_documents': trustedDocuments,
  '20261201T0100_session_write_lsn': sessionWriteLsn,
  '20261201T0200_webhook_start_snapshot': webhookStartSnapshot,
  '20261202T0100_change_actor_key': changeActorKey,
};

/**
 * Every migration runs without the serving statement timeout (docs/security.md): building an
 * index over a large table may take minutes, and is not a request. `set local` ends with the
 * migrations' transaction.
 */
const provider: MigrationProvider = {
  getMigrations: async () =>
    Object.fromEntries(
      Object.entries(migrations).map(([name, m]) => [
        name,
        {
          ...m,
          // biome-ignore lint/suspicious/noExplicitAny: migrations run before any table type holds
          async up(db: Kysely<any>) {
            await sql`set local statement_timeout = 0`.execute(db);
            await m.up(db);
          },
        },
      ]),
    ),
};

export interface MigrationReport {
  applied: string[];
  pending: number;
}

/**
 * Applies every pending migration (Kysely runs them in one transaction). Safe to run from
 * several processes at once: each waits for the others under an advisory lock.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run before any table type holds
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationReport> {
  return migrateUpTo(db, null);
}

/**
 * Applies pending migrations up to and including `name` (all of them for null): the state an
 * older release left, for tests of a migration over existing data.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run before any table type holds
export async function migrateUpTo(db: Kysely<any>, name: string | null): Promise<MigrationReport> {
  if (name !== null && !(name in migrations)) throw new Error(`no migration ${name}`);
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'assetql_migrations',
    migrationLockTableName: 'assetql_migrations_lock',
  });
  // Kysely takes an advisory lock of its own, but only after creating its migration tables
  // with `create table if not exists`, which two processes racing on an empty database both
  // attempt (one fails on a duplicate pg_type row): the whole run goes under ours.
  const { error, results } = await withAdvisoryLock(db, LOCKS.migrations, () =>
    name === null ? migrator.migrateToLatest() : migrator.migrateTo(name),
  );
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  const names = Object.keys(migrations);
  const done = name === null ? names.length : names.indexOf(name) + 1;
  return { applied, pending: names.length - done };
}
