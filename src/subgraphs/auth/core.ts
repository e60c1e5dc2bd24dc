import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import { deriveKey } from '../../shared/secrets.ts';
import type { Tables } from '../../storage/tables.ts';
import { DEFAULT_DEVICE_POLICY, type DevicePolicy } from './device-policy.ts';
import type { OidcVerifier } from './federated/oidc.ts';
import type { Messenger } from './messaging/messenger.ts';

/**
 * What every authentication flow works with. The flows (sign-in.ts, challenges.ts, federated.ts,
 * sessions.ts, api-keys.ts, devices.ts, passwords.ts) are functions of it, independent of
 * GraphQL: domain failures are returned, never thrown. They write through repository/ only.
 */
export interface AuthCore {
  readonly db: Kysely<Tables>;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where codes and security notices go. */
  readonly messenger: Messenger;
  readonly oidc: OidcVerifier;
  /** Seals TOTP secrets. */
  readonly totpKey: Uint8Array;
  /** Hashes one-time codes (SMS sign-in codes, password-reset codes). */
  readonly codeKey: Uint8Array;
  /** When devices are remembered, and for how long. */
  readonly devices: DevicePolicy;
}

export interface AuthCoreDeps {
  db: Kysely<Tables>;
  clock: Clock;
  log: Logger;
  /** Derives the keys that seal TOTP secrets and hash one-time codes. */
  secret: string;
  messenger: Messenger;
  oidc: OidcVerifier;
  /** @default DEFAULT_DEVICE_POLICY */
  devices?: DevicePolicy;
}

export function createAuthCore(deps: AuthCoreDeps): AuthCore {
  return Object.freeze({
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    messenger: deps.messenger,
    oidc: deps.oidc,
    totpKey: totpKey(deps.secret),
    codeKey: deriveKey(deps.secret, 'one-time-codes'),
    devices: deps.devices ?? DEFAULT_DEVICE_POLICY,
  });
}

/** The key TOTP secrets are sealed with; `assetql users add --mfa totp` seals with it too. */
export function totpKey(secret: string): Uint8Array {
  return deriveKey(secret, 'totp-seal');
}
