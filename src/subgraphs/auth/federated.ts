import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import { fail, ok } from '../../shared/result.ts';
import type { Tables } from '../../storage/tables.ts';
import { recordEvent } from './audit.ts';
import type { SignInOptions } from './challenges.ts';
import type { AuthCore } from './core.ts';
import { deviceNameProblem, identifyDevice } from './devices.ts';
import { type AuthResult, INCORRECT_CREDENTIALS, USER_DISABLED } from './error-codes.ts';
import { type OidcVerifier, TokenError } from './federated/oidc.ts';
import {
  findUser,
  insertLink,
  insertUser,
  linkedUsername,
  replaceGroups,
  touchLink,
  usernameTakenBy,
} from './repository/users.ts';
import { type IssuedSession, startSession } from './sessions.ts';

/**
 * Signs in with an OpenID Connect ID token. The (issuer, sub) pair is the link to a local
 * user: the first sign-in provisions `<name>_<sub>` in the issuer's configured groups (or
 * those of them the token's groups claim names); later ones find the same user. Users are
 * never linked by email, which an identity provider may not have verified.
 */
export async function federatedSignIn(
  core: AuthCore,
  token: string,
  opts: SignInOptions,
): Promise<AuthResult<IssuedSession>> {
  if (!core.oidc.enabled)
    return fail('LOGIN_DISABLED', 'No identity provider is configured for federated sign-in.');
  const badName = deviceNameProblem(opts.deviceName);
  if (badName) return fail('INVALID_INPUT', badName);
  let verified: Awaited<ReturnType<OidcVerifier['verify']>>;
  try {
    verified = await core.oidc.verify(token);
  } catch (e) {
    if (!(e instanceof TokenError)) throw e;
    await recordEvent(core, null, 'federated_sign_in_failed', opts.ip, { reason: e.message.slice(0, 200) });
    return fail('INVALID_TOKEN', e.message);
  }
  const { issuer, claims } = verified;
  // With a groups claim configured, its absence means no group, never all of them.
  const claimed = issuer.groupsClaim ? claims[issuer.groupsClaim] : undefined;
  const groups = issuer.groupsClaim
    ? issuer.groups.filter((g) => Array.isArray(claimed) && (claimed as unknown[]).includes(g))
    : issuer.groups;
  const now = core.clock.now();
  const outcome = await core.db.transaction().execute(async (trx): Promise<AuthResult<string>> => {
    const linked = await linkedUsername(trx, issuer.issuer, claims.sub);
    let username = linked;
    if (!username) {
      if (groups.length === 0)
        return fail('GROUP_ACCESS_DENIED', 'Your identity provider gives you no group here.');
      username = await freeUsername(trx, issuer.issuer, issuer.name ?? 'sso', claims.sub);
      const email = claims.email_verified === true && typeof claims.email === 'string' ? claims.email : null;
      // No "on conflict": an existing user is never taken over by a new identity.
      await insertUser(trx, { username, email });
      await insertLink(trx, { issuer: issuer.issuer, subject: claims.sub, username, now });
      await recordEvent(
        core,
        username,
        'federated_user_provisioned',
        opts.ip,
        { issuer: issuer.issuer },
        trx,
      );
    }
    if (issuer.groupsClaim || !linked) {
      // Keep the groups in step with the identity provider's claim.
      await replaceGroups(trx, username, groups);
    }
    await touchLink(trx, issuer.issuer, claims.sub, now);
    return ok(username);
  });
  if (!outcome.ok) return outcome;
  const user = await findUser(core.db, outcome.value);
  if (!user) return INCORRECT_CREDENTIALS;
  if (user.disabled) return USER_DISABLED;
  // MFA is the identity provider's: a remembered device skips nothing here, but its whole key
  // names it (and is shown again), as at any sign-in.
  const device = await identifyDevice(core, user.username, opts.deviceKey, opts.deviceName);
  const started = await startSession(core, user.username, opts.clientType, device, opts.ip);
  return started.ok && device.remembered ? ok({ ...started.value, deviceKey: device.remembered }) : started;
}

/**
 * `<name>_<sub>` when that name is free; otherwise (a password user of that name, or two
 * subjects that sanitise alike) a name from a hash of issuer and subject.
 */
async function freeUsername(db: Kysely<Tables>, issuer: string, name: string, sub: string): Promise<string> {
  const plain = `${name}_${sub}`.replace(/[^A-Za-z0-9._@+-]/g, '_').slice(0, 128);
  const hashed = `${name}_${createHmac('sha256', 'assetql-federated').update(`${issuer}\u0000${sub}`).digest('hex').slice(0, 24)}`;
  for (const candidate of [plain, hashed]) {
    if (!(await usernameTakenBy(db, candidate))) return candidate;
  }
  throw new Error(`no free username for federated subject of ${issuer}`);
}
