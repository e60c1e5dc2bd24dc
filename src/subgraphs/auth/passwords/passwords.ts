import { hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';

/** NIST SP 800-63B rev 4: length and a blocklist, no composition rules. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

// OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane. The native library hashes on
// libuv's thread pool, so sign-ins never block the event loop.
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

let blocklist: Set<string> | undefined;

/** Why a password may not be used, or null when it may. */
export function passwordProblem(password: string, username?: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    return `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `The password may have at most ${MAX_PASSWORD_LENGTH} characters.`;
  blocklist ??= new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  const lower = password.toLowerCase();
  if (blocklist.has(lower)) return 'That password is too common; choose another.';
  if (username && lower === username.toLowerCase()) return 'The password may not be the username.';
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

// Compared against when the user does not exist, so that the answer takes as long either way.
let dummy: Promise<string> | undefined;

/** Verifies `password`; with no stored hash it still spends the same time and answers false. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('assetql-dummy-password-for-timing');
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
