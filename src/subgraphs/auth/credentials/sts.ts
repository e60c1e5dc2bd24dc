import type { AssumeRoleCommandOutput, STSClient } from '@aws-sdk/client-sts';

import {
  type CredentialsProvider,
  type CredentialsRequest,
  CredentialsUnavailableError,
  type StorageCredentials,
} from './provider.ts';

export interface StsCredentialsProviderOptions {
  /** The role assumed for every request; its own policy must already allow the bucket. */
  roleArn: string;
  /** The bucket the credentials are limited to. */
  bucket: string;
  /** The key prefix a group may use; `{group}` is replaced by the group name. Default `{group}/`. */
  prefixTemplate?: string;
  /** Signing region. Default `us-east-1`. */
  region?: string;
  /** STS endpoint, e.g. a MinIO or Ceph RGW server (`http://minio:9000`). Default: AWS's. */
  endpoint?: string;
  /** Lifetime of the issued credentials, 900..43200 s. Default 3600. */
  durationSeconds?: number;
  /** Static credentials of the caller of AssumeRole; without them the SDK's default chain is used. */
  accessKeyId?: string;
  secretAccessKey?: string;
  externalId?: string;
  /** Deadline for one `issue()` call, retries included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Attempts per `issue()` call (the SDK retries throttling, 5xx and network errors). Default 3. */
  maxAttempts?: number;
}

export interface StsCredentialsProvider extends CredentialsProvider {
  /** Releases the SDK client's sockets. */
  destroy(): void;
}

const GROUP_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Looser than AWS's bucket rules, since MinIO and Ceph accept more; what matters is no ARN/wildcard syntax. */
const BUCKET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/;
const SESSION_NAME_MAX = 64;
const DEFAULT_TIMEOUT_MS = 10_000;

/** A session policy limiting the assumed role to objects under `prefix` in `bucket`. */
export function buildSessionPolicy(bucket: string, prefix: string): string {
  if (!BUCKET_PATTERN.test(bucket))
    throw new TypeError(`Invalid bucket name for a session policy: ${bucket}`);
  if (/[*?$\s]/.test(prefix) || prefix.startsWith('/')) {
    throw new TypeError('Invalid prefix for a session policy');
  }
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'GroupObjects',
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        Resource: [`arn:aws:s3:::${bucket}/${prefix}*`],
      },
      {
        Sid: 'ListGroupPrefix',
        Effect: 'Allow',
        Action: ['s3:ListBucket'],
        Resource: [`arn:aws:s3:::${bucket}`],
        Condition: { StringLike: { 's3:prefix': [`${prefix}*`] } },
      },
    ],
  });
}

/** STS allows `[\w+=,.@-]{2,64}` as RoleSessionName; anything else becomes `-`. */
export function sessionNameFor(name: string): string {
  return name
    .replace(/[^\w+=,.@-]/g, '-')
    .slice(0, SESSION_NAME_MAX)
    .padEnd(2, '-');
}

export function stsCredentialsProvider(options: StsCredentialsProviderOptions): StsCredentialsProvider {
  const {
    roleArn,
    bucket,
    prefixTemplate = '{group}/',
    region = 'us-east-1',
    endpoint,
    durationSeconds = 3600,
    accessKeyId,
    secretAccessKey,
    externalId,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    maxAttempts = 3,
  } = options;

  // Configuration mistakes fail at start-up, not on the first request.
  if (!roleArn) throw new TypeError('stsCredentialsProvider: roleArn is required');
  if (!BUCKET_PATTERN.test(bucket))
    throw new TypeError(`stsCredentialsProvider: invalid bucket name ${bucket}`);
  if (!prefixTemplate.includes('{group}')) {
    throw new TypeError('stsCredentialsProvider: prefixTemplate must contain {group}');
  }
  buildSessionPolicy(bucket, prefixFor(prefixTemplate, 'group')); // rejects wildcards in the template
  if (!Number.isInteger(durationSeconds) || durationSeconds < 900 || durationSeconds > 43_200) {
    throw new RangeError('stsCredentialsProvider: durationSeconds must be an integer in 900..43200');
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError('stsCredentialsProvider: timeoutMs must be a positive integer');
  }
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError('stsCredentialsProvider: maxAttempts must be a positive integer');
  }
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new TypeError('stsCredentialsProvider: give both accessKeyId and secretAccessKey, or neither');
  }

  // The SDK is large (~25 MB resident): it loads on the first request, not at start.
  let client: Promise<STSClient> | undefined;
  const connect = async () => {
    const { STSClient } = await import('@aws-sdk/client-sts');
    return new STSClient({
      region,
      ...(endpoint ? { endpoint } : {}),
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      maxAttempts,
      requestHandler: {
        connectionTimeout: timeoutMs,
        requestTimeout: timeoutMs,
        throwOnRequestTimeout: true,
      },
    });
  };

  return {
    async issue(request: CredentialsRequest): Promise<StorageCredentials> {
      const { username, group } = request;
      if (typeof group !== 'string' || !GROUP_PATTERN.test(group)) {
        throw new CredentialsUnavailableError(
          'invalid-request',
          'Storage credentials are unavailable: the group name is not valid for storage',
        );
      }
      const prefix = prefixFor(prefixTemplate, group);
      const { AssumeRoleCommand } = await import('@aws-sdk/client-sts');
      const command = new AssumeRoleCommand({
        RoleArn: roleArn,
        RoleSessionName: sessionNameFor(request.sessionName ?? username),
        DurationSeconds: durationSeconds,
        Policy: buildSessionPolicy(bucket, prefix),
        ...(externalId ? { ExternalId: externalId } : {}),
      });

      let output: AssumeRoleCommandOutput;
      try {
        client ??= connect();
        output = await (await client).send(command, { abortSignal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        throw toUnavailable(error);
      }

      const credentials = output.Credentials;
      const expiration = credentials?.Expiration;
      if (
        !credentials?.AccessKeyId ||
        !credentials.SecretAccessKey ||
        !credentials.SessionToken ||
        !(expiration instanceof Date) ||
        Number.isNaN(expiration.getTime())
      ) {
        throw new CredentialsUnavailableError(
          'unavailable',
          'Storage credentials are unavailable: the token service returned incomplete credentials',
        );
      }
      return {
        accessKeyId: credentials.AccessKeyId,
        secretAccessKey: credentials.SecretAccessKey,
        sessionToken: credentials.SessionToken,
        expiration,
      };
    },
    destroy() {
      void client?.then((c) => c.destroy());
    },
  };
}

function prefixFor(template: string, group: string): string {
  return template.replaceAll('{group}', group);
}

/**
 * An SDK failure as a client-safe error: only the error code and HTTP status are kept, never the
 * upstream's message (it may quote ARNs, account ids or request parameters) nor the original error.
 */
function toUnavailable(error: unknown): CredentialsUnavailableError {
  if (error instanceof CredentialsUnavailableError) return error;
  const e = (error ?? {}) as {
    name?: unknown;
    code?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const name = typeof e.name === 'string' ? e.name : '';
  if (name === 'AbortError' || name === 'TimeoutError' || e.code === 'ETIMEDOUT') {
    return new CredentialsUnavailableError(
      'timeout',
      'Storage credentials are unavailable: the token service did not answer in time',
    );
  }
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : undefined;
  const code = /^[A-Za-z][A-Za-z0-9.]{0,63}$/.test(name) ? name : 'an error';
  if (status !== undefined || e.$fault !== undefined) {
    const denied =
      status === 401 || status === 403 || /AccessDenied|RegionDisabled|Expired|Invalid/.test(code);
    return new CredentialsUnavailableError(
      denied ? 'denied' : 'unavailable',
      `Storage credentials are unavailable: the token service answered ${code}${status ? ` (HTTP ${status})` : ''}`,
    );
  }
  const netCode = typeof e.code === 'string' && /^E[A-Z_]{2,30}$/.test(e.code) ? ` (${e.code})` : '';
  return new CredentialsUnavailableError(
    'unavailable',
    `Storage credentials are unavailable: the token service could not be reached${netCode}`,
  );
}
