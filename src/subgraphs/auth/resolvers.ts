import type { Resolvers } from '../../__generated__/auth.ts';
import { notImplemented } from '../../shared/errors.ts';
import type { AuthContext } from './context.ts';
import { loadSessionView } from './sessions/session-view.ts';

const later = (what: string) => () => {
  throw notImplemented(what);
};

export const resolvers: Resolvers = {
  Query: {
    session: (_root, _args, ctx) => loadSessionView(ctx),
    config: (_root, _args, ctx) => ({ auth: ctx.authConfig }),
    credentials: later('credentials'),
    user: later('user'),
  },
  Mutation: {
    signIn: later('signIn'),
    confirmSignIn: later('confirmSignIn'),
    signOut: later('signOut'),
    federatedSignIn: later('federatedSignIn'),
    createAPIKey: later('createAPIKey'),
    setSessionUserGroup: later('setSessionUserGroup'),
    reauthenticate: later('reauthenticate'),
    forgetDevices: later('forgetDevices'),
    forgotPassword: later('forgotPassword'),
    forgotPasswordSubmit: later('forgotPasswordSubmit'),
    revokeAPIKey: later('revokeAPIKey'),
    associateSoftwareToken: later('associateSoftwareToken'),
  },
  EntityOwner: {
    __resolveReference: (ref) => ref,
    user: later('EntityOwner.user'),
  },
};

export type { AuthContext };
