import { type RawBuilder, sql } from 'kysely';

/** SQL fragments a filter is compiled to (compile.ts), and the few ways they are put together. */
export type Sql = RawBuilder<unknown>;

export const given = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

export function all(parts: Sql[]): Sql {
  if (parts.length === 0) return sql`true`;
  if (parts.length === 1) return parts[0]!;
  return sql`(${sql.join(parts, sql` and `)})`;
}

export function any(parts: Sql[]): Sql {
  if (parts.length === 0) return sql`false`;
  if (parts.length === 1) return parts[0]!;
  return sql`(${sql.join(parts, sql` or `)})`;
}

export const column = (alias: string, name: string) => sql.ref(`${alias}.${name}`);
