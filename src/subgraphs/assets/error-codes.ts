/**
 * Every `type` an assets mutation error can have: the catalogue domain code names failures from.
 * It must list exactly the values of `enum AssetErrorType` in schema.graphql (a test checks), so
 * that domain code never imports generated types back.
 */
export const ASSET_ERROR_TYPES = [
  'DUPLICATE_ID',
  'NOT_FOUND',
  'UNKNOWN_PROPERTY',
  'INVALID_RELATIONSHIP',
  'INVALID_TEMPLATE',
  'INVALID_FILTER',
  'INVALID_LAYOUT',
  'VERSION_CONFLICT',
  'INVALID_INPUT',
  'INVALID_DATASET',
  'UNAUTHENTICATED',
] as const;

export type AssetErrorType = (typeof ASSET_ERROR_TYPES)[number];
