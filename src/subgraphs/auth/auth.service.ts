import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { AuthErrorType } from '../../__generated__/auth.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Identity } from '../../shared/identity.ts';
import type { Logger } from '../../shared/logger.ts';
import { deriveKey } from '../../shared/secrets.ts';
import { hashSessionId, lifetimeOf, newSessionId } from '../../shared/session-policy.ts';
import type { Tables } from '../../storage/tables.ts';
import { type OidcVerifier, TokenError } from './federated/oidc.ts';
import type { Messenger } from './messaging/messenger.ts';
import { type SecurityNotice, sendNotice } from './messaging/notices.ts';
import { newTotpSecret, otpauthUri, totpStep } from './mfa/totp.ts';
import { hashPassword, passwordProblem, verifyPassword } from './passwords/passwords.ts';
import { seal, unseal } from './passwords/sealed.ts';

type Db = Kysely<Tables>;
type Trx = Transaction<Tables>;

/** A pending challenge lives this long (AWS Cognito: 3 minutes)... */
export const CHALLENGE_LIFETIME_MS = 3 * 60 * 1000;
/** ...and dies after this many wrong answers. */
export const CHALLENGE_MAX_ATTEMPTS = 5;
/** Creating API keys and forgetting devices need a password entered this recently. */
export const RECENT_AUTH_MS = 15 * 60 * 1000;
/** Password-reset codes: 6 digits, valid 15 minutes, 5 tries, single use. */
export const RESET_CODE_LIFETIME_MS = 15 * 60 * 1000;
export const RESET_CODE_MAX_ATTEMPTS = 5;
/** The shape of `sessions.public_id`; anything else names no session and is not looked up. */
const SESSION_REF = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Consecutive wrong passwords allowed before the account backs off (then 1 s, 2 s, 4 s… up to 15 min). */
export const FREE_FAILURES = 5;
export const MAX_BACKOFF_MS = 15 * 60 * 1000;

export type Failure = { ok: false; type: AuthErrorType; message: string };
export type Outcome<T> = { ok: true; value: T } | Failure;

const fail = (type: AuthErrorType, message: string): Failure => ({ ok: false, type, message });
const NOT_AUTHORIZED = fail('NOT_AUTHORIZED', 'Incorrect username or password.');

/** A session the client should now present; the resolver turns it into cookie and header. */
export interface IssuedSession {
  id: string;
  hash: Buffer;
  maxAgeSeconds: number;
}

export interface AuthServiceDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  secret: string;
  messenger: Messenger;
  oidc: OidcVerifier;
}

interface UserRow {
  username: string;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  disabled: boolean;
  mfa: string | null;
  mfa_required: boolean;
  totp_secret: string | null;
  totp_last_step: number;
  require_new_password: boolean;
  failed_attempts: number;
  locked_until: Date | null;
}

export interface SignInRequest {
  loginUsername: string;
  password: string;
  clientType: string;
  deviceKey?: string | null;
  deviceName?: string | null;
  ip: string | null;
}

/**
 * The authentication rules, independent of GraphQL: sign-in with its challenges, sessions,
 * groups, API keys, devices and password reset. Domain failures are returned, never thrown.
 */
export class AuthService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #totpKey: Uint8Array;
  readonly #codeKey: Uint8Array;
  readonly #messenger: Messenger;
  readonly #oidc: OidcVerifier;

  constructor(deps: AuthServiceDeps) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#totpKey = deriveKey(deps.secret, 'totp-seal');
    this.#codeKey = deriveKey(deps.secret, 'one-time-codes');
    this.#messenger = deps.messenger;
    this.#oidc = deps.oidc;
  }

  // ---------------------------------------------------------------------------------------
  // Sign-in and challenges

  async signIn(req: SignInRequest): Promise<Outcome<IssuedSession>> {
    const now = this.#clock.now();
    const user = await this.#findUser(req.loginUsername);
    if (user?.locked_until && user.locked_until > now) {
      await this.#event(user.username, 'sign_in_throttled', req.ip);
      return fail('LIMIT_EXCEEDED', 'Too many failed attempts; try again later.');
    }
    const good = await verifyPassword(user?.password_hash, req.password);
    if (!user || !good) {
      if (user) await this.#recordFailure(user, now);
      await this.#event(user?.username ?? null, 'sign_in_failed', req.ip, {
        loginUsername: req.loginUsername.slice(0, 128),
      });
      return NOT_AUTHORIZED;
    }
    if (user.disabled) return fail('USER_DISABLED', 'This user is disabled.');
    await this.#db
      .updateTable('users')
      .set({ failed_attempts: 0, locked_until: null })
      .where('username', '=', user.username)
      .execute();
    return this.#nextStep(user, {
      clientType: req.clientType,
      deviceKey: req.deviceKey,
      deviceName: req.deviceName,
      ip: req.ip,
    });
  }

  /** After the password (or a completed challenge): the next challenge, or the session. */
  async #nextStep(
    user: UserRow,
    opts: { clientType: string; deviceKey?: string | null; deviceName?: string | null; ip: string | null },
  ): Promise<Outcome<IssuedSession>> {
    const device = { key: opts.deviceKey ?? null, name: opts.deviceName ?? null };
    if (user.require_new_password) {
      return this.#startChallenge(user, 'NEW_PASSWORD_REQUIRED', opts.clientType, device, {}, {});
    }
    if (user.mfa === 'totp' && user.totp_secret) {
      return this.#startChallenge(user, 'SOFTWARE_TOKEN_MFA', opts.clientType, device, {}, {});
    }
    if (user.mfa === 'sms' && user.phone) {
      const code = sixDigits();
      const outcome = await this.#startChallenge(
        user,
        'SMS_MFA',
        opts.clientType,
        device,
        {
          CODE_DELIVERY_DELIVERY_MEDIUM: 'SMS',
          CODE_DELIVERY_DESTINATION: maskPhone(user.phone),
        },
        { codeHash: this.#codeHash(code) },
      );
      await this.#messenger.send({
        channel: 'sms',
        to: user.phone,
        body: `Your assetql sign-in code is ${code}`,
      });
      return outcome;
    }
    if (user.mfa_required) {
      return this.#startChallenge(
        user,
        'MFA_SETUP',
        opts.clientType,
        device,
        { MFAS_CAN_SETUP: ['SOFTWARE_TOKEN_MFA'] },
        {},
      );
    }
    return this.#startSession(user.username, opts.clientType, device, opts.ip);
  }

  async #startChallenge(
    user: UserRow,
    name: string,
    clientType: string,
    device: { key: string | null; name: string | null },
    param: Record<string, unknown>,
    state: Record<string, unknown>,
  ): Promise<Outcome<IssuedSession>> {
    const now = this.#clock.now();
    const id = newSessionId();
    const hash = hashSessionId(id);
    const until = new Date(now.getTime() + CHALLENGE_LIFETIME_MS);
    await this.#db
      .insertInto('sessions')
      .values({
        id_hash: hash,
        kind: 'challenge',
        username: user.username,
        user_group: null,
        client_type: clientType,
        created_at: now,
        expires_at: until,
        expires_at_hard: until,
        last_seen_at: now,
        challenge_name: name,
        challenge_param: JSON.stringify({ USER_ID_FOR_SRP: user.username, ...param }),
        challenge_state: JSON.stringify({ ...state, deviceKey: device.key, deviceName: device.name }),
      })
      .execute();
    return { ok: true, value: { id, hash, maxAgeSeconds: CHALLENGE_LIFETIME_MS / 1000 } };
  }

  async #startSession(
    username: string,
    clientType: string,
    device: { key: string | null; name: string | null },
    ip: string | null,
    trx: Db | Trx = this.#db,
  ): Promise<Outcome<IssuedSession>> {
    const now = this.#clock.now();
    const groups = await this.groupsOf(username, trx);
    const group = groups[0];
    if (!group) return fail('GROUP_ACCESS_DENIED', 'This user belongs to no group.');
    const deviceKey = await this.#touchDevice(trx, username, device, ip, now);
    const life = lifetimeOf(clientType);
    const id = newSessionId();
    const hash = hashSessionId(id);
    await trx
      .insertInto('sessions')
      .values({
        id_hash: hash,
        kind: 'session',
        username,
        user_group: group,
        client_type: clientType,
        created_at: now,
        expires_at: new Date(now.getTime() + life.idleMs),
        expires_at_hard: new Date(now.getTime() + life.maxMs),
        last_authenticated_at: now,
        last_seen_at: now,
        device_key: deviceKey,
        ip_address: ip,
      })
      .execute();
    await this.#event(username, 'sign_in', ip, { clientType, deviceKey }, trx);
    return { ok: true, value: { id, hash, maxAgeSeconds: life.maxMs / 1000 } };
  }

  async #touchDevice(
    trx: Db | Trx,
    username: string,
    device: { key: string | null; name: string | null },
    ip: string | null,
    now: Date,
  ): Promise<string> {
    if (device.key) {
      const known = await trx
        .updateTable('devices')
        .set({ last_signed_in_at: now, last_ip_address: ip, ...(device.name ? { name: device.name } : {}) })
        .where('username', '=', username)
        .where('device_key', '=', device.key)
        .executeTakeFirst();
      if (known.numUpdatedRows > 0n) return device.key;
    }
    const key = crypto.randomUUID();
    await trx
      .insertInto('devices')
      .values({
        username,
        device_key: key,
        name: device.name?.slice(0, 200) ?? null,
        created_at: now,
        last_signed_in_at: now,
        last_ip_address: ip,
      })
      .execute();
    return key;
  }

  async confirmSignIn(identity: Identity, code: string, mfaType: string): Promise<Outcome<IssuedSession>> {
    if (identity.kind !== 'challenge' || !identity.sessionHash) {
      return fail('NO_PENDING_CHALLENGE', 'No sign-in is waiting for a challenge answer.');
    }
    const hash = Buffer.from(identity.sessionHash, 'hex');
    const now = this.#clock.now();
    const pending = await this.#db
      .selectFrom('sessions')
      .selectAll()
      .where('id_hash', '=', hash)
      .executeTakeFirst();
    if (pending?.kind !== 'challenge' || pending.expires_at_hard <= now) {
      return fail('CHALLENGE_EXPIRED', 'The sign-in expired; sign in again.');
    }
    if (pending.challenge_name !== mfaType) {
      return fail(
        'NO_PENDING_CHALLENGE',
        `The pending challenge is ${pending.challenge_name}, not ${mfaType}.`,
      );
    }
    const user = await this.#findUser(pending.username);
    if (!user || user.disabled) return NOT_AUTHORIZED;
    const state = (pending.challenge_state ?? {}) as Record<string, unknown>;
    const device = {
      key: (state.deviceKey as string | null) ?? null,
      name: (state.deviceName as string | null) ?? null,
    };

    const wrong = async (type: AuthErrorType, message: string): Promise<Failure> => {
      // Count the miss atomically; the fifth ends the challenge.
      const row = await this.#db
        .updateTable('sessions')
        .set((eb) => ({ challenge_attempts: eb('challenge_attempts', '+', 1) }))
        .where('id_hash', '=', hash)
        .returning('challenge_attempts')
        .executeTakeFirst();
      await this.#event(user.username, 'challenge_failed', identity.clientIp ?? null, { challenge: mfaType });
      if (!row || row.challenge_attempts >= CHALLENGE_MAX_ATTEMPTS) {
        await this.#db.deleteFrom('sessions').where('id_hash', '=', hash).execute();
        return fail('CHALLENGE_EXPIRED', 'Too many wrong codes; sign in again.');
      }
      return fail(type, message);
    };

    switch (mfaType) {
      case 'SOFTWARE_TOKEN_MFA': {
        const secret = user.totp_secret ? unseal(this.#totpKey, user.totp_secret) : null;
        const step = secret ? totpStep(secret, code.trim(), now) : null;
        if (step === null || !(await this.#acceptTotpStep(user.username, step))) {
          return wrong('CODE_MISMATCH', 'The code is wrong or was already used.');
        }
        break;
      }
      case 'SMS_MFA': {
        const expected = typeof state.codeHash === 'string' ? Buffer.from(state.codeHash, 'base64url') : null;
        const given = this.#codeHash(code.trim());
        if (!expected || !timingSafeEqual(expected, Buffer.from(given, 'base64url'))) {
          return wrong('CODE_MISMATCH', 'The code is wrong.');
        }
        break;
      }
      case 'MFA_SETUP': {
        const sealedSecret = typeof state.pendingTotpSecret === 'string' ? state.pendingTotpSecret : null;
        if (!sealedSecret)
          return fail('NO_PENDING_CHALLENGE', 'Call associateSoftwareToken first to get a secret.');
        const step = totpStep(unseal(this.#totpKey, sealedSecret), code.trim(), now);
        if (step === null) return wrong('CODE_MISMATCH', 'The code is wrong.');
        await this.#db
          .updateTable('users')
          .set({ mfa: 'totp', totp_secret: sealedSecret, totp_last_step: step })
          .where('username', '=', user.username)
          .execute();
        await this.#event(user.username, 'mfa_setup', identity.clientIp ?? null);
        this.#notify(user.username, { kind: 'mfa_setup' }, identity.clientIp ?? null);
        break;
      }
      case 'NEW_PASSWORD_REQUIRED': {
        const problem = passwordProblem(code, user.username);
        if (problem) return fail('INVALID_PASSWORD', problem);
        await this.#db
          .updateTable('users')
          .set({
            password_hash: await hashPassword(code),
            require_new_password: false,
            password_changed_at: now,
          })
          .where('username', '=', user.username)
          .execute();
        await this.#event(user.username, 'password_changed', identity.clientIp ?? null, {
          via: 'NEW_PASSWORD_REQUIRED',
        });
        this.#notify(
          user.username,
          { kind: 'password_changed', otherSessionsEnded: false },
          identity.clientIp ?? null,
        );
        // With the password set, an MFA challenge may still follow.
        await this.#db.deleteFrom('sessions').where('id_hash', '=', hash).execute();
        const refreshed = (await this.#findUser(user.username))!;
        return this.#nextStep(refreshed, {
          clientType: pending.client_type,
          deviceKey: device.key,
          deviceName: device.name,
          ip: identity.clientIp ?? null,
        });
      }
      default:
        return fail('INVALID_INPUT', `Unknown challenge ${mfaType}.`);
    }
    return this.#db.transaction().execute(async (trx) => {
      await trx.deleteFrom('sessions').where('id_hash', '=', hash).execute();
      return this.#startSession(user.username, pending.client_type, device, identity.clientIp ?? null, trx);
    });
  }

  /** Accepts a TOTP time step once: only a step later than the last accepted one wins. */
  async #acceptTotpStep(username: string, step: number): Promise<boolean> {
    const r = await this.#db
      .updateTable('users')
      .set({ totp_last_step: step })
      .where('username', '=', username)
      .where('totp_last_step', '<', step)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** MFA_SETUP: a fresh TOTP secret held in the pending challenge until a code proves it. */
  async associateSoftwareToken(identity: Identity): Promise<Outcome<{ secret: string; otpauthUri: string }>> {
    if (identity.kind !== 'challenge' || !identity.sessionHash || !identity.username) {
      return fail('NO_PENDING_CHALLENGE', 'No MFA setup is pending.');
    }
    const hash = Buffer.from(identity.sessionHash, 'hex');
    const pending = await this.#db
      .selectFrom('sessions')
      .select(['challenge_name', 'challenge_state'])
      .where('id_hash', '=', hash)
      .executeTakeFirst();
    if (pending?.challenge_name !== 'MFA_SETUP')
      return fail('NO_PENDING_CHALLENGE', 'No MFA setup is pending.');
    const secret = newTotpSecret();
    const state = { ...(pending.challenge_state ?? {}), pendingTotpSecret: seal(this.#totpKey, secret) };
    await this.#db
      .updateTable('sessions')
      .set({ challenge_state: JSON.stringify(state) })
      .where('id_hash', '=', hash)
      .execute();
    return { ok: true, value: { secret, otpauthUri: otpauthUri(secret, identity.username) } };
  }

  // ---------------------------------------------------------------------------------------
  // Federated sign-in

  /**
   * Signs in with an OpenID Connect ID token. The (issuer, sub) pair is the link to a local
   * user: the first sign-in provisions `<name>_<sub>` in the issuer's configured groups (or
   * those of them the token's groups claim names); later ones find the same user. Users are
   * never linked by email, which an identity provider may not have verified.
   */
  async federatedSignIn(
    token: string,
    opts: { clientType: string; deviceKey?: string | null; deviceName?: string | null; ip: string | null },
  ): Promise<Outcome<IssuedSession>> {
    if (!this.#oidc.enabled)
      return fail('LOGIN_DISABLED', 'No identity provider is configured for federated sign-in.');
    let verified: Awaited<ReturnType<OidcVerifier['verify']>>;
    try {
      verified = await this.#oidc.verify(token);
    } catch (e) {
      if (!(e instanceof TokenError)) throw e;
      await this.#event(null, 'federated_sign_in_failed', opts.ip, { reason: e.message.slice(0, 200) });
      return fail('INVALID_TOKEN', e.message);
    }
    const { issuer, claims } = verified;
    // With a groups claim configured, its absence means no group, never all of them.
    const claimed = issuer.groupsClaim ? claims[issuer.groupsClaim] : undefined;
    const groups = issuer.groupsClaim
      ? issuer.groups.filter((g) => Array.isArray(claimed) && (claimed as unknown[]).includes(g))
      : issuer.groups;
    const now = this.#clock.now();
    const device = { key: opts.deviceKey ?? null, name: opts.deviceName ?? null };
    const outcome = await this.#db.transaction().execute(async (trx): Promise<Outcome<string>> => {
      const link = await trx
        .selectFrom('federated_identities')
        .select('username')
        .where('issuer', '=', issuer.issuer)
        .where('subject', '=', claims.sub)
        .executeTakeFirst();
      let username = link?.username;
      if (!username) {
        if (groups.length === 0)
          return fail('GROUP_ACCESS_DENIED', 'Your identity provider gives you no group here.');
        username = await this.#freeUsername(trx, issuer.issuer, issuer.name ?? 'sso', claims.sub);
        const email =
          claims.email_verified === true && typeof claims.email === 'string' ? claims.email : null;
        // No "on conflict": an existing user is never taken over by a new identity.
        await trx.insertInto('users').values({ username, email }).execute();
        await trx
          .insertInto('federated_identities')
          .values({ issuer: issuer.issuer, subject: claims.sub, username, created_at: now })
          .execute();
        await this.#event(username, 'federated_user_provisioned', opts.ip, { issuer: issuer.issuer }, trx);
      }
      if (issuer.groupsClaim || !link) {
        // Keep the groups in step with the identity provider's claim.
        await trx.deleteFrom('user_groups').where('username', '=', username).execute();
        if (groups.length)
          await trx
            .insertInto('user_groups')
            .values(groups.map((g) => ({ username: username!, user_group: g })))
            .execute();
      }
      await trx
        .updateTable('federated_identities')
        .set({ last_signed_in_at: now })
        .where('issuer', '=', issuer.issuer)
        .where('subject', '=', claims.sub)
        .execute();
      return { ok: true, value: username };
    });
    if (!outcome.ok) return outcome;
    const user = await this.#findUser(outcome.value);
    if (!user) return NOT_AUTHORIZED;
    if (user.disabled) return fail('USER_DISABLED', 'This user is disabled.');
    return this.#startSession(user.username, opts.clientType, device, opts.ip);
  }

  /**
   * `<name>_<sub>` when that name is free; otherwise (a password user of that name, or two
   * subjects that sanitise alike) a name from a hash of issuer and subject.
   */
  async #freeUsername(trx: Trx, issuer: string, name: string, sub: string): Promise<string> {
    const plain = `${name}_${sub}`.replace(/[^A-Za-z0-9._@+-]/g, '_').slice(0, 128);
    const hashed = `${name}_${createHmac('sha256', 'assetql-federated').update(`${issuer}\u0000${sub}`).digest('hex').slice(0, 24)}`;
    for (const candidate of [plain, hashed]) {
      const taken = await trx
        .selectFrom('users')
        .select('username')
        .where(sql`lower(username)`, '=', candidate.toLowerCase())
        .executeTakeFirst();
      if (!taken) return candidate;
    }
    throw new Error(`no free username for federated subject of ${issuer}`);
  }

  // ---------------------------------------------------------------------------------------
  // Sessions

  async signOut(identity: Identity): Promise<void> {
    if (!identity.sessionHash) return;
    await this.#db
      .deleteFrom('sessions')
      .where('id_hash', '=', Buffer.from(identity.sessionHash, 'hex'))
      .execute();
    if (identity.username) await this.#event(identity.username, 'sign_out', identity.clientIp ?? null);
  }

  /** Moves the session to another of the user's groups, under a new session ID. */
  async setSessionUserGroup(identity: Identity, group: string): Promise<Outcome<IssuedSession>> {
    if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
      return fail('UNAUTHENTICATED', 'Sign in to switch groups.');
    }
    const groups = await this.groupsOf(identity.username);
    if (!groups.includes(group)) return fail('GROUP_ACCESS_DENIED', `You have no access to group ${group}.`);
    const issued = await this.#rotate(identity.sessionHash, { user_group: group });
    if (!issued) return fail('UNAUTHENTICATED', 'The session ended.');
    await this.#event(identity.username, 'group_switched', identity.clientIp ?? null, { group });
    return { ok: true, value: issued };
  }

  async reauthenticate(identity: Identity, password: string): Promise<Outcome<IssuedSession>> {
    if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
      return fail('UNAUTHENTICATED', 'Sign in first.');
    }
    const user = await this.#findUser(identity.username);
    if (user?.locked_until && user.locked_until > this.#clock.now()) {
      return fail('LIMIT_EXCEEDED', 'Too many failed attempts; try again later.');
    }
    if (!user || !(await verifyPassword(user.password_hash, password))) {
      if (user) await this.#recordFailure(user, this.#clock.now());
      await this.#event(identity.username, 'reauthenticate_failed', identity.clientIp ?? null);
      return NOT_AUTHORIZED;
    }
    const issued = await this.#rotate(identity.sessionHash, { last_authenticated_at: this.#clock.now() });
    if (!issued) return fail('UNAUTHENTICATED', 'The session ended.');
    await this.#event(identity.username, 'reauthenticated', identity.clientIp ?? null);
    return { ok: true, value: issued };
  }

  /**
   * Replaces a session by one with a new ID (and the given changes), atomically. `alongside`
   * runs in the same transaction once the old row is gone and before the new one exists, and
   * only when the old session was still there.
   */
  async #rotate(
    oldHashHex: string,
    changes: { user_group?: string; last_authenticated_at?: Date },
    alongside?: (trx: Trx, username: string) => Promise<void>,
  ): Promise<IssuedSession | null> {
    const oldHash = Buffer.from(oldHashHex, 'hex');
    const id = newSessionId();
    const hash = hashSessionId(id);
    return this.#db.transaction().execute(async (trx) => {
      const old = await trx
        .deleteFrom('sessions')
        .where('id_hash', '=', oldHash)
        .returningAll()
        .executeTakeFirst();
      if (!old) return null;
      await alongside?.(trx, old.username);
      await trx
        .insertInto('sessions')
        .values({
          ...old,
          id_hash: hash,
          challenge_param: old.challenge_param ? JSON.stringify(old.challenge_param) : null,
          challenge_state: old.challenge_state ? JSON.stringify(old.challenge_state) : null,
          ...changes,
        })
        .execute();
      const maxAge = Math.max(0, (old.expires_at_hard.getTime() - this.#clock.now().getTime()) / 1000);
      return { id, hash, maxAgeSeconds: maxAge };
    });
  }

  /**
   * A signed-in user changes their password (ASVS 2.1.5 / 2.1.6). The current password is
   * checked like a sign-in's (the same account backoff; the resolver applies the sign-in limit
   * per address), the new one against the policy. On success the password is stored, this
   * session gets a new ID (and counts as just authenticated), and every other session and
   * pending challenge of the user ends, as after a reset (ASVS 3.3.3); API keys stay.
   */
  async changePassword(
    identity: Identity,
    currentPassword: string,
    newPassword: string,
  ): Promise<Outcome<IssuedSession>> {
    if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
      return fail('UNAUTHENTICATED', 'Sign in (not with an API key) to change your password.');
    }
    const ip = identity.clientIp ?? null;
    const now = this.#clock.now();
    const user = await this.#findUser(identity.username);
    if (user?.locked_until && user.locked_until > now) {
      await this.#event(user.username, 'password_change_throttled', ip);
      return fail('LIMIT_EXCEEDED', 'Too many failed attempts; try again later.');
    }
    if (!user || !(await verifyPassword(user.password_hash, currentPassword))) {
      if (user) await this.#recordFailure(user, now);
      await this.#event(identity.username, 'password_change_failed', ip);
      return fail('NOT_AUTHORIZED', 'The current password is wrong.');
    }
    const problem = passwordProblem(newPassword, user.username);
    if (problem) return fail('INVALID_PASSWORD', problem);
    const newHash = await hashPassword(newPassword);
    let ended = 0;
    const issued = await this.#rotate(identity.sessionHash, { last_authenticated_at: now }, async (trx) => {
      // This session's old row is already gone: what remains are the others.
      ended = await this.#replacePassword(trx, user.username, newHash, now);
      await this.#event(
        user.username,
        'password_changed',
        ip,
        { via: 'changePassword', sessionsEnded: ended },
        trx,
      );
    });
    if (!issued) return fail('UNAUTHENTICATED', 'The session ended.');
    this.#notify(user.username, { kind: 'password_changed', otherSessionsEnded: true }, ip);
    return { ok: true, value: issued };
  }

  /** True when the session's password was entered within RECENT_AUTH_MS. */
  async #recentlyAuthenticated(identity: Identity): Promise<boolean> {
    if (!identity.sessionHash) return false;
    const row = await this.#db
      .selectFrom('sessions')
      .select('last_authenticated_at')
      .where('id_hash', '=', Buffer.from(identity.sessionHash, 'hex'))
      .executeTakeFirst();
    const at = row?.last_authenticated_at?.getTime();
    return at !== undefined && this.#clock.now().getTime() - at <= RECENT_AUTH_MS;
  }

  // ---------------------------------------------------------------------------------------
  // API keys

  async createAPIKey(
    identity: Identity,
    apiKeyId: string,
    group: string,
  ): Promise<Outcome<ApiKeyView & { sessionId: string }>> {
    if (identity.kind !== 'session' || !identity.username) {
      return fail('UNAUTHENTICATED', 'Sign in (not with an API key) to create API keys.');
    }
    if (!/^[\w.-]{1,100}$/.test(apiKeyId)) {
      return fail('INVALID_INPUT', 'apiKeyId must be 1 to 100 letters, digits, ".", "_" or "-".');
    }
    if (!(await this.#recentlyAuthenticated(identity))) {
      return fail('REAUTHENTICATION_REQUIRED', 'Confirm your password with reauthenticate first.');
    }
    const username = identity.username;
    if (!(await this.groupsOf(username)).includes(group)) {
      return fail('GROUP_ACCESS_DENIED', `You have no access to group ${group}.`);
    }
    const now = this.#clock.now();
    const life = lifetimeOf('API_KEY');
    const id = newSessionId();
    try {
      await this.#db.transaction().execute(async (trx) => {
        await trx
          .insertInto('api_keys')
          .values({ username, api_key_id: apiKeyId, user_group: group, created_at: now })
          .execute();
        await trx
          .insertInto('sessions')
          .values({
            id_hash: hashSessionId(id),
            kind: 'api_key',
            username,
            user_group: group,
            client_type: 'API_KEY',
            created_at: now,
            expires_at: new Date(now.getTime() + life.idleMs),
            expires_at_hard: new Date(now.getTime() + life.maxMs),
            last_authenticated_at: now,
            last_seen_at: now,
            api_key_id: apiKeyId,
          })
          .execute();
      });
    } catch (e) {
      if ((e as { code?: string }).code === '23505')
        return fail('DUPLICATE_ID', `You already have an API key ${apiKeyId}.`);
      throw e;
    }
    await this.#event(username, 'api_key_created', identity.clientIp ?? null, { apiKeyId, group });
    this.#notify(username, { kind: 'api_key_created', apiKeyId, group }, identity.clientIp ?? null);
    return {
      ok: true,
      value: {
        apiKeyId,
        username,
        userGroup: group,
        createdAt: now,
        expiresAt: new Date(now.getTime() + life.idleMs),
        expiresAtHard: new Date(now.getTime() + life.maxMs),
        lastUsedAt: null,
        sessionId: id,
      },
    };
  }

  async listAPIKeys(username: string): Promise<ApiKeyView[]> {
    const rows = await this.#db
      .selectFrom('api_keys as k')
      .leftJoin('sessions as s', (j) =>
        j.onRef('s.username', '=', 'k.username').onRef('s.api_key_id', '=', 'k.api_key_id'),
      )
      .select([
        'k.api_key_id',
        'k.username',
        'k.user_group',
        'k.created_at',
        's.expires_at',
        's.expires_at_hard',
        's.last_seen_at',
      ])
      .where('k.username', '=', username)
      .orderBy('k.api_key_id')
      .execute();
    return rows.map((r) => ({
      apiKeyId: r.api_key_id,
      username: r.username,
      userGroup: r.user_group,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      expiresAtHard: r.expires_at_hard,
      lastUsedAt: r.last_seen_at,
    }));
  }

  async revokeAPIKey(identity: Identity, apiKeyId: string): Promise<Outcome<ApiKeyView>> {
    if (identity.kind !== 'session' || !identity.username)
      return fail('UNAUTHENTICATED', 'Sign in to revoke API keys.');
    const username = identity.username;
    const key = (await this.listAPIKeys(username)).find((k) => k.apiKeyId === apiKeyId);
    if (!key) return fail('NOT_FOUND', `You have no API key ${apiKeyId}.`);
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('sessions')
        .where('username', '=', username)
        .where('api_key_id', '=', apiKeyId)
        .execute();
      await trx
        .deleteFrom('api_keys')
        .where('username', '=', username)
        .where('api_key_id', '=', apiKeyId)
        .execute();
    });
    await this.#event(username, 'api_key_revoked', identity.clientIp ?? null, { apiKeyId });
    return { ok: true, value: key };
  }

  // ---------------------------------------------------------------------------------------
  // Sessions of a user (ASVS 3.3.4)

  /**
   * The user's live signed-in sessions, newest first: not API keys, not pending challenges,
   * not sessions the gateway would refuse (expired, or in a group the user has left).
   * `current` marks the session whose hash is `currentHash`; the hash itself stays here.
   */
  async sessionsOf(username: string, currentHash: string | null): Promise<UserSessionView[]> {
    const now = this.#clock.now();
    const rows = await this.#db
      .selectFrom('sessions as s')
      .leftJoin('devices as d', (j) =>
        j.onRef('d.username', '=', 's.username').onRef('d.device_key', '=', 's.device_key'),
      )
      .select([
        's.id_hash',
        's.public_id',
        's.client_type',
        's.user_group',
        's.device_key',
        'd.name as device_name',
        's.ip_address',
        's.created_at',
        's.last_seen_at',
        's.last_authenticated_at',
        's.expires_at',
        's.expires_at_hard',
      ])
      .where('s.username', '=', username)
      .where('s.kind', '=', 'session')
      .where('s.expires_at', '>', now)
      .where('s.expires_at_hard', '>', now)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('user_groups as g')
            .select('g.user_group')
            .whereRef('g.username', '=', 's.username')
            .whereRef('g.user_group', '=', 's.user_group'),
        ),
      )
      .orderBy('s.created_at', 'desc')
      .orderBy('s.public_id')
      .execute();
    return rows.map((r) => ({
      sessionRef: r.public_id,
      clientType: r.client_type,
      userGroup: r.user_group,
      deviceKey: r.device_key,
      deviceName: r.device_name,
      ipAddress: r.ip_address,
      createdAt: r.created_at,
      lastSeenAt: r.last_seen_at,
      lastAuthenticatedAt: r.last_authenticated_at,
      expiresAt: r.expires_at,
      expiresAtHard: r.expires_at_hard,
      current: currentHash !== null && r.id_hash.toString('hex') === currentHash,
    }));
  }

  /**
   * Ends one of the caller's signed-in sessions, named by its reference. A reference that is
   * not one of the caller's sessions (another user's, an API key's, unknown) is NOT_FOUND and
   * ends nothing. Ending another session needs a password entered within RECENT_AUTH_MS, as
   * forgetting devices does (ASVS 3.3.4: "having re-entered login credentials"); ending the
   * calling session itself does not, since signOut does that without one. Signed-in sessions
   * only: an API key may not end its user's sessions.
   */
  async signOutSession(identity: Identity, sessionRef: string): Promise<Outcome<{ endedCurrent: boolean }>> {
    if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
      return fail('UNAUTHENTICATED', 'Sign in (not with an API key) to end sessions.');
    }
    const notFound = fail('NOT_FOUND', 'You have no session with that reference.');
    if (!SESSION_REF.test(sessionRef)) return notFound;
    const ref = sessionRef.toLowerCase();
    const target = await this.#db
      .selectFrom('sessions')
      .select('id_hash')
      .where('username', '=', identity.username)
      .where('kind', '=', 'session')
      .where('public_id', '=', ref)
      .executeTakeFirst();
    if (!target) return notFound;
    const endedCurrent = target.id_hash.toString('hex') === identity.sessionHash;
    if (!endedCurrent && !(await this.#recentlyAuthenticated(identity))) {
      return fail('REAUTHENTICATION_REQUIRED', 'Confirm your password with reauthenticate first.');
    }
    const ended = await this.#db
      .deleteFrom('sessions')
      .where('id_hash', '=', target.id_hash)
      .executeTakeFirst();
    if (ended.numDeletedRows === 0n) return notFound;
    await this.#event(identity.username, 'session_signed_out', identity.clientIp ?? null, {
      sessionRef: ref,
      current: endedCurrent,
    });
    return { ok: true, value: { endedCurrent } };
  }

  // ---------------------------------------------------------------------------------------
  // Devices

  async devicesOf(username: string) {
    return this.#db
      .selectFrom('devices')
      .selectAll()
      .where('username', '=', username)
      .orderBy('created_at')
      .orderBy('device_key')
      .execute();
  }

  async forgetDevices(
    identity: Identity,
    deviceKeys: readonly string[],
  ): Promise<Outcome<{ endedCurrent: boolean }>> {
    if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
      return fail('UNAUTHENTICATED', 'Sign in to manage devices.');
    }
    if (deviceKeys.length === 0 || deviceKeys.length > 100)
      return fail('INVALID_INPUT', 'Give 1 to 100 device keys.');
    if (!(await this.#recentlyAuthenticated(identity))) {
      return fail('REAUTHENTICATION_REQUIRED', 'Confirm your password with reauthenticate first.');
    }
    const username = identity.username;
    const known = await this.#db
      .selectFrom('devices')
      .select('device_key')
      .where('username', '=', username)
      .where('device_key', 'in', deviceKeys)
      .execute();
    if (known.length !== new Set(deviceKeys).size)
      return fail('NOT_FOUND', 'Some of those devices are not yours.');
    const current = await this.#db
      .selectFrom('sessions')
      .select('device_key')
      .where('id_hash', '=', Buffer.from(identity.sessionHash, 'hex'))
      .executeTakeFirst();
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('sessions')
        .where('username', '=', username)
        .where('device_key', 'in', deviceKeys)
        .execute();
      await trx
        .deleteFrom('devices')
        .where('username', '=', username)
        .where('device_key', 'in', deviceKeys)
        .execute();
    });
    await this.#event(username, 'devices_forgotten', identity.clientIp ?? null, { deviceKeys });
    return {
      ok: true,
      value: { endedCurrent: current?.device_key != null && deviceKeys.includes(current.device_key) },
    };
  }

  // ---------------------------------------------------------------------------------------
  // Password reset

  /**
   * Starts a reset. The answer and its timing do not depend on whether the user exists:
   * the code is made and sent after the reply, off the request's path.
   */
  forgotPassword(loginUsername: string, ip: string | null): void {
    const work = async () => {
      const user = await this.#findUser(loginUsername);
      await this.#event(user?.username ?? null, 'password_reset_requested', ip, {
        loginUsername: loginUsername.slice(0, 128),
      });
      if (!user || user.disabled || (!user.email && !user.phone)) return;
      const code = sixDigits();
      const expires = new Date(this.#clock.now().getTime() + RESET_CODE_LIFETIME_MS);
      await this.#db
        .insertInto('password_resets')
        .values({
          username: user.username,
          code_hash: Buffer.from(this.#codeHash(code), 'base64url'),
          expires_at: expires,
          attempts: 0,
        })
        .onConflict((oc) =>
          oc.column('username').doUpdateSet({
            code_hash: (eb) => eb.ref('excluded.code_hash'),
            expires_at: expires,
            attempts: 0,
          }),
        )
        .execute();
      const body = `Your assetql password reset code is ${code}. It is valid for 15 minutes.`;
      await this.#messenger.send(
        user.email
          ? { channel: 'email', to: user.email, subject: 'Reset your assetql password', body }
          : { channel: 'sms', to: user.phone!, body },
      );
    };
    work().catch((err) => this.#log.error({ err }, 'password reset could not be started'));
  }

  async forgotPasswordSubmit(
    loginUsername: string,
    code: string,
    password: string,
    ip: string | null,
    opts: { signIn: boolean } = { signIn: true },
  ): Promise<Outcome<IssuedSession | null>> {
    const invalid = fail('CODE_MISMATCH', 'The code is wrong or expired.');
    const user = await this.#findUser(loginUsername);
    if (!user) return invalid;
    const problem = passwordProblem(password, user.username);
    if (problem) return fail('INVALID_PASSWORD', problem);
    const now = this.#clock.now();
    const newHash = await hashPassword(password);
    const reset = await this.#db.transaction().execute(async (trx): Promise<Outcome<null>> => {
      const reset = await trx
        .selectFrom('password_resets')
        .selectAll()
        .where('username', '=', user.username)
        .forUpdate()
        .executeTakeFirst();
      if (!reset || reset.expires_at <= now || reset.attempts >= RESET_CODE_MAX_ATTEMPTS) return invalid;
      const given = Buffer.from(this.#codeHash(code.trim()), 'base64url');
      if (!timingSafeEqual(given, reset.code_hash)) {
        await trx
          .updateTable('password_resets')
          .set({ attempts: reset.attempts + 1 })
          .where('username', '=', user.username)
          .execute();
        await this.#event(user.username, 'password_reset_failed', ip, undefined, trx);
        return invalid;
      }
      await trx.deleteFrom('password_resets').where('username', '=', user.username).execute();
      await this.#replacePassword(trx, user.username, newHash, now);
      await this.#event(user.username, 'password_reset', ip, undefined, trx);
      return { ok: true, value: null };
    });
    if (!reset.ok) return reset;
    this.#notify(user.username, { kind: 'password_reset' }, ip);
    if (user.disabled) return fail('USER_DISABLED', 'This user is disabled.');
    if (!opts.signIn) return { ok: true, value: null };
    // The new password stands in for the old one only: MFA still applies, as at any sign-in.
    const refreshed = await this.#findUser(user.username);
    if (!refreshed) return NOT_AUTHORIZED;
    return this.#nextStep(refreshed, { clientType: 'EXPLORER', ip });
  }

  // ---------------------------------------------------------------------------------------
  // Users

  async groupsOf(username: string, db: Db | Trx = this.#db): Promise<string[]> {
    const rows = await db
      .selectFrom('user_groups')
      .select('user_group')
      .where('username', '=', username)
      .orderBy('user_group')
      .execute();
    return rows.map((r) => r.user_group);
  }

  async #findUser(loginUsername: string): Promise<UserRow | undefined> {
    if (loginUsername.length === 0 || loginUsername.length > 128) return undefined;
    return this.#db
      .selectFrom('users')
      .select([
        'username',
        'email',
        'phone',
        'password_hash',
        'disabled',
        'mfa',
        'mfa_required',
        'totp_secret',
        'totp_last_step',
        'require_new_password',
        'failed_attempts',
        'locked_until',
      ])
      .where(sql`lower(username)`, '=', loginUsername.toLowerCase())
      .executeTakeFirst();
  }

  async #recordFailure(user: UserRow, now: Date) {
    const failures = user.failed_attempts + 1;
    const over = failures - FREE_FAILURES;
    const locked =
      over > 0 ? new Date(now.getTime() + Math.min(1000 * 2 ** (over - 1), MAX_BACKOFF_MS)) : null;
    await this.#db
      .updateTable('users')
      .set({ failed_attempts: failures, locked_until: locked })
      .where('username', '=', user.username)
      .execute();
  }

  /**
   * Tells the user about a change to how they sign in (ASVS 2.2.3), after the reply and off
   * the request's path. Sending can fail (a mail server down, a mailbox refused): the change
   * stands, and the failure is logged.
   */
  #notify(username: string, notice: SecurityNotice, ip: string | null): void {
    const at = this.#clock.now();
    const work = async () => {
      const contact = await this.#db
        .selectFrom('users')
        .select(['email', 'phone'])
        .where('username', '=', username)
        .executeTakeFirst();
      if (contact) await sendNotice(this.#messenger, contact, notice, { username, at, ip });
    };
    work().catch((err) =>
      this.#log.error({ err, username, notice: notice.kind }, 'security notice could not be sent'),
    );
  }

  #codeHash(code: string): string {
    return createHmac('sha256', this.#codeKey).update(code).digest('base64url');
  }

  /**
   * Stores a new password hash and ends every way in but API keys: the user's sessions and
   * pending challenges (a new password is a privilege change). Returns how many were ended.
   */
  async #replacePassword(trx: Db, username: string, hash: string, now: Date): Promise<number> {
    await trx
      .updateTable('users')
      .set({
        password_hash: hash,
        password_changed_at: now,
        require_new_password: false,
        failed_attempts: 0,
        locked_until: null,
      })
      .where('username', '=', username)
      .execute();
    const ended = await trx
      .deleteFrom('sessions')
      .where('username', '=', username)
      .where('kind', '!=', 'api_key')
      .executeTakeFirst();
    return Number(ended.numDeletedRows);
  }

  async #event(
    username: string | null,
    event: string,
    ip: string | null,
    detail?: Record<string, unknown>,
    db: Db | Trx = this.#db,
  ) {
    await db
      .insertInto('auth_events')
      .values({ username, event, ip, detail: detail ? JSON.stringify(detail) : null, at: this.#clock.now() })
      .execute();
  }
}

export interface UserSessionView {
  sessionRef: string;
  clientType: string;
  userGroup: string | null;
  deviceKey: string | null;
  deviceName: string | null;
  ipAddress: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  lastAuthenticatedAt: Date | null;
  expiresAt: Date;
  expiresAtHard: Date;
  current: boolean;
}

export interface ApiKeyView {
  apiKeyId: string;
  username: string;
  userGroup: string;
  createdAt: Date;
  expiresAt: Date | null;
  expiresAtHard: Date | null;
  lastUsedAt: Date | null;
}

function sixDigits(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

function maskPhone(phone: string): string {
  return phone.length <= 4
    ? '****'
    : `${phone.slice(0, 2)}${'*'.repeat(Math.max(0, phone.length - 4))}${phone.slice(-2)}`;
}
