import type { EffectiveProfile } from '../profiles/definition.ts';

export interface UpsertOptions {
  /**
   * `copy`: `COPY ... FROM STDIN` into a temporary staging table, then one
   * `INSERT ... SELECT ... ON CONFLICT`. `insert`: multi-row `INSERT ... ON CONFLICT`
   * statements of `chunkSize` rows. Default: `copy` on PostgreSQL, `insert` on PGlite, whose
   * socket server does not speak the COPY sub-protocol (the connection is lost).
   */
  method?: 'copy' | 'insert';
  /** Rows per statement for `insert` @default 1000 */
  chunkSize?: number;
  /** Rows per COPY and merge for `copy` (all in the one transaction) @default 25000 */
  copyChunkRows?: number;
  /**
   * The caller has already refused repeated ids (the import command does, naming both lines):
   * no second set of every id is kept here.
   */
  idsChecked?: boolean;
  /** Called as rows are sent, with the count so far. */
  onProgress?: (rows: number) => void;
  /**
   * The profile. When it declares up datasets the rows are written as its `manual` layer and
   * the assets re-merged (docs/assets.md "Datasets"); otherwise they are the properties.
   */
  profile?: EffectiveProfile;
  /**
   * The versions the writer expects assets to be at (`ifVersion`; 0: not there yet), checked
   * under lock before anything is written (./versions.ts).
   */
  versions?: ReadonlyMap<string, number>;
}

export interface UpsertResult {
  rows: number;
  inserted: number;
  /** Rows that matched an existing asset (`unchanged` of them already held the same values). */
  updated: number;
  /**
   * Of `updated`, the assets left as they were because the row gave the values they hold
   * (their `modified_at` stays). Not counted for a profile with up datasets.
   */
  unchanged?: number;
  method: 'copy' | 'insert';
}

/** Raised when one call holds the same id twice (PostgreSQL cannot upsert a row twice in a statement). */
export class DuplicateIdError extends Error {
  override name = 'DuplicateIdError';
}

export const DUPLICATE_ID = 'the same asset id appears more than once in one upsert';

export interface DatasetWriteOptions {
  /** As for `upsertAssets`: COPY into the staging table on PostgreSQL, INSERT on PGlite. */
  method?: 'copy' | 'insert';
  /** Rows per staging statement for `insert` @default 1000 */
  chunkSize?: number;
  onProgress?: (rows: number) => void;
  /** As for `upsertAssets`. */
  versions?: ReadonlyMap<string, number>;
}

export interface DatasetWriteResult {
  rows: number;
  /** Assets created (up datasets) — or observations new to the history (state datasets). */
  inserted: number;
  updated: number;
  method: 'copy' | 'insert';
}

/**
 * A write refused as a whole after the rows reached the database: assets the merge would
 * leave without a required property, observations of assets that do not exist, an id given
 * twice. Nothing is written.
 */
export class DatasetWriteError extends Error {
  override name = 'DatasetWriteError';
}

/** Where a bulk write goes: a group's profile, with the lookup names read under its lock. */
export interface UpsertTarget {
  group: string;
  profile: string;
  lookupNames: string[];
}
