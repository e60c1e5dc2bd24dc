import type { Session } from '../../../__generated__/auth.ts';
import { type Failure, fail, mutationResult, ok } from '../../../shared/result.ts';
import { SESSION_CHANGE_HEADER } from '../../../shared/session-policy.ts';
import type { ApiKeyView } from '../api-keys.ts';
import type { AuthContext } from '../context.ts';
import type { AuthResult } from '../error-codes.ts';
import type { LimitedAction } from '../limits.ts';
import type { IssuedSession } from '../sessions.ts';
import { loadSessionView, SIGNED_OUT, sessionView } from './session-view.ts';

// Mutation results from what the flows answer, each through mutationResult: `correlationId`,
// `errors`, and the payload null on failure.

export const LOGIN_DISABLED = fail('LOGIN_DISABLED', 'Sign-in with a password is disabled.');

/** Tells the gateway to hand the client a new session ID (cookie and header). */
function issue(ctx: AuthContext, s: IssuedSession) {
  ctx.responseHeaders.set(SESSION_CHANGE_HEADER, `set ${s.id} ${Math.floor(s.maxAgeSeconds)}`);
}

/** Tells the gateway to clear the client's session cookie. */
export function endSession(ctx: AuthContext) {
  ctx.responseHeaders.set(SESSION_CHANGE_HEADER, 'clear');
}

/** A LIMIT_EXCEEDED failure when this address has used up `action`, else null. */
export async function limited(
  ctx: AuthContext,
  action: LimitedAction,
): Promise<Failure<'LIMIT_EXCEEDED'> | null> {
  const wait = await ctx.limiter.take(action, ctx.identity.clientIp);
  if (wait > 0) ctx.metrics.refusal('rate_limit', action);
  return wait > 0
    ? fail('LIMIT_EXCEEDED', `Too many attempts from this address; try again in ${wait} s.`)
    : null;
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
