import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { AssetImportRow } from '../import/validate.ts';
import { lookupSql } from './lookup-keys.ts';
import { type UpsertCounts, upsertSql } from './rule.ts';
import {
  DUPLICATE_ID,
  DuplicateIdError,
  type UpsertOptions,
  type UpsertResult,
  type UpsertTarget,
} from './types.ts';

/** Rows per COPY and merge inside the one transaction of `copy`. */
export const COPY_CHUNK_ROWS = 25_000;
/** COPY text blocks (of about 256 KB) read ahead of the database: bounds memory. */
const READ_AHEAD_BLOCKS = 64;

type Rows = Iterable<AssetImportRow> | AsyncIterable<AssetImportRow>;

/**
 * The bulk path of `upsertAssets`: rows are COPY'd into a temporary staging table and merged
 * into `assets` by the one upsert statement (./rule.ts), chunk by chunk in the caller's
 * transaction, while the next chunk is read and formatted.
 */
export async function viaCopy(
  client: pg.PoolClient,
  target: UpsertTarget,
  rows: Rows,
  options: UpsertOptions,
): Promise<Omit<UpsertResult, 'method'>> {
  const { group, profile, lookupNames } = target;
  await client.query(`
    create temp table assetql_import_staging (
      id text not null,
      properties jsonb not null,
      geometry jsonb,
      display_name text not null,
      is_deleted boolean not null
    ) on commit drop`);
  const step = Math.max(1, options.copyChunkRows ?? COPY_CHUNK_ROWS);
  const onProgress = options.onProgress;
  const ids = options.idsChecked ? undefined : new Set<string>();
  const blocks = channel<Block>(READ_AHEAD_BLOCKS);
  // The rows are turned into COPY text while the database merges the chunk before: reading,
  // validating and formatting run on this process's core, COPY and the merge on the server's.
  const produce = async () => {
    let text = '';
    let inBlock = 0;
    let inChunk = 0;
    const put = async (end: boolean) => {
      const ok = await blocks.put({ text, rows: inBlock, end });
      text = '';
      inBlock = 0;
      return ok;
    };
    for await (const r of rows) {
      if (ids) {
        if (ids.has(r.id)) throw new DuplicateIdError(DUPLICATE_ID);
        ids.add(r.id);
      }
      text += `${copyText(r.id)}\t${json(r.properties)}\t${r.geometry ? json(r.geometry) : '\\N'}\t${copyText(r.display_name)}\t${r.is_deleted ? 't' : 'f'}\n`;
      inBlock++;
      if (++inChunk >= step) {
        inChunk = 0;
        if (!(await put(true))) return;
      } else if (text.length >= 1 << 18 && !(await put(false))) return;
    }
    if (inBlock > 0) await put(true);
  };
  const producing = produce().then(
    () => blocks.end(),
    (e: unknown) => blocks.end(e),
  );

  const merge = upsertSql({
    rows: `select s.id, s.properties, s.geometry,
        ${lookupSql(lookupNames.length, 's.properties', '$3::text[]')} as lookup, s.display_name, s.is_deleted
      from assetql_import_staging s`,
  });
  let n = 0;
  let inserted = 0;
  let changed = 0;
  try {
    for (let head = await blocks.take(); head !== undefined; head = await blocks.take()) {
      const first: Block = head;
      // One COPY per chunk, then one set-based merge of that chunk into `assets`.
      async function* chunk(): AsyncGenerator<string> {
        for (let b: Block | undefined = first; b !== undefined; b = b.end ? undefined : await blocks.take()) {
          n += b.rows;
          yield b.text;
          onProgress?.(n);
        }
      }
      await pipeline(
        Readable.from(chunk(), { objectMode: false }),
        client.query(
          copyFrom(
            'copy assetql_import_staging (id, properties, geometry, display_name, is_deleted) from stdin',
          ),
        ),
      );
      const { rows: counts } = await client.query<UpsertCounts>(merge, [group, profile, lookupNames]);
      inserted += counts[0]!.inserted;
      changed += counts[0]!.changed;
      await client.query('truncate assetql_import_staging');
    }
  } finally {
    blocks.close();
    await producing;
  }
  return { rows: n, inserted, updated: n - inserted, unchanged: n - inserted - changed };
}

interface Block {
  text: string;
  rows: number;
  /** The last block of a chunk. */
  end: boolean;
}

/** A bounded queue between one producer and one consumer. */
function channel<T>(capacity: number) {
  const items: T[] = [];
  let ended = false;
  let closed = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const wait = () => new Promise<void>((r) => (wake = r));
  return {
    /** False once the consumer has closed the queue: stop producing. */
    async put(item: T): Promise<boolean> {
      while (items.length >= capacity && !closed) await wait();
      if (closed) return false;
      items.push(item);
      notify();
      return true;
    },
    /** The next item; undefined at the end; throws what the producer threw. */
    async take(): Promise<T | undefined> {
      while (items.length === 0 && !ended) await wait();
      if (failure) throw failure.error;
      const item = items.shift();
      notify();
      return item;
    },
    end(error?: unknown) {
      ended = true;
      if (error !== undefined) failure = { error };
      notify();
    },
    close() {
      closed = true;
      notify();
    },
  };
}

/** COPY text format: backslash, tab, newline and carriage return are escaped. */
export function copyText(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : s;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** JSON text has no raw tab or line break (JSON.stringify escapes them): only backslashes. */
function json(v: unknown): string {
  const s = JSON.stringify(v);
  return s.includes('\\') ? s.replaceAll('\\', '\\\\') : s;
}
