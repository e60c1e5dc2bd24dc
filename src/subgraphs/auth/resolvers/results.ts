import type { Session } from '../../../__generated__/auth.ts';
import { type Failure, fail, mutationResult, ok } from '../../../shared/result.ts';
import { clearedSessionCookie, sessionCookie } from '../../../shared/session-cookies.ts';
import { SESSION_HEADER } from '../../../shared/session-policy.ts';
import type { ApiKeyView } from '../api-keys.ts';
import type { AuthContext } from '../context.ts';
import type { AuthResult } from '../error-codes.ts';
import type { LimitedAction } from '../limits.ts';
import type { IssuedSession } from '../sessions.ts';
import { loadSessionView, SIGNED_OUT, sessionView } from './session-view.ts';

// Mutation results from what the flows answer, each through mutationResult: `correlationId`,
// `errors`, and the payload null on failure.

export const LOGIN_DISABLED = fail('LOGIN_DISABLED', 'Sign-in with a password is disabled.');

/**
 * Hands the client its new session ID: the session cookie, and `x-svc-sessionid` for header
 * clients, as ordinary response headers that our gateway relays and any router can propagate.
 */
function issue(ctx: AuthContext, s: IssuedSession) {
  ctx.responseHeaders.delete('set-cookie');
  ctx.responseHeaders.append('set-cookie', sessionCookie(s.id, s.maxAgeSeconds, ctx.publicBaseUrl));
  ctx.responseHeaders.set(SESSION_HEADER, s.id);
}

/** Clears the client's session cookie. */
export function endSession(ctx: AuthContext) {
  ctx.responseHeaders.delete(SESSION_HEADER);
  ctx.responseHeaders.delete('set-cookie');
  ctx.responseHeaders.append('set-cookie', clearedSessionCookie(ctx.publicBaseUrl));
}

/**
 * A LIMIT_EXCEEDED failure when the caller has used up `action`, else null. The caller is its
 * client address; when that is unknown (a router in front and no `ASSETQL_TRUST_PROXY`), the
 * account the attempt is about (`account`, else the signed-in user), never one bucket shared by
 * every client. With neither, nothing is counted: such an attempt cannot succeed anyway.
 */
export async function limited(
  ctx: AuthContext,
  action: LimitedAction,
  account?: string | null,
): Promise<Failure<'LIMIT_EXCEEDED'> | null> {
  const address = ctx.identity.clientIp;
  const user = account || ctx.identity.username;
  const key = address ? address : user ? `account:${user.toLowerCase()}` : null;
  if (key === null) return null;
  const wait = await ctx.limiter.take(action, key);
  if (wait === 0) return null;
  ctx.metrics.refusal('rate_limit', action);
  const from = address ? 'from this address' : 'for this account';
  return fail('LIMIT_EXCEEDED', `Too many attempts ${from}; try again in ${wait} s.`);
}

/** A session mutation's result; a success with no session (reset without sign-in) shows SIGNED_OUT. */
export async function sessionResult(ctx: AuthContext, result: AuthResult<IssuedSession | null>) {
  const shown = result.ok ? ok(await issuedSession(ctx, result.value)) : result;
  return mutationResult(ctx.requestId, shown, (session) => ({ session }), { session: null });
}

async function issuedSession(ctx: AuthContext, issued: IssuedSession | null): Promise<Session> {
  if (!issued) return SIGNED_OUT;
  issue(ctx, issued);
  const view = await sessionView(ctx, issued.hash);
  // A remembered device's whole key is shown in this answer only (the store has its hash).
  return issued.deviceKey ? { ...view, deviceKey: issued.deviceKey } : view;
}

/** After ending some of the user's sessions: the caller's session, or signed out when it was one of them. */
export async function endedSessionsResult(ctx: AuthContext, result: AuthResult<{ endedCurrent: boolean }>) {
  const shown = result.ok ? ok(await remainingSession(ctx, result.value.endedCurrent)) : result;
  return mutationResult(ctx.requestId, shown, (session) => ({ session }), { session: null });
}

async function remainingSession(ctx: AuthContext, endedCurrent: boolean): Promise<Session> {
  if (!endedCurrent) return loadSessionView(ctx);
  endSession(ctx);
  return SIGNED_OUT;
}

/** An API key as the API shows it: its session ID only when just created. */
export function apiKeyOut(k: ApiKeyView, sessionId: string | null) {
  return { ...k, apiKeySessionId: sessionId, authenticated: true };
}
