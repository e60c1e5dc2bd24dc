import type { Kysely } from 'kysely';
import type { BaseContext } from '../../shared/subgraph.ts';
import type { Tables } from '../../storage/tables.ts';
import type { IssueLoaders } from './loaders.ts';

export interface IssuesContext extends BaseContext {
  db: Kysely<Tables>;
  loaders: IssueLoaders;
}
