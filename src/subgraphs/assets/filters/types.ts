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

/** The largest nesting of filter objects (`and`/`or` items, `not`, `related.some/none`). */
export const MAX_FILTER_DEPTH = 8;
/** The most nodes in one filter: each filter object and each condition set in one counts. */
export const MAX_FILTER_NODES = 200;

/** Thrown by `compileFilter` for a filter `validateFilter` rejects; `message` names the path. */
export class FilterError extends Error {
  override name = 'FilterError';
}
