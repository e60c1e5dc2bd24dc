import { SignJWT, UnsecuredJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Identity, IdentityError, IdentitySigner } from './identity.ts';
import { deriveKey } from './secrets.ts';

const SECRET = 'identity-test-secret-identity-test-secret';
const signer = new IdentitySigner(SECRET);
const who: Identity = {
  kind: 'session',
  username: 'demo',
  userGroup: 'demo',
  clientType: 'EXPLORER',
  sessionHash: 'ab'.repeat(32),
  clientIp: '10.0.0.1',
  apiKeyId: null,
};
/** A caller through an API key: the key's public id is signed with the rest. */
const keyed: Identity = { ...who, kind: 'api_key', clientType: 'API_KEY', apiKeyId: 'etl' };

/** A token made by another JWT library, with claims we choose. */
function jose(
  claims: Record<string, unknown>,
  options: { iss?: string; aud?: string; iat?: number; exp?: number } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ knd: 'session', grp: 'demo', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('demo')
    .setIssuer(options.iss ?? 'assetql-gateway')
    .setAudience(options.aud ?? 'assetql-subgraph')
    .setIssuedAt(options.iat ?? now)
    .setExpirationTime(options.exp ?? now + 60)
    .sign(deriveKey(SECRET, 'identity'));
}

describe('IdentitySigner', () => {
  it('round-trips an identity', async () => {
    expect(await signer.verify(await signer.sign(who))).toEqual(who);
    expect(
      await signer.verify(await signer.sign({ ...who, kind: 'anonymous', username: null })),
    ).toMatchObject({
      kind: 'anonymous',
      username: null,
    });
  });

  it("carries an API key's public id, only for an API key's caller", async () => {
    expect(await signer.verify(signer.sign(keyed))).toEqual(keyed);
    // Two keys of one user are two identities, two tokens.
    const other = { ...keyed, apiKeyId: 'backup' };
    expect(signer.sign(other)).not.toBe(signer.sign(keyed));
    expect((await signer.verify(signer.sign(other))).apiKeyId).toBe('backup');
    // Another kind never carries one, whatever it was handed.
    expect((await signer.verify(signer.sign({ ...who, apiKeyId: 'etl' }))).apiKeyId).toBeNull();
    expect((await signer.verify(await jose({ knd: 'session', aki: 'etl' }))).apiKeyId).toBeNull();
  });

  it('verifies a token signed without an API key id (an older gateway) as one whose key is unknown', async () => {
    const old = await signer.verify(await jose({ knd: 'api_key', cat: 'API_KEY' }));
    expect(old).toMatchObject({ kind: 'api_key', username: 'demo', userGroup: 'demo', apiKeyId: null });
    expect((await signer.verify(await jose({ knd: 'api_key', aki: 'etl' }))).apiKeyId).toBe('etl');
  });

  it('reads standard HS256 JWTs made by another library (and they read ours)', async () => {
    expect(await signer.verify(await jose({}))).toMatchObject({
      kind: 'session',
      username: 'demo',
      userGroup: 'demo',
    });
  });

  it('refuses other keys, issuers, audiences, expired or old tokens, alg none and garbage', async () => {
    const now = Math.floor(Date.now() / 1000);
    const other = await new IdentitySigner(`${SECRET}-other`).sign(who);
    const bad = [
      other,
      await jose({}, { iss: 'someone' }),
      await jose({}, { aud: 'elsewhere' }),
      await jose({}, { iat: now - 120, exp: now - 60 }),
      await jose({}, { iat: now - 300, exp: now + 600 }),
      await jose({ knd: 'root' }),
      new UnsecuredJWT({ knd: 'session', grp: 'demo', sub: 'demo' })
        .setIssuer('assetql-gateway')
        .setAudience('assetql-subgraph')
        .setIssuedAt()
        .setExpirationTime('60s')
        .encode(),
      'not.a.token',
      '',
    ];
    for (const token of bad) await expect(signer.verify(token), token).rejects.toBeInstanceOf(IdentityError);
    // One changed character in the signature.
    const good = await signer.sign(who);
    const flipped = good.slice(0, -2) + (good.at(-2) === 'A' ? 'B' : 'A') + good.at(-1);
    await expect(signer.verify(flipped)).rejects.toBeInstanceOf(IdentityError);
  });

  describe('between requests', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const claims = (token: string) =>
      JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

    it('signs one token per identity and second, and a new one each second', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-05-01T10:00:00.100Z'));
      const first = signer.sign(who);
      vi.setSystemTime(new Date('2026-05-01T10:00:00.900Z'));
      expect(signer.sign({ ...who })).toBe(first);
      // Any claim that differs is another identity's token, kept apart.
      for (const other of [
        { ...who, clientIp: '10.0.0.2' },
        { ...who, clientIp: null },
        { ...who, userGroup: null },
        { ...who, sessionHash: 'cd'.repeat(32) },
        { ...who, kind: 'challenge' as const },
        keyed,
        { ...keyed, apiKeyId: 'backup' },
      ]) {
        const token = signer.sign(other);
        expect(token).not.toBe(first);
        expect(await signer.verify(token)).toEqual({ ...other, clientIp: other.clientIp ?? null });
      }
      vi.setSystemTime(new Date('2026-05-01T10:00:01.000Z'));
      const next = signer.sign(who);
      expect(next).not.toBe(first);
      expect(claims(next).iat).toBe((claims(first).iat as number) + 1);
    });

    it('refuses a token it verified before once that token has expired', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-05-01T11:00:00.000Z'));
      const token = signer.sign({ ...who, username: 'expiring' });
      expect((await signer.verify(token)).username).toBe('expiring');
      vi.setSystemTime(new Date('2026-05-01T11:00:59.000Z'));
      expect((await signer.verify(token)).username).toBe('expiring');
      // Past its 60 s and the 5 s tolerance.
      vi.setSystemTime(new Date('2026-05-01T11:01:06.000Z'));
      await expect(signer.verify(token)).rejects.toBeInstanceOf(IdentityError);
    });
  });
});
