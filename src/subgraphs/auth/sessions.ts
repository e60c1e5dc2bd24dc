import type { Kysely, Transaction } from 'kysely';
import type { Identity } from '../../shared/identity.ts';
import { fail, ok } from '../../shared/result.ts';
import { hashSessionId, type Lifetime, lifetimeOf, newSessionId } from '../../shared/session-policy.ts';
import type { Tables } from '../../storage/tables.ts';
import { recordEvent } from './audit.ts';
import { BACKED_OFF, checkPassword } from './backoff.ts';
import type { AuthCore } from './core.ts';
import { type AuthResult, INCORRECT_CREDENTIALS, SESSION_ENDED } from './error-codes.ts';
import { touchDevice } from './repository/devices.ts';
import {
  deleteSession,
  findSession,
  insertSession,
  listSignedInSessions,
  signedInSessionByRef,
  takeSession,
} from './repository/sessions.ts';
import { findUser, groupsOf } from './repository/users.ts';
import { expiriesFrom } from './sessions/rules.ts';

// A transaction is a Kysely too: functions that take `db` run inside the caller's when given one.
type Db = Kysely<Tables>;

/** Creating API keys and forgetting devices need a password entered this recently. */
export const RECENT_AUTH_MS = 15 * 60 * 1000;
/** The shape of `sessions.public_id`; anything else names no session and is not looked up. */
const SESSION_REF = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const REAUTHENTICATE_FIRST = fail(
  'REAUTHENTICATION_REQUIRED',
  'Confirm your password with reauthenticate first.',
);

/** A session the client should now present; the resolver turns it into cookie and header. */
export interface IssuedSession {
  id: string;
  hash: Buffer;
  maxAgeSeconds: number;
  /**
   * The device key this answer shows, when the session was signed in on a device: the public key,
   * or the whole key of a remembered device (`<key>.<secret>`), which only a sign-in answer shows.
   */
  deviceKey?: string;
}

/** What a new session is. */
export interface SessionOpening {
  kind: 'session' | 'api_key' | 'challenge';
  username: string;
  /** The group it acts in; none while a challenge is pending. */
  group: string | null;
  clientType: string;
  /** @default the client type's lifetime (docs/auth.md §2) */
  lifetime?: Lifetime;
  deviceKey?: string | null;
  /** The client address at sign-in. */
  ip?: string | null;
  apiKeyId?: string | null;
  /** A pending challenge's name, what the client is shown of it, and what only the server keeps. */
  challenge?: { name: string; param: Record<string, unknown>; state: Record<string, unknown> };
}

/**
 * Stores a new session started at `now` under a new ID: the one way a session is made, for a
 * sign-in, a pending challenge or an API key (rotation keeps the row under a new ID).
 */
export async function openSession(db: Db, now: Date, opening: SessionOpening): Promise<IssuedSession> {
  const life = opening.lifetime ?? lifetimeOf(opening.clientType);
  const { expiresAt, expiresAtHard } = expiriesFrom(now, life);
  const id = newSessionId();
  const hash = hashSessionId(id);
  const challenge = opening.challenge;
  await insertSession(db, {
    id_hash: hash,
    kind: opening.kind,
    username: opening.username,
    user_group: opening.group,
    client_type: opening.clientType,
    created_at: now,
    expires_at: expiresAt,
    expires_at_hard: expiresAtHard,
    // A pending challenge is not authenticated yet.
    last_authenticated_at: challenge ? null : now,
    last_seen_at: now,
    device_key: opening.deviceKey ?? null,
    ip_address: opening.ip ?? null,
    api_key_id: opening.apiKeyId ?? null,
    challenge_name: challenge?.name ?? null,
    challenge_param: challenge ? JSON.stringify(challenge.param) : null,
    challenge_state: challenge ? JSON.stringify(challenge.state) : null,
  });
  return { id, hash, maxAgeSeconds: life.maxMs / 1000 };
}

/**
 * A signed-in session after a password, a challenge, a token or a reset: in the user's first
 * group, on the device named (or a new one), recorded as a sign-in (with `detail` added).
 */
export async function startSession(
  core: AuthCore,
  username: string,
  clientType: string,
  device: { key: string | null; name: string | null },
  ip: string | null,
  db: Db = core.db,
  detail: Record<string, unknown> = {},
): Promise<AuthResult<IssuedSession>> {
  const now = core.clock.now();
  const group = (await groupsOf(db, username))[0];
  if (!group) return fail('GROUP_ACCESS_DENIED', 'This user belongs to no group.');
  const deviceKey = await touchDevice(db, username, device, ip, now);
  const issued = await openSession(db, now, { kind: 'session', username, group, clientType, deviceKey, ip });
  await recordEvent(core, username, 'sign_in', ip, { clientType, deviceKey, ...detail }, db);
  return ok({ ...issued, deviceKey });
}

/**
 * Replaces a session by one with a new ID (and the given changes), atomically. `alongside`
 * runs in the same transaction once the old row is gone and before the new one exists, and
 * only when the old session was still there.
 */
export async function rotateSession(
  core: AuthCore,
  oldHashHex: string,
  changes: { user_group?: string; last_authenticated_at?: Date },
  alongside?: (trx: Transaction<Tables>, username: string) => Promise<void>,
): Promise<IssuedSession | null> {
  const oldHash = Buffer.from(oldHashHex, 'hex');
  const id = newSessionId();
  const hash = hashSessionId(id);
  return core.db.transaction().execute(async (trx) => {
    const old = await takeSession(trx, oldHash);
    if (!old) return null;
    await alongside?.(trx, old.username);
    await insertSession(trx, {
      ...old,
      id_hash: hash,
      challenge_param: old.challenge_param ? JSON.stringify(old.challenge_param) : null,
      challenge_state: old.challenge_state ? JSON.stringify(old.challenge_state) : null,
      ...changes,
    });
    const maxAge = Math.max(0, (old.expires_at_hard.getTime() - core.clock.now().getTime()) / 1000);
    return { id, hash, maxAgeSeconds: maxAge };
  });
}

export async function signOut(core: AuthCore, identity: Identity): Promise<void> {
  if (!identity.sessionHash) return;
  await deleteSession(core.db, Buffer.from(identity.sessionHash, 'hex'));
  if (identity.username) await recordEvent(core, identity.username, 'sign_out', identity.clientIp ?? null);
}

/** Moves the session to another of the user's groups, under a new session ID. */
export async function setSessionUserGroup(
  core: AuthCore,
  identity: Identity,
  group: string,
): Promise<AuthResult<IssuedSession>> {
  if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
    return fail('UNAUTHENTICATED', 'Sign in to switch groups.');
  }
  const groups = await groupsOf(core.db, identity.username);
  if (!groups.includes(group)) return fail('GROUP_ACCESS_DENIED', `You have no access to group ${group}.`);
  const issued = await rotateSession(core, identity.sessionHash, { user_group: group });
  if (!issued) return SESSION_ENDED;
  await recordEvent(core, identity.username, 'group_switched', identity.clientIp ?? null, { group });
  return ok(issued);
}

export async function reauthenticate(
  core: AuthCore,
  identity: Identity,
  password: string,
): Promise<AuthResult<IssuedSession>> {
  if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
    return fail('UNAUTHENTICATED', 'Sign in first.');
  }
  const user = await findUser(core.db, identity.username);
  const check = await checkPassword(core, user, identity.username, password);
  if (check === 'backed_off') return BACKED_OFF;
  if (check === 'wrong') {
    await recordEvent(core, identity.username, 'reauthenticate_failed', identity.clientIp ?? null);
    return INCORRECT_CREDENTIALS;
  }
  const issued = await rotateSession(core, identity.sessionHash, { last_authenticated_at: core.clock.now() });
  if (!issued) return SESSION_ENDED;
  await recordEvent(core, identity.username, 'reauthenticated', identity.clientIp ?? null);
  return ok(issued);
}

/** True when the session's password was entered within RECENT_AUTH_MS. */
export async function recentlyAuthenticated(core: AuthCore, identity: Identity): Promise<boolean> {
  if (!identity.sessionHash) return false;
  const row = await findSession(core.db, Buffer.from(identity.sessionHash, 'hex'));
  const at = row?.last_authenticated_at?.getTime();
  return at !== undefined && core.clock.now().getTime() - at <= RECENT_AUTH_MS;
}

// Sessions of a user (ASVS 3.3.4)

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

/**
 * The user's live signed-in sessions, newest first: not API keys, not pending challenges,
 * not sessions the gateway would refuse (expired, or in a group the user has left).
 * `current` marks the session whose hash is `currentHash`; the hash itself stays here.
 */
export async function sessionsOf(
  core: AuthCore,
  username: string,
  currentHash: string | null,
): Promise<UserSessionView[]> {
  const rows = await listSignedInSessions(core.db, username, core.clock.now());
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
export async function signOutSession(
  core: AuthCore,
  identity: Identity,
  sessionRef: string,
): Promise<AuthResult<{ endedCurrent: boolean }>> {
  if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
    return fail('UNAUTHENTICATED', 'Sign in (not with an API key) to end sessions.');
  }
  const notFound = fail('NOT_FOUND', 'You have no session with that reference.');
  if (!SESSION_REF.test(sessionRef)) return notFound;
  const ref = sessionRef.toLowerCase();
  const target = await signedInSessionByRef(core.db, identity.username, ref);
  if (!target) return notFound;
  const endedCurrent = target.toString('hex') === identity.sessionHash;
  if (!endedCurrent && !(await recentlyAuthenticated(core, identity))) return REAUTHENTICATE_FIRST;
  if (!(await deleteSession(core.db, target))) return notFound;
  await recordEvent(core, identity.username, 'session_signed_out', identity.clientIp ?? null, {
    sessionRef: ref,
    current: endedCurrent,
  });
  return ok({ endedCurrent });
}
