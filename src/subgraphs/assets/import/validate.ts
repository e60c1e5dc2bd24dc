import { fail, ok, type Result } from '../../../shared/result.ts';
import type { EffectiveProfile, PropertyDefinition } from '../profiles/definition.ts';
import { displayNameOf } from '../profiles/display-name.ts';
import {
  effectiveProperties,
  type PropertyDefaults,
  propertyDefaults,
} from '../profiles/effective-properties.ts';

/** The longest asset id accepted. */
export const MAX_ID_LENGTH = 256;

/** One asset as a reader found it, before it is checked against the profile. */
export interface IncomingAsset {
  id: unknown;
  properties: Record<string, unknown>;
  /** GeoJSON geometry (an object, or GeoJSON text from a CSV cell); undefined when absent. */
  geometry?: unknown;
  /** Problems the reader found (bad JSON, a short CSV row, ...), reported with the others. */
  errors?: string[];
}

/**
 * A row ready for the `assets` table. `geometry` undefined means "none given": a new asset
 * gets none and an existing asset keeps its own.
 */
export interface AssetImportRow {
  id: string;
  properties: Record<string, unknown>;
  geometry: Record<string, unknown> | null | undefined;
  display_name: string;
  is_deleted: boolean;
}

/**
 * A checked row, or `INVALID_INPUT` with every problem of the row: one each in `details`, all
 * of them in `message`.
 */
export type ValidationResult<T = AssetImportRow> = Result<T, 'INVALID_INPUT'>;

/** The failure of a row with these problems (at least one). */
export function invalidRow(errors: string[]): ValidationResult<never> {
  return fail('INVALID_INPUT', errors.join('; '), errors);
}

export interface ValidateOptions {
  /**
   * `text` (CSV): every value is a string, an empty cell is absent and JSON properties are
   * parsed from their text. `json` (GeoJSON, NDJSON) @default: values keep their JSON type,
   * null is absent; numbers and booleans given as strings are still coerced.
   */
  source?: 'text' | 'json';
  /**
   * A partial row (one layer of a merged asset): required properties are checked on the
   * merge, not here.
   */
  partial?: boolean;
}

/**
 * A profile prepared for validating many rows: property definitions by name, and the values
 * defaults supply. Build it once per import with {@link prepareProfile}.
 */
export interface PreparedProfile {
  profile: EffectiveProfile;
  definitions: Map<string, PropertyDefinition>;
  defaults: PropertyDefaults;
  enums: Map<string, Set<string>>;
}

export function prepareProfile(profile: EffectiveProfile): PreparedProfile {
  const definitions = new Map<string, PropertyDefinition>();
  // An extension may not redefine a base property; if one does, the first definition wins.
  for (const p of profile.properties) if (!definitions.has(p.name)) definitions.set(p.name, p);
  const enums = new Map<string, Set<string>>();
  for (const d of definitions.values()) {
    if (d.type === 'ENUM' && d.enumValues && d.enumValues.length > 0)
      enums.set(d.name, new Set(d.enumValues));
  }
  return { profile, definitions, defaults: propertyDefaults(profile), enums };
}

/**
 * Checks one incoming asset against the effective profile and turns it into a table row:
 * the id, each property coerced to its declared type (unknown properties are refused,
 * required ones must be present once defaults apply), the geometry (RFC 7946), the display
 * name and the deleted flag (the profile's `isDeletedProperty`, truthy means deleted).
 * Stored properties are those given: defaults are applied when read, as the API does.
 */
export function validateAsset(
  profile: EffectiveProfile | PreparedProfile,
  asset: IncomingAsset,
  options: ValidateOptions = {},
): ValidationResult {
  const prepared = 'definitions' in profile ? profile : prepareProfile(profile);
  const text = options.source === 'text';
  const errors: string[] = asset.errors ? [...asset.errors] : [];

  let id = '';
  if (typeof asset.id !== 'string' || asset.id.trim() === '') errors.push('id: missing');
  else if (asset.id.length > MAX_ID_LENGTH) errors.push(`id: longer than ${MAX_ID_LENGTH} characters`);
  else if (asset.id.includes('\0')) errors.push('id: contains a NUL character');
  else id = asset.id;

  const properties: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [name, raw] of Object.entries(asset.properties)) {
    const def = prepared.definitions.get(name);
    if (!def) {
      if (!isAbsent(raw, text)) unknown.push(name);
      continue;
    }
    if (isAbsent(raw, text, def.type)) continue;
    const coerced = coerce(def, raw, text, prepared.enums.get(name));
    if ('error' in coerced) errors.push(`${name}: ${coerced.error}`);
    else properties[name] = coerced.value;
  }
  if (unknown.length > 0)
    errors.push(`unknown ${unknown.length === 1 ? 'property' : 'properties'}: ${unknown.join(', ')}`);

  for (const def of options.partial ? [] : prepared.definitions.values()) {
    if (def.required && !(def.name in properties) && (def.default === undefined || def.default === null))
      errors.push(`${def.name}: required`);
  }

  let geometry: Record<string, unknown> | null | undefined;
  if (asset.geometry !== undefined && asset.geometry !== null && asset.geometry !== '') {
    let g: unknown = asset.geometry;
    if (typeof g === 'string') {
      try {
        g = JSON.parse(g);
      } catch (e) {
        if (!(e instanceof SyntaxError)) throw e;
        errors.push('geometry: not valid JSON');
        g = undefined;
      }
    }
    if (g !== undefined) {
      const problems: string[] = [];
      checkGeometry(g, 'geometry', problems);
      errors.push(...problems);
      if (problems.length === 0) geometry = g as Record<string, unknown>;
    }
  }

  if (errors.length > 0) return invalidRow(errors);

  const shown = effectiveProperties(prepared.defaults, properties);
  const doc = prepared.profile.document;
  const deletedBy = doc.isDeletedProperty;
  return ok({
    id,
    properties,
    geometry,
    display_name: displayNameOf(doc, id, shown),
    is_deleted: deletedBy ? Boolean(shown[deletedBy]) : false,
  });
}

function isAbsent(v: unknown, text: boolean, type?: PropertyDefinition['type']): boolean {
  if (v === undefined || v === null) return true;
  // A JSON source may give an empty string for a STRING property on purpose.
  return v === '' && (text || type !== 'STRING');
}

type Coerced = { value: unknown } | { error: string };

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|([+-])(\d{2}):?(\d{2}))$/;
const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

function coerce(def: PropertyDefinition, raw: unknown, text: boolean, enumValues?: Set<string>): Coerced {
  switch (def.type) {
    case 'STRING':
      // PostgreSQL text and jsonb cannot hold NUL.
      if (typeof raw === 'string')
        return raw.includes('\0') ? { error: 'contains a NUL character' } : { value: raw };
      if (typeof raw === 'number' || typeof raw === 'boolean') return { value: String(raw) };
      return { error: 'expected a string' };
    case 'NUMBER': {
      if (typeof raw === 'number') return Number.isFinite(raw) ? { value: raw } : { error: 'not a number' };
      if (typeof raw !== 'string' || !NUMBER.test(raw.trim()))
        return { error: `${show(raw)} is not a number` };
      const n = Number(raw.trim());
      return Number.isFinite(n) ? { value: n } : { error: `${show(raw)} is out of range` };
    }
    case 'INTEGER': {
      let n: number;
      if (typeof raw === 'number') n = raw;
      else if (typeof raw === 'string' && INTEGER.test(raw.trim())) n = Number(raw.trim());
      else return { error: `${show(raw)} is not an integer` };
      if (!Number.isInteger(n)) return { error: `${show(raw)} is not an integer` };
      if (!Number.isSafeInteger(n)) return { error: `${show(raw)} is out of range` };
      return { value: n };
    }
    case 'BOOLEAN': {
      if (typeof raw === 'boolean') return { value: raw };
      const s =
        typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if (TRUE.has(s)) return { value: true };
      if (FALSE.has(s)) return { value: false };
      return { error: `${show(raw)} is not a boolean (true/false, 1/0, yes/no)` };
    }
    case 'DATE': {
      const m = typeof raw === 'string' ? DATE.exec(raw.trim()) : null;
      if (!m || !validDate(+m[1]!, +m[2]!, +m[3]!))
        return { error: `${show(raw)} is not a date (YYYY-MM-DD)` };
      return { value: m[0] };
    }
    case 'DATE_TIME': {
      const s = typeof raw === 'string' ? raw.trim() : '';
      const m = DATE_TIME.exec(s);
      if (
        !m ||
        !validDate(+m[1]!, +m[2]!, +m[3]!) ||
        +m[4]! > 23 ||
        +m[5]! > 59 ||
        (m[6] !== undefined && +m[6] > 59) ||
        (m[8] !== undefined && (+m[8] > 23 || +m[9]! > 59)) ||
        Number.isNaN(Date.parse(s))
      )
        return { error: `${show(raw)} is not an ISO 8601 date-time with an offset` };
      return { value: s };
    }
    case 'ENUM': {
      if (typeof raw !== 'string') return { error: `${show(raw)} is not one of the allowed values` };
      if (enumValues && !enumValues.has(raw))
        return { error: `${show(raw)} is not one of ${[...enumValues].join(', ')}` };
      return { value: raw };
    }
    case 'JSON': {
      let value = raw;
      if (text) {
        try {
          value = JSON.parse(raw as string);
        } catch (e) {
          if (!(e instanceof SyntaxError)) throw e;
          return { error: 'not valid JSON' };
        }
      }
      if (typeof value === 'object' && JSON.stringify(value).includes('\\u0000'))
        return { error: 'contains a NUL character' };
      if (typeof value === 'string' && value.includes('\0')) return { error: 'contains a NUL character' };
      return { value };
    }
    default:
      return { error: `unsupported property type ${String((def as { type: unknown }).type)}` };
  }
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

const GEOMETRY_TYPES = new Set([
  'Point',
  'MultiPoint',
  'LineString',
  'MultiLineString',
  'Polygon',
  'MultiPolygon',
  'GeometryCollection',
]);

/**
 * Checks a GeoJSON geometry (RFC 7946 §3.1): its type, positions of 2 or 3 numbers with
 * longitude in [-180, 180] and latitude in [-90, 90], line strings of 2 or more positions,
 * polygon rings closed and of 4 or more positions. Multi-geometries and collections may be
 * empty. Winding order is not checked (§3.1.6: parsers must not reject on it).
 * Pushes one message per problem (at most five per geometry); true when there were none.
 */
export function checkGeometry(g: unknown, path: string, errors: string[]): boolean {
  const before = errors.length;
  const fail = (where: string, message: string): false => {
    if (errors.length - before < 5) errors.push(`${where}: ${message}`);
    return false;
  };
  if (typeof g !== 'object' || g === null || Array.isArray(g)) return fail(path, 'not a GeoJSON object');
  const o = g as Record<string, unknown>;
  if (typeof o.type !== 'string' || !GEOMETRY_TYPES.has(o.type))
    return fail(
      path,
      `type ${JSON.stringify(o.type) ?? 'missing'}: expected one of ${[...GEOMETRY_TYPES].join(', ')}`,
    );
  if (o.bbox !== undefined) {
    const b = o.bbox;
    if (
      !Array.isArray(b) ||
      (b.length !== 4 && b.length !== 6) ||
      !b.every((x) => typeof x === 'number' && Number.isFinite(x))
    )
      fail(`${path}.bbox`, 'expected 4 or 6 numbers');
  }
  if (o.type === 'GeometryCollection') {
    if (!Array.isArray(o.geometries)) return fail(`${path}.geometries`, 'expected an array');
    o.geometries.forEach((m, i) => {
      checkGeometry(m, `${path}.geometries[${i}]`, errors);
    });
    return errors.length === before;
  }
  const c = o.coordinates;
  const at = `${path}.coordinates`;
  const position = (p: unknown, where: string) => {
    if (!Array.isArray(p) || (p.length !== 2 && p.length !== 3))
      return fail(where, 'a position is 2 or 3 numbers');
    if (!p.every((x) => typeof x === 'number' && Number.isFinite(x)))
      return fail(where, 'a position is 2 or 3 numbers');
    if (p[0] < -180 || p[0] > 180) fail(where, `longitude ${p[0]} is outside [-180, 180]`);
    if (p[1] < -90 || p[1] > 90) fail(where, `latitude ${p[1]} is outside [-90, 90]`);
  };
  const list = (
    x: unknown,
    where: string,
    min: number,
    what: string,
    each: (y: unknown, w: string) => void,
  ) => {
    if (!Array.isArray(x)) return fail(where, 'expected an array');
    if (x.length < min) return fail(where, `${what} needs at least ${min} positions`);
    x.forEach((y, i) => {
      each(y, `${where}[${i}]`);
    });
  };
  const line = (x: unknown, where: string) => list(x, where, 2, 'a line string', position);
  const ring = (x: unknown, where: string) => {
    const n = errors.length;
    list(x, where, 4, 'a linear ring', position);
    if (errors.length > n || !Array.isArray(x)) return;
    const a: unknown = x[0];
    const b: unknown = x[x.length - 1];
    if (!Array.isArray(a) || !Array.isArray(b)) return; // reported above (or past the cap)
    if (a.length !== b.length || a.some((v, i) => v !== b[i]))
      fail(where, 'a linear ring must end where it starts');
  };
  const polygon = (x: unknown, where: string) => {
    if (!Array.isArray(x)) return fail(where, 'expected an array of linear rings');
    if (x.length === 0) return fail(where, 'a polygon needs at least one linear ring');
    x.forEach((r, i) => {
      ring(r, `${where}[${i}]`);
    });
  };
  const many = (x: unknown, each: (y: unknown, w: string) => void) => {
    if (!Array.isArray(x)) return fail(at, 'expected an array');
    x.forEach((y, i) => {
      each(y, `${at}[${i}]`);
    });
  };
  switch (o.type) {
    case 'Point':
      position(c, at);
      break;
    case 'MultiPoint':
      many(c, position);
      break;
    case 'LineString':
      line(c, at);
      break;
    case 'MultiLineString':
      many(c, line);
      break;
    case 'Polygon':
      polygon(c, at);
      break;
    case 'MultiPolygon':
      many(c, polygon);
      break;
  }
  return errors.length === before;
}
