import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import type { BaseContext } from '../../subgraph-server/index.ts';

export interface EventsContext extends BaseContext {
  db: Kysely<Tables>;
}
