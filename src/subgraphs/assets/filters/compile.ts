/**
 * AssetFilter → SQL (docs/schema.md §5). `compileFilter` turns a filter into one boolean SQL
 * expression over a row of `assets` (alias `a` by default). Every value from the filter is a
 * bound parameter; only constant SQL and the internally generated aliases are spliced in.
 * `evaluate.ts` implements the same semantics in TypeScript, and filters.test.ts checks that
 * the two agree, so a change here must be made there as well.
 *
 * Semantics (two-valued logic throughout: every condition is true or false, never unknown).
 * A field set to null counts as not given. What validateFilter rejects is listed there.
 *
 * - The fields of one filter object are ANDed; `{}` is true. `and` holds when every item
 *   holds (`[]` is true), `or` when some item holds (`[]` is false), `not` negates.
 * - Property values: the *effective value* of property `x` is the asset's `properties.x` when
 *   present and not JSON null, else the profile's default for `x` (the first non-null default
 *   among the definitions named `x`), else *missing*. This is what `Asset.properties` shows.
 *   The property's type is that of its first definition.
 * - Comparisons by type (a value of another JSON type is *incomparable*; a comparison with a
 *   missing or incomparable value is false):
 *   - NUMBER, INTEGER: JSON numbers, compared numerically (a numeric string is incomparable).
 *     Operators equals, notEquals, in, gt, gte, lt, lte, exists; operands are numbers.
 *   - STRING, ENUM, DATE, DATE_TIME: JSON strings, compared by Unicode code point (SQL
 *     `collate "C"`; ISO dates in one format order correctly). Every operator; operands are
 *     strings. `caseInsensitive` folds ASCII letters only (A-Z ↔ a-z; `lower()` under "C"),
 *     the same on every server whatever its locale, for equals, notEquals, in, contains and
 *     startsWith. contains / startsWith are substring / prefix tests (LIKE with `%`, `_` and
 *     `\` escaped).
 *   - BOOLEAN: equals, notEquals, in (JSON equality with true/false), exists.
 *   - JSON: equals, notEquals, in by JSON equality (jsonb `=`: object key order is ignored,
 *     1 = 1.0); contains: the value is an array with an element equal to the given string.
 *   - notEquals is exactly `not equals`, so it is true for a missing or incomparable value.
 *   - exists: true ⇔ the effective value is not missing (a default counts; JSON null does not).
 * - `ids`: the id is one of them (`[]` matches nothing). `modifiedAfter` / `modifiedBefore`:
 *   `modified_at` strictly after / before the instant (millisecond precision). `isDeleted`:
 *   `is_deleted` equals it. `search`: every whitespace-separated word occurs in
 *   `display_name`, ASCII case-insensitively (ILIKE under "C"); no words is true.
 * - Geometry: the *vertices* are all arrays whose first two elements are numbers found under a
 *   `coordinates` member anywhere in `geometry` (so GeometryCollection members count; a stored
 *   `bbox` member is ignored). No geometry or no vertices: every geometry condition is false.
 *   `bbox`: the vertices' bounding box intersects the given box (edges included).
 *   `near`: some vertex lies within `distanceMeters` of the point (haversine, R = 6371008.8 m).
 *   Both given: both must hold.
 * - `related`: the related assets of an asset are the assets of the relationship's target
 *   profile in the same group whose key matches one of the asset's keys. Source keys
 *   (referenceType): ID → the asset's id; PROPERTY → the effective value of
 *   referenceProperty if it is a string; PROPERTY_LIST → the string elements of it if it is an
 *   array. Target side (lookupType): ID → the target's id is a key; PROPERTY → the target's
 *   effective lookupProperty value is a string that is a key; PROPERTY_LIST → it is an array
 *   with a string element that is a key. Only strings are keys; other JSON values never match.
 *   Deleted targets are included unless the nested filter says otherwise. `some: f` holds when
 *   a related asset matches `f` (evaluated against the target profile), `none: f` when none
 *   does (`none: {}`: there are no related assets); both given, both must hold. PARAMETER
 *   relationships cannot be used in filters.
 */
import { type RawBuilder, sql } from 'kysely';
import type { EffectiveProfile, RelationshipDefinition } from '../profiles/definition.ts';
import {
  type AssetFilterInput,
  type AssetGeometryPredicateInput,
  type AssetPropertyPredicateInput,
  type AssetRelatedPredicateInput,
  FilterError,
  OPERATORS,
  type ProfileLookup,
} from './types.ts';
import { filterRelationship, propertyInfo, searchWords, validateFilter } from './validate.ts';

export interface CompileContext {
  /** The profile of the assets the filter applies to. */
  profile: EffectiveProfile;
  /** Finds the profiles `related` predicates reach (the caller's group). */
  profiles: ProfileLookup;
  /** The caller's group; related assets are looked up in it. */
  group: string;
  /** The alias of the `assets` row in the query @default 'a' */
  alias?: string;
}

interface State {
  /** The caller's alias; internal aliases extend it, so none can shadow it. */
  root: string;
  group: string;
  profiles: ProfileLookup;
  aliases: number;
}

type Sql = RawBuilder<unknown>;

const EARTH_RADIUS_METERS = 6371008.8;

/**
 * Every vertex under a `coordinates` member (strict mode, so `.**` visits each item once and
 * a structural error inside a filter only drops that item).
 */
const VERTICES_PATH = sql.lit(
  'strict $.** ? (@.type() == "object" && exists(@.coordinates)).coordinates.** ? (@.type() == "array" && @[0].type() == "number" && @[1].type() == "number")',
);

/**
 * The filter as a boolean SQL expression over the `assets` row `ctx.alias`, e.g.
 * `select id from assets a where a.user_group = $g and a.profile = $p and ${compileFilter(...)}`.
 * Throws {@link FilterError} when `validateFilter` rejects the filter. A null filter is true.
 */
export function compileFilter(
  filter: AssetFilterInput | null | undefined,
  ctx: CompileContext,
): RawBuilder<boolean> {
  const checked = validateFilter(filter, ctx.profile, ctx.profiles);
  if (!checked.ok) throw new FilterError(checked.message);
  const alias = ctx.alias ?? 'a';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(alias)) throw new Error(`invalid table alias "${alias}"`);
  if (filter === null || filter === undefined) return sql<boolean>`true`;
  const state: State = { root: alias, group: ctx.group, profiles: ctx.profiles, aliases: 0 };
  return sql<boolean>`${compileNode(filter, ctx.profile, alias, state)}`;
}

const given = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

function all(parts: Sql[]): Sql {
  if (parts.length === 0) return sql`true`;
  if (parts.length === 1) return parts[0]!;
  return sql`(${sql.join(parts, sql` and `)})`;
}

function any(parts: Sql[]): Sql {
  if (parts.length === 0) return sql`false`;
  if (parts.length === 1) return parts[0]!;
  return sql`(${sql.join(parts, sql` or `)})`;
}

const column = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

function compileNode(filter: AssetFilterInput, profile: EffectiveProfile, alias: string, state: State): Sql {
  const parts: Sql[] = [];
  if (given(filter.and)) parts.push(all(filter.and.map((f) => compileNode(f, profile, alias, state))));
  if (given(filter.or)) parts.push(any(filter.or.map((f) => compileNode(f, profile, alias, state))));
  if (given(filter.not)) parts.push(sql`(not ${compileNode(filter.not, profile, alias, state)})`);
  if (given(filter.ids))
    parts.push(sql`coalesce(${column(alias, 'id')} = any(${[...filter.ids]}::text[]), false)`);
  if (given(filter.property)) parts.push(compileProperty(filter.property, profile, alias));
  if (given(filter.modifiedAfter))
    parts.push(sql`(${column(alias, 'modified_at')} > ${instant(filter.modifiedAfter)}::timestamptz)`);
  if (given(filter.modifiedBefore))
    parts.push(sql`(${column(alias, 'modified_at')} < ${instant(filter.modifiedBefore)}::timestamptz)`);
  if (given(filter.search)) {
    const words = searchWords(filter.search);
    parts.push(
      all(
        words.map(
          (w) =>
            // display_name is never null, so no coalesce: the bare expression is what the
            // trigram index assets_display_name_trgm is built on.
            sql`(${column(alias, 'display_name')} collate "C" ilike ${`%${escapeLike(w)}%`}::text)`,
        ),
      ),
    );
  }
  if (given(filter.isDeleted))
    parts.push(sql`(${column(alias, 'is_deleted')} = ${filter.isDeleted}::boolean)`);
  if (given(filter.geometry)) parts.push(compileGeometry(filter.geometry, alias));
  if (given(filter.related)) parts.push(compileRelated(filter.related, profile, alias, state));
  return all(parts);
}

function instant(v: Date | string): string {
  return new Date(v).toISOString();
}

/** Escapes LIKE's wildcards and its escape character (the default, backslash). */
function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The profile's default for a property, undefined where it has none (a null default is none). */
function defaultOf(profile: EffectiveProfile, name: string): unknown {
  return propertyInfo(profile, name)?.default ?? undefined;
}

/** The effective value of a property as jsonb, SQL NULL when missing (never JSON null). */
function effectiveValue(profile: EffectiveProfile, alias: string, name: string): Sql {
  const value = sql`nullif(${column(alias, 'properties')} -> ${name}::text, 'null'::jsonb)`;
  const fallback = defaultOf(profile, name);
  return fallback === undefined ? value : sql`coalesce(${value}, ${JSON.stringify(fallback)}::jsonb)`;
}

/**
 * The effective value of a property where only a value of one JSON type counts (a number, a
 * string): `json` may be JSON null where `effectiveValue` is SQL NULL, which no type test keeps,
 * and `text` is the text of a JSON string. Without a default both are read straight from the
 * row: every `nullif` and `#>>` costs per row scanned, and a filtered page may scan thousands
 * (docs/performance.md "Filters").
 */
function typedValue(profile: EffectiveProfile, alias: string, name: string): { json: Sql; text: Sql } {
  if (defaultOf(profile, name) !== undefined) {
    const json = effectiveValue(profile, alias, name);
    return { json, text: sql`${json} #>> '{}'` };
  }
  const properties = column(alias, 'properties');
  return { json: sql`${properties} -> ${name}::text`, text: sql`${properties} ->> ${name}::text` };
}

const PATH_OPERATORS: Partial<Record<string, string>> = {
  equals: '==',
  notEquals: '==',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

/**
 * A comparison of a property without a default as one strict jsonpath predicate, `strict
 * $."depth" > 2500`, which PostgreSQL checks in one pass over the row's properties: about twice
 * as fast per row scanned as the same test written with `->`, `jsonb_typeof` and casts
 * (docs/performance.md "Filters"). It means the same: in strict mode a missing member, or a
 * value of another JSON type (JSON null, an array, a string against a number), makes the
 * predicate unknown, which `@@` answers with SQL NULL, read as false; numbers compare as
 * numerics, and strings are tested for equality by their bytes, as under "C". Only numbers
 * (`equals`, `notEquals`, `gt`, `gte`, `lt`, `lte`) and exact string equality are written so;
 * null otherwise. The operand is a JSON literal in the path, and the path is a bound parameter.
 */
function pathComparison(
  type: string,
  op: string,
  name: string,
  operand: unknown,
  caseInsensitive: boolean,
): string | null {
  const operator = PATH_OPERATORS[op];
  if (!operator) return null;
  let literal: string;
  if ((type === 'NUMBER' || type === 'INTEGER') && typeof operand === 'number') {
    if (!Number.isFinite(operand)) return null;
    literal = JSON.stringify(operand);
  } else if (
    (type === 'STRING' || type === 'ENUM' || type === 'DATE' || type === 'DATE_TIME') &&
    (op === 'equals' || op === 'notEquals') &&
    !caseInsensitive &&
    typeof operand === 'string' &&
    // validateFilter refuses both (a NUL cannot be written in a jsonpath, a lone surrogate's
    // escape is refused); should one come, the SQL comparison reports it as before.
    !operand.includes('\u0000') &&
    operand.isWellFormed()
  ) {
    literal = JSON.stringify(operand);
  } else return null;
  return `strict $.${JSON.stringify(name)} ${operator} ${literal}`;
}

/** ASCII letters folded as `lower()` under "C" folds them, for operands folded once, not per row. */
const foldAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function compileProperty(p: AssetPropertyPredicateInput, profile: EffectiveProfile, alias: string): Sql {
  const exact = compileComparison(p, profile, alias);
  const narrowing = lookupNarrowing(p, profile, alias);
  return narrowing === null ? exact : sql`(${narrowing} and ${exact})`;
}

/**
 * An equality (`equals`, `in`) on a property the profile's lookup keys hold, restated as
 * containment in the lookup keys, which the lookup-key index answers (docs/assets.md "Lookup
 * keys"). It is implied by the exact comparison: an asset whose effective value equals a
 * given value holds that value itself (unless the property has a default, which an asset
 * lacking the property takes without a key: then no narrowing), and its lookup keys hold
 * every non-null value of a lookup property. Null when it cannot narrow.
 */
function lookupNarrowing(
  p: AssetPropertyPredicateInput,
  profile: EffectiveProfile,
  alias: string,
): Sql | null {
  if (!profile.lookupNames.includes(p.name) || p.caseInsensitive === true) return null;
  if (defaultOf(profile, p.name) !== undefined) return null;
  const values: unknown[] | null = given(p.equals) ? [p.equals] : given(p.in) ? [...p.in] : null;
  if (values === null) return null;
  const lookup = column(alias, 'lookup');
  return any(values.map((v) => sql`${lookup} @> ${JSON.stringify({ [p.name]: v })}::jsonb`));
}

function compileComparison(p: AssetPropertyPredicateInput, profile: EffectiveProfile, alias: string): Sql {
  const info = propertyInfo(profile, p.name);
  const op = OPERATORS.find((o) => given(p[o]));
  if (!info || !op) throw new FilterError('filter.property: invalid predicate');
  const value = effectiveValue(profile, alias, p.name);
  const k = sql.id(`${alias}_k`);
  if (op === 'exists') return sql`((${value}) is not null) = ${p.exists}::boolean`;
  const operand = p[op];
  const compare = (expr: Sql) => sql`coalesce(${expr}, false)`;
  const path =
    defaultOf(profile, p.name) === undefined
      ? pathComparison(info.type, op, p.name, operand, p.caseInsensitive === true)
      : null;
  if (path !== null) {
    const holds = compare(sql`${column(alias, 'properties')} @@ ${path}::jsonpath`);
    return op === 'notEquals' ? sql`(not ${holds})` : holds;
  }
  switch (info.type) {
    case 'NUMBER':
    case 'INTEGER': {
      // jsonb's own cast to numeric: the value as stored, not printed and parsed again.
      const v = typedValue(profile, alias, p.name).json;
      const n = sql`(case when jsonb_typeof(${v}) = 'number' then (${v})::numeric end)`;
      switch (op) {
        case 'equals':
          return compare(sql`${n} = ${operand}::numeric`);
        case 'notEquals':
          return sql`(not ${compare(sql`${n} = ${operand}::numeric`)})`;
        case 'in':
          return compare(sql`${n} = any(${(operand as number[]).map(String)}::numeric[])`);
        case 'gt':
          return compare(sql`${n} > ${operand}::numeric`);
        case 'gte':
          return compare(sql`${n} >= ${operand}::numeric`);
        case 'lt':
          return compare(sql`${n} < ${operand}::numeric`);
        case 'lte':
          return compare(sql`${n} <= ${operand}::numeric`);
      }
      break;
    }
    case 'STRING':
    case 'ENUM':
    case 'DATE':
    case 'DATE_TIME': {
      const v = typedValue(profile, alias, p.name);
      const t = sql`(case when jsonb_typeof(${v.json}) = 'string' then ${v.text} end)`;
      const ci = p.caseInsensitive === true;
      const fold = (x: Sql) => (ci ? sql`lower(${x} collate "C")` : sql`(${x} collate "C")`);
      const like = ci ? sql`ilike` : sql`like`;
      const folded = (s: string) => (ci ? foldAscii(s) : s);
      const equals = () => compare(sql`${fold(t)} = (${folded(operand as string)}::text collate "C")`);
      switch (op) {
        case 'equals':
          return equals();
        case 'notEquals':
          return sql`(not ${equals()})`;
        case 'in':
          return compare(sql`${fold(t)} = any(${(operand as string[]).map(folded)}::text[] collate "C")`);
        case 'gt':
          return compare(sql`(${t} collate "C") > ${operand}::text`);
        case 'gte':
          return compare(sql`(${t} collate "C") >= ${operand}::text`);
        case 'lt':
          return compare(sql`(${t} collate "C") < ${operand}::text`);
        case 'lte':
          return compare(sql`(${t} collate "C") <= ${operand}::text`);
        case 'contains':
          return compare(sql`(${t} collate "C") ${like} ${`%${escapeLike(operand as string)}%`}::text`);
        case 'startsWith':
          return compare(sql`(${t} collate "C") ${like} ${`${escapeLike(operand as string)}%`}::text`);
      }
      break;
    }
    case 'BOOLEAN':
    case 'JSON': {
      const equals = () => compare(sql`${value} = ${JSON.stringify(operand)}::jsonb`);
      switch (op) {
        case 'equals':
          return equals();
        case 'notEquals':
          return sql`(not ${equals()})`;
        case 'in':
          return sql`exists (select 1 from jsonb_array_elements(${JSON.stringify(operand)}::jsonb) as ${k}(v) where ${k}.v = ${value})`;
        case 'contains':
          return sql`exists (select 1 from jsonb_array_elements(case when jsonb_typeof(${value}) = 'array' then ${value} end) as ${k}(v)
            where ${k}.v = to_jsonb(${operand}::text))`;
      }
      break;
    }
  }
  throw new FilterError(`filter.property.${op}: does not apply to ${info.type} property "${p.name}"`);
}

/**
 * A prefilter the GiST index assets_geometry_bbox serves: the box around the asset's vertices
 * overlaps the given one (edges included). It only narrows: every asset the exact vertex tests
 * keep passes it, because rounding to float8 keeps order (a swapped box is normalised, which
 * still holds every asset the exact test keeps).
 */
function boxOverlaps(alias: string, minLon: number, minLat: number, maxLon: number, maxLat: number): Sql {
  return sql`(asset_bbox(${column(alias, 'geometry')}) && box(point(${minLon}::float8, ${minLat}::float8), point(${maxLon}::float8, ${maxLat}::float8)))`;
}

/**
 * A box that holds every point within `meters` of (lon, lat) by the haversine distance, with
 * 1% to spare, or null when none is useful (near a pole, or across the antimeridian).
 * Latitude: d ≥ R·|Δφ|. Longitude: hav(d/R) ≥ cos φ₁ cos φ₂ hav(Δλ) ≥ cos²L hav(Δλ) for
 * latitudes within ±L, so |Δλ| ≤ 2·asin(sin(d/2R) / cos L).
 */
export function boxAround(lon: number, lat: number, meters: number): [number, number, number, number] | null {
  const angle = (meters * 1.01) / EARTH_RADIUS_METERS;
  const dLat = (angle * 180) / Math.PI;
  const L = Math.abs(lat) + dLat;
  if (L >= 89) return null;
  const s = Math.sin(angle / 2) / Math.cos((L * Math.PI) / 180);
  if (s >= 1) return null;
  const dLon = (2 * Math.asin(s) * 180) / Math.PI;
  if (lon - dLon < -180 || lon + dLon > 180) return null;
  return [lon - dLon, lat - dLat, lon + dLon, lat + dLat];
}

function compileGeometry(g: AssetGeometryPredicateInput, alias: string): Sql {
  const parts: Sql[] = [];
  const v = sql.id(`${alias}_v`);
  const vertices = sql`jsonb_path_query(${column(alias, 'geometry')}, ${VERTICES_PATH}) as ${v}(p)`;
  if (given(g.bbox)) {
    const [minLon, minLat, maxLon, maxLat] = g.bbox;
    parts.push(boxOverlaps(alias, minLon!, minLat!, maxLon!, maxLat!));
    const lon = sql`(${v}.p ->> 0)::numeric`;
    const lat = sql`(${v}.p ->> 1)::numeric`;
    parts.push(
      sql`coalesce((select min(${lon}) <= ${maxLon}::numeric and max(${lon}) >= ${minLon}::numeric
        and min(${lat}) <= ${maxLat}::numeric and max(${lat}) >= ${minLat}::numeric from ${vertices}), false)`,
    );
  }
  if (given(g.near)) {
    const { longitude, latitude, distanceMeters } = g.near;
    const around = boxAround(longitude, latitude, distanceMeters);
    if (around) parts.push(boxOverlaps(alias, ...around));
    const lon = sql`radians((${v}.p ->> 0)::float8)`;
    const lat = sql`radians((${v}.p ->> 1)::float8)`;
    const lon0 = sql`radians(${longitude}::float8)`;
    const lat0 = sql`radians(${latitude}::float8)`;
    const h = sql`power(sin((${lat} - ${lat0}) / 2), 2) + cos(${lat0}) * cos(${lat}) * power(sin((${lon} - ${lon0}) / 2), 2)`;
    parts.push(
      sql`exists (select 1 from ${vertices}
        where 2 * ${EARTH_RADIUS_METERS}::float8 * asin(sqrt(least(1::float8, ${h}))) <= ${distanceMeters}::float8)`,
    );
  }
  return all(parts);
}

function compileRelated(
  r: AssetRelatedPredicateInput,
  profile: EffectiveProfile,
  alias: string,
  state: State,
): Sql {
  const found = filterRelationship(profile, state.profiles, r.relationship);
  if ('error' in found) throw new FilterError(`filter.related.relationship: ${found.error}`);
  const { relationship, target } = found;
  const b = `${state.root}_r${++state.aliases}`;
  // "Some related asset matches f" is "one of the asset's keys is a lookup key of an asset of
  // the target profile that matches f". The key subquery does not refer to the outer row, so
  // PostgreSQL runs it once per statement (a hashed SubPlan) however deep it sits, rather
  // than once per row as a correlated EXISTS would.
  const matchingKeys = (f: AssetFilterInput) =>
    lookupKeys(
      relationship,
      target,
      b,
      sql`${column(b, 'user_group')} = ${state.group}::text and ${column(b, 'profile')} = ${relationship.profile}::text
        and ${compileNode(f, target, b, state)}`,
    );
  const parts: Sql[] = [];
  if (given(r.some)) parts.push(hasKeyIn(relationship, profile, alias, matchingKeys(r.some)));
  if (given(r.none)) parts.push(sql`(not ${hasKeyIn(relationship, profile, alias, matchingKeys(r.none))})`);
  return all(parts);
}

/** The lookup keys (text, never null) of the assets `b` that satisfy `where` (lookupType). */
function lookupKeys(rel: RelationshipDefinition, target: EffectiveProfile, b: string, where: Sql): Sql {
  const from = sql`assets as ${sql.id(b)}`;
  if (rel.lookupType === 'ID') return sql`select ${column(b, 'id')} from ${from} where ${where}`;
  const v = typedValue(target, b, rel.lookupProperty!);
  const value = v.json;
  if (rel.lookupType === 'PROPERTY')
    return sql`select ${v.text} from ${from} where ${where} and jsonb_typeof(${value}) = 'string'`;
  const e = sql.id(`${b}_t`);
  return sql`select ${e}.v #>> '{}' from ${from}
    cross join lateral jsonb_array_elements(case when jsonb_typeof(${value}) = 'array' then ${value} end) as ${e}(v)
    where ${where} and jsonb_typeof(${e}.v) = 'string'`;
}

/** Whether one of the source row's keys (referenceType) is among `keys`. */
function hasKeyIn(rel: RelationshipDefinition, profile: EffectiveProfile, alias: string, keys: Sql): Sql {
  if (rel.referenceType === 'ID') return sql`coalesce(${column(alias, 'id')} in (${keys}), false)`;
  const v = typedValue(profile, alias, rel.referenceProperty!);
  const value = v.json;
  if (rel.referenceType === 'PROPERTY')
    return sql`coalesce((case when jsonb_typeof(${value}) = 'string' then ${v.text} end) in (${keys}), false)`;
  const e = sql.id(`${alias}_s`);
  return sql`exists (select 1 from jsonb_array_elements(case when jsonb_typeof(${value}) = 'array' then ${value} end) as ${e}(v)
    where jsonb_typeof(${e}.v) = 'string' and (${e}.v #>> '{}') in (${keys}))`;
}
