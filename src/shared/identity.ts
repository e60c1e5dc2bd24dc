import { createSigner, createVerifier } from 'fast-jwt';
import { LRUCache } from 'lru-cache';
import { deriveKey } from './secrets.ts';

/** The header that carries the gateway's signed statement of who is calling. */
/**
 * `extensions.reason` of a subgraph's refusal of a signed identity it cannot verify (401): behind
 * our gateway, secrets that differ, an operator's fault, which the gateway answers as the subgraph
 * being unavailable rather than as the client not being signed in.
 */
export const IDENTITY_REFUSED = 'IDENTITY_REFUSED';

export const IDENTITY_HEADER = 'x-assetql-identity';
/** What an SSE client reconnects with: the `id` of the last event it read (a change's cursor). */
export const LAST_EVENT_ID_HEADER = 'last-event-id';
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
  /**
   * For `api_key`: the key's public id (`AuthAPIKey.apiKeyId`, what `revokeAPIKey` takes), which
   * the change log records beside its owner; never the key's secret. Null for any other kind.
   */
  apiKeyId?: string | null;
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

/** How many identities' tokens of the current second the signer keeps, and how many verified tokens. */
const SIGNED_TOKENS = 10_000;
const VERIFIED_TOKENS = 10_000;

/**
 * Signs and verifies identities with a key derived from the service secret (HS256 JWTs, 60 s).
 * fast-jwt uses node:crypto's HMAC synchronously: 18 µs for a sign and a verify, against
 * 460 µs through WebCrypto's asynchronous jobs, and every request pays one sign and a verify
 * per subgraph call. The tokens are standard compact JWS, so any JWT library reads them.
 */
export class IdentitySigner {
  readonly #sign: (payload: Record<string, unknown>) => string;
  readonly #verify: (token: string) => Record<string, unknown>;
  /** The token last signed for each identity, and the second it was signed in. */
  readonly #signed = new LRUCache<string, { second: number; token: string }>({
    max: SIGNED_TOKENS,
  });

  constructor(secret: string) {
    const key = Buffer.from(deriveKey(secret, 'identity'));
    this.#sign = createSigner({
      key,
      algorithm: 'HS256',
      iss: ISSUER,
      aud: AUDIENCE,
      expiresIn: LIFETIME_S * 1000,
    });
    this.#verify = createVerifier({
      key,
      algorithms: ['HS256'],
      allowedIss: ISSUER,
      allowedAud: AUDIENCE,
      maxAge: (LIFETIME_S + 5) * 1000,
      clockTolerance: 5000,
      // A token verified once is taken from here until it expires (fast-jwt bounds each entry by
      // the token's `exp` and `maxAge` as its checks do): the gateway signs the same token for an
      // identity all through a second, and its subgraphs see it once per request. Keyed by
      // fast-jwt's own hash of the whole token; failures are not kept.
      cache: VERIFIED_TOKENS,
    });
  }

  /**
   * The identity's token. Its claims are the identity's and its issue time is in seconds, so
   * every token signed for one identity within a second is the same text: the one signed first
   * in the second is kept and handed out again (HMAC, JSON and base64 once per identity and
   * second, not once per request).
   */
  sign(identity: Identity): string {
    const claims = {
      knd: identity.kind,
      sub: identity.username ?? '',
      grp: identity.userGroup,
      cat: identity.clientType,
      sid: identity.sessionHash,
      ip: identity.clientIp ?? null,
      // The API key's public id, for an API key's caller only.
      aki: identity.kind === 'api_key' ? (identity.apiKeyId ?? null) : null,
    };
    const second = Math.floor(Date.now() / 1000);
    const key = JSON.stringify(claims);
    const kept = this.#signed.get(key);
    if (kept?.second === second) return kept.token;
    const token = this.#sign(claims);
    this.#signed.set(key, { second, token });
    return token;
  }

  /**
   * Verifies a header value; throws IdentityError for anything forged, expired or malformed. A
   * token without `aki` (signed before API keys' ids were, during a rolling deploy: at most a
   * minute's worth) verifies as before, its API key's id unknown (null).
   */
  async verify(token: string): Promise<Identity> {
    let payload: Record<string, unknown>;
    try {
      payload = this.#verify(token);
    } catch (e) {
      throw new IdentityError(`identity rejected: ${(e as Error).message}`);
    }
    const kind = payload.knd;
    if (kind !== 'session' && kind !== 'challenge' && kind !== 'api_key' && kind !== 'anonymous') {
      throw new IdentityError('unknown identity kind');
    }
    if (typeof payload.iat !== 'number') throw new IdentityError('identity rejected: no issue time');
    return receivedIdentity({
      kind,
      username: payload.sub,
      userGroup: payload.grp,
      clientType: payload.cat,
      sessionHash: payload.sid,
      clientIp: payload.ip,
      apiKeyId: payload.aki,
    });
  }
}

/**
 * An identity as a subgraph receives it, from the signed header or handed over in process:
 * anything but a non-empty string is absent (null).
 */
export function receivedIdentity(
  fields: { kind: IdentityKind } & { [K in Exclude<keyof Identity, 'kind'>]?: unknown },
): Identity {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    kind: fields.kind,
    username: str(fields.username),
    userGroup: str(fields.userGroup),
    clientType: str(fields.clientType),
    sessionHash: str(fields.sessionHash),
    clientIp: str(fields.clientIp),
    apiKeyId: fields.kind === 'api_key' ? str(fields.apiKeyId) : null,
  };
}

/** Keeps a client-sent request id when it is short and plain, otherwise makes one. */
export function correlationIdFrom(incoming: string | null | undefined): string {
  if (incoming && incoming.length <= 255 && /^[A-Za-z0-9_\-=]+$/.test(incoming)) return incoming;
  return crypto.randomUUID();
}

/**
 * Turns a presented session ID into the identity it stands for, by the session rules (idle and
 * hard expiry, sliding expiry, a user's standing). Implemented by the auth subgraph, which owns
 * sessions; handed to whoever needs it (our gateway, or a subgraph behind another router).
 */
export interface SessionResolution {
  /** The identity of a session ID, or ANONYMOUS for none, a malformed, unknown or expired one. */
  resolve(sessionId: string | null | undefined): Promise<Identity>;
  /** Forgets what is cached of a session at once (after sign-out or rotation seen here). */
  forget(sessionId: string): void;
  /**
   * Whether the session `identity` was resolved from still stands, for the same user, group and
   * kind: what ends a long-lived stream when its session ends (signed out, expired, revoked, the
   * user disabled or moved). Known within half a second of the change, notices or not.
   */
  standing(identity: Identity): Promise<boolean>;
}

/**
 * Whether a user may still act in a group: the user exists, is not disabled, and still belongs
 * to the group. The same rule decides whether a session still counts, so it is implemented by
 * the auth subgraph and handed to whoever acts later on a user's behalf without a session, such
 * as an export link, which must stop working when its maker is disabled or leaves the group.
 */
export interface AccountStanding {
  inGoodStanding(username: string, group: string): Promise<boolean>;
}
