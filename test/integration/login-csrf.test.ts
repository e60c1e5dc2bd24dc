import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_PATH } from '../../src/gateway/gateway.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';

// Login CSRF: a page on another site posts a form to the API to sign the visitor's browser in to
// an account the attacker chose. Every POST a cross-site page can send without a preflight is
// refused before any GraphQL runs, whether or not it carries a session cookie.

let t: TestApp;
let victimCookie: string;

beforeAll(async () => {
  t = await startTestApp();
  await createUser(t.database.db, t.config.secret, {
    username: 'mallory',
    groups: ['acme'],
    password: 'the attacker knows this one',
  });
  victimCookie = `svc_sessionid=${await t.sessionFor('victim', 'acme')}`;
});
afterAll(() => t.close());

const SIGN_IN = `mutation { signIn(input: { loginUsername: "mallory", password: "the attacker knows this one",
  clientApplicationType: EXPLORER }) { errors { type } session { authenticated } } }`;

/** The bodies a cross-site page can post without a CORS preflight, each with its Content-Type. */
const CROSS_SITE_BODIES: Record<string, () => { body: BodyInit; contentType?: string }> = {
  'application/x-www-form-urlencoded': () => ({
    body: new URLSearchParams({ query: SIGN_IN }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  }),
  'multipart/form-data': () => {
    const form = new FormData();
    form.set('operations', JSON.stringify({ query: SIGN_IN }));
    return { body: form }; // the boundary goes in the Content-Type that fetch sets
  },
  'text/plain': () => ({ body: JSON.stringify({ query: SIGN_IN }), contentType: 'text/plain;charset=UTF-8' }),
  // fetch(…, { body: new Blob([…]) }) sends no Content-Type at all, and needs no preflight either.
  'no Content-Type': () => ({ body: new Blob([JSON.stringify({ query: SIGN_IN })]) }),
};

async function traces() {
  const sessions = await t.database.db
    .selectFrom('sessions')
    .select('id_hash')
    .where('username', '=', 'mallory')
    .execute();
  const events = await t.database.db
    .selectFrom('auth_events')
    .select('event')
    .where('username', '=', 'mallory')
    .execute();
  return { sessions: sessions.length, events: events.length };
}

describe('a POST that a cross-site page can send', () => {
  for (const [name, make] of Object.entries(CROSS_SITE_BODIES)) {
    for (const cookie of [false, true]) {
      it(`is refused as ${name}, ${cookie ? 'with' : 'without'} a session cookie, and signs no one in`, async () => {
        const { body, contentType } = make();
        const headers = new Headers({ origin: 'https://evil.example' });
        if (contentType) headers.set('content-type', contentType);
        if (cookie) headers.set('cookie', victimCookie);
        const r = await t.handle(new Request(`${BASE}${GRAPHQL_PATH}`, { method: 'POST', headers, body }));
        if (name === 'multipart/form-data') expect(r.headers.get('content-type')).not.toBeNull();
        expect(r.status).toBe(403);
        expect((await r.json()).errors[0].extensions.code).toBe('CSRF_REJECTED');
        expect(r.headers.get('set-cookie')).toBeNull();
        expect(r.headers.get('x-svc-sessionid')).toBeNull();
        expect(await traces()).toEqual({ sessions: 0, events: 0 });
      });
    }
  }
});

describe('a POST that only a same-origin page or a non-browser client can send', () => {
  it('runs as application/json (signIn sets the cookie), and as application/graphql', async () => {
    const json = await t.handle(
      new Request(`${BASE}${GRAPHQL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ query: SIGN_IN }),
      }),
    );
    expect(json.status).toBe(200);
    expect((await json.json()).data.signIn).toEqual({ errors: [], session: { authenticated: true } });
    expect(json.headers.get('set-cookie')).toMatch(/^svc_sessionid=/);
    const graphql = await t.handle(
      new Request(`${BASE}${GRAPHQL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/graphql', cookie: victimCookie },
        body: '{ session { username authenticated } }',
      }),
    );
    expect(graphql.status).toBe(200);
    expect((await graphql.json()).data.session).toEqual({ username: 'victim', authenticated: true });
  });
});
