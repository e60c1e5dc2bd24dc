import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import type { BaseContext } from '../../subgraph-server/index.ts';
import type { ChangeFeed } from './feed.ts';

export interface EventsContext extends BaseContext {
  db: Kysely<Tables>;
  /** The live streams of the log served by this process (feed.ts). */
  feed: ChangeFeed;
}
