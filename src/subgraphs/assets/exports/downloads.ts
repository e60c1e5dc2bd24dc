import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { fail, ok, type Result } from '../../../shared/result.ts';
import type { Tables } from '../../../storage/tables.ts';
import type { AssetErrorType } from '../error-codes.ts';
import { selectionFiltersOf } from '../selection-filters.ts';
import { resolveExport } from './spec.ts';

/** How long a saved download's link works. */
export const DOWNLOAD_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** How many downloads `assetFilterDownloads` lists, newest first. */
export const DOWNLOADS_LISTED = 100;

export interface DownloadRow {
  user_group: string;
  id: string;
  filter_id: string;
  profile: string;
  predicate: Record<string, unknown> | null;
  name: string;
  format: 'CSV' | 'XLSX';
  properties: string[];
  created_at: Date;
  created_by: string;
  expires_at: Date;
}

export interface CreateDownload {
  filterId: string;
  name?: string | null;
  properties?: readonly string[] | null;
  isExcel?: boolean | null;
}

export type DownloadOutcome = Result<DownloadRow, AssetErrorType>;

/** Longest file name kept (without extension); longer ones are cut. */
export const MAX_EXPORT_NAME = 120;

/**
 * A file name safe in a Content-Disposition header and on every file system: no path
 * separators, control or reserved characters; empty becomes the fallback.
 */
export function safeFileName(name: string | null | undefined, fallback: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing exactly those characters
  const cleaned = (name ?? '').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim();
  const cut = cleaned.replace(/^\.+/, '').slice(0, MAX_EXPORT_NAME).trim();
  return cut === '' ? fallback : cut;
}

/**
 * Records an export of a saved filter's assets. The filter's predicate is copied, so the file
 * answers the question as it was asked; the columns are checked against the profile now.
 */
export async function createDownload(
  db: Kysely<Tables>,
  group: string,
  username: string,
  input: CreateDownload,
  now: Date,
): Promise<DownloadOutcome> {
  const [filter] = await selectionFiltersOf(db, group, [input.filterId]);
  if (!filter) return fail('NOT_FOUND', `There is no asset filter ${input.filterId}.`);
  if (input.name != null && input.name.length > 1000)
    return fail('INVALID_INPUT', 'name is longer than 1000 characters.');
  const checked = await resolveExport(db, group, {
    profile: filter.profile,
    properties: input.properties,
    filter: filter.filter,
  });
  if (!checked.ok) return checked;
  const row = await db
    .insertInto('asset_downloads')
    .values({
      user_group: group,
      id: randomUUID(),
      filter_id: filter.id,
      profile: filter.profile,
      predicate: filter.filter === null ? null : JSON.stringify(filter.filter),
      name: safeFileName(input.name, filter.display_name),
      format: input.isExcel ? 'XLSX' : 'CSV',
      properties: JSON.stringify(checked.value.properties),
      created_at: now,
      created_by: username,
      expires_at: new Date(now.getTime() + DOWNLOAD_TTL_MS),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return ok(row as DownloadRow);
}

/** The longest download id looked up; ids made here are UUIDs, and no longer one names any. */
const MAX_DOWNLOAD_ID = 128;

/**
 * Withdraws a saved download of `group`: its row goes, so its link answers 404 from the next
 * fetch on (a download already streaming finishes). Another group's download is not found.
 */
export async function deleteDownload(
  db: Kysely<Tables>,
  group: string,
  id: string,
): Promise<Result<null, AssetErrorType>> {
  const gone = `There is no download ${id.length > MAX_DOWNLOAD_ID ? `${id.slice(0, MAX_DOWNLOAD_ID)}…` : id}.`;
  if (id.length > MAX_DOWNLOAD_ID) return fail('NOT_FOUND', gone);
  const deleted = await db
    .deleteFrom('asset_downloads')
    .where('user_group', '=', group)
    .where('id', '=', id)
    .executeTakeFirst();
  return deleted.numDeletedRows > 0n ? ok(null) : fail('NOT_FOUND', gone);
}

export async function downloadsOf(db: Kysely<Tables>, group: string): Promise<DownloadRow[]> {
  const rows = await db
    .selectFrom('asset_downloads')
    .selectAll()
    .where('user_group', '=', group)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(DOWNLOADS_LISTED)
    .execute();
  return rows as DownloadRow[];
}

export async function downloadById(
  db: Kysely<Tables>,
  group: string,
  id: string,
): Promise<DownloadRow | null> {
  const row = await db
    .selectFrom('asset_downloads')
    .selectAll()
    .where('user_group', '=', group)
    .where('id', '=', id)
    .executeTakeFirst();
  return (row as DownloadRow | undefined) ?? null;
}
