import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { CredentialsUnavailableError, unconfiguredCredentialsProvider } from './provider.ts';
import { buildSessionPolicy, sessionNameFor, stsCredentialsProvider } from './sts.ts';

// Static keys below; the SDK must never look for others (instance metadata would be network traffic).
process.env.AWS_EC2_METADATA_DISABLED = 'true';

const CALLER_KEY_ID = 'AKIDCALLERTEST000001';
const CALLER_SECRET = 'caller-secret-do-not-leak/0123456789abcdef';
const ISSUED_SECRET = 'issued-secret-0123456789abcdef0123456789';
const ISSUED_TOKEN = 'FwoGZXIvYXdzEXAMPLESESSIONTOKEN==';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/assetql-storage';

interface SeenRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  params: URLSearchParams;
}

type Mode = 'ok' | 'denied' | 'hang';

let server: Server;
let endpoint: string;
let mode: Mode = 'ok';
const seen: SeenRequest[] = [];
const hung: ServerResponse[] = [];

function assumeRoleXml(sessionName: string): string {
  return `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <SourceIdentity>assetql</SourceIdentity>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/assetql-storage/${sessionName}</Arn>
      <AssumedRoleId>ARO123EXAMPLE123:${sessionName}</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>ASIAISSUEDTEST000001</AccessKeyId>
      <SecretAccessKey>${ISSUED_SECRET}</SecretAccessKey>
      <SessionToken>${ISSUED_TOKEN}</SessionToken>
      <Expiration>2026-05-01T12:00:00Z</Expiration>
    </Credentials>
    <PackedPolicySize>12</PackedPolicySize>
  </AssumeRoleResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</AssumeRoleResponse>`;
}

// The upstream message deliberately quotes secrets: the provider must not pass it on.
const ACCESS_DENIED_XML = `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error>
    <Type>Sender</Type>
    <Code>AccessDenied</Code>
    <Message>User: arn:aws:iam::123456789012:user/caller (${CALLER_SECRET}) is not authorized to perform: sts:AssumeRole on resource: ${ROLE_ARN}</Message>
  </Error>
  <RequestId>4b2ad3f1-5d6e-4bde-9a51-0e1c5bd04a8f</RequestId>
</ErrorResponse>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      seen.push({ method: req.method, url: req.url, headers: req.headers, params });
      if (mode === 'hang') {
        hung.push(res);
        return;
      }
      if (mode === 'denied') {
        res.writeHead(403, { 'content-type': 'text/xml' }).end(ACCESS_DENIED_XML);
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/xml' })
        .end(assumeRoleXml(params.get('RoleSessionName') ?? ''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  mode = 'ok';
  seen.length = 0;
  for (const res of hung.splice(0)) res.destroy();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function provider(extra: { timeoutMs?: number; durationSeconds?: number; maxAttempts?: number } = {}) {
  return stsCredentialsProvider({
    roleArn: ROLE_ARN,
    bucket: 'assetql-files',
    endpoint,
    region: 'eu-west-1',
    accessKeyId: CALLER_KEY_ID,
    secretAccessKey: CALLER_SECRET,
    ...extra,
  });
}

interface PolicyStatement {
  Effect: string;
  Action: string[];
  Resource: string[];
  Condition?: { StringLike?: Record<string, string[]> };
}

/** A tiny evaluator of the policy shape we emit: is `action` on `resource` (with `s3:prefix`) allowed? */
function allows(
  policy: { Statement: PolicyStatement[] },
  action: string,
  resource: string,
  s3Prefix?: string,
) {
  const glob = (pattern: string, value: string) =>
    new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(value);
  return policy.Statement.some((s) => {
    if (s.Effect !== 'Allow' || !s.Action.includes(action)) return false;
    if (!s.Resource.some((r) => glob(r, resource))) return false;
    const like = s.Condition?.StringLike?.['s3:prefix'];
    return !like || (s3Prefix !== undefined && like.some((p) => glob(p, s3Prefix)));
  });
}

describe('stsCredentialsProvider', () => {
  it('assumes the role with a session policy limited to the group prefix and maps the credentials', async () => {
    const sts = provider({ durationSeconds: 1800 });
    try {
      const creds = await sts.issue({ username: 'alice smith/ü', group: 'design' });

      expect(creds).toEqual({
        accessKeyId: 'ASIAISSUEDTEST000001',
        secretAccessKey: ISSUED_SECRET,
        sessionToken: ISSUED_TOKEN,
        expiration: new Date('2026-05-01T12:00:00Z'),
      });
      expect(creds.expiration).toBeInstanceOf(Date);

      expect(seen).toHaveLength(1);
      const [req] = seen;
      expect(req!.method).toBe('POST');
      expect(req!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      expect(req!.headers.authorization).toMatch(
        new RegExp(`^AWS4-HMAC-SHA256 Credential=${CALLER_KEY_ID}/\\d{8}/eu-west-1/sts/aws4_request, `),
      );
      const p = req!.params;
      expect(p.get('Action')).toBe('AssumeRole');
      expect(p.get('Version')).toBe('2011-06-15');
      expect(p.get('RoleArn')).toBe(ROLE_ARN);
      expect(p.get('RoleSessionName')).toBe('alice-smith--');
      expect(p.get('RoleSessionName')).toMatch(/^[\w+=,.@-]{2,64}$/);
      expect(p.get('DurationSeconds')).toBe('1800');
      expect(p.has('ExternalId')).toBe(false);

      const policy = JSON.parse(p.get('Policy')!);
      expect(policy).toEqual(JSON.parse(buildSessionPolicy('assetql-files', 'design/')));
      const obj = (key: string) => `arn:aws:s3:::assetql-files/${key}`;
      for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']) {
        expect(allows(policy, action, obj('design/a/b.png'))).toBe(true);
        expect(allows(policy, action, obj('marketing/a.png'))).toBe(false);
        expect(allows(policy, action, obj('design-team/a.png'))).toBe(false);
        expect(allows(policy, action, 'arn:aws:s3:::other-bucket/design/a.png')).toBe(false);
      }
      expect(allows(policy, 's3:ListBucket', 'arn:aws:s3:::assetql-files', 'design/')).toBe(true);
      expect(allows(policy, 's3:ListBucket', 'arn:aws:s3:::assetql-files', 'design/sub/')).toBe(true);
      expect(allows(policy, 's3:ListBucket', 'arn:aws:s3:::assetql-files', 'marketing/')).toBe(false);
      expect(allows(policy, 's3:ListBucket', 'arn:aws:s3:::assetql-files', '')).toBe(false);
      expect(allows(policy, 's3:ListBucket', 'arn:aws:s3:::assetql-files')).toBe(false);
      expect(allows(policy, 's3:DeleteBucket', 'arn:aws:s3:::assetql-files')).toBe(false);
      expect(allows(policy, 's3:PutObjectAcl', obj('design/a.png'))).toBe(false);
    } finally {
      sts.destroy();
    }
  });

  it('uses the prefix template, an explicit session name and the external id', async () => {
    const sts = stsCredentialsProvider({
      roleArn: ROLE_ARN,
      bucket: 'assetql-files',
      prefixTemplate: 'groups/{group}/files/',
      endpoint,
      accessKeyId: CALLER_KEY_ID,
      secretAccessKey: CALLER_SECRET,
      externalId: 'assetql-ext',
    });
    try {
      await sts.issue({ username: 'bob', group: 'ops.eu_1', sessionName: 'bob@assetql' });
      const p = seen[0]!.params;
      expect(p.get('RoleSessionName')).toBe('bob@assetql');
      expect(p.get('DurationSeconds')).toBe('3600');
      expect(p.get('ExternalId')).toBe('assetql-ext');
      expect(seen[0]!.headers.authorization).toContain('/us-east-1/sts/aws4_request');
      const policy = JSON.parse(p.get('Policy')!);
      expect(allows(policy, 's3:GetObject', 'arn:aws:s3:::assetql-files/groups/ops.eu_1/files/x')).toBe(true);
      expect(allows(policy, 's3:GetObject', 'arn:aws:s3:::assetql-files/groups/ops/files/x')).toBe(false);
    } finally {
      sts.destroy();
    }
  });

  it('turns AccessDenied into CredentialsUnavailableError without secrets or the upstream message', async () => {
    mode = 'denied';
    const sts = provider();
    try {
      const error = await sts.issue({ username: 'alice', group: 'design' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CredentialsUnavailableError);
      const e = error as CredentialsUnavailableError;
      expect(e.reason).toBe('denied');
      expect(e.message).toBe(
        'Storage credentials are unavailable: the token service answered AccessDenied (HTTP 403)',
      );
      const everything = `${e.message} ${e.stack} ${JSON.stringify(e)} ${String(e.cause)}`;
      expect(everything).not.toContain(CALLER_SECRET);
      expect(everything).not.toContain(CALLER_KEY_ID);
      expect(everything).not.toContain('123456789012');
      expect(seen).toHaveLength(1); // a 403 is not retried
    } finally {
      sts.destroy();
    }
  });

  it('refuses an invalid group before any request is made', async () => {
    const sts = provider();
    try {
      for (const group of ['', '../other', 'a*', 'design/', '-x', 'a'.repeat(129), 'a b', 'ä']) {
        const error = await sts.issue({ username: 'alice', group }).catch((e: unknown) => e);
        expect(error, group).toBeInstanceOf(CredentialsUnavailableError);
        expect((error as CredentialsUnavailableError).reason).toBe('invalid-request');
      }
      expect(seen).toHaveLength(0);
    } finally {
      sts.destroy();
    }
  });

  it('times out on a hung endpoint', async () => {
    mode = 'hang';
    const sts = provider({ timeoutMs: 300 });
    try {
      const started = performance.now();
      const error = await sts.issue({ username: 'alice', group: 'design' }).catch((e: unknown) => e);
      const elapsed = performance.now() - started;
      expect(error).toBeInstanceOf(CredentialsUnavailableError);
      expect((error as CredentialsUnavailableError).reason).toBe('timeout');
      expect((error as Error).message).toBe(
        'Storage credentials are unavailable: the token service did not answer in time',
      );
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(3000);
    } finally {
      sts.destroy();
    }
  });

  it('rejects bad configuration at construction', () => {
    const base = { roleArn: ROLE_ARN, bucket: 'assetql-files', accessKeyId: 'a', secretAccessKey: 'b' };
    expect(() => stsCredentialsProvider({ ...base, durationSeconds: 899 })).toThrow(RangeError);
    expect(() => stsCredentialsProvider({ ...base, durationSeconds: 43_201 })).toThrow(RangeError);
    expect(() => stsCredentialsProvider({ ...base, prefixTemplate: 'shared/' })).toThrow(/\{group\}/);
    expect(() => stsCredentialsProvider({ ...base, prefixTemplate: '{group}/*' })).toThrow(TypeError);
    expect(() => stsCredentialsProvider({ ...base, bucket: 'b*' })).toThrow(TypeError);
    expect(() => stsCredentialsProvider({ ...base, secretAccessKey: undefined })).toThrow(/both/);
  });
});

describe('sessionNameFor', () => {
  it('keeps STS-safe names and sanitises the rest to [\\w+=,.@-]{2,64}', () => {
    expect(sessionNameFor('alice@example.com')).toBe('alice@example.com');
    expect(sessionNameFor('a')).toBe('a-');
    expect(sessionNameFor('')).toBe('--');
    expect(sessionNameFor('x'.repeat(100))).toHaveLength(64);
    expect(sessionNameFor('名前 with spaces/and:colons')).toMatch(/^[\w+=,.@-]{2,64}$/);
  });
});

describe('unconfiguredCredentialsProvider', () => {
  it('answers a typed not-configured error, never keys', async () => {
    const error = await unconfiguredCredentialsProvider
      .issue({ username: 'alice', group: 'design' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsUnavailableError);
    expect((error as CredentialsUnavailableError).reason).toBe('not-configured');
  });
});
