import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildASTSchema, type GraphQLEnumType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ASSET_ERROR_TYPES } from './assets/error-codes.ts';
import { AUTH_ERROR_TYPES } from './auth/error-codes.ts';
import { ISSUE_ERROR_TYPES } from './issues/error-codes.ts';

/** The values of one enum of a subgraph's SDL, read from the file the subgraph serves. */
function enumValues(subgraph: string, name: string): string[] {
  const sdl = readFileSync(join(import.meta.dirname, '..', 'subgraphs', subgraph, 'schema.graphql'), 'utf8');
  const schema = buildASTSchema(parse(sdl), { assumeValid: true, assumeValidSDL: true });
  return (schema.getType(name) as GraphQLEnumType).getValues().map((v) => v.name);
}

describe('error-code catalogues', () => {
  it.each([
    ['assets', 'AssetErrorType', ASSET_ERROR_TYPES],
    ['auth', 'AuthErrorType', AUTH_ERROR_TYPES],
    ['issues', 'IssueErrorType', ISSUE_ERROR_TYPES],
  ] as const)('the %s catalogue lists exactly the values of %s', (subgraph, name, catalogue) => {
    expect([...catalogue].sort()).toEqual(enumValues(subgraph, name).sort());
  });
});
