import { GraphQLError } from 'graphql';
import type { AuthErrorType, ClientApplicationType, Resolvers, Session } from '../../__generated__/auth.ts';
import { unauthenticated } from '../../shared/errors.ts';
import { SESSION_CHANGE_HEADER } from '../../shared/session-policy.ts';
import type { ApiKeyView, IssuedSession, Outcome } from './auth.service.ts';
import type { AuthContext } from './context.ts';
import { CredentialsUnavailableError } from './credentials/provider.ts';
import type { LimitedAction } from './limits.ts';
import { loadSessionView, SIGNED_OUT, sessionView } from './sessions/session-view.ts';

type Errors = { message: string; type: AuthErrorType }[];

/** Tells the gateway to hand the client a new session ID (cookie and header). */
function issue(ctx: AuthContext, s: IssuedSession) {
  ctx.responseHeaders.set(SESSION_CHANGE_HEADER, `set ${s.id} ${Math.floor(s.maxAgeSeconds)}`);
}

function endSession(ctx: AuthContext) {
  ctx.responseHeaders.set(SESSION_CHANGE_HEADER, 'clear');
}

/** A mutation result from an outcome; a success with no session (reset without sign-in) shows SIGNED_OUT. */
async function sessionResult(ctx: AuthContext, outcome: Outcome<IssuedSession | null>) {
  const correlationId = ctx.requestId;
  if (!outcome.ok) {
    return {
      session: null,
      correlationId,
      errors: [{ message: outcome.message, type: outcome.type }] as Errors,
    };
  }
  if (!outcome.value) return { session: SIGNED_OUT, correlationId, errors: [] as Errors };
  issue(ctx, outcome.value);
  return { session: await sessionView(ctx, outcome.value.hash), correlationId, errors: [] as Errors };
}

function apiKeyOut(k: ApiKeyView, sessionId: string | null) {
  return { ...k, apiKeySessionId: sessionId, authenticated: true };
}

/** A LIMIT_EXCEEDED error when this address has used up `action`, else null. */
async function limited(ctx: AuthContext, action: LimitedAction): Promise<Errors | null> {
  const wait = await ctx.limiter.take(action, ctx.identity.clientIp);
  return wait > 0
    ? [{ type: 'LIMIT_EXCEEDED', message: `Too many attempts from this address; try again in ${wait} s.` }]
    : null;
}

/** After ending some of the user's sessions: the caller's session, or signed out when it was one of them. */
async function endedSessionsResult(ctx: AuthContext, outcome: Outcome<{ endedCurrent: boolean }>) {
  if (!outcome.ok) {
    return {
      session: null,
      correlationId: ctx.requestId,
      errors: [{ message: outcome.message, type: outcome.type }] as Errors,
    };
  }
  if (outcome.value.endedCurrent) {
    endSession(ctx);
    return { session: SIGNED_OUT, correlationId: ctx.requestId, errors: [] as Errors };
  }
  return { session: await loadSessionView(ctx), correlationId: ctx.requestId, errors: [] as Errors };
}

function loginDisabled(ctx: AuthContext) {
  return {
    session: null as Session | null,
    correlationId: ctx.requestId,
    errors: [{ type: 'LOGIN_DISABLED', message: 'Sign-in with a password is disabled.' }] as Errors,
  };
}

export const resolvers: Resolvers = {
  Query: {
    session: (_root, _args, ctx) => loadSessionView(ctx),
    config: (_root, _args, ctx) => ({ auth: ctx.authConfig }),
    credentials: async (_root, { group }, ctx) => {
      const { identity } = ctx;
      if ((identity.kind !== 'session' && identity.kind !== 'api_key') || !identity.username)
        throw unauthenticated();
      const wanted = group ?? identity.userGroup;
      // An API key acts in its own group only; a session in any of its user's groups.
      const allowed =
        identity.kind === 'api_key' ? [identity.userGroup] : await ctx.auth.groupsOf(identity.username);
      if (!wanted || !allowed.includes(wanted)) {
        throw new GraphQLError(`You have no access to group ${wanted}.`, {
          extensions: { code: 'FORBIDDEN' },
        });
      }
      try {
        return await ctx.credentials.issue({ username: identity.username, group: wanted });
      } catch (e) {
        if (!(e instanceof CredentialsUnavailableError)) throw e;
        throw new GraphQLError(e.message, {
          extensions: { code: 'CREDENTIALS_UNAVAILABLE', reason: e.reason },
        });
      }
    },
    user: (_root, { id }, ctx) => {
      const { identity } = ctx;
      if (identity.kind !== 'session' && identity.kind !== 'api_key') throw unauthenticated();
      // Users see themselves only; anyone else is simply not there.
      return identity.username !== null && identity.username.toLowerCase() === id.toLowerCase()
        ? { id: identity.username, username: identity.username }
        : null;
    },
  },
  Mutation: {
    signIn: async (_root, { input }, ctx) => {
      if (!ctx.authConfig.loginEnabled) return loginDisabled(ctx);
      const errors = await limited(ctx, 'signIn');
      if (errors) return { session: null, correlationId: ctx.requestId, errors };
      const outcome = await ctx.auth.signIn({
        loginUsername: input.loginUsername,
        password: input.password,
        clientType: input.clientApplicationType,
        deviceKey: input.deviceKey,
        deviceName: input.deviceName,
        ip: ctx.identity.clientIp ?? null,
      });
      return sessionResult(ctx, outcome);
    },
    confirmSignIn: async (_root, { input }, ctx) => {
      const errors = await limited(ctx, 'confirmSignIn');
      if (errors) return { session: null, correlationId: ctx.requestId, errors };
      return sessionResult(ctx, await ctx.auth.confirmSignIn(ctx.identity, input.code, input.mfaType));
    },
    signOut: async (_root, _args, ctx) => {
      await ctx.auth.signOut(ctx.identity);
      endSession(ctx);
      return { session: SIGNED_OUT, correlationId: ctx.requestId, errors: [] };
    },
    federatedSignIn: async (_root, { input }, ctx) => {
      const errors = await limited(ctx, 'signIn');
      if (errors) return { session: null, correlationId: ctx.requestId, errors };
      const outcome = await ctx.auth.federatedSignIn(input.cognitoIdToken, {
        clientType: input.clientApplicationType,
        deviceKey: input.deviceKey,
        deviceName: input.deviceName,
        ip: ctx.identity.clientIp ?? null,
      });
      return sessionResult(ctx, outcome);
    },
    setSessionUserGroup: async (_root, { input }, ctx) =>
      sessionResult(ctx, await ctx.auth.setSessionUserGroup(ctx.identity, input.userGroup)),
    reauthenticate: async (_root, { input }, ctx) => {
      // Guessing a password through reauthenticate is limited like sign-in.
      const errors = await limited(ctx, 'signIn');
      if (errors) return { session: null, correlationId: ctx.requestId, errors };
      return sessionResult(ctx, await ctx.auth.reauthenticate(ctx.identity, input.password));
    },
    changePassword: async (_root, { input }, ctx) => {
      // A wrong current password is a guess like a wrong sign-in: the same limit per address.
      const errors = await limited(ctx, 'signIn');
      if (errors) return { session: null, correlationId: ctx.requestId, errors };
      return sessionResult(
        ctx,
        await ctx.auth.changePassword(ctx.identity, input.currentPassword, input.newPassword),
      );
    },
    forgetDevices: async (_root, { input }, ctx) =>
      endedSessionsResult(ctx, await ctx.auth.forgetDevices(ctx.identity, input.deviceKeys)),
    signOutSession: async (_root, { input }, ctx) =>
      endedSessionsResult(ctx, await ctx.auth.signOutSession(ctx.identity, input.sessionRef)),
    forgotPassword: async (_root, { input }, ctx) => {
      const errors = await limited(ctx, 'forgotPassword');
      if (errors) return { correlationId: ctx.requestId, errors };
      ctx.auth.forgotPassword(input.loginUsername, ctx.identity.clientIp ?? null);
      return { correlationId: ctx.requestId, errors: [] };
    },
    forgotPasswordSubmit: async (_root, { input }, ctx) => {
      const errors = await limited(ctx, 'forgotPasswordSubmit');
      if (errors) return { session: null, correlationId: ctx.requestId, errors };
      return sessionResult(
        ctx,
        await ctx.auth.forgotPasswordSubmit(
          input.loginUsername,
          input.confirmationCode,
          input.password,
          ctx.identity.clientIp ?? null,
          { signIn: ctx.authConfig.loginEnabled },
        ),
      );
    },
    createAPIKey: async (_root, { input }, ctx) => {
      const limit = await limited(ctx, 'createAPIKey');
      if (limit) return { apiKey: null, correlationId: ctx.requestId, errors: limit };
      const outcome = await ctx.auth.createAPIKey(ctx.identity, input.apiKeyId, input.userGroup);
      if (!outcome.ok) {
        return {
          apiKey: null,
          correlationId: ctx.requestId,
          errors: [{ message: outcome.message, type: outcome.type }],
        };
      }
      return {
        apiKey: apiKeyOut(outcome.value, outcome.value.sessionId),
        correlationId: ctx.requestId,
        errors: [],
      };
    },
    revokeAPIKey: async (_root, { input }, ctx) => {
      const outcome = await ctx.auth.revokeAPIKey(ctx.identity, input.apiKeyId);
      if (!outcome.ok) {
        return {
          apiKey: null,
          correlationId: ctx.requestId,
          errors: [{ message: outcome.message, type: outcome.type }],
        };
      }
      return { apiKey: apiKeyOut(outcome.value, null), correlationId: ctx.requestId, errors: [] };
    },
    associateSoftwareToken: async (_root, _args, ctx) => {
      const outcome = await ctx.auth.associateSoftwareToken(ctx.identity);
      if (!outcome.ok) {
        return {
          softwareToken: null,
          correlationId: ctx.requestId,
          errors: [{ message: outcome.message, type: outcome.type }],
        };
      }
      return { softwareToken: outcome.value, correlationId: ctx.requestId, errors: [] };
    },
  },
  User: {
    __resolveReference: (ref, ctx) =>
      ctx.identity.username !== null && ctx.identity.username === ref.id
        ? { id: ref.id, username: ref.id }
        : null,
    email: async (u, _args, ctx) =>
      (await ctx.db.selectFrom('users').select('email').where('username', '=', u.id).executeTakeFirst())
        ?.email ?? null,
    phone: async (u, _args, ctx) =>
      (await ctx.db.selectFrom('users').select('phone').where('username', '=', u.id).executeTakeFirst())
        ?.phone ?? null,
    groups: (u, _args, ctx) => ctx.auth.groupsOf(u.id),
    devices: async (u, _args, ctx) =>
      (await ctx.auth.devicesOf(u.id)).map((d) => ({
        deviceKey: d.device_key,
        name: d.name,
        remembered: d.remembered,
        createdAt: d.created_at,
        lastSignedInAt: d.last_signed_in_at,
        lastIpAddress: d.last_ip_address,
      })),
    apiKeys: async (u, _args, ctx) => (await ctx.auth.listAPIKeys(u.id)).map((k) => apiKeyOut(k, null)),
    sessions: async (u, _args, ctx) =>
      (await ctx.auth.sessionsOf(u.id, ctx.identity.sessionHash)).map(({ clientType, ...s }) => ({
        ...s,
        clientApplicationType: clientType as ClientApplicationType,
      })),
  },
  EntityOwner: {
    __resolveReference: (ref) => ref,
    user: (o, _args, ctx) =>
      ctx.identity.username !== null && ctx.identity.username === o.username
        ? { id: o.username, username: o.username }
        : null,
  },
};
