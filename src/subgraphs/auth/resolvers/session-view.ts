import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';
import type { AuthChallengeName, ClientApplicationType, Session } from '../../../__generated__/auth.ts';
import type { Identity } from '../../../shared/identity.ts';
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

/** The fields of `Session` that the caller's identity already holds. */
const IN_IDENTITY: ReadonlySet<string> = new Set(['__typename', 'username', 'authenticated', 'userGroup']);

/**
 * Whether the `session` field being resolved asks only for what the identity holds (who, in
 * which group, whether signed in): then it is answered from the identity the request was
 * authorised with (resolved, checked for expiry and good standing once per request, see
 * sessions/resolve.ts), without reading the session and the user's groups again. Directives on
 * the way give the full view, as before.
 */
export function asksOnlyIdentity(info: GraphQLResolveInfo): boolean {
  const only = (set: SelectionSetNode | undefined): boolean => {
    if (!set) return false;
    return set.selections.every((selection) => {
      if (selection.directives?.length) return false;
      if (selection.kind === Kind.FIELD) return IN_IDENTITY.has(selection.name.value);
      if (selection.kind === Kind.INLINE_FRAGMENT) return only(selection.selectionSet);
      return only(info.fragments[selection.name.value]?.selectionSet);
    });
  };
  return info.fieldNodes.every((node) => !node.directives?.length && only(node.selectionSet));
}

/** The session as {@link sessionView} shows it, in the fields the identity holds (the rest null). */
export function sessionFromIdentity(identity: Identity): Session {
  if (identity.kind === 'anonymous' || identity.sessionHash === null) return SIGNED_OUT;
  return {
    ...SIGNED_OUT,
    username: identity.username,
    authenticated: identity.kind === 'session' || identity.kind === 'api_key',
    userGroup: identity.userGroup,
  };
}
