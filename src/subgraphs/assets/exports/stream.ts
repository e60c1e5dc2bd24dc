import { on, once } from 'node:events';
import { PassThrough } from 'node:stream';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Database } from '../../../storage/database.ts';
import type { Tables } from '../../../storage/tables.ts';
import { propertyDefaults } from '../profiles/effective-properties.ts';
import type { ResolvedExport } from './spec.ts';

export type ExportFormat = 'CSV' | 'XLSX';

/** `pg`'s own value serialisation (untyped in @types/pg). */
const pgUtils = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

/** Rows per keyset step: big enough to amortise a round trip, small enough to bound memory. */
export const EXPORT_BATCH = 2000;

/** The size of the blocks a CSV export is written in. */
const BLOCK_BYTES = 64 * 1024;

/** Excel's limit on the characters of one cell. */
const EXCEL_CELL_MAX = 32767;

/**
 * The export's rows in id order: `id`, display name, then PostgreSQL's text of each property's
 * *effective* value (profiles/effective-properties.ts: the stored value, else the profile's
 * default; `->>` reads JSON null as SQL null, so it takes the default too): a string unquoted,
 * any other JSON value as its JSON text, SQL null when there is neither.
 */
function rowsQuery(db: Kysely<Tables>, spec: ResolvedExport, after?: string, limit?: number) {
  const defaults = new Map(propertyDefaults(spec.profile));
  const columns = spec.properties.map((name, i) => {
    const fallback = defaults.get(name);
    const text =
      fallback === undefined ? null : typeof fallback === 'string' ? fallback : JSON.stringify(fallback);
    return sql<string | null>`coalesce(a.properties ->> ${name}::text, ${text}::text)`.as(`c${i}`);
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
): AsyncGenerator<unknown[][]> {
  const client = await database.pool.connect();
  const snapshot = database.engine === 'postgres';
  let finished = false;
  let pending: Promise<pg.QueryResult<unknown[]>> | undefined;
  try {
    if (snapshot) await client.query('begin isolation level repeatable read read only');
    const read = (after?: string) => {
      const q = rowsQuery(database.db, spec, after, EXPORT_BATCH);
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
  // Loaded at the first CSV export.
  const { stringify } = await import('csv-stringify/sync');
  yield Buffer.from(stringify([headerOf(spec)]));
  for await (const rows of batches(database, spec)) yield Buffer.from(stringify(rows));
}

/**
 * The raw output of `COPY (the export's rows) TO STDOUT` in `format`, on a connection of its
 * own: one statement, so one snapshot. A reader that goes away mid-way drops the connection
 * rather than hand back one with a COPY or its transaction still open.
 */
async function* copyOut(
  database: Pick<Database, 'db' | 'pool' | 'engine'>,
  spec: ResolvedExport,
  format: 'csv' | 'text',
): AsyncGenerator<Buffer> {
  const q = rowsQuery(database.db, spec);
  const copy = `copy (${inlineParameters(q.sql, q.parameters)}) to stdout with (format ${format})`;
  const client = await database.pool.connect();
  let complete = false;
  try {
    // The COPY runs for as long as the client reads, at the client's pace: the statement timeout
    // of requests (set on every pooled connection) would cut a large download after a few
    // seconds. Its bounds are the export limits instead (a slot, the first-byte and idle limits:
    // docs/exports.md), so it runs in a transaction of its own with the timeout lifted.
    await client.query('begin read only');
    await client.query('set local statement_timeout = 0');
    // Chunks as COPY delivers them: iterating the stream itself would join whatever is buffered
    // into a new buffer on every read (measured: 119 MB of copies in a million-row export).
    const stream = client.query(copyTo(copy));
    try {
      for await (const [chunk] of on(stream, 'data', { close: ['end'], highWaterMark: 4 }))
        yield chunk as Buffer;
      await client.query('commit');
      complete = true;
    } finally {
      // Left early, the stream outlives the iteration: dropping the connection below makes it
      // emit an error that nothing would otherwise be listening for.
      if (!complete) stream.on('error', () => {}).destroy();
    }
  } finally {
    client.release(complete ? undefined : new Error('export abandoned'));
  }
}

/** PostgreSQL writes the CSV itself (`COPY ... WITH (FORMAT csv)`): the fastest path there is. */
async function* csvByCopy(database: Pick<Database, 'db' | 'pool' | 'engine'>, spec: ResolvedExport) {
  const { stringify } = await import('csv-stringify/sync');
  yield Buffer.from(stringify([headerOf(spec)]));
  // COPY sends a message per row; pass them on in blocks, not one write per row.
  let block: Buffer[] = [];
  let size = 0;
  for await (const chunk of copyOut(database, spec, 'csv')) {
    block.push(chunk);
    size += chunk.length;
    if (size >= BLOCK_BYTES) {
      yield Buffer.concat(block, size);
      block = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(block, size);
}

/** The most bytes of COPY text decoded at once (about a hundred rows of a typical export). */
const COPY_PIECE_BYTES = 16 * 1024;

/** What each backslash sequence of COPY's text format stands for (COPY TO emits no others). */
const COPY_ESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/** One field of COPY's text format: `\N` is null; any other backslashed character is itself. */
function copyField(field: string): string | null {
  if (field === '\\N') return null;
  return field.includes('\\') ? field.replace(/\\(.)/gs, (_, c: string) => COPY_ESCAPES[c] ?? c) : field;
}

/** Whole lines of COPY's text format (each ending in a newline; none inside a field). */
export function decodeCopyLines(text: string): (string | null)[][] {
  const lines = text.split('\n');
  lines.pop();
  return lines.map((line) => {
    const fields: (string | null)[] = line.split('\t');
    for (let i = 0; i < fields.length; i++) fields[i] = copyField(fields[i] as string);
    return fields;
  });
}

/**
 * Rows of COPY's text format from chunks that may end anywhere, even inside a character,
 * decoded a piece of whole lines at a time: no copy of a chunk, and no string long enough to
 * be allocated outside the young generation.
 */
export async function* decodeCopyChunks(chunks: AsyncIterable<Buffer>): AsyncGenerator<(string | null)[][]> {
  // The bytes of a row not yet ended, copied out of the chunk that held them.
  let rest: Buffer | undefined;
  for await (const chunk of chunks) {
    let start = 0;
    if (rest) {
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      yield decodeCopyLines(Buffer.concat([rest, chunk.subarray(0, nl + 1)]).toString('utf8'));
      rest = undefined;
      start = nl + 1;
    }
    while (start < chunk.length) {
      let end = chunk.lastIndexOf(10, Math.min(start + COPY_PIECE_BYTES, chunk.length) - 1) + 1;
      if (end <= start) end = chunk.indexOf(10, start) + 1;
      if (end <= start) {
        rest = Buffer.from(chunk.subarray(start));
        break;
      }
      yield decodeCopyLines(chunk.toString('utf8', start, end));
      start = end;
    }
  }
  if (rest !== undefined) throw new Error('COPY ended inside a row');
}

/**
 * The export's rows from `COPY ... TO STDOUT` in text format, decoded as the XLSX writer takes
 * them. Rows wait in the socket as bytes while the writer is behind, rather than as parsed rows
 * on the JavaScript heap: parsed early, a row outlived two young-generation collections and
 * went to the old generation (measured: most of an XLSX export's heap growth).
 */
function rowsByCopy(database: Pick<Database, 'db' | 'pool' | 'engine'>, spec: ResolvedExport) {
  return decodeCopyChunks(copyOut(database, spec, 'text'));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding exactly those characters
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** Text for a cell: without characters XML 1.0 cannot carry, within Excel's cell limit. */
function text(value: string): string {
  NOT_XML.lastIndex = 0;
  const clean = NOT_XML.test(value) ? value.replace(NOT_XML, '') : value;
  return clean.length > EXCEL_CELL_MAX ? clean.slice(0, EXCEL_CELL_MAX) : clean;
}

type Cell = string | number | boolean | null;

/**
 * Turns PostgreSQL's text of a property value into a typed cell by the property's type:
 * numbers and booleans stay typed, everything else (JSON as its text) is a text cell. A value
 * that does not fit its type (possible in old data) stays text rather than becoming wrong.
 */
function cellOf(type: string | undefined): (value: string | null) => Cell {
  switch (type) {
    case 'NUMBER':
    case 'INTEGER':
      return (v) => {
        if (v === null) return null;
        const n = Number(v);
        return v.trim() !== '' && Number.isFinite(n) ? n : text(v);
      };
    case 'BOOLEAN':
      return (v) => (v === null ? null : v === 'true' ? true : v === 'false' ? false : text(v));
    default:
      return (v) => (v === null ? null : text(v));
  }
}

/** A sheet name Excel accepts: at most 31 characters, none of `[]:*?/\`. */
export function sheetName(profile: string): string {
  const name = profile.replace(/[[\]:*?/\\]/g, '_').slice(0, 31);
  return name === '' ? 'assets' : name;
}

/** How far the XML may run ahead of the zip compressor before the writer waits. */
const XLSX_BACKLOG_BYTES = 1 << 20;

/**
 * Bytes exceljs has handed to the zip entry of `sheet` that the compressor has not yet taken.
 * exceljs 4 ignores backpressure between a sheet and its zip entry, so without this check a
 * large export would sit in memory (measured: the whole file). The sheet's stream and its pipe
 * are exceljs internals (version pinned by the lock file); stream.test.ts checks that the
 * backlog can be read.
 */
export function backlog(sheet: unknown): number {
  const sink = (sheet as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as
    | { _writableState?: { length: number }; _readableState?: { length: number } }
    | undefined;
  return (sink?._writableState?.length ?? 0) + (sink?._readableState?.length ?? 0);
}

/**
 * XLSX through exceljs's streaming writer. Rows are committed a batch at a time and the next
 * batch waits while the output is backed up, so memory stays bounded whatever the size.
 */
async function* xlsx(database: Pick<Database, 'db' | 'pool' | 'engine'>, spec: ResolvedExport) {
  // exceljs is large (~35 MB resident): it loads with the first XLSX export, not at start.
  const { default: ExcelJS } = await import('exceljs');
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: false,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet(sheetName(spec.profile.profile));
  const source = database.engine === 'postgres' ? rowsByCopy(database, spec) : batches(database, spec);
  const types = new Map<string, string>();
  for (const def of spec.profile.properties) if (!types.has(def.name)) types.set(def.name, def.type);
  const cells = [cellOf(undefined), cellOf(undefined), ...spec.properties.map((p) => cellOf(types.get(p)))];
  const produce = async () => {
    sheet.addRow(headerOf(spec)).commit();
    for await (const rows of source) {
      for (const row of rows as Cell[][]) {
        // The row array is this loop's own: its text values become typed cells in place.
        for (let i = 0; i < row.length; i++) row[i] = cells[i]!(row[i] as string | null);
        sheet.addRow(row).commit();
      }
      // exceljs writes the sheet into the zip without waiting for the compressor; wait here
      // until it has caught up, and until the reader has taken what was compressed.
      while (backlog(sheet) > XLSX_BACKLOG_BYTES && !out.destroyed)
        await new Promise((r) => setTimeout(r, 1));
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
