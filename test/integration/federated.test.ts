import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
// oidc-provider publishes no type declarations; the little this file uses is typed below.
// @ts-expect-error TS7016
import Provider from 'oidc-provider';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.ts';
import { createUser, disableUser } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * federatedSignIn against a real OpenID provider (oidc-provider), whose ID tokens are obtained
 * the way a browser would: the authorization-code flow over HTTP, with the provider's own
 * development login and consent pages.
 */

interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
}

/** The provider's users: the account ID is the `sub`. */
const ACCOUNTS: Record<string, { email: string; email_verified: boolean; groups?: string[] }> = {
  'alice-0001': { email: 'alice@corp.example', email_verified: true, groups: ['acme'] },
  'bob-0002': { email: 'bob@corp.example', email_verified: true, groups: ['beta', 'other'] },
  'carol-0003': { email: 'carol@corp.example', email_verified: false, groups: ['other'] },
  'dave-0004': { email: 'dave@corp.example', email_verified: true, groups: ['acme'] },
  'erin-0005': { email: 'erin@corp.example', email_verified: true, groups: ['acme'] },
  'frank-0006': { email: 'frank@corp.example', email_verified: true, groups: ['acme'] },
};

const CLIENT_ID = 'assetql-test';
const OTHER_CLIENT_ID = 'another-app';
const CLIENT_SECRET = 'a-client-secret-that-is-long-enough-0123456789';

interface IdP {
  issuer: string;
  /** The key the provider signs with (its `kid` is in the JWKS). */
  kid: string;
  /** A genuine ID token for the account, issued to `clientId`. */
  idTokenFor(accountId: string, clientId?: string): Promise<string>;
  close(): Promise<void>;
}

/** A cookie jar for one user agent: enough for the provider's interaction cookies. */
class Jar {
  readonly #cookies = new Map<string, string>();
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [k = '', v = ''] = a.trim().split('=');
        if (k.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (k.toLowerCase() === 'expires') return Date.parse(v) <= Date.now();
        return false;
      });
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header() {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function startProvider(): Promise<IdP> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  // Never requested: the flow stops at the redirect to it and reads the code from Location.
  const redirectUri = `${issuer}/cb`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `idp-${port}`;
  const client = (client_id: string) => ({
    client_id,
    client_secret: CLIENT_SECRET,
    redirect_uris: [redirectUri],
    response_types: ['code'],
    grant_types: ['authorization_code'],
  });
  const provider: OidcProvider = new Provider(issuer, {
    clients: [client(CLIENT_ID), client(OTHER_CLIENT_ID)],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid, use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    // Put the scopes' claims in the ID token itself, as Cognito and most providers do.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const account = ACCOUNTS[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
  });
  server.on('request', provider.callback());

  async function idTokenFor(accountId: string, clientId = CLIENT_ID): Promise<string> {
    const jar = new Jar();
    const state = randomBytes(12).toString('base64url');
    const nonce = randomBytes(12).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${issuer}/auth`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'openid email groups',
      state,
      nonce,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();

    const request = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
      });
      jar.store(response);
      return response;
    };

    // Follow redirects, filling in the login and consent forms, until the provider sends the
    // browser back to the client with a code.
    let response = await request(authorize.toString());
    let code: string | undefined;
    for (let step = 0; step < 12 && !code; step++) {
      if (response.status >= 300 && response.status < 400) {
        const location = new URL(response.headers.get('location')!, issuer);
        if (location.toString().startsWith(redirectUri)) {
          expect(location.searchParams.get('error')).toBeNull();
          expect(location.searchParams.get('state')).toBe(state);
          expect(location.searchParams.get('iss')).toBe(issuer);
          code = location.searchParams.get('code')!;
        } else {
          response = await request(location.toString());
        }
        continue;
      }
      expect(response.status).toBe(200);
      const page = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
      if (!action || !prompt) throw new Error(`unexpected provider page: ${page.slice(0, 500)}`);
      const form: Record<string, string> =
        prompt === 'login'
          ? { prompt, login: accountId, password: 'any password (dev interactions)' }
          : { prompt };
      response = await request(new URL(action, issuer).toString(), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    }
    if (!code) throw new Error('the authorization flow did not end in a code');

    const token = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${CLIENT_SECRET}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }).toString(),
    });
    const body = (await token.json()) as { id_token?: string; error?: string };
    if (!body.id_token) throw new Error(`no ID token: ${JSON.stringify(body)}`);
    expect(decodeJwt(body.id_token)).toMatchObject({ iss: issuer, aud: clientId, sub: accountId, nonce });
    return body.id_token;
  }

  return {
    issuer,
    kid,
    idTokenFor,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

// ---------------------------------------------------------------------------------------------

const generous = { points: 10_000, seconds: 60 };
const authLimits = {
  signIn: generous,
  confirmSignIn: generous,
  forgotPassword: generous,
  forgotPasswordSubmit: generous,
  createAPIKey: generous,
};
const SSO_URL = 'https://sso.corp.example/start';

let idp: IdP;
let stranger: IdP; // a second, genuine provider that no app trusts
/** Trusts `idp` for client `assetql-test`, provisioning into `acme`. */
let t: TestApp;
/** Trusts `idp` too, honouring its `groups` claim for `acme` and `beta`. */
let g: TestApp;
/** Trusts no identity provider. */
let none: TestApp;

beforeAll(async () => {
  [idp, stranger] = await Promise.all([startProvider(), startProvider()]);
  // Real tokens carry real times: the apps' clocks start at the present.
  [t, g, none] = await Promise.all([
    startTestApp({
      clock: new ManualClock(new Date()),
      authLimits,
      config: {
        ssoUrl: SSO_URL,
        oidcIssuers: [{ issuer: idp.issuer, audience: CLIENT_ID, name: 'Corp', groups: ['acme'] }],
      },
    }),
    startTestApp({
      clock: new ManualClock(new Date()),
      authLimits,
      config: {
        oidcIssuers: [
          {
            issuer: `${idp.issuer}/`, // a trailing slash is the same issuer
            audience: [CLIENT_ID],
            name: 'Corp',
            groups: ['acme', 'beta'],
            groupsClaim: 'groups',
            algorithms: ['RS256'],
          },
        ],
      },
    }),
    startTestApp({ clock: new ManualClock(new Date()), authLimits }),
  ]);
});
// Starting three apps takes a while, longer than the verifier's 30 s of clock tolerance on a
// busy machine: each test starts with the apps' clocks at the present the provider signs in.
beforeEach(() => {
  for (const app of [t, g, none]) app.clock.set(new Date());
});
afterAll(async () => {
  await Promise.all([t?.close(), g?.close(), none?.close()]);
  await Promise.all([idp?.close(), stranger?.close()]);
});

const SESSION_FIELDS = 'username authenticated userGroup userGroups challengeName deviceKey';
const FEDERATED = `mutation($token: String!, $c: ClientApplicationType!, $d: String, $n: String) {
  federatedSignIn(input: { cognitoIdToken: $token, clientApplicationType: $c, deviceKey: $d, deviceName: $n }) {
    correlationId errors { message type } session { ${SESSION_FIELDS} }
  }
}`;
const CONFIG = '{ config { auth { ssoEnabled ssoUrl } } }';

type Result = {
  correlationId: string;
  errors: { type: string; message: string }[];
  session: Record<string, any> | null;
};

async function federatedSignIn(app: TestApp, token: string, clientType = 'EXPLORER') {
  const r = await app.graphql<{ federatedSignIn: Result }>(FEDERATED, { token, c: clientType });
  expect(r.status).toBe(200);
  expect(r.body.errors).toBeUndefined();
  return {
    result: r.body.data!.federatedSignIn,
    id: r.headers.get('x-svc-sessionid'),
    cookie: r.headers.get('set-cookie'),
  };
}

async function sessionOf(app: TestApp, id: string | null) {
  const r = await app.graphql<{ session: Record<string, any> }>(
    `{ session { ${SESSION_FIELDS} } }`,
    {},
    { 'x-svc-sessionid': id ?? '' },
  );
  return r.body.data!.session;
}

/** What sign-in could have created: users, their groups, links, and sessions. */
async function footprint(app: TestApp) {
  const db = app.database.db;
  const count = async (table: 'users' | 'user_groups' | 'federated_identities' | 'sessions') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    users: await count('users'),
    userGroups: await count('user_groups'),
    links: await count('federated_identities'),
    sessions: await count('sessions'),
  };
}

/** Flips one character in the middle of the signature (the last one may only carry padding bits). */
function tamper(token: string) {
  const [header, payload, signature = ''] = token.split('.');
  const i = Math.floor(signature.length / 2);
  const flipped = signature[i] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, i)}${flipped}${signature.slice(i + 1)}`;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Claims as the provider would put them in an ID token for `sub`, issued now. */
function claimsFor(sub: string, issuer = idp.issuer) {
  const now = Math.floor(Date.now() / 1000);
  return { iss: issuer, aud: CLIENT_ID, sub, iat: now, exp: now + 3600, email: `${sub}@corp.example` };
}

// ---------------------------------------------------------------------------------------------

describe('configuration', () => {
  it('advertises SSO when an identity provider is configured', async () => {
    const r = await t.graphql(CONFIG);
    expect(r.body).toEqual({ data: { config: { auth: { ssoEnabled: true, ssoUrl: SSO_URL } } } });
  });

  it('without one, says so, and federatedSignIn answers LOGIN_DISABLED even to a genuine token', async () => {
    const r = await none.graphql(CONFIG);
    expect(r.body).toEqual({ data: { config: { auth: { ssoEnabled: false, ssoUrl: null } } } });
    const { result, id, cookie } = await federatedSignIn(none, await idp.idTokenFor('alice-0001'));
    expect(result.session).toBeNull();
    expect(result.errors.map((e) => e.type)).toEqual(['LOGIN_DISABLED']);
    expect(id).toBeNull();
    expect(cookie).toBeNull();
    expect(await footprint(none)).toEqual({ users: 0, userGroups: 0, links: 0, sessions: 0 });
  });
});

describe('a genuine ID token', () => {
  it('signs in, provisioning <name>_<sub> in the configured groups', async () => {
    const token = await idp.idTokenFor('alice-0001');
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', kid: idp.kid });
    expect(decodeJwt(token)).toMatchObject({
      email: 'alice@corp.example',
      email_verified: true,
      groups: ['acme'],
    });
    const { result, id, cookie } = await federatedSignIn(t, token);
    expect(result.errors).toEqual([]);
    expect(result.session).toMatchObject({
      username: 'Corp_alice-0001',
      authenticated: true,
      userGroup: 'acme',
      userGroups: ['acme'],
      challengeName: null,
    });
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie).toMatch(new RegExp(`^svc_sessionid=${id};`));
    expect(await sessionOf(t, id)).toMatchObject({ username: 'Corp_alice-0001', authenticated: true });

    const user = await t.database.db
      .selectFrom('users')
      .select(['email', 'password_hash'])
      .where('username', '=', 'Corp_alice-0001')
      .executeTakeFirstOrThrow();
    expect(user).toEqual({ email: 'alice@corp.example', password_hash: null });
  });

  it('links later sign-ins by issuer and sub, not by creating another user', async () => {
    const { result, id } = await federatedSignIn(t, await idp.idTokenFor('alice-0001'), 'MOBILE_IOS');
    expect(result.errors).toEqual([]);
    expect(result.session).toMatchObject({ username: 'Corp_alice-0001', authenticated: true });
    expect(await sessionOf(t, id)).toMatchObject({ username: 'Corp_alice-0001', authenticated: true });
    const links = await t.database.db
      .selectFrom('federated_identities')
      .selectAll()
      .where('username', '=', 'Corp_alice-0001')
      .execute();
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ issuer: idp.issuer, subject: 'alice-0001' });
    expect(links[0]!.last_signed_in_at).toBeInstanceOf(Date);
    const users = await t.database.db
      .selectFrom('users')
      .select('username')
      .where('username', 'like', 'Corp_alice%')
      .execute();
    expect(users).toHaveLength(1);
  });

  it('does not keep an unverified email', async () => {
    const { result } = await federatedSignIn(t, await idp.idTokenFor('carol-0003'));
    expect(result.session).toMatchObject({ username: 'Corp_carol-0003', userGroup: 'acme' });
    const user = await t.database.db
      .selectFrom('users')
      .select('email')
      .where('username', '=', 'Corp_carol-0003')
      .executeTakeFirstOrThrow();
    expect(user.email).toBeNull();
  });
});

describe('the groups claim', () => {
  it('gives a first-time user only the configured groups the token names', async () => {
    const { result, id } = await federatedSignIn(g, await idp.idTokenFor('bob-0002'));
    expect(result.errors).toEqual([]);
    expect(result.session).toMatchObject({
      username: 'Corp_bob-0002',
      authenticated: true,
      userGroup: 'beta',
      userGroups: ['beta'],
    });
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('denies a user whose token names none of them, creating nothing', async () => {
    const before = await footprint(g);
    const { result, id, cookie } = await federatedSignIn(g, await idp.idTokenFor('carol-0003'));
    expect(result.session).toBeNull();
    expect(result.errors.map((e) => e.type)).toEqual(['GROUP_ACCESS_DENIED']);
    expect(id).toBeNull();
    expect(cookie).toBeNull();
    expect(await footprint(g)).toEqual(before);
    const carol = await g.database.db
      .selectFrom('users')
      .select('username')
      .where('username', '=', 'Corp_carol-0003')
      .executeTakeFirst();
    expect(carol).toBeUndefined();
  });
});

describe('tokens that must be refused with INVALID_TOKEN', () => {
  /** Signs in with `token` and checks that it was refused and left nothing behind. */
  async function refused(token: string, app: TestApp = t) {
    const before = await footprint(app);
    const { result, id, cookie } = await federatedSignIn(app, token);
    expect(result.session).toBeNull();
    expect(result.errors.map((e) => e.type)).toEqual(['INVALID_TOKEN']);
    expect(id).toBeNull();
    expect(cookie).toBeNull();
    expect(await footprint(app)).toEqual(before);
    return result.errors[0]!.message;
  }

  it('a genuine token issued to another client (audience)', async () => {
    const token = await idp.idTokenFor('erin-0005', OTHER_CLIENT_ID);
    expect(decodeJwt(token).aud).toBe(OTHER_CLIENT_ID);
    expect(await refused(token)).toMatch(/aud/);
  });

  it('a token whose signature was altered', async () => {
    expect(await refused(tamper(await idp.idTokenFor('erin-0005')))).toMatch(/signature/i);
  });

  it('a token whose claims were altered under the original signature', async () => {
    const [header, , signature] = (await idp.idTokenFor('erin-0005')).split('.');
    await refused(`${header}.${b64(claimsFor('alice-0001'))}.${signature}`);
  });

  it('an expired token', async () => {
    const token = await idp.idTokenFor('erin-0005');
    t.clock.advance(2 * 60 * 60 * 1000);
    try {
      expect(await refused(token)).toMatch(/exp|iat/);
    } finally {
      t.clock.set(new Date());
    }
    // The same token, in its lifetime, is good: only time made the difference.
    const { result } = await federatedSignIn(t, token);
    expect(result.session).toMatchObject({ username: 'Corp_erin-0005', authenticated: true });
  });

  it('a token with the right iss and kid signed by another key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claimsFor('alice-0001'))
      .setProtectedHeader({ alg: 'RS256', kid: idp.kid, typ: 'JWT' })
      .sign(privateKey);
    expect(await refused(forged)).toMatch(/signature/i);
    // …and under a kid the provider never published.
    const unknownKid = await new SignJWT(claimsFor('alice-0001'))
      .setProtectedHeader({ alg: 'RS256', kid: 'attacker-key' })
      .sign(privateKey);
    await refused(unknownKid);
  });

  it('an unsigned token (alg none)', async () => {
    await refused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsFor('alice-0001'))}.`);
  });

  it('an HS256 token, with a guessable secret or the provider’s own public key as secret', async () => {
    const claims = claimsFor('alice-0001');
    await refused(
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(CLIENT_SECRET)),
    );
    const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: unknown[] };
    await refused(
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: idp.kid })
        .sign(new TextEncoder().encode(JSON.stringify(jwks.keys[0]))),
    );
  });

  it('a genuine token from an issuer that is not configured', async () => {
    const token = await stranger.idTokenFor('alice-0001');
    expect(decodeJwt(token)).toMatchObject({ iss: stranger.issuer, aud: CLIENT_ID, sub: 'alice-0001' });
    expect(await refused(token)).toMatch(/issuer/);
  });

  it('a string that is not a JWT', async () => {
    await refused('not-a-token');
  });

  it('records each refusal as an auth event', async () => {
    const events = await t.database.db
      .selectFrom('auth_events')
      .select('event')
      .where('event', '=', 'federated_sign_in_failed')
      .execute();
    expect(events.length).toBeGreaterThanOrEqual(10);
  });
});

describe('a disabled user', () => {
  it('is refused with USER_DISABLED and gets no session', async () => {
    const first = await federatedSignIn(t, await idp.idTokenFor('dave-0004'));
    expect(first.result.session).toMatchObject({ username: 'Corp_dave-0004', authenticated: true });
    await disableUser(t.database.db, 'Corp_dave-0004');
    expect((await sessionOf(t, first.id)).authenticated).toBe(false);

    const { result, id, cookie } = await federatedSignIn(t, await idp.idTokenFor('dave-0004'));
    expect(result.session).toBeNull();
    expect(result.errors.map((e) => e.type)).toEqual(['USER_DISABLED']);
    expect(id).toBeNull();
    expect(cookie).toBeNull();
    const sessions = await t.database.db
      .selectFrom('sessions')
      .select('username')
      .where('username', '=', 'Corp_dave-0004')
      .execute();
    expect(sessions).toEqual([]);
  });
});

describe('a local user with the name a new identity would get', () => {
  it('is never taken over: the identity gets a name of its own', async () => {
    await createUser(t.database.db, t.config.secret, {
      username: 'Corp_frank-0006',
      groups: ['local-only'],
      password: 'a local password here',
    });
    const { result } = await federatedSignIn(t, await idp.idTokenFor('frank-0006'));
    expect(result.errors).toEqual([]);
    expect(result.session?.username).toMatch(/^Corp_[0-9a-f]{24}$/);
    const local = await t.database.db
      .selectFrom('user_groups')
      .select('user_group')
      .where('username', '=', 'Corp_frank-0006')
      .execute();
    expect(local.map((g) => g.user_group)).toEqual(['local-only']);
  });
});
