import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import { createSubgraph, runtimeOf, type SubgraphRuntime } from '../../subgraph-server/index.ts';
import type { IssuesContext } from './context.ts';
import { createIssueLoaders } from './loaders.ts';
import { resolvers } from './resolvers.ts';

export const issuesTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface IssuesDeps extends SubgraphRuntime {
  db: Kysely<Tables>;
}

/** The issues subgraph: issues stored per group, and the subjects they are about. */
export function createIssuesSubgraph(deps: IssuesDeps) {
  return createSubgraph<IssuesContext>({
    ...runtimeOf(deps),
    name: 'issues',
    typeDefs: issuesTypeDefs,
    resolvers,
    extendContext: (base) => ({
      ...base,
      db: deps.db,
      loaders: createIssueLoaders(deps.db, base.identity.userGroup ?? ''),
    }),
  });
}
