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
import { compileGeometry } from './compile-geometry.ts';
import { compileProperty, escapeLike, instant, typedValue } from './compile-property.ts';
import { all, any, column, given, type Sql } from './sql.ts';
import {
  type AssetFilterInput,
  type AssetRelatedPredicateInput,
  FilterError,
  type ProfileLookup,
} from './types.ts';
import { filterRelationship, searchWords, validateFilter } from './validate.ts';
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
