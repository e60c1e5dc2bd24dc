import type { Kysely } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';

/** One row of the audit trail (`auth_events`, docs/auth.md §10). */
export async function insertEvent(
  db: Kysely<Tables>,
  event: {
    username: string | null;
    event: string;
    ip: string | null;
    detail?: Record<string, unknown>;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto('auth_events')
    .values({
      username: event.username,
      event: event.event,
      ip: event.ip,
      detail: event.detail ? JSON.stringify(event.detail) : null,
      at: event.at,
    })
    .execute();
}
