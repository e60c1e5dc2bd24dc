import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import { createSubgraph, runtimeOf, type SubgraphRuntime } from '../../subgraph-server/index.ts';
import type { EventsContext } from './context.ts';
import type { ChangeFeed } from './feed.ts';
import { resolvers } from './resolvers.ts';

export const eventsTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface EventsDeps extends SubgraphRuntime {
  db: Kysely<Tables>;
  /** The live streams of the log this process serves (feed.ts). */
  feed: ChangeFeed;
  webhooks: EventsContext['webhooks'];
}

/** The events subgraph: the change log of every group, read as history and live (docs/events.md). */
export function createEventsSubgraph(deps: EventsDeps) {
  return createSubgraph<EventsContext>({
    ...runtimeOf(deps),
    name: 'events',
    typeDefs: eventsTypeDefs,
    resolvers,
    extendContext: (base) => ({ ...base, db: deps.db, feed: deps.feed, webhooks: deps.webhooks }),
  });
}
