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
}

export interface AssetsTable {
  user_group: string;
  profile: string;
  id: string;
  properties: Json<Record<string, unknown>>;
  observation: Json<Record<string, unknown> | null> | null;
  geometry: Json<Record<string, unknown> | null> | null;
  display_name: string;
  is_deleted: Generated<boolean>;
  modified_at: DefaultTimestamp;
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
}

export interface Tables {
  asset_profiles: AssetProfilesTable;
  asset_profile_extensions: AssetProfileExtensionsTable;
  assets: AssetsTable;
  issues: IssuesTable;
  sessions: SessionsTable;
}
