import type { MutationResolvers } from '../../../__generated__/auth.ts';
import { mutationResult, ok } from '../../../shared/result.ts';
import { createAPIKey, revokeAPIKey } from '../api-keys.ts';
import { associateSoftwareToken, confirmSignIn } from '../challenges.ts';
import { forgetDevices } from '../devices.ts';
import { federatedSignIn } from '../federated.ts';
import { changePassword, forgotPassword, forgotPasswordSubmit } from '../passwords.ts';
import { reauthenticate, setSessionUserGroup, signOut, signOutSession } from '../sessions.ts';
import { signIn } from '../sign-in.ts';
import {
  apiKeyOut,
  endedSessionsResult,
  endSession,
  LOGIN_DISABLED,
  limited,
  sessionResult,
} from './results.ts';
import { SIGNED_OUT } from './session-view.ts';

// Each mutation runs its flow unless the address (or, with no address known, the account) has used
// up its limit: `limited(…) ?? flow()`
// runs the flow only when there is no limit failure.

export const Mutation: MutationResolvers = {
  signIn: async (_root, { input }, ctx) => {
    if (!ctx.authConfig.loginEnabled) return sessionResult(ctx, LOGIN_DISABLED);
    const result =
      (await limited(ctx, 'signIn', input.loginUsername)) ??
      (await signIn(ctx.auth, {
        loginUsername: input.loginUsername,
        password: input.password,
        clientType: input.clientApplicationType,
        deviceKey: input.deviceKey,
        deviceName: input.deviceName,
        ip: ctx.identity.clientIp ?? null,
      }));
    ctx.metrics.signIn(result.ok ? 'success' : result.type);
    return sessionResult(ctx, result);
  },
  confirmSignIn: async (_root, { input }, ctx) =>
    sessionResult(
      ctx,
      (await limited(ctx, 'confirmSignIn')) ??
        (await confirmSignIn(ctx.auth, ctx.identity, input.code, input.mfaType, {
          rememberDevice: input.rememberDevice === true,
        })),
    ),
  signOut: async (_root, _args, ctx) => {
    await signOut(ctx.auth, ctx.identity);
    endSession(ctx);
    return mutationResult(ctx.requestId, ok(SIGNED_OUT), (session) => ({ session }), { session: null });
  },
  federatedSignIn: async (_root, { input }, ctx) =>
    sessionResult(
      ctx,
      (await limited(ctx, 'signIn')) ??
        (await federatedSignIn(ctx.auth, input.cognitoIdToken, {
          clientType: input.clientApplicationType,
          deviceKey: input.deviceKey,
          deviceName: input.deviceName,
          ip: ctx.identity.clientIp ?? null,
        })),
    ),
  setSessionUserGroup: async (_root, { input }, ctx) =>
    sessionResult(ctx, await setSessionUserGroup(ctx.auth, ctx.identity, input.userGroup)),
  // Guessing a password through reauthenticate is limited like sign-in.
  reauthenticate: async (_root, { input }, ctx) =>
    sessionResult(
      ctx,
      (await limited(ctx, 'signIn')) ?? (await reauthenticate(ctx.auth, ctx.identity, input.password)),
    ),
  // A wrong current password is a guess like a wrong sign-in: the same limit per address.
  changePassword: async (_root, { input }, ctx) =>
    sessionResult(
      ctx,
      (await limited(ctx, 'signIn')) ??
        (await changePassword(ctx.auth, ctx.identity, input.currentPassword, input.newPassword)),
    ),
  forgetDevices: async (_root, { input }, ctx) =>
    endedSessionsResult(ctx, await forgetDevices(ctx.auth, ctx.identity, input.deviceKeys)),
  signOutSession: async (_root, { input }, ctx) =>
    endedSessionsResult(ctx, await signOutSession(ctx.auth, ctx.identity, input.sessionRef)),
  forgotPassword: async (_root, { input }, ctx) => {
    const limit = await limited(ctx, 'forgotPassword', input.loginUsername);
    if (!limit) forgotPassword(ctx.auth, input.loginUsername, ctx.identity.clientIp ?? null);
    return mutationResult(ctx.requestId, limit ?? ok(null), () => ({}), {});
  },
  forgotPasswordSubmit: async (_root, { input }, ctx) =>
    sessionResult(
      ctx,
      (await limited(ctx, 'forgotPasswordSubmit', input.loginUsername)) ??
        (await forgotPasswordSubmit(
          ctx.auth,
          input.loginUsername,
          input.confirmationCode,
          input.password,
          ctx.identity.clientIp ?? null,
          { signIn: ctx.authConfig.loginEnabled },
        )),
    ),
  createAPIKey: async (_root, { input }, ctx) =>
    mutationResult(
      ctx.requestId,
      (await limited(ctx, 'createAPIKey')) ??
        (await createAPIKey(ctx.auth, ctx.identity, input.apiKeyId, input.userGroup)),
      (k) => ({ apiKey: apiKeyOut(k, k.sessionId) }),
      { apiKey: null },
    ),
  revokeAPIKey: async (_root, { input }, ctx) =>
    mutationResult(
      ctx.requestId,
      await revokeAPIKey(ctx.auth, ctx.identity, input.apiKeyId),
      (k) => ({ apiKey: apiKeyOut(k, null) }),
      { apiKey: null },
    ),
  associateSoftwareToken: async (_root, _args, ctx) =>
    mutationResult(
      ctx.requestId,
      await associateSoftwareToken(ctx.auth, ctx.identity),
      (softwareToken) => ({ softwareToken }),
      { softwareToken: null },
    ),
};
