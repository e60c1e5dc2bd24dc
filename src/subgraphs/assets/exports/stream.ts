import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Database } from '../../../storage/database.ts';
import type { Tables } from '../../../storage/tables.ts';
import type { ResolvedExport } from './spec.ts';

export type ExportFormat = 'CSV' | 'XLSX';

/** `pg`'s own value serialisation (untyped in @types/pg). */
const pgUtils = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

/** Rows per keyset step: big enough to amortise a round trip, small enough to bound memory. */
export const EXPORT_BATCH = 2000;

/** Excel's limit on the characters of one cell. */
const EXCEL_CELL_MAX = 32767;

type Mode = 'text' | 'json';

/** The first non-null default of each property, as `Asset.properties` shows it. */
function defaultsOf(spec: ResolvedExport): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const def of spec.profile.properties) {
    if (!out.has(def.name) && def.default !== undefined && def.default !== null)
      out.set(def.name, def.default);
  }
  return out;
}

/**
 * The export's rows in id order: `id`, display name, then each property's *effective* value
 * (the stored value, else the profile's default). `text` gives PostgreSQL's text of the JSON
 * value (a string unquoted, other values as JSON), `json` the JSON value itself.
 */
function rowsQuery(db: Kysely<Tables>, spec: ResolvedExport, mode: Mode, after?: string, limit?: number) {
  const defaults = defaultsOf(spec);
  const columns = spec.properties.map((name, i) => {
    const fallback = defaults.get(name);
    if (mode === 'text') {
      const text =
        fallback === undefined ? null : typeof fallback === 'string' ? fallback : JSON.stringify(fallback);
      return sql<string | null>`coalesce(a.properties ->> ${name}::text, ${text}::text)`.as(`c${i}`);
    }
    const json = fallback === undefined ? null : JSON.stringify(fallback);
    return sql<unknown>`coalesce(nullif(a.properties -> ${name}::text, 'null'::jsonb), ${json}::jsonb)`.as(
      `c${i}`,
    );
  });
  let q = db
    .selectFrom('assets as a')
    .select(['a.id', 'a.display_name'])
    .select(columns)
    .where('a.user_group', '=', spec.group)
    .where('a.profile', '=', spec.profile.profile);
  if (spec.where) q = q.where(spec.where);
  if (after !== undefined) q = q.where('a.id', '>', after);
  q = q.orderBy('a.id');
  if (limit !== undefined) q = q.limit(limit);
  return q.compile();
}

export function headerOf(spec: ResolvedExport): string[] {
  return ['id', 'displayName', ...spec.properties];
}

/**
 * Splices bound values into SQL as literals, for `COPY (query) TO STDOUT`, which takes no
 * parameters. Each value becomes exactly the text `pg` would send for it (untyped, so the same
 * casts apply), quoted by `pg`'s own escaping; `$n` is replaced only outside quotes.
 */
export function inlineParameters(text: string, parameters: readonly unknown[]): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const escapes = c === "'" && /[eE]/.test(text[i - 1] ?? '') && !/[\w$]/.test(text[i - 2] ?? '');
      const end = closingQuote(text, i, c, escapes);
      out += text.slice(i, end);
      i = end;
    } else if (c === '$' && /[0-9]/.test(text[i + 1] ?? '') && !/[\w$]/.test(text[i - 1] ?? '')) {
      let j = i + 1;
      while (/[0-9]/.test(text[j] ?? '')) j++;
      const n = Number(text.slice(i + 1, j));
      if (n < 1 || n > parameters.length) throw new Error(`no value for parameter $${n}`);
      const value = pgUtils.prepareValue(parameters[n - 1]) as string | null;
      out += value === null ? 'null' : pg.escapeLiteral(String(value));
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The end of a quoted run; `escapes` for E'...' strings, where a backslash escapes. */
function closingQuote(text: string, start: number, quote: string, escapes: boolean): number {
  let i = start + 1;
  while (i < text.length) {
    if (escapes && text[i] === '\\') i += 2;
    else if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  throw new Error('unterminated quote in generated SQL');
}

/**
 * Keyset batches of array rows. On PostgreSQL one read-only REPEATABLE READ transaction gives
 * the whole file one snapshot; the next batch is already being read while this one is written.
 */
async function* batches(
  database: Pick<Database, 'db' | 'pool' | 'engine'>,
  spec: ResolvedExport,
  mode: Mode,
): AsyncGenerator<unknown[][]> {
  const client = await database.pool.connect();
  const snapshot = database.engine === 'postgres';
  let finished = false;
  let pending: Promise<pg.QueryResult<unknown[]>> | undefined;
  try {
    if (snapshot) await client.query('begin isolation level repeatable read read only');
    const read = (after?: string) => {
      const q = rowsQuery(database.db, spec, mode, after, EXPORT_BATCH);
      return client.query<unknown[]>({ text: q.sql, values: q.parameters as unknown[], rowMode: 'array' });
    };
    pending = read();
    for (;;) {
      const { rows } = await pending;
      const last = rows.at(-1);
      const more = rows.length === EXPORT_BATCH && last !== undefined;
      if (more) pending = read(String(last[0]));
      if (rows.length > 0) yield rows;
      if (!more) break;
    }
    if (snapshot) await client.query('commit');
    finished = true;
  } finally {
    // Abandoned mid-way (the reader went away) or failed: drop the connection rather than
    // hand back one with a transaction or a query still open.
    if (!finished) pending?.catch(() => {});
    client.release(finished ? undefined : new Error('export abandoned'));
  }
}

async function* csvByBatches(database: Pick<Database, 'db' | 'pool' | 'engine'>, spec: ResolvedExport) {
  yield Buffer.from(stringify([headerOf(spec)]));
  for await (const rows of batches(database, spec, 'text')) yield Buffer.from(stringify(rows));
}

/** PostgreSQL writes the CSV itself (`COPY ... WITH (FORMAT csv)`): the fastest path there is. */
async function* csvByCopy(database: Pick<Database, 'db' | 'pool' | 'engine'>, spec: ResolvedExport) {
  const q = rowsQuery(database.db, spec, 'text');
  const copy = `copy (${inlineParameters(q.sql, q.parameters)}) to stdout with (format csv)`;
  const client = await database.pool.connect();
  let complete = false;
  try {
    yield Buffer.from(stringify([headerOf(spec)]));
    const stream = client.query(copyTo(copy));
    for await (const chunk of stream) yield chunk as Buffer;
    complete = true;
  } finally {
    client.release(complete ? undefined : new Error('export abandoned'));
  }
}

/** A JSON value as a spreadsheet cell: numbers and booleans stay typed, the rest is text. */
function cell(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // XML 1.0 cannot carry most control characters; Excel refuses cells over its limit.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing exactly those characters
  const clean = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');
  return clean.length > EXCEL_CELL_MAX ? clean.slice(0, EXCEL_CELL_MAX) : clean;
}

/** A sheet name Excel accepts: at most 31 characters, none of `[]:*?/\`. */
export function sheetName(profile: string): string {
  const name = profile.replace(/[[\]:*?/\\]/g, '_').slice(0, 31);
  return name === '' ? 'assets' : name;
}

/**
 * XLSX through exceljs's streaming writer. Rows are committed a batch at a time and the next
 * batch waits while the output is backed up, so memory stays bounded whatever the size.
 */
async function* xlsx(database: Pick<Database, 'db' | 'pool' | 'engine'>, spec: ResolvedExport) {
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: false,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet(sheetName(spec.profile.profile));
  const source = batches(database, spec, 'json');
  const produce = async () => {
    sheet.addRow(headerOf(spec)).commit();
    for await (const rows of source) {
      for (const row of rows) sheet.addRow(row.map(cell)).commit();
      // Let the zip stream catch up before reading more.
      await new Promise((resolve) => setImmediate(resolve));
      if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), once(out, 'close')]);
      if (out.destroyed) throw new Error('export abandoned');
    }
    sheet.commit();
    await workbook.commit();
  };
  const producing = produce().catch((e: unknown) => {
    out.destroy(e as Error);
  });
  try {
    for await (const chunk of out) yield chunk as Buffer;
  } finally {
    out.destroy();
    await source.return(undefined);
    await producing;
  }
}

/** The file's bytes, produced as the reader pulls them. */
export function exportBytes(
  database: Pick<Database, 'db' | 'pool' | 'engine'>,
  spec: ResolvedExport,
  format: ExportFormat,
): AsyncGenerator<Buffer> {
  if (format === 'XLSX') return xlsx(database, spec);
  return database.engine === 'postgres' ? csvByCopy(database, spec) : csvByBatches(database, spec);
}
