import type { createRemoteJWKSet, JWTPayload } from 'jose';

export interface OidcIssuer {
  /** The `iss` the tokens carry; discovery is read from `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** The client ID(s) this service is registered under: the token's `aud` must name one. */
  audience: string | string[];
  /** A short name, used for provisioned usernames (`<name>_<sub>`). */
  name?: string;
  /** Groups a first-time user gets, when the token names none of its own. */
  groups: string[];
  /** A claim holding the user's groups (e.g. `groups`, `cognito:groups`); only configured `groups` are honoured. */
  groupsClaim?: string;
  /** Signature algorithms accepted; never `none` or HMAC. */
  algorithms: string[];
}

export class TokenError extends Error {
  override name = 'TokenError';
}

const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^ES256K$/;

/**
 * Verifies OpenID Connect ID tokens from configured issuers: discovery, then the issuer's JWKS
 * (cached and refreshed by jose), pinned algorithms, `iss`, `aud`, `exp`, `iat`, and `sub`.
 */
export class OidcVerifier {
  readonly #issuers: Map<string, OidcIssuer>;
  readonly #jwks = new Map<string, Promise<ReturnType<typeof createRemoteJWKSet>>>();
  readonly #now: () => Date;

  constructor(issuers: readonly OidcIssuer[], now: () => Date = () => new Date()) {
    for (const i of issuers) {
      const bad = i.algorithms.filter((a) => !ASYMMETRIC.test(a));
      if (bad.length)
        throw new Error(`OIDC issuer ${i.issuer}: algorithms ${bad.join(', ')} are not allowed`);
    }
    this.#issuers = new Map(issuers.map((i) => [i.issuer.replace(/\/+$/, ''), i]));
    this.#now = now;
  }

  get enabled(): boolean {
    return this.#issuers.size > 0;
  }

  async verify(token: string): Promise<{ issuer: OidcIssuer; claims: JWTPayload & { sub: string } }> {
    let unverified: JWTPayload;
    try {
      unverified = (await jose()).decodeJwt(token);
    } catch (e) {
      // jose's JWTInvalid: anything that does not decode as a JWT.
      if ((e as { code?: unknown }).code === 'ERR_JWT_INVALID' || e instanceof TypeError)
        throw new TokenError('The identity token is not a JWT.');
      throw e;
    }
    const issuer =
      typeof unverified.iss === 'string' ? this.#issuers.get(unverified.iss.replace(/\/+$/, '')) : undefined;
    if (!issuer) throw new TokenError('The identity token comes from an issuer this service does not trust.');
    try {
      const { payload } = await (await jose()).jwtVerify(token, await this.#keys(issuer), {
        issuer: [issuer.issuer.replace(/\/+$/, ''), `${issuer.issuer.replace(/\/+$/, '')}/`],
        audience: issuer.audience,
        algorithms: issuer.algorithms,
        requiredClaims: ['sub', 'exp', 'iat'],
        // ID tokens are presented right after sign-in at the provider; an old or future-dated
        // one is refused even when not yet expired.
        maxTokenAge: '1h',
        clockTolerance: 30,
        currentDate: this.#now(),
      });
      // OIDC Core 3.1.3.7: with several audiences, the authorized party must be us.
      const audiences = Array.isArray(issuer.audience) ? issuer.audience : [issuer.audience];
      if (Array.isArray(payload.aud) && payload.aud.length > 1 && !audiences.includes(String(payload.azp))) {
        throw new TokenError('The identity token was issued to another party (azp).');
      }
      return { issuer, claims: payload as JWTPayload & { sub: string } };
    } catch (e) {
      if (e instanceof TokenError) throw e;
      throw new TokenError(`The identity token was rejected: ${(e as Error).message}`);
    }
  }

  #keys(issuer: OidcIssuer) {
    let keys = this.#jwks.get(issuer.issuer);
    if (!keys) {
      keys = (async () => {
        const url = `${issuer.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
        const response = await fetch(url, {
          signal: AbortSignal.timeout(5000),
          headers: { accept: 'application/json' },
        });
        if (!response.ok) throw new Error(`OIDC discovery at ${url} answered ${response.status}`);
        const discovery = (await response.json()) as { issuer?: string; jwks_uri?: string };
        if (
          discovery.issuer?.replace(/\/+$/, '') !== issuer.issuer.replace(/\/+$/, '') ||
          !discovery.jwks_uri
        ) {
          throw new Error(`OIDC discovery at ${url} does not describe ${issuer.issuer}`);
        }
        return (await jose()).createRemoteJWKSet(new URL(discovery.jwks_uri), {
          timeoutDuration: 5000,
          cooldownDuration: 30_000,
        });
      })();
      // A failed discovery is retried on the next sign-in rather than cached.
      keys.catch(() => this.#jwks.delete(issuer.issuer));
      this.#jwks.set(issuer.issuer, keys);
    }
    return keys;
  }
}

/** jose, loaded at the first federated sign-in: a service without issuers never loads it. */
function jose(): Promise<typeof import('jose')> {
  return import('jose');
}
