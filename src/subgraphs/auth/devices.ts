import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Identity } from '../../shared/identity.ts';
import { fail, ok } from '../../shared/result.ts';
import type { Tables } from '../../storage/tables.ts';
import { recordEvent } from './audit.ts';
import type { AuthCore } from './core.ts';
import type { AuthResult } from './error-codes.ts';
import {
  countOwnDevices,
  deleteDevices,
  devicesOf,
  findDevice,
  rememberDevice,
} from './repository/devices.ts';
import { deleteSessionsOnDevices, findSession } from './repository/sessions.ts';
import { REAUTHENTICATE_FIRST, recentlyAuthenticated } from './sessions.ts';

// Devices are noted at each sign-in (sessions.ts, startSession); a user lists them and forgets
// some, which ends every session signed in on them (docs/auth.md §7).
//
// Remembered devices follow Cognito's device tracking: after a sign-in that completed MFA, the
// device may be remembered, and a remembered device skips MFA at its next sign-ins. Cognito's
// device proves itself with a secret its client keeps (an SRP verifier); here the client is given
// a device key that carries a secret, `<deviceKey>.<secret>`, shown once. The listed key (and the
// one in `Session.deviceKey` later) is the public part alone, which proves nothing: the server
// keeps only the SHA-256 of the secret.

/** Longer than any key the service gives out: such a "key" names no device and is not looked up. */
const MAX_PRESENTED_KEY = 200;

/** The longest `deviceName` a sign-in may give, in characters (docs/security.md). */
export const MAX_DEVICE_NAME_LENGTH = 200;

/** Why a sign-in's `deviceName` is refused (INVALID_INPUT, before anything is looked up), or null. */
export function deviceNameProblem(name: string | null | undefined): string | null {
  if (name === null || name === undefined) return null;
  return [...name].length > MAX_DEVICE_NAME_LENGTH
    ? `deviceName may have at most ${MAX_DEVICE_NAME_LENGTH} characters.`
    : null;
}

/** The device a sign-in is on, decided once, when the password (or the token) is right. */
export interface SignInDevice {
  /** The user's device (its public key), or null for a new one. */
  key: string | null;
  name: string | null;
  /**
   * The whole key, `<key>.<secret>`, when the client proved a remembered device that may skip MFA
   * now (policy on, within its maximum age); the sign-in answer shows it again.
   */
  remembered: string | null;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * Which of the user's devices the presented key names. A key with no device of this user (unknown,
 * another user's, forgotten) is a new device. A remembered device is named only by its whole key:
 * its public part alone, or with a wrong secret, is a new device too, so whoever knows a listed
 * key cannot sign in as that device or attach sessions to it.
 */
export async function identifyDevice(
  core: AuthCore,
  username: string,
  presented: string | null | undefined,
  name: string | null | undefined,
): Promise<SignInDevice> {
  const device: SignInDevice = { key: null, name: name ?? null, remembered: null };
  if (!presented || presented.length > MAX_PRESENTED_KEY) return device;
  const dot = presented.indexOf('.');
  const key = dot === -1 ? presented : presented.slice(0, dot);
  const secret = dot === -1 ? null : presented.slice(dot + 1);
  const row = await findDevice(core.db, username, key);
  if (!row) return device;
  if (row.secret_hash) {
    const proven = secret !== null && timingSafeEqual(sha256(secret), row.secret_hash);
    if (!proven) return device;
    if (rememberedNow(core, row)) device.remembered = presented;
  }
  device.key = key;
  return device;
}

/** True when the device may skip MFA now: remembered, remembering on, within its maximum age. */
function rememberedNow(core: AuthCore, row: { remembered: boolean; remembered_at: Date | null }): boolean {
  const { remember, maxAgeMs } = core.devices;
  return (
    remember !== 'off' &&
    row.remembered &&
    row.remembered_at !== null &&
    core.clock.now().getTime() - row.remembered_at.getTime() < maxAgeMs
  );
}

/**
 * After a completed MFA answer: whether the device is now remembered, by the policy and the
 * client's opt-in (`confirmSignIn`'s `rememberDevice`).
 */
export function remembersAfterMfa(core: AuthCore, optedIn: boolean): boolean {
  return core.devices.remember === 'always' || (core.devices.remember === 'opt-in' && optedIn);
}

/**
 * Remembers the device with a fresh secret and returns the whole key the client must keep. Any
 * earlier secret of the device stops proving it.
 */
export async function rememberThisDevice(
  core: AuthCore,
  db: Kysely<Tables>,
  username: string,
  deviceKey: string,
  ip: string | null,
): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  await rememberDevice(db, username, deviceKey, sha256(secret), core.clock.now());
  await recordEvent(core, username, 'device_remembered', ip, { deviceKey }, db);
  return `${deviceKey}.${secret}`;
}

export interface DeviceView {
  deviceKey: string;
  name: string | null;
  /** True when a sign-in on it with its whole key would skip MFA now. */
  remembered: boolean;
  createdAt: Date;
  lastSignedInAt: Date | null;
  lastIpAddress: string | null;
}

/** The user's devices as `User.devices` lists them: public keys only. */
export async function devicesOfUser(core: AuthCore, username: string): Promise<DeviceView[]> {
  return (await devicesOf(core.db, username)).map((d) => ({
    deviceKey: d.device_key,
    name: d.name,
    remembered: rememberedNow(core, d),
    createdAt: d.created_at,
    lastSignedInAt: d.last_signed_in_at,
    lastIpAddress: d.last_ip_address,
  }));
}

export async function forgetDevices(
  core: AuthCore,
  identity: Identity,
  deviceKeys: readonly string[],
): Promise<AuthResult<{ endedCurrent: boolean }>> {
  if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
    return fail('UNAUTHENTICATED', 'Sign in to manage devices.');
  }
  if (deviceKeys.length === 0 || deviceKeys.length > 100)
    return fail('INVALID_INPUT', 'Give 1 to 100 device keys.');
  if (!(await recentlyAuthenticated(core, identity))) return REAUTHENTICATE_FIRST;
  const username = identity.username;
  // A whole key of a remembered device names the device as its public part does.
  const keys = [...new Set(deviceKeys.map((k) => k.split('.', 1)[0]!))];
  if ((await countOwnDevices(core.db, username, keys)) !== keys.length)
    return fail('NOT_FOUND', 'Some of those devices are not yours.');
  const current = await findSession(core.db, Buffer.from(identity.sessionHash, 'hex'));
  await core.db.transaction().execute(async (trx) => {
    await deleteSessionsOnDevices(trx, username, keys);
    await deleteDevices(trx, username, keys);
  });
  await recordEvent(core, username, 'devices_forgotten', identity.clientIp ?? null, { deviceKeys: keys });
  return ok({ endedCurrent: current?.device_key != null && keys.includes(current.device_key) });
}
