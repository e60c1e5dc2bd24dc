import type { AuthCore } from './core.ts';
import { insertEvent } from './repository/events.ts';

/** What the audit trail records (docs/auth.md §10 says when, and with which detail). */
export type AuthEvent =
  | 'sign_in'
  | 'sign_in_failed'
  | 'sign_in_throttled'
  | 'challenge_failed'
  | 'mfa_setup'
  | 'password_changed'
  | 'password_change_failed'
  | 'password_change_throttled'
  | 'session_signed_out'
  | 'federated_sign_in_failed'
  | 'federated_user_provisioned'
  | 'sign_out'
  | 'group_switched'
  | 'reauthenticated'
  | 'reauthenticate_failed'
  | 'api_key_created'
  | 'api_key_revoked'
  | 'devices_forgotten'
  | 'device_remembered'
  | 'password_reset_requested'
  | 'password_reset_failed'
  | 'password_reset';

/**
 * Records an event in `auth_events`; `db` is the transaction the event belongs to, when there
 * is one, so that it is kept or undone with what it records.
 */
export async function recordEvent(
  core: AuthCore,
  username: string | null,
  event: AuthEvent,
  ip: string | null,
  detail?: Record<string, unknown>,
  db = core.db,
): Promise<void> {
  await insertEvent(db, { username, event, ip, detail, at: core.clock.now() });
}
