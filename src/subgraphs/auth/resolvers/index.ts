import { GraphQLError } from 'graphql';
import type { ClientApplicationType, Resolvers } from '../../../__generated__/auth.ts';
import { unauthenticated } from '../../../shared/errors.ts';
import { listAPIKeys } from '../api-keys.ts';
import { CredentialsUnavailableError } from '../credentials/provider.ts';
import { devicesOfUser } from '../devices.ts';
import { contactOf, groupsOf } from '../repository/users.ts';
import { sessionsOf } from '../sessions.ts';
import { Mutation } from './mutations.ts';
import { apiKeyOut } from './results.ts';
import { asksOnlyIdentity, loadSessionView, sessionFromIdentity } from './session-view.ts';

// The only place (with the files beside it) that sees the generated types: the flows and the
// repository speak in their own terms, and these resolvers map them to the schema's.

export const resolvers: Resolvers = {
  Query: {
    session: (_root, _args, ctx, info) =>
      asksOnlyIdentity(info) ? sessionFromIdentity(ctx.identity) : loadSessionView(ctx),
    config: (_root, _args, ctx) => ({ auth: ctx.authConfig }),
    credentials: async (_root, { group }, ctx) => {
      const { identity } = ctx;
      if ((identity.kind !== 'session' && identity.kind !== 'api_key') || !identity.username)
        throw unauthenticated();
      const wanted = group ?? identity.userGroup;
      // An API key acts in its own group only; a session in any of its user's groups.
      const allowed =
        identity.kind === 'api_key' ? [identity.userGroup] : await groupsOf(ctx.auth.db, identity.username);
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
  Mutation,
  User: {
    __resolveReference: (ref, ctx) =>
      ctx.identity.username !== null && ctx.identity.username === ref.id
        ? { id: ref.id, username: ref.id }
        : null,
    email: async (u, _args, ctx) => (await contactOf(ctx.auth.db, u.id))?.email ?? null,
    phone: async (u, _args, ctx) => (await contactOf(ctx.auth.db, u.id))?.phone ?? null,
    groups: (u, _args, ctx) => groupsOf(ctx.auth.db, u.id),
    devices: (u, _args, ctx) => devicesOfUser(ctx.auth, u.id),
    apiKeys: async (u, _args, ctx) => (await listAPIKeys(ctx.auth, u.id)).map((k) => apiKeyOut(k, null)),
    sessions: async (u, _args, ctx) =>
      (await sessionsOf(ctx.auth, u.id, ctx.identity.sessionHash)).map(({ clientType, ...s }) => ({
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
