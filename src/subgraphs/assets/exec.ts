import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';

/**
 * Runs one statement with `$n` parameters and returns its rows: the form of SQL that the
 * assets writer and lookup-name derivation share, on a pooled client (bulk writes, COPY) or
 * inside a Kysely transaction alike.
 */
export type Exec = <R = Record<string, unknown>>(text: string, params?: readonly unknown[]) => Promise<R[]>;

export const clientExec =
  (client: pg.PoolClient): Exec =>
  async <R>(text: string, params: readonly unknown[] = []) =>
    (await client.query(text, params as unknown[])).rows as R[];

// biome-ignore lint/suspicious/noExplicitAny: any table set; the statements are plain SQL
export const kyselyExec = (db: Kysely<any>): Exec =>
  (async <R>(text: string, params: readonly unknown[] = []) =>
    (await db.executeQuery(CompiledQuery.raw(text, [...params]))).rows as R[]) as Exec;
