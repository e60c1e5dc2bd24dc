import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/subgraphs/auth/limits.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

// Two gateway+subgraph processes' worth of app on one database: limits must hold across them.
let database: TestDatabase;
let a: TestApp;
let b: TestApp;
const limits = {
  ...DEFAULT_LIMITS,
  signIn: { points: 3, seconds: 60 },
  forgotPassword: { points: 2, seconds: 60 },
};

beforeAll(async () => {
  database = await freshDatabase();
  a = await startTestApp({ database, authLimits: limits, config: { trustProxy: true } });
  b = await startTestApp({ database, authLimits: limits, config: { trustProxy: true } });
  await createUser(database.db, a.config.secret, {
    username: 'ann',
    groups: ['acme'],
    password: 'correct horse battery',
  });
});
afterAll(async () => {
  await a.close();
  await b.close();
  await database.close();
});

const SIGN_IN = `mutation($p: String!) {
  signIn(input: { loginUsername: "ann", password: $p, clientApplicationType: EXPLORER }) { errors { type message } session { authenticated } }
}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('per-address limits', () => {
  it('stop sign-in guessing from one address across processes, and not from others', async () => {
    const first = await a.graphql<any>(SIGN_IN, { p: 'guess one' }, from('203.0.113.7'));
    const second = await b.graphql<any>(SIGN_IN, { p: 'guess two' }, from('203.0.113.7'));
    const third = await a.graphql<any>(SIGN_IN, { p: 'guess three' }, from('203.0.113.7'));
    expect([first, second, third].map((r) => r.body.data.signIn.errors[0].type)).toEqual([
      'NOT_AUTHORIZED',
      'NOT_AUTHORIZED',
      'NOT_AUTHORIZED',
    ]);
    const blocked = await b.graphql<any>(SIGN_IN, { p: 'correct horse battery' }, from('203.0.113.7'));
    expect(blocked.body.data.signIn.session).toBeNull();
    expect(blocked.body.data.signIn.errors[0]).toMatchObject({ type: 'LIMIT_EXCEEDED' });
    expect(blocked.body.data.signIn.errors[0].message).toMatch(/try again in \d+ s/);
    const elsewhere = await a.graphql<any>(SIGN_IN, { p: 'correct horse battery' }, from('203.0.113.8'));
    expect(elsewhere.body.data.signIn.session).toEqual({ authenticated: true });
  });

  it('count the address the trusted proxy appended, so a client-chosen X-Forwarded-For escapes nothing', async () => {
    // ASSETQL_TRUST_PROXY=true is one proxy: the last entry is the one it appended.
    await createUser(database.db, a.config.secret, {
      username: 'abe',
      groups: ['acme'],
      password: 'correct horse battery',
    });
    const spoofed = (i: number) => ({ 'x-forwarded-for': `6.6.6.${i}, 10.0.0.${i}, 203.0.113.20` });
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const r = await (i % 2 ? b : a).graphql<any>(
        'mutation($p: String!) { signIn(input: { loginUsername: "abe", password: $p, clientApplicationType: EXPLORER }) { errors { type } } }',
        { p: `guess ${i}` },
        spoofed(i),
      );
      answers.push(r.body.data.signIn.errors[0].type);
    }
    expect(answers).toEqual(['NOT_AUTHORIZED', 'NOT_AUTHORIZED', 'NOT_AUTHORIZED', 'LIMIT_EXCEEDED']);
    const recorded = await database.db
      .selectFrom('auth_events')
      .select('ip')
      .where('event', '=', 'sign_in_failed')
      .where('ip', 'like', '%.20')
      .execute();
    expect(recorded.map((e) => e.ip)).toEqual(['203.0.113.20', '203.0.113.20', '203.0.113.20']);
  });

  it('count changePassword against the sign-in limit of the address, right or wrong', async () => {
    const session = { 'x-svc-sessionid': await a.sessionFor('ann', 'acme') };
    const change = (app: TestApp, current: string) =>
      app.graphql<any>(
        `mutation($c: String!) { changePassword(input: { currentPassword: $c, newPassword: "ann's new passphrase" }) {
          errors { type } session { authenticated } } }`,
        { c: current },
        { ...session, ...from('203.0.113.11') },
      );
    const first = await a.graphql<any>(SIGN_IN, { p: 'guess one' }, from('203.0.113.11'));
    expect(first.body.data.signIn.errors[0].type).toBe('NOT_AUTHORIZED');
    expect(
      (await b.graphql<any>(SIGN_IN, { p: 'guess two' }, from('203.0.113.11'))).body.data.signIn.errors[0]
        .type,
    ).toBe('NOT_AUTHORIZED');
    expect((await change(a, 'guess three')).body.data.changePassword.errors).toEqual([
      { type: 'NOT_AUTHORIZED' },
    ]);
    const blocked = await change(b, 'correct horse battery');
    expect(blocked.body.data.changePassword).toEqual({ errors: [{ type: 'LIMIT_EXCEEDED' }], session: null });
    const elsewhere = await a.graphql<any>(
      `mutation { changePassword(input: { currentPassword: "correct horse battery", newPassword: "ann's new passphrase" }) {
        errors { type } session { authenticated } } }`,
      {},
      { ...session, ...from('203.0.113.12') },
    );
    expect(elsewhere.body.data.changePassword).toEqual({ errors: [], session: { authenticated: true } });
  });

  it('limit password-reset requests per address', async () => {
    const ask = (app: TestApp) =>
      app.graphql<any>(
        'mutation { forgotPassword(input: { loginUsername: "ann" }) { errors { type } } }',
        {},
        from('203.0.113.9'),
      );
    const r1 = await ask(a);
    expect(r1.body.data?.forgotPassword.errors, JSON.stringify(r1.body)).toEqual([]);
    expect((await ask(b)).body.data.forgotPassword.errors).toEqual([]);
    expect((await ask(a)).body.data.forgotPassword.errors).toEqual([{ type: 'LIMIT_EXCEEDED' }]);
  });
});
