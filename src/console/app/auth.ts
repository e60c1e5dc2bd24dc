// Sign-in as the API does it (docs/auth.md §3): `signIn`, then each challenge it names answered
// with `confirmSignIn` until the session is signed in. The cookie carries the pending challenge
// and then the session; the console keeps only what the answers say of them.
import { type Api, type PayloadError, payloadError } from './api.ts';
import * as documents from './documents.ts';

export type Challenge = 'SOFTWARE_TOKEN_MFA' | 'SMS_MFA' | 'NEW_PASSWORD_REQUIRED' | 'MFA_SETUP';
export const CHALLENGES: readonly Challenge[] = [
  'SOFTWARE_TOKEN_MFA',
  'SMS_MFA',
  'NEW_PASSWORD_REQUIRED',
  'MFA_SETUP',
];

/** The signed-in session, as the console shows it. */
export interface SessionInfo {
  username: string;
  userGroup: string;
  /** Every group the user may switch to (the current one among them). */
  userGroups: string[];
}

/** `Session` as the console's operations select it. */
export interface RawSession {
  authenticated: boolean | null;
  username: string | null;
  userGroup: string | null;
  userGroups: string[] | null;
  challengeName: string | null;
  challengeParam: Record<string, unknown> | null;
  deviceKey: string | null;
}

interface SessionResult {
  errors: PayloadError[];
  session: RawSession | null;
}

/** Where a sign-in stands after an answer. */
export type SignInStep =
  | { kind: 'signed-in'; session: SessionInfo }
  | { kind: 'challenge'; challenge: Challenge; destination: string | null }
  /** A refusal: `restart` when the pending challenge is gone and only a new sign-in helps. */
  | { kind: 'refused'; message: string; restart: boolean };

/** The signed-in session an answer describes, or null when it is not signed in. */
export function sessionInfo(session: RawSession | null | undefined): SessionInfo | null {
  if (!session?.authenticated || !session.username || !session.userGroup) return null;
  const groups = session.userGroups?.length ? session.userGroups : [session.userGroup];
  return { username: session.username, userGroup: session.userGroup, userGroups: groups };
}

/** What an answer of `signIn` or `confirmSignIn` means for the next step. */
export function stepOf(result: SessionResult): SignInStep {
  const refusal = payloadError(result.errors);
  if (refusal !== null) {
    const restart = result.errors.some(
      (e) => e.type === 'CHALLENGE_EXPIRED' || e.type === 'NO_PENDING_CHALLENGE',
    );
    return {
      kind: 'refused',
      message: restart ? 'This sign-in has expired or took too many wrong codes. Sign in again.' : refusal,
      restart,
    };
  }
  const signedIn = sessionInfo(result.session);
  if (signedIn) return { kind: 'signed-in', session: signedIn };
  const name = result.session?.challengeName;
  if (name && (CHALLENGES as readonly string[]).includes(name)) {
    const destination = result.session?.challengeParam?.CODE_DELIVERY_DESTINATION;
    return {
      kind: 'challenge',
      challenge: name as Challenge,
      destination: typeof destination === 'string' ? destination : null,
    };
  }
  return { kind: 'refused', message: 'The server did not sign you in. Try again.', restart: true };
}

/** Where the console keeps this browser's device key between sign-ins (docs/auth.md §7). */
export interface DeviceKeys {
  read(): string | null;
  write(key: string): void;
}

export async function signIn(
  api: Api,
  devices: DeviceKeys,
  username: string,
  password: string,
): Promise<SignInStep> {
  const data = await api.request<{ signIn: SessionResult }>(documents.SIGN_IN, {
    input: {
      loginUsername: username,
      password,
      clientApplicationType: 'EXPLORER',
      deviceKey: devices.read(),
      deviceName: deviceName(),
    },
  });
  keepDeviceKey(devices, data.signIn.session);
  return stepOf(data.signIn);
}

/** Answers the pending challenge: a code, or for NEW_PASSWORD_REQUIRED the new password. */
export async function confirmSignIn(api: Api, devices: DeviceKeys, challenge: Challenge, code: string) {
  const data = await api.request<{ confirmSignIn: SessionResult }>(documents.CONFIRM_SIGN_IN, {
    input: { code, mfaType: challenge },
  });
  keepDeviceKey(devices, data.confirmSignIn.session);
  return stepOf(data.confirmSignIn);
}

/** During MFA_SETUP: a new secret for an authenticator app, with its `otpauth://` URI. */
export async function associateSoftwareToken(
  api: Api,
): Promise<{ secret: string; otpauthUri: string } | { refused: string }> {
  const data = await api.request<{
    associateSoftwareToken: {
      errors: PayloadError[];
      softwareToken: { secret: string; otpauthUri: string } | null;
    };
  }>(documents.ASSOCIATE_SOFTWARE_TOKEN);
  const { errors, softwareToken } = data.associateSoftwareToken;
  const refusal = payloadError(errors);
  if (refusal !== null || !softwareToken) return { refused: refusal ?? 'No secret was made. Sign in again.' };
  return softwareToken;
}

/**
 * The device key to send at the next sign-in: only its public part. The whole key of a remembered
 * device (`key.secret`) would skip MFA; the console never asks for one, and would not store it.
 */
function keepDeviceKey(devices: DeviceKeys, session: RawSession | null): void {
  const key = session?.deviceKey;
  if (key && !key.includes('.')) devices.write(key);
}

function deviceName(): string {
  const platform = typeof navigator === 'undefined' ? '' : navigator.platform;
  return platform ? `assetql console on ${platform}` : 'assetql console';
}

/** A secret as people copy it: groups of four. */
export function groupedSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}
