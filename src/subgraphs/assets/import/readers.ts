import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { IncomingAsset } from './validate.ts';

export const IMPORT_FORMATS = ['csv', 'geojson', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One asset read from a file, with where it was found (1-based) for error reports. */
export interface ReadItem {
  /** The line the record, NDJSON object or GeoJSON feature starts on. */
  line: number;
  /** GeoJSON only: the feature's position in `features`. */
  feature?: number;
  asset: IncomingAsset;
}

/** A problem with the file as a whole (not one of its rows): nothing can be imported. */
export class ImportFileError extends Error {
  override name = 'ImportFileError';
}

export interface ReadOptions {
  /**
   * The profile's property names. A CSV column named `geometry`, `longitude` or `latitude`
   * holds the geometry unless the profile has a property of that name.
   */
  propertyNames?: ReadonlySet<string>;
  /** Called as the file is read, with the bytes read so far (for progress). */
  onBytes?: (bytes: number) => void;
}

/** The format given, else the one the file's extension names. */
export function formatOf(file: string, format?: string): ImportFormat {
  if (format !== undefined) {
    if ((IMPORT_FORMATS as readonly string[]).includes(format)) return format as ImportFormat;
    throw new ImportFileError(`unknown format "${format}": expected ${IMPORT_FORMATS.join(', ')}`);
  }
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.geojson' || ext === '.json') return 'geojson';
  if (ext === '.ndjson' || ext === '.jsonl' || ext === '.geojsonl') return 'ndjson';
  throw new ImportFileError(`cannot tell the format of "${file}" from its extension: give --format`);
}

/** The assets in a file (a path, or a stream of its bytes), one at a time. */
export function readAssets(
  source: string | Readable,
  format: ImportFormat,
  options: ReadOptions = {},
): AsyncIterable<ReadItem> {
  const input = typeof source === 'string' ? createReadStream(source) : source;
  if (options.onBytes) {
    let bytes = 0;
    const onBytes = options.onBytes;
    input.on('data', (chunk: Buffer | string) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      onBytes(bytes);
    });
  }
  switch (format) {
    case 'csv':
      return readCsv(input, options);
    case 'geojson':
      return readGeoJson(input);
    case 'ndjson':
      return readNdjson(input);
  }
}

const NUMBER = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/**
 * CSV with a header row: an `id` column, a column per property, and optionally the geometry
 * as GeoJSON text in `geometry` or as a point in `longitude` and `latitude`. Every value is
 * text; an empty cell is absent.
 */
export async function* readCsv(input: Readable, options: ReadOptions = {}): AsyncGenerator<ReadItem> {
  const names = options.propertyNames ?? new Set<string>();
  // Loaded when a CSV is first read: a server that never imports does without it.
  const { parse } = await import('csv-parse');
  const parser = input.pipe(
    parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true }),
  );
  input.on('error', (e) => parser.destroy(e));
  let header: string[] | undefined;
  let idAt = -1;
  let geometryAt = -1;
  let lonAt = -1;
  let latAt = -1;
  const propertyAt: [string, number][] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      // `info.lines` is where the record ends; a quoted field may span lines.
      let newlines = 0;
      for (const f of record) for (let i = f.indexOf('\n'); i >= 0; i = f.indexOf('\n', i + 1)) newlines++;
      const line = info.lines - newlines;
      if (!header) {
        header = record.map((h) => h.trim());
        const seen = new Set<string>();
        for (const h of header) {
          if (h === '') throw new ImportFileError('CSV: the header has an empty column name');
          if (seen.has(h)) throw new ImportFileError(`CSV: the header names column "${h}" twice`);
          seen.add(h);
        }
        header.forEach((h, i) => {
          if (h === 'id') idAt = i;
          else if (h === 'geometry' && !names.has(h)) geometryAt = i;
          else if (h === 'longitude' && !names.has(h)) lonAt = i;
          else if (h === 'latitude' && !names.has(h)) latAt = i;
          else propertyAt.push([h, i]);
        });
        if (idAt < 0) throw new ImportFileError('CSV: the header has no "id" column');
        if (lonAt < 0 !== latAt < 0)
          throw new ImportFileError('CSV: give both a "longitude" and a "latitude" column, or neither');
        continue;
      }
      const errors: string[] = [];
      if (record.length !== header.length)
        errors.push(`expected ${header.length} columns, found ${record.length}`);
      const properties: Record<string, unknown> = {};
      for (const [name, i] of propertyAt) if (i < record.length) properties[name] = record[i];
      let geometry: unknown;
      const g = geometryAt >= 0 ? (record[geometryAt] ?? '') : '';
      const lon = lonAt >= 0 ? (record[lonAt] ?? '').trim() : '';
      const lat = latAt >= 0 ? (record[latAt] ?? '').trim() : '';
      if (g.trim() !== '') geometry = g;
      if (lon !== '' || lat !== '') {
        if (geometry !== undefined) errors.push('give geometry or longitude/latitude, not both');
        else if (lon === '' || lat === '') errors.push('longitude and latitude: give both or neither');
        else if (!NUMBER.test(lon)) errors.push(`longitude: ${JSON.stringify(lon)} is not a number`);
        else if (!NUMBER.test(lat)) errors.push(`latitude: ${JSON.stringify(lat)} is not a number`);
        else geometry = { type: 'Point', coordinates: [Number(lon), Number(lat)] };
      }
      yield {
        line,
        asset: { id: record[idAt] ?? '', properties, geometry, ...(errors.length ? { errors } : {}) },
      };
    }
  } catch (e) {
    if (e instanceof ImportFileError) throw e;
    throw new ImportFileError(`CSV: ${(e as Error).message}`);
  }
  if (!header) throw new ImportFileError('CSV: the file is empty (a header row with "id" is needed)');
}

/**
 * Newline-delimited JSON: one `{ "id", "properties", "geometry"? }` object per line (blank
 * lines are skipped). A GeoJSON Feature per line (RFC 8142 without the RS) is read too.
 */
export async function* readNdjson(input: Readable): AsyncGenerator<ReadItem> {
  input.setEncoding('utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const raw of lines) {
    line++;
    const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      yield {
        line,
        asset: { id: undefined, properties: {}, errors: [`not valid JSON: ${(e as Error).message}`] },
      };
      continue;
    }
    if (typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Feature') {
      yield { line, asset: featureAsset(value) };
      continue;
    }
    yield { line, asset: plainAsset(value) };
  }
}

function plainAsset(value: unknown): IncomingAsset {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { id: undefined, properties: {}, errors: ['expected an object { id, properties, geometry }'] };
  const o = value as Record<string, unknown>;
  const errors: string[] = [];
  const extra = Object.keys(o).filter((k) => k !== 'id' && k !== 'properties' && k !== 'geometry');
  if (extra.length) errors.push(`unknown ${extra.length === 1 ? 'field' : 'fields'}: ${extra.join(', ')}`);
  let properties: Record<string, unknown> = {};
  if (o.properties !== undefined && o.properties !== null) {
    if (typeof o.properties === 'object' && !Array.isArray(o.properties))
      properties = o.properties as Record<string, unknown>;
    else errors.push('properties: expected an object');
  }
  return {
    id: idOf(o.id),
    properties,
    geometry: o.geometry ?? undefined,
    ...(errors.length ? { errors } : {}),
  };
}

/** A GeoJSON Feature: `id`, else `properties.id`, is the asset id. */
function featureAsset(value: unknown): IncomingAsset {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { id: undefined, properties: {}, errors: ['not a GeoJSON Feature object'] };
  const f = value as Record<string, unknown>;
  const errors: string[] = [];
  if (f.type !== 'Feature') errors.push(`type ${JSON.stringify(f.type) ?? 'missing'}: expected "Feature"`);
  let properties: Record<string, unknown> = {};
  if (f.properties !== undefined && f.properties !== null) {
    if (typeof f.properties === 'object' && !Array.isArray(f.properties))
      properties = { ...(f.properties as Record<string, unknown>) };
    else errors.push('properties: expected an object or null');
  }
  let id = f.id;
  // `properties.id` is the id when the feature has none, or when it repeats the feature's.
  if ('id' in properties && (id === undefined || id === null || idOf(id) === idOf(properties.id))) {
    id = properties.id;
    delete properties.id;
  }
  return {
    id: idOf(id),
    properties,
    geometry: f.geometry ?? undefined,
    ...(errors.length ? { errors } : {}),
  };
}

/** GeoJSON allows numeric ids; assets have string ids. */
function idOf(id: unknown): unknown {
  return typeof id === 'number' && Number.isFinite(id) ? String(id) : id;
}

/**
 * A GeoJSON FeatureCollection, streamed: the `features` array is scanned as the file is read
 * and each feature is parsed on its own, so the file's size is not limited by memory (only
 * one feature is held at a time). The rest of the top-level object is checked at the end:
 * it must be `"type": "FeatureCollection"`.
 */
export async function* readGeoJson(input: Readable): AsyncGenerator<ReadItem> {
  input.setEncoding('utf8');
  let depth = 0;
  let inString = false;
  let escaped = false;
  let line = 1;
  let first = true;
  // At the top level (depth 1): whether a key comes next, the key being read, the last key read.
  let expectKey = false;
  let keyBuf: string | undefined;
  let lastKey: string | undefined;
  // Everything but the features themselves, to check the top-level object at the end.
  let skeleton = '';
  let sawFeatures = false;
  // Between the elements of `features` (depth 2).
  let inFeatures = false;
  // The text of the feature being read, where it started, and how many were read.
  let capture: string | undefined;
  let captureLine = 0;
  let featureNo = 0;
  const ready: ReadItem[] = [];

  const finish = (text: string) => {
    featureNo++;
    capture = undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      ready.push({
        line: captureLine,
        feature: featureNo,
        asset: { id: undefined, properties: {}, errors: [`not valid JSON: ${(e as Error).message}`] },
      });
      return;
    }
    ready.push({ line: captureLine, feature: featureNo, asset: featureAsset(value) });
  };

  for await (let chunk of input as AsyncIterable<string>) {
    if (first) {
      chunk = chunk.replace(/^\uFEFF/, '');
      first = false;
    }
    let from = 0; // where the part of `chunk` not yet added to `capture` starts
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) line++;
      if (inFeatures && capture === undefined) {
        // Between features: skip separators, stop at the end of the array, else a feature starts.
        if (c === 44 /* , */ || c === 32 || c === 10 || c === 13 || c === 9) continue;
        if (c === 93 /* ] */) {
          inFeatures = false;
          depth--;
          skeleton += ']';
          continue;
        }
        capture = '';
        from = i;
        captureLine = line;
      }
      if (capture !== undefined) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 92 /* \ */) escaped = true;
          else if (c === 34 /* " */) inString = false;
        } else if (c === 34) inString = true;
        else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
        else if ((c === 44 || c === 93) && depth === 2) {
          finish(capture + chunk.slice(from, i));
          if (c === 93) {
            inFeatures = false;
            depth--;
            skeleton += ']';
          }
        } else if (c === 125 /* } */ || c === 93) depth--;
        continue;
      }
      skeleton += chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) {
          inString = false;
          if (keyBuf !== undefined) {
            try {
              lastKey = JSON.parse(`"${keyBuf}"`);
            } catch (e) {
              // A key with a broken escape: its row is reported by the parser that follows.
              if (!(e instanceof SyntaxError)) throw e;
              lastKey = undefined;
            }
            keyBuf = undefined;
          }
          continue;
        }
        if (keyBuf !== undefined) keyBuf += chunk[i];
        continue;
      }
      if (c === 34) {
        inString = true;
        if (depth === 1 && expectKey) keyBuf = '';
      } else if (c === 123 || c === 91) {
        depth++;
        if (depth === 1) expectKey = c === 123;
        else if (depth === 2 && c === 91 && lastKey === 'features' && !expectKey && !sawFeatures) {
          sawFeatures = true;
          inFeatures = true;
        }
      } else if (c === 125 || c === 93) {
        depth--;
        if (depth < 0) throw new ImportFileError(`GeoJSON: unexpected "${chunk[i]}" on line ${line}`);
      } else if (depth === 1) {
        if (c === 58 /* : */) expectKey = false;
        else if (c === 44) expectKey = true;
      }
    }
    if (capture !== undefined) capture += chunk.slice(from);
    if (ready.length > 0) {
      yield* ready;
      ready.length = 0;
    }
  }
  if (inString || depth !== 0 || capture !== undefined || inFeatures)
    throw new ImportFileError('GeoJSON: the file ends in the middle of a value');
  let top: unknown;
  try {
    top = JSON.parse(skeleton);
  } catch (e) {
    throw new ImportFileError(`GeoJSON: not valid JSON (${(e as Error).message})`);
  }
  if (
    typeof top !== 'object' ||
    top === null ||
    (top as { type?: unknown }).type !== 'FeatureCollection' ||
    !sawFeatures
  )
    throw new ImportFileError('GeoJSON: expected a FeatureCollection with a "features" array');
}
