import type { Kysely } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';

type Db = Kysely<Tables>;

/**
 * Notes a sign-in on a device: the user's device of that key when there is one (renamed when a
 * name is given), otherwise a new device with a new key. Returns the key the session carries.
 */
export async function touchDevice(
  db: Db,
  username: string,
  device: { key: string | null; name: string | null },
  ip: string | null,
  now: Date,
): Promise<string> {
  if (device.key) {
    const known = await db
      .updateTable('devices')
      .set({ last_signed_in_at: now, last_ip_address: ip, ...(device.name ? { name: device.name } : {}) })
      .where('username', '=', username)
      .where('device_key', '=', device.key)
      .executeTakeFirst();
    if (known.numUpdatedRows > 0n) return device.key;
  }
  const key = crypto.randomUUID();
  await db
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

export function devicesOf(db: Db, username: string) {
  return db
    .selectFrom('devices')
    .selectAll()
    .where('username', '=', username)
    .orderBy('created_at')
    .orderBy('device_key')
    .execute();
}

/** How many of `deviceKeys` are the user's. */
export async function countOwnDevices(
  db: Db,
  username: string,
  deviceKeys: readonly string[],
): Promise<number> {
  const known = await db
    .selectFrom('devices')
    .select('device_key')
    .where('username', '=', username)
    .where('device_key', 'in', deviceKeys)
    .execute();
  return known.length;
}

export async function deleteDevices(db: Db, username: string, deviceKeys: readonly string[]): Promise<void> {
  await db
    .deleteFrom('devices')
    .where('username', '=', username)
    .where('device_key', 'in', deviceKeys)
    .execute();
}

/** One of the user's devices by its key, with what proves a remembered one. */
export function findDevice(db: Db, username: string, deviceKey: string) {
  return db
    .selectFrom('devices')
    .select(['device_key', 'remembered', 'secret_hash', 'remembered_at'])
    .where('username', '=', username)
    .where('device_key', '=', deviceKey)
    .executeTakeFirst();
}

/** Remembers the device with a new secret (its SHA-256); an earlier secret stops proving it. */
export async function rememberDevice(
  db: Db,
  username: string,
  deviceKey: string,
  secretHash: Buffer,
  now: Date,
): Promise<void> {
  await db
    .updateTable('devices')
    .set({ remembered: true, secret_hash: secretHash, remembered_at: now })
    .where('username', '=', username)
    .where('device_key', '=', deviceKey)
    .execute();
}

/**
 * No device of the user is remembered any more: the next sign-in on each asks MFA. The devices
 * stay listed. Returns how many were remembered.
 */
export async function forgetRememberedDevices(db: Db, username: string): Promise<number> {
  const r = await db
    .updateTable('devices')
    .set({ remembered: false, secret_hash: null, remembered_at: null })
    .where('username', '=', username)
    .where('remembered', '=', true)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
