import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import type { BaseContext } from '../../subgraph-server/index.ts';
import type { IssueLoaders } from './loaders.ts';

export interface IssuesContext extends BaseContext {
  db: Kysely<Tables>;
  loaders: IssueLoaders;
}
