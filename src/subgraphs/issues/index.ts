import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import type { IdentitySigner } from '../../shared/identity.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Metrics } from '../../shared/metrics.ts';
import { createSubgraph, type ForwardedSessions, type RequestLimits } from '../../shared/subgraph.ts';
import type { Tables } from '../../storage/tables.ts';
import type { IssuesContext } from './context.ts';
import { createIssueLoaders } from './loaders.ts';
import { resolvers } from './resolvers.ts';

export const issuesTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface IssuesDeps {
  db: Kysely<Tables>;
  signer: IdentitySigner;
  log: Logger;
  clock: Clock;
  /** Resolve sessions forwarded by another router @default none (docs/routers.md) */
  forwarded?: ForwardedSessions;
  /** The document limits, cost model, introspection rule and string limit of every request @default the defaults */
  requestLimits?: RequestLimits;
  /** Where the subgraph counts what the operator watches @default NO_METRICS */
  metrics?: Metrics;
}

/** The issues subgraph: issues stored per group, and the subjects they are about. */
export function createIssuesSubgraph(deps: IssuesDeps) {
  return createSubgraph<IssuesContext>({
    name: 'issues',
    typeDefs: issuesTypeDefs,
    resolvers,
    signer: deps.signer,
    log: deps.log,
    clock: deps.clock,
    forwarded: deps.forwarded,
    limits: deps.requestLimits,
    metrics: deps.metrics,
    extendContext: (base) => ({
      ...base,
      db: deps.db,
      loaders: createIssueLoaders(deps.db, base.identity.userGroup ?? ''),
    }),
  });
}
