/**
 * The `session` query asked only for what the request's identity holds (who, in which group,
 * whether signed in) is answered from that identity, without reading the session and the
 * user's groups again; any other field gives the full view, read from the store. Both answer
 * alike for every kind of caller.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../src/subgraphs/auth/sessions.ts';
import { ensureMember, startTestApp, type TestApp } from '../helpers/app.ts';
import { countingDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let t: TestApp;
/** SQL statements sent to the database so far, by any part of the app. */
let statements: () => number;

beforeAll(async () => {
  ({ database, statements } = await countingDatabase());
  t = await startTestApp({ database });
});
afterAll(async () => {
  await t?.close();
  await database?.close();
});

const IDENTITY_ONLY = '{ session { __typename authenticated username userGroup } }';
const FULL = '{ session { __typename authenticated username userGroup expiresAt userGroups } }';

/** The answer to `query` and the statements it took. */
/**
 * Asks `query` three times and counts the statements of the quietest: a process's background
 * statement (the change notices' probe, every few seconds) falls into one window now and then.
 */
async function ask(query: string, headers: Record<string, string>) {
  let fewest = Number.POSITIVE_INFINITY;
  let session: Record<string, unknown> = {};
  for (let i = 0; i < 3; i++) {
    const before = statements();
    const r = await t.graphql<{ session: Record<string, unknown> }>(query, {}, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.errors).toBeUndefined();
    session = r.body.data!.session;
    fewest = Math.min(fewest, statements() - before);
  }
  return { session, statements: fewest };
}

describe('the session query', () => {
  it('asked only for who and where, reads nothing: the identity the request carries answers it', async () => {
    const signedIn = { 'x-svc-sessionid': await t.sessionFor('ana', 'acme') };
    // The first request resolves the session (and caches it for the next, as every request does).
    await ask(IDENTITY_ONLY, signedIn);
    const light = await ask(IDENTITY_ONLY, signedIn);
    expect(light.session).toEqual({
      __typename: 'Session',
      authenticated: true,
      username: 'ana',
      userGroup: 'acme',
    });
    expect(light.statements).toBe(0);
    // Through fragments too.
    const fragments = await ask(
      '{ session { ...who ... on Session { userGroup } } } fragment who on Session { username authenticated }',
      signedIn,
    );
    expect(fragments.session).toEqual({ username: 'ana', authenticated: true, userGroup: 'acme' });
    expect(fragments.statements).toBe(0);
    // Any other field, even inside a fragment, or a directive, reads the session as before.
    const full = await ask(FULL, signedIn);
    expect(full.statements).toBeGreaterThanOrEqual(2);
    expect(full.session).toMatchObject({ ...light.session, userGroups: ['acme'] });
    expect(typeof full.session.expiresAt).toBe('string');
    const spread = await ask(
      '{ session { ...more } } fragment more on Session { username deviceKey }',
      signedIn,
    );
    expect(spread.statements).toBeGreaterThanOrEqual(1);
    const skipped = await ask('{ session { username userGroup @skip(if: true) } }', signedIn);
    expect(skipped.statements).toBeGreaterThanOrEqual(1);
    expect(skipped.session).toEqual({ username: 'ana' });
  });

  it('answers alike both ways for a signed-in user, a pending challenge and an anonymous caller', async () => {
    await ensureMember(t.database, 'bo', 'acme');
    const challenge = await openSession(database.db, t.clock.now(), {
      kind: 'challenge',
      username: 'bo',
      group: null,
      clientType: 'EXPLORER',
      challenge: { name: 'SOFTWARE_TOKEN_MFA', param: {}, state: {} },
    });
    const callers = {
      signedIn: { 'x-svc-sessionid': await t.sessionFor('bo', 'acme') },
      challenge: { 'x-svc-sessionid': challenge.id },
      anonymous: {},
      unknown: { 'x-svc-sessionid': 'A'.repeat(43) },
    };
    for (const [who, headers] of Object.entries(callers)) {
      const light = await ask(IDENTITY_ONLY, headers);
      const full = await ask(FULL, headers);
      const { expiresAt: _e, userGroups: _g, ...sameFields } = full.session;
      expect(light.session, who).toEqual(sameFields);
    }
    expect((await ask(IDENTITY_ONLY, callers.challenge)).session).toMatchObject({
      authenticated: false,
      username: 'bo',
    });
    expect((await ask(IDENTITY_ONLY, callers.anonymous)).session).toMatchObject({
      authenticated: false,
      username: null,
      userGroup: null,
    });
  });
});
