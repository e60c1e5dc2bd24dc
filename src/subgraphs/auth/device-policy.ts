/**
 * When devices are remembered (`ASSETQL_REMEMBER_DEVICES`), as Cognito's device tracking settings
 * "Always", "User opt-in" and "Don't remember": `always` remembers every device that completes an
 * MFA sign-in, `opt-in` those whose client asks (`confirmSignIn`'s `rememberDevice`), `off` none,
 * and no remembered device skips MFA.
 */
export type RememberDevices = 'always' | 'opt-in' | 'off';

/** How remembered devices work (docs/auth.md §7). */
export interface DevicePolicy {
  /** @default 'opt-in' */
  readonly remember: RememberDevices;
  /** How long a remembered device skips MFA (`ASSETQL_REMEMBER_DEVICES_DAYS`) @default 30 days */
  readonly maxAgeMs: number;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Opt-in, so that clients that never ask see every sign-in ask MFA as before; 30 days, one of
 * the periods Cognito's guide suggests for trusting a device (30, 60 or 90) and the longest a
 * browser session lasts here.
 */
export const DEFAULT_DEVICE_POLICY: DevicePolicy = Object.freeze({
  remember: 'opt-in',
  maxAgeMs: 30 * DAY_MS,
});
