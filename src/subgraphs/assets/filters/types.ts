import type { EffectiveProfile } from '../profiles/definition.ts';

/**
 * The `AssetFilter` input (schema.graphql), loosely typed so that a filter stored as JSON
 * (selection filters, map layers) can be checked with the same code as one from GraphQL. The
 * generated `AssetFilter` type is assignable to it. `null` always means "not given".
 */
export interface AssetFilterInput {
  and?: readonly AssetFilterInput[] | null;
  or?: readonly AssetFilterInput[] | null;
  not?: AssetFilterInput | null;
  ids?: readonly string[] | null;
  property?: AssetPropertyPredicateInput | null;
  modifiedAfter?: Date | string | null;
  modifiedBefore?: Date | string | null;
  search?: string | null;
  isDeleted?: boolean | null;
  geometry?: AssetGeometryPredicateInput | null;
  related?: AssetRelatedPredicateInput | null;
}

export interface AssetPropertyPredicateInput {
  name: string;
  equals?: unknown;
  notEquals?: unknown;
  in?: readonly unknown[] | null;
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
  contains?: string | null;
  startsWith?: string | null;
  exists?: boolean | null;
  caseInsensitive?: boolean | null;
}

export interface AssetGeometryPredicateInput {
  bbox?: readonly number[] | null;
  near?: { longitude: number; latitude: number; distanceMeters: number } | null;
}

export interface AssetRelatedPredicateInput {
  relationship: string;
  some?: AssetFilterInput | null;
  none?: AssetFilterInput | null;
}

/** Finds a profile of the caller's group by name. */
export type ProfileLookup = (name: string) => EffectiveProfile | null;

/** The comparison operators of `AssetPropertyPredicate`, in schema order. */
export const OPERATORS = [
  'equals',
  'notEquals',
  'in',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'startsWith',
  'exists',
] as const;
export type Operator = (typeof OPERATORS)[number];

/**
 * The bounds on one filter (docs/schema.md §5, docs/security.md). They are part of the API, not
 * settings: a selection filter or map layer saved under one deployment's bounds must stay valid
 * on every other, so they are the same everywhere.
 */
/** The largest nesting of filter objects (`and`/`or` items, `not`, `related.some/none`). */
export const MAX_FILTER_DEPTH = 8;
/**
 * The most nodes in one filter. Each filter object, each condition set in one, and each item of
 * every list counts one: `ids` and `in` items, `bbox` numbers, every value inside a JSON operand,
 * and every word of `search`. So a filter's SQL, its bound parameters and its evaluation cost all
 * grow at most linearly in this number.
 */
export const MAX_FILTER_NODES = 500;
/** The most whitespace-separated words in one `search` (each is one ILIKE over the names). */
export const MAX_SEARCH_WORDS = 32;
/** The longest string anywhere in a filter (search, operands, ids, names), in UTF-16 code units. */
export const MAX_FILTER_STRING_LENGTH = 1000;
/** Dates in filters lie within these years, which every engine and format can represent. */
export const FILTER_YEARS = { min: 1, max: 9999 } as const;

/** Thrown by `compileFilter` for a filter `validateFilter` rejects; `message` names the path. */
export class FilterError extends Error {
  override name = 'FilterError';
}
