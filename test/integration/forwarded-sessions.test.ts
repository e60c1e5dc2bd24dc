/**
 * Subgraphs behind a router that is not ours: no signed identity arrives, so each subgraph
 * resolves the session the router forwarded (`x-svc-sessionid` or the `svc_sessionid` cookie)
 * itself, takes the client address from X-Forwarded-For when a trusted hop is configured, and
 * the auth subgraph hands session changes back as ordinary response headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentitySigner } from '../../src/shared/identity.ts';
import { DEFAULT_LIMITS } from '../../src/subgraphs/auth/limits.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
/** The auth subgraph with no trusted proxy: the client address is unknown. */
let auth: TestApp;
/** The auth subgraph trusting one proxy (the router) to append the client's address. */
let authBehindProxy: TestApp;
let assets: TestApp;
let issues: TestApp;
const ROUTER = '10.9.8.7';
const limits = { ...DEFAULT_LIMITS, signIn: { points: 3, seconds: 60 } };

beforeAll(async () => {
  database = await freshDatabase();
  const common = { database, authLimits: limits };
  auth = await startTestApp({ ...common, role: { kind: 'subgraph', name: 'auth' } });
  authBehindProxy = await startTestApp({
    ...common,
    clock: auth.clock,
    role: { kind: 'subgraph', name: 'auth' },
    config: { trustProxy: 1 },
  });
  assets = await startTestApp({ ...common, clock: auth.clock, role: { kind: 'subgraph', name: 'assets' } });
  issues = await startTestApp({ ...common, clock: auth.clock, role: { kind: 'subgraph', name: 'issues' } });
  for (const username of ['ann', 'bob', 'cy']) {
    await createUser(database.db, auth.config.secret, {
      username,
      groups: ['acme'],
      password: 'correct horse battery',
    });
  }
}, 60_000);

afterAll(async () => {
  for (const app of [auth, authBehindProxy, assets, issues]) await app?.close();
  await database?.close();
});

/** What a router sends a subgraph: the client's headers it was told to forward, from its own address. */
async function viaRouter(app: TestApp, query: string, headers: Record<string, string> = {}, variables = {}) {
  const response = await app.handle(
    new Request('http://subgraph.example/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    }),
    ROUTER,
  );
  return { headers: response.headers, body: (await response.json()) as any };
}

const SIGN_IN = `mutation($u: String!, $p: String!) {
  signIn(input: { loginUsername: $u, password: $p, clientApplicationType: EXPLORER }) {
    errors { type message } session { authenticated username }
  }
}`;
const SESSION = '{ session { authenticated username userGroup } }';
const signIn = (app: TestApp, u: string, p: string, headers: Record<string, string> = {}) =>
  viaRouter(app, SIGN_IN, headers, { u, p });

describe('a subgraph behind another router', () => {
  it('answers signIn with the session as x-svc-sessionid and the session cookie our gateway sets', async () => {
    const { headers, body } = await signIn(auth, 'ann', 'correct horse battery');
    expect(body.data.signIn).toEqual({ errors: [], session: { authenticated: true, username: 'ann' } });
    const id = headers.get('x-svc-sessionid');
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(headers.getSetCookie()).toEqual([
      `svc_sessionid=${id}; Max-Age=${30 * 24 * 60 * 60}; Path=/; HttpOnly; SameSite=Lax`,
    ]);
    // The same cookie our gateway hands out for the same sign-in.
    const gateway = await startTestApp({ database, clock: auth.clock });
    try {
      const ours = await gateway.graphql<any>(SIGN_IN, { u: 'ann', p: 'correct horse battery' });
      const oursId = ours.headers.get('x-svc-sessionid');
      expect(ours.headers.getSetCookie()).toEqual([headers.getSetCookie()[0]!.replace(id!, oursId!)]);
    } finally {
      await gateway.close();
    }
  });

  it('resolves the forwarded session, by header and by cookie, in every subgraph', async () => {
    const id = (await signIn(auth, 'bob', 'correct horse battery')).headers.get('x-svc-sessionid')!;
    const carriers: Record<string, string>[] = [
      { 'x-svc-sessionid': id },
      { cookie: `other=1; svc_sessionid=${id}` },
    ];
    for (const headers of carriers) {
      expect((await viaRouter(auth, SESSION, headers)).body.data.session).toEqual({
        authenticated: true,
        username: 'bob',
        userGroup: 'acme',
      });
      const page = await viaRouter(assets, '{ assetProfiles { all { edges { cursor } } } }', headers);
      expect(page.body.errors).toBeUndefined();
      const list = await viaRouter(issues, '{ issues { all { edges { cursor } } } }', headers);
      expect(list.body).toEqual({ data: { issues: { all: { edges: [] } } } });
    }
    const anonymous = await viaRouter(issues, '{ issues { all { edges { cursor } } } }');
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const unknown = await viaRouter(issues, '{ issues { all { edges { cursor } } } }', {
      'x-svc-sessionid': 'A'.repeat(43),
    });
    expect(unknown.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('clears the cookie on signOut, and the session is gone at once', async () => {
    const id = (await signIn(auth, 'cy', 'correct horse battery')).headers.get('x-svc-sessionid')!;
    expect(
      (await viaRouter(auth, SESSION, { cookie: `svc_sessionid=${id}` })).body.data.session.authenticated,
    ).toBe(true);
    const out = await viaRouter(auth, 'mutation { signOut { session { authenticated } } }', {
      cookie: `svc_sessionid=${id}`,
    });
    expect(out.body.data.signOut.session.authenticated).toBe(false);
    expect(out.headers.getSetCookie()).toEqual([
      'svc_sessionid=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
    ]);
    expect(out.headers.get('x-svc-sessionid')).toBeNull();
    // Within the resolution cache's lifetime: the auth subgraph forgot the session it ended.
    expect(
      (await viaRouter(auth, SESSION, { cookie: `svc_sessionid=${id}` })).body.data.session.authenticated,
    ).toBe(false);
  });

  it('completes a challenge (confirmSignIn) and reauthenticates by cookie, rotating the session each time', async () => {
    await createUser(database.db, auth.config.secret, {
      username: 'nora',
      groups: ['acme'],
      password: 'correct horse battery',
      requireNewPassword: true,
    });
    const first = await signIn(auth, 'nora', 'correct horse battery');
    const challenge = first.headers.get('x-svc-sessionid')!;
    expect(first.body.data.signIn.session).toEqual({ authenticated: false, username: 'nora' });
    const cookie = (id: string) => ({ cookie: `svc_sessionid=${id}` });
    const confirmed = await viaRouter(
      auth,
      `mutation { confirmSignIn(input: { code: "a much better passphrase", mfaType: NEW_PASSWORD_REQUIRED }) {
        errors { type } session { authenticated username } } }`,
      cookie(challenge),
    );
    expect(confirmed.body.data.confirmSignIn).toEqual({
      errors: [],
      session: { authenticated: true, username: 'nora' },
    });
    const signedIn = confirmed.headers.get('x-svc-sessionid')!;
    expect(signedIn).not.toBe(challenge);
    expect(confirmed.headers.getSetCookie()[0]).toMatch(
      new RegExp(`^svc_sessionid=${signedIn}; Max-Age=\\d+;`),
    );

    const again = await viaRouter(
      auth,
      `mutation { reauthenticate(input: { password: "a much better passphrase" }) { errors { type } session { authenticated } } }`,
      cookie(signedIn),
    );
    expect(again.body.data.reauthenticate).toEqual({ errors: [], session: { authenticated: true } });
    const rotated = again.headers.get('x-svc-sessionid')!;
    expect(rotated).not.toBe(signedIn);
    expect(
      (await viaRouter(issues, '{ issues { all { edges { cursor } } } }', cookie(rotated))).body.errors,
    ).toBeUndefined();
    // The rotated-away ID is dead at once in the process that rotated it.
    expect((await viaRouter(auth, SESSION, cookie(signedIn))).body.data.session.authenticated).toBe(false);
  });

  it('refuses what a cross-site form could post, with or without the cookie (CSRF), as our gateway does', async () => {
    const id = (await signIn(auth, 'bob', 'correct horse battery')).headers.get('x-svc-sessionid')!;
    const carriers: Record<string, string>[] = [{ cookie: `svc_sessionid=${id}` }, {}];
    for (const headers of carriers) {
      const response = await auth.handle(
        new Request('http://subgraph.example/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: 'query=mutation%7BsignOut%7Bsession%7Bauthenticated%7D%7D%7D',
        }),
        ROUTER,
      );
      expect(response.status).toBe(403);
      expect((await response.json()).errors[0].extensions.code).toBe('CSRF_REJECTED');
    }
    expect((await viaRouter(auth, SESSION, { 'x-svc-sessionid': id })).body.data.session.authenticated).toBe(
      true,
    );
  });

  it('still prefers our gateway’s signed identity, and refuses a forged one', async () => {
    const id = (await signIn(auth, 'bob', 'correct horse battery')).headers.get('x-svc-sessionid')!;
    const forged = await new IdentitySigner('another secret entirely, 32 chars or more').sign({
      kind: 'session',
      username: 'bob',
      userGroup: 'acme',
      clientType: 'EXPLORER',
      sessionHash: null,
    });
    const refused = await viaRouter(issues, '{ issues { all { edges { cursor } } } }', {
      'x-svc-sessionid': id,
      'x-assetql-identity': forged,
    });
    expect(refused.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('sign-in limits behind another router', () => {
  it('with no trusted proxy, count per account: a stranger guessing one account locks out nobody else', async () => {
    // Every request comes from the router's address; none of it is the client's.
    for (let i = 0; i < 3; i++) {
      const r = await signIn(auth, 'nobody-such', `guess ${i}`, { 'x-forwarded-for': '198.51.100.1' });
      expect(r.body.data.signIn.errors[0].type).toBe('NOT_AUTHORIZED');
    }
    const blocked = await signIn(auth, 'nobody-such', 'guess 4');
    expect(blocked.body.data.signIn.errors[0]).toMatchObject({ type: 'LIMIT_EXCEEDED' });
    expect(blocked.body.data.signIn.errors[0].message).toMatch(/for this account; try again in \d+ s/);
    const other = await signIn(auth, 'ann', 'correct horse battery');
    expect(other.body.data.signIn.session).toEqual({ authenticated: true, username: 'ann' });
  });

  it('with a trusted proxy, count per client address from X-Forwarded-For', async () => {
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        signIn(authBehindProxy, `stranger${i}`, 'wrong', { 'x-forwarded-for': '6.6.6.6, 203.0.113.50' }),
      ),
    );
    const types = burst.map((r) => r.body.data.signIn.errors[0].type).sort();
    expect(types).toEqual([
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
      'LIMIT_EXCEEDED',
      ...Array(3).fill('NOT_AUTHORIZED'),
    ]);
    const blocked = await signIn(authBehindProxy, 'bob', 'correct horse battery', {
      'x-forwarded-for': '203.0.113.50',
    });
    expect(blocked.body.data.signIn.errors[0].message).toMatch(/from this address/);
    const elsewhere = await signIn(authBehindProxy, 'bob', 'correct horse battery', {
      'x-forwarded-for': '6.6.6.6, 203.0.113.51',
    });
    expect(elsewhere.body.data.signIn.session).toEqual({ authenticated: true, username: 'bob' });
  });
});
