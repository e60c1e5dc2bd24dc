import { sql } from 'kysely';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { any, column, given, type Sql } from './sql.ts';
import { type AssetPropertyPredicateInput, FilterError, OPERATORS } from './types.ts';
import { propertyInfo } from './validate.ts';

/** The property predicates of a filter (compile.ts has the semantics), and effective values. */

export function instant(v: Date | string): string {
  return new Date(v).toISOString();
}

/** Escapes LIKE's wildcards and its escape character (the default, backslash). */
export function escapeLike(s: string): string {
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
export function typedValue(profile: EffectiveProfile, alias: string, name: string): { json: Sql; text: Sql } {
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

export function compileProperty(
  p: AssetPropertyPredicateInput,
  profile: EffectiveProfile,
  alias: string,
): Sql {
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
