import type { AuthChallengeName, ClientApplicationType, Session } from '../../../__generated__/auth.ts';
import type { AuthContext } from '../context.ts';

const SIGNED_OUT: Session = {
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
};

/** The caller's session as the `session` query shows it; anonymous callers get SIGNED_OUT. */
export async function loadSessionView(ctx: AuthContext): Promise<Session> {
  const hash = ctx.identity.sessionHash;
  if (!hash) return SIGNED_OUT;
  const row = await ctx.db
    .selectFrom('sessions')
    .selectAll()
    .where('id_hash', '=', Buffer.from(hash, 'hex'))
    .executeTakeFirst();
  if (!row) return SIGNED_OUT;
  return {
    username: row.username,
    authenticated: row.kind === 'session' || row.kind === 'api_key',
    expiresAt: row.expires_at,
    expiresAtHard: row.expires_at_hard,
    userGroup: row.user_group,
    challengeName: (row.challenge_name as AuthChallengeName | null) ?? null,
    challengeParam: row.challenge_param ?? null,
    lastAuthenticatedAt: row.last_authenticated_at,
    clientApplicationType: row.client_type as ClientApplicationType,
    userGroups: null,
  };
}
