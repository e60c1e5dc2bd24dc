import { jwtVerify, SignJWT } from 'jose';
import { deriveKey } from './secrets.ts';

/** The header that carries the gateway's signed statement of who is calling. */
export const IDENTITY_HEADER = 'x-assetql-identity';
/** The correlation id header, accepted from clients when plain and short (Hono's rule). */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * `session`: a signed-in user; `api_key`: a user acting through an API key;
 * `challenge`: a sign-in waiting on a challenge (no data access); `anonymous`: nobody.
 */
export type IdentityKind = 'anonymous' | 'session' | 'challenge' | 'api_key';

export interface Identity {
  kind: IdentityKind;
  username: string | null;
  userGroup: string | null;
  clientType: string | null;
  /** Hex SHA-256 of the session ID: lets the auth subgraph find the session, useless to present. */
  sessionHash: string | null;
  /** The client's address as the gateway saw it (for devices, limits and the audit trail). */
  clientIp?: string | null;
}

export const ANONYMOUS: Identity = Object.freeze({
  kind: 'anonymous',
  username: null,
  userGroup: null,
  clientType: null,
  sessionHash: null,
});

/** True for identities that may read and write tenant data. */
export function isAuthenticated(i: Identity): i is Identity & { username: string; userGroup: string } {
  return (i.kind === 'session' || i.kind === 'api_key') && i.username !== null && i.userGroup !== null;
}

const ISSUER = 'assetql-gateway';
const AUDIENCE = 'assetql-subgraph';
const LIFETIME_S = 60;

export class IdentityError extends Error {
  override name = 'IdentityError';
}

/** Signs and verifies identities with a key derived from the service secret (HS256, 60 s). */
export class IdentitySigner {
  readonly #key: Uint8Array;
  constructor(secret: string) {
    this.#key = deriveKey(secret, 'identity');
  }

  sign(identity: Identity): Promise<string> {
    return new SignJWT({
      knd: identity.kind,
      grp: identity.userGroup,
      cat: identity.clientType,
      sid: identity.sessionHash,
      ip: identity.clientIp ?? null,
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(identity.username ?? '')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${LIFETIME_S}s`)
      .sign(this.#key);
  }

  /** Verifies a header value; throws IdentityError for anything forged, expired or malformed. */
  async verify(token: string): Promise<Identity> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        maxTokenAge: `${LIFETIME_S + 5}s`,
      });
      const kind = payload.knd;
      if (kind !== 'session' && kind !== 'challenge' && kind !== 'api_key' && kind !== 'anonymous') {
        throw new IdentityError('unknown identity kind');
      }
      const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
      return {
        kind,
        username: str(payload.sub),
        userGroup: str(payload.grp),
        clientType: str(payload.cat),
        sessionHash: str(payload.sid),
        clientIp: str(payload.ip),
      };
    } catch (e) {
      throw e instanceof IdentityError ? e : new IdentityError(`identity rejected: ${(e as Error).message}`);
    }
  }
}

/** Keeps a client-sent request id when it is short and plain, otherwise makes one. */
export function correlationIdFrom(incoming: string | null | undefined): string {
  if (incoming && incoming.length <= 255 && /^[A-Za-z0-9_\-=]+$/.test(incoming)) return incoming;
  return crypto.randomUUID();
}
