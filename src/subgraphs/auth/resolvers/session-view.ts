import type { AuthChallengeName, ClientApplicationType, Session } from '../../../__generated__/auth.ts';
import type { AuthContext } from '../context.ts';
import { findSession } from '../repository/sessions.ts';
import { groupsOf } from '../repository/users.ts';

export const SIGNED_OUT: Session = Object.freeze({
  username: null,
  authenticated: false,
  expiresAt: null,
  expiresAtHard: null,
  userGroup: null,
  challengeName: null,
  challengeParam: null,
  lastAuthenticatedAt: null,
  clientApplicationType: null,
  userGroups: null,
  deviceKey: null,
});

/** The session stored under `hash` as the API shows it; SIGNED_OUT when there is none. */
export async function sessionView(ctx: AuthContext, hash: Buffer | null): Promise<Session> {
  if (!hash) return SIGNED_OUT;
  const row = await findSession(ctx.auth.db, hash);
  if (!row) return SIGNED_OUT;
  const authenticated = row.kind === 'session' || row.kind === 'api_key';
  return {
    username: row.username,
    authenticated,
    expiresAt: row.expires_at,
    expiresAtHard: row.expires_at_hard,
    userGroup: row.user_group,
    challengeName: (row.challenge_name as AuthChallengeName | null) ?? null,
    challengeParam: row.challenge_param ?? null,
    lastAuthenticatedAt: row.last_authenticated_at,
    clientApplicationType: row.client_type as ClientApplicationType,
    userGroups: authenticated ? await groupsOf(ctx.auth.db, row.username) : null,
    deviceKey: row.device_key,
  };
}

/** The caller's session as the `session` query shows it; anonymous callers get SIGNED_OUT. */
export function loadSessionView(ctx: AuthContext): Promise<Session> {
  const hash = ctx.identity.sessionHash;
  return sessionView(ctx, hash ? Buffer.from(hash, 'hex') : null);
}
