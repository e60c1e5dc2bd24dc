import type { Kysely } from 'kysely';
import type { AccountStanding } from '../../../shared/identity.ts';
import type { Tables } from '../../../storage/tables.ts';
import { userInGoodStanding } from '../repository/sessions.ts';

/**
 * Auth's rule of a user's standing in a group (the one sessions follow), for whoever acts on a
 * user's behalf without a session: the assets subgraph checks an export link's maker with it on
 * every download. Not cached: it is asked once per download, and a user disabled a moment ago
 * must not download for another few seconds.
 */
export function createAccountStanding(options: { db: Kysely<Tables> }): AccountStanding {
  return { inGoodStanding: (username, group) => userInGoodStanding(options.db, username, group) };
}
