/** Temporary object-store credentials handed to a client, scoped to one group's prefix. */
export interface StorageCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export interface CredentialsRequest {
  /** The authenticated user the credentials are issued for (used for the session name / audit trail). */
  username: string;
  /** The group whose prefix the credentials are limited to. The caller checks the user may act for it. */
  group: string;
  /** Overrides the session name derived from the username (it is sanitised either way). */
  sessionName?: string;
}

export interface CredentialsProvider {
  issue(request: CredentialsRequest): Promise<StorageCredentials>;
}

/**
 * Why no credentials were issued:
 * - `not-configured`: the server has no credentials provider;
 * - `invalid-request`: the group (or session name) cannot be turned into a safe policy;
 * - `denied`: the token service refused (access denied, role not assumable, region disabled, …);
 * - `timeout`: the token service did not answer in time;
 * - `unavailable`: any other failure to reach the token service or to read its answer.
 */
export type CredentialsUnavailableReason =
  | 'not-configured'
  | 'invalid-request'
  | 'denied'
  | 'timeout'
  | 'unavailable';

/**
 * No credentials could be issued. The message is safe to show to the client: it never contains keys,
 * tokens or the upstream's own error text.
 */
export class CredentialsUnavailableError extends Error {
  override readonly name = 'CredentialsUnavailableError';
  readonly reason: CredentialsUnavailableReason;

  constructor(reason: CredentialsUnavailableReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The provider used when none is configured: every request fails with `not-configured`. */
export const unconfiguredCredentialsProvider: CredentialsProvider = {
  async issue() {
    throw new CredentialsUnavailableError(
      'not-configured',
      'Storage credentials are not available: no credentials provider is configured on this server',
    );
  },
};
