import type { ColumnType, Generated } from 'kysely';

/** A timestamptz column: read as Date, written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamptz column with a database default. */
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = unknown> = ColumnType<T, string, string>;

export interface AssetProfilesTable {
  user_group: string;
  profile: string;
  title: string;
  owner_username: string;
  /** The profile document less its extensions (docs/assets.md). */
  definition: Json<Record<string, unknown>>;
  /** Derived from the group's relationships: what its assets are found by (assets/lookup.ts). */
  lookup_names: Generated<string[]>;
  version: Generated<number>;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface AssetProfileExtensionsTable {
  user_group: string;
  profile: string;
  extension: string;
  definition: Json<Record<string, unknown>>;
  updated_at: DefaultTimestamp;
  version: Generated<number>;
}

export interface AssetsTable {
  user_group: string;
  profile: string;
  id: string;
  properties: Json<Record<string, unknown>>;
  observation: Json<Record<string, unknown> | null> | null;
  /** When each key of `observation` was observed (ISO text): late, older values never win. */
  observation_at: Json<Record<string, string> | null> | null;
  geometry: Json<Record<string, unknown> | null> | null;
  /** asset_bbox(geometry), kept by the database (a generated column): never written. */
  geometry_box: ColumnType<string | null, never, never>;
  /** `properties` restricted to the profile's lookup names; null when none (assets/lookup.ts). */
  lookup: Json<Record<string, unknown> | null> | null;
  display_name: string;
  is_deleted: Generated<boolean>;
  modified_at: DefaultTimestamp;
  /** Counts the asset's changes; the database moves it (the change log's migration). */
  version: Generated<number>;
}

export interface IssuesTable {
  user_group: string;
  id: string;
  seq: Generated<number>;
  display_name: string;
  description: string | null;
  status: string;
  subject_type: string | null;
  subject_reference: string | null;
  created_at: DefaultTimestamp;
  created_by: string;
}

export interface SessionsTable {
  /** SHA-256 of the session ID; the ID itself is never stored. */
  id_hash: Buffer;
  kind: string;
  username: string;
  user_group: string | null;
  client_type: string;
  created_at: DefaultTimestamp;
  expires_at: Timestamp;
  expires_at_hard: Timestamp;
  last_authenticated_at: Timestamp | null;
  last_seen_at: DefaultTimestamp;
  challenge_name: string | null;
  challenge_param: Json<Record<string, unknown> | null> | null;
  device_key: string | null;
  api_key_id: string | null;
  challenge_attempts: Generated<number>;
  challenge_state: Json<Record<string, unknown> | null> | null;
  /** A random reference shown to the session's user (a UUID); never the ID or its hash. */
  public_id: Generated<string>;
  /** The client address at sign-in. */
  ip_address: string | null;
}

export interface UsersTable {
  username: string;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  disabled: Generated<boolean>;
  mfa: string | null;
  mfa_required: Generated<boolean>;
  totp_secret: string | null;
  totp_last_step: Generated<number>;
  require_new_password: Generated<boolean>;
  failed_attempts: Generated<number>;
  locked_until: Timestamp | null;
  password_changed_at: Timestamp | null;
  created_at: DefaultTimestamp;
}

export interface UserGroupsTable {
  username: string;
  user_group: string;
}

export interface DevicesTable {
  username: string;
  device_key: string;
  name: string | null;
  remembered: Generated<boolean>;
  created_at: DefaultTimestamp;
  last_signed_in_at: Timestamp | null;
  last_ip_address: string | null;
  /** SHA-256 of the secret a remembered device proves itself with; null when not remembered. */
  secret_hash: Buffer | null;
  /** When the device was remembered (its maximum age runs from here); null when not remembered. */
  remembered_at: Timestamp | null;
}

export interface ApiKeysTable {
  username: string;
  api_key_id: string;
  user_group: string;
  created_at: DefaultTimestamp;
  last_used_at: Timestamp | null;
}

export interface PasswordResetsTable {
  username: string;
  code_hash: Buffer;
  expires_at: Timestamp;
  attempts: Generated<number>;
}

export interface OutboxTable {
  id: Generated<number>;
  channel: string;
  recipient: string;
  subject: string | null;
  body: string;
  created_at: DefaultTimestamp;
}

export interface AuthEventsTable {
  id: Generated<number>;
  at: DefaultTimestamp;
  username: string | null;
  event: string;
  ip: string | null;
  detail: Json<Record<string, unknown> | null> | null;
}

export interface FederatedIdentitiesTable {
  issuer: string;
  subject: string;
  username: string;
  created_at: DefaultTimestamp;
  last_signed_in_at: Timestamp | null;
}

export interface AssetFiltersTable {
  user_group: string;
  id: string;
  display_name: string;
  description: string | null;
  profile: string;
  filter: Json<Record<string, unknown> | null> | null;
  sub_profiles: Json<unknown[]>;
  version: Generated<number>;
  created_at: DefaultTimestamp;
  created_by: string;
  updated_at: DefaultTimestamp;
  updated_by: string;
}

export interface AssetViewsTable {
  user_group: string;
  profile: string;
  id: string;
  name: string | null;
  map: Json<Record<string, unknown> | null> | null;
  layouts: Json<Record<string, unknown[]>>;
  version: Generated<number>;
  updated_at: DefaultTimestamp;
  updated_by: string;
}

export interface AssetConversionsTable {
  user_group: string;
  profile: string;
  id: string;
  name: string | null;
  target_profile: string;
  property_mappings: Json<unknown[]>;
  source_relationship: string | null;
  delete_source: Generated<boolean>;
  updated_at: DefaultTimestamp;
  updated_by: string;
  version: Generated<number>;
}

export interface AssetDownloadsTable {
  user_group: string;
  id: string;
  filter_id: string;
  profile: string;
  predicate: Json<Record<string, unknown> | null> | null;
  name: string;
  format: 'CSV' | 'XLSX';
  properties: Json<string[]>;
  created_at: DefaultTimestamp;
  created_by: string;
  expires_at: Date;
  version: Generated<number>;
}

export interface AssetDatasetRowsTable {
  user_group: string;
  profile: string;
  dataset: string;
  asset_id: string;
  /** Keyed by the dataset's column names; property maps rename them when merged. */
  values: Json<Record<string, unknown>>;
  modified_at: DefaultTimestamp;
}

/** One time series: an asset's key of one state dataset (docs/telemetry.md). */
export interface ObservationSeriesTable {
  id: Generated<string>;
  user_group: string;
  profile: string;
  asset_id: string;
  dataset: string;
  property: string;
}

/** One reading: a number in `num`, any other value in `val`. Partitioned by month of `at`. */
export interface ObservationReadingsTable {
  series: string;
  at: Timestamp;
  num: number | null;
  val: Json<unknown> | null;
}

/** How long a group keeps readings, when not the deployment's default. */
export interface ObservationRetentionTable {
  user_group: string;
  days: number;
}

/** Counters kept at write time for `UpDataset` and `StateUpdateDataset`. */
export interface AssetDatasetStatsTable {
  user_group: string;
  profile: string;
  dataset: string;
  row_count: Generated<number>;
  observation_count: Generated<number>;
  columns: ColumnType<string[], string[] | undefined, string[]>;
  modified_at: Timestamp | null;
  latest_observation_at: Timestamp | null;
}

/**
 * The change log: one entry per entity changed, written only by the database's triggers in the
 * writing transaction (migrations/20261128T0100_change_log.ts); read by the events subgraph,
 * pruned by its retention job.
 */
export interface ChangesTable {
  user_group: string;
  /** The writing transaction's id (xid8, read as text): the first part of an entry's position. */
  tx: ColumnType<string, never, never>;
  seq: ColumnType<string, never, never>;
  at: ColumnType<Date, never, never>;
  entity: string;
  profile: string;
  entity_id: string;
  kind: string;
  version: number;
  actor_kind: string | null;
  actor: string | null;
  /** The API key's public id, for an `API_KEY` actor (migrations/20261202T0100_change_actor_key.ts). */
  actor_key: string | null;
  correlation_id: string | null;
  patch: Json<Record<string, unknown>[]>;
  before: Json<Record<string, unknown> | null> | null;
  after: Json<Record<string, unknown> | null> | null;
}

/** A group's webhook: where its changes go, and how far into the log they have been delivered. */
export interface WebhooksTable {
  user_group: string;
  id: Generated<string>;
  url: string;
  description: string | null;
  filter: Json<Record<string, string[]>>;
  /** The signing secret, sealed (shared/sealed.ts). */
  secret: string;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  failing_since: Date | null;
  tx: ColumnType<string, string, string>;
  seq: ColumnType<string, string, string>;
  /** What its maker's transaction could see (pg_snapshot): changes visible in it are not delivered. */
  start_snapshot: ColumnType<string | null, never, never>;
  version: Generated<number>;
  created_by: string;
  created_at: Generated<Date>;
}

/** One change to one webhook: retried until it succeeds, or its schedule runs out. */
export interface WebhookDeliveriesTable {
  user_group: string;
  id: Generated<string>;
  webhook_id: string;
  tx: ColumnType<string, string, never>;
  seq: ColumnType<string, string, never>;
  status: Generated<'PENDING' | 'SUCCEEDED' | 'FAILED'>;
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  created_at: Generated<Date>;
}

/** One attempt of a delivery: the endpoint's status, or why there was none. */
export interface WebhookAttemptsTable {
  user_group: string;
  delivery_id: string;
  attempt: number;
  at: Generated<Date>;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** How far into each group's log the NATS relay has published. */
/** This deployment's trusted documents (storage/trusted-documents.ts writes them). */
export interface TrustedDocumentsTable {
  id: string;
  sha256: string;
  name: string | null;
  type: 'query' | 'mutation' | 'subscription';
  body: string;
  applied_at: DefaultTimestamp;
}

export interface ChangeRelayPositionsTable {
  user_group: string;
  tx: ColumnType<string, string, string>;
  seq: ColumnType<string, string, string>;
}

/** The newest position pruning took of each group's log. */
export interface ChangeHorizonsTable {
  user_group: string;
  tx: string;
  seq: string;
}

export interface Tables {
  asset_profiles: AssetProfilesTable;
  asset_profile_extensions: AssetProfileExtensionsTable;
  assets: AssetsTable;
  issues: IssuesTable;
  sessions: SessionsTable;
  users: UsersTable;
  user_groups: UserGroupsTable;
  devices: DevicesTable;
  api_keys: ApiKeysTable;
  password_resets: PasswordResetsTable;
  outbox: OutboxTable;
  auth_events: AuthEventsTable;
  federated_identities: FederatedIdentitiesTable;
  asset_filters: AssetFiltersTable;
  asset_views: AssetViewsTable;
  asset_conversions: AssetConversionsTable;
  asset_downloads: AssetDownloadsTable;
  asset_dataset_rows: AssetDatasetRowsTable;
  observation_series: ObservationSeriesTable;
  observation_readings: ObservationReadingsTable;
  observation_retention: ObservationRetentionTable;
  asset_dataset_stats: AssetDatasetStatsTable;
  changes: ChangesTable;
  change_horizons: ChangeHorizonsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  change_relay_positions: ChangeRelayPositionsTable;
  trusted_documents: TrustedDocumentsTable;
}
