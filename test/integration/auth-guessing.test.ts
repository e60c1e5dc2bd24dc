import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FAILURES } from '../../src/subgraphs/auth/backoff.ts';
import { CHALLENGE_MAX_ATTEMPTS } from '../../src/subgraphs/auth/challenges.ts';
import { passwordPool } from '../../src/subgraphs/auth/passwords/passwords.ts';
import { RESET_CODE_MAX_ATTEMPTS } from '../../src/subgraphs/auth/passwords.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { countingDatabase, type TestDatabase } from '../helpers/database.ts';
import { requireTool } from '../helpers/tools.ts';

// Every counter that limits guessing holds however many guesses arrive at once: bursts of
// concurrent requests through the gateway, counting the secrets actually checked (argon2
// computations, and the audit events written after each check) and the state left behind.

const BURST = 30;
let t: TestApp;
let database: TestDatabase;
/** SQL statements sent to the database so far, by any part of the app. */
let statements: () => number;

beforeAll(async () => {
  ({ database, statements } = await countingDatabase());
  // The per-address limits are tested elsewhere; here only the per-account and per-code counters act.
  const generous = { points: 10_000, seconds: 60 };
  t = await startTestApp({
    database,
    authLimits: {
      signIn: generous,
      confirmSignIn: generous,
      forgotPassword: generous,
      forgotPasswordSubmit: generous,
      createAPIKey: generous,
    },
  });
});
afterAll(async () => {
  await t.close();
  await database.close();
});

const SIGN_IN = `mutation($u: String!, $p: String!) {
  signIn(input: { loginUsername: $u, password: $p, clientApplicationType: EXPLORER }) {
    errors { type message } session { authenticated challengeName } } }`;
const CONFIRM = `mutation($code: String!, $t: AuthChallengeName!) {
  confirmSignIn(input: { code: $code, mfaType: $t }) { errors { type } session { authenticated } } }`;
const SUBMIT = `mutation($u: String!, $c: String!, $p: String!) {
  forgotPasswordSubmit(input: { loginUsername: $u, confirmationCode: $c, password: $p }) {
    errors { type message } session { authenticated } } }`;
type Answer = { errors: { type: string; message?: string }[]; session: Record<string, unknown> | null };

const as = (id: string | null) => ({ 'x-svc-sessionid': id ?? '' });

async function addUser(username: string, extra: Partial<Parameters<typeof createUser>[2]> = {}) {
  return createUser(t.database.db, t.config.secret, {
    username,
    groups: ['acme'],
    password: 'correct horse battery',
    ...extra,
  });
}

/** How many answers had each first error type (`ok` for none). */
function tally(answers: Answer[]) {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const type = a.errors[0]?.type ?? 'ok';
    counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}

async function eventCount(username: string | null, event: string) {
  let q = t.database.db
    .selectFrom('auth_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('event', '=', event);
  q = username === null ? q.where('username', 'is', null) : q.where('username', '=', username);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

async function latestMessageTo(recipient: string) {
  for (let i = 0; i < 100; i++) {
    const m = await t.database.db
      .selectFrom('outbox')
      .select('body')
      .where('recipient', '=', recipient)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (m) return /(\d{6})/.exec(m.body)![1]!;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no message to ${recipient}`);
}

const otherCode = (code: string) => (code === '000000' ? '111111' : '000000');

async function resetFor(username: string, email: string) {
  await addUser(username, { email });
  await t.graphql(`mutation { forgotPassword(input: { loginUsername: "${username}" }) { errors { type } } }`);
  return latestMessageTo(email);
}

/** argon2 computations `work` caused (tests in a file run one at a time). */
async function argon2During<T>(work: () => Promise<T>): Promise<{ value: T; computations: number }> {
  const before = passwordPool.computations();
  const value = await work();
  return { value, computations: passwordPool.computations() - before };
}

describe('the account backoff under a burst of wrong passwords', () => {
  it(`checks at most ${FREE_FAILURES} passwords and the one that locks the account, however many arrive at once`, async () => {
    await addUser('ada');
    // The dummy hash for unknown users is made once per process: not part of what is measured.
    await t.graphql(SIGN_IN, { u: 'nobody-warming-up', p: 'x' });
    const { value: answers, computations } = await argon2During(() =>
      Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          const r = await t.graphql<{ signIn: Answer }>(SIGN_IN, { u: 'ada', p: `wrong guess ${i}` });
          return r.body.data!.signIn;
        }),
      ),
    );
    expect(computations).toBe(FREE_FAILURES + 1);
    expect(tally(answers)).toEqual({
      NOT_AUTHORIZED: FREE_FAILURES + 1,
      LIMIT_EXCEEDED: BURST - FREE_FAILURES - 1,
    });
    expect(await eventCount('ada', 'sign_in_failed')).toBe(FREE_FAILURES + 1);
    expect(await eventCount('ada', 'sign_in_throttled')).toBe(BURST - FREE_FAILURES - 1);
    const row = await t.database.db
      .selectFrom('users')
      .select(['failed_attempts', 'locked_until'])
      .where('username', '=', 'ada')
      .executeTakeFirstOrThrow();
    // The sixth wrong password locks the account for 1 s, as one after the other would.
    expect(row).toEqual({
      failed_attempts: FREE_FAILURES + 1,
      locked_until: new Date(t.clock.now().getTime() + 1000),
    });
    // The backoff then runs as it always did: the right password after the lock signs in.
    t.clock.advance(1000);
    const later = await t.graphql<{ signIn: Answer }>(SIGN_IN, { u: 'ada', p: 'correct horse battery' });
    expect(later.body.data!.signIn.session).toEqual({ authenticated: true, challengeName: null });
  });

  it('holds for reauthenticate and changePassword, which share it with sign-in', async () => {
    await addUser('abe');
    const session = await t.sessionFor('abe', 'acme');
    const { value: answers, computations } = await argon2During(() =>
      Promise.all(
        Array.from({ length: BURST }, async (_, i) => {
          const r =
            i % 2 === 0
              ? await t.graphql<{ reauthenticate: Answer }>(
                  'mutation($p: String!) { reauthenticate(input: { password: $p }) { errors { type } session { authenticated } } }',
                  { p: `wrong guess ${i}` },
                  as(session),
                )
              : await t.graphql<{ changePassword: Answer }>(
                  `mutation($p: String!) { changePassword(input: { currentPassword: $p, newPassword: "abe's new passphrase" }) {
                    errors { type } session { authenticated } } }`,
                  { p: `wrong guess ${i}` },
                  as(session),
                );
          return (r.body.data as Record<string, Answer>)[i % 2 === 0 ? 'reauthenticate' : 'changePassword']!;
        }),
      ),
    );
    expect(computations).toBe(FREE_FAILURES + 1);
    expect(tally(answers)).toEqual({
      NOT_AUTHORIZED: FREE_FAILURES + 1,
      LIMIT_EXCEEDED: BURST - FREE_FAILURES - 1,
    });
    expect(
      (await eventCount('abe', 'reauthenticate_failed')) +
        (await eventCount('abe', 'password_change_failed')),
    ).toBe(FREE_FAILURES + 1);
  });

  it('costs an unknown user the same argon2 work and the same answer as a wrong password', async () => {
    await addUser('amy');
    const unknown = await argon2During(() =>
      t.graphql<{ signIn: Answer }>(SIGN_IN, { u: 'no-such-amy', p: 'guess' }),
    );
    const wrong = await argon2During(() => t.graphql<{ signIn: Answer }>(SIGN_IN, { u: 'amy', p: 'guess' }));
    expect(unknown.computations).toBe(1);
    expect(wrong.computations).toBe(1);
    expect(unknown.value.body.data!.signIn).toEqual(wrong.value.body.data!.signIn);
  });
});

describe('a pending challenge under a burst of wrong codes', () => {
  async function smsChallenge(username: string, phone: string) {
    await addUser(username, { mfa: 'sms', phone });
    const r = await t.graphql<{ signIn: Answer }>(SIGN_IN, { u: username, p: 'correct horse battery' });
    expect(r.body.data!.signIn.session).toEqual({ authenticated: false, challengeName: 'SMS_MFA' });
    return { id: r.headers.get('x-svc-sessionid'), code: await latestMessageTo(phone) };
  }

  const signedIn = async (username: string) =>
    (
      await t.database.db
        .selectFrom('sessions')
        .select('id_hash')
        .where('username', '=', username)
        .where('kind', '=', 'session')
        .execute()
    ).length;

  it(`checks at most ${CHALLENGE_MAX_ATTEMPTS} answers however many arrive at once, and refuses the right code after`, async () => {
    const { id, code } = await smsChallenge('cid', '+15550100001');
    const answers = await Promise.all(
      Array.from({ length: 25 }, async () => {
        const r = await t.graphql<{ confirmSignIn: Answer }>(
          CONFIRM,
          { code: otherCode(code), t: 'SMS_MFA' },
          as(id),
        );
        return r.body.data!.confirmSignIn;
      }),
    );
    expect(await eventCount('cid', 'challenge_failed')).toBe(CHALLENGE_MAX_ATTEMPTS);
    expect(answers.every((a) => a.session === null)).toBe(true);
    expect(tally(answers).CODE_MISMATCH).toBe(CHALLENGE_MAX_ATTEMPTS - 1);
    const right = await t.graphql<{ confirmSignIn: Answer }>(CONFIRM, { code, t: 'SMS_MFA' }, as(id));
    expect(right.body.data!.confirmSignIn.session).toBeNull();
    expect(right.headers.get('x-svc-sessionid')).toBeNull();
    expect(await signedIn('cid')).toBe(0);
  });

  it('checks at most five answers when the right code comes with the wrong ones, and accepts it at most once', async () => {
    const { id, code } = await smsChallenge('cyd', '+15550100002');
    const codes = [...Array.from({ length: 25 }, () => otherCode(code)), code, code];
    const answers = await Promise.all(
      codes.map(async (c) => {
        const r = await t.graphql<{ confirmSignIn: Answer }>(CONFIRM, { code: c, t: 'SMS_MFA' }, as(id));
        return r.body.data!.confirmSignIn;
      }),
    );
    expect(await eventCount('cyd', 'challenge_failed')).toBeLessThanOrEqual(CHALLENGE_MAX_ATTEMPTS);
    const accepted = answers.filter((a) => a.session?.authenticated === true).length;
    expect(accepted).toBeLessThanOrEqual(1);
    expect(await signedIn('cyd')).toBe(accepted);
  });

  it('accepts an SMS code once, even when it is sent many times at once', async () => {
    const { id, code } = await smsChallenge('cal', '+15550100003');
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const r = await t.graphql<{ confirmSignIn: Answer }>(CONFIRM, { code, t: 'SMS_MFA' }, as(id));
        return r.body.data!.confirmSignIn;
      }),
    );
    expect(answers.filter((a) => a.session?.authenticated === true)).toHaveLength(1);
    expect(await signedIn('cal')).toBe(1);
  });

  it('accepts a TOTP code once, even when it answers two challenges at once', async () => {
    const { totp } = await addUser('tom', { mfa: 'totp' });
    const challenges = await Promise.all(
      [0, 1].map(async () => {
        const r = await t.graphql<{ signIn: Answer }>(SIGN_IN, { u: 'tom', p: 'correct horse battery' });
        return r.headers.get('x-svc-sessionid');
      }),
    );
    const oathtool = requireTool(['oathtool'], {
      package: 'oathtool',
      for: 'checking TOTP codes independently',
    });
    const now = t.clock
      .now()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC');
    const code = execFileSync(oathtool, ['--totp', '-b', '--now', now, totp!.secret], {
      encoding: 'utf8',
    }).trim();
    const answers = await Promise.all(
      challenges.map(async (id) => {
        const r = await t.graphql<{ confirmSignIn: Answer }>(
          CONFIRM,
          { code, t: 'SOFTWARE_TOKEN_MFA' },
          as(id),
        );
        return r.body.data!.confirmSignIn;
      }),
    );
    expect(answers.filter((a) => a.session?.authenticated === true)).toHaveLength(1);
    expect(tally(answers).CODE_MISMATCH).toBe(1);
  });
});

describe('password-reset codes under a burst of wrong codes', () => {
  it(`checks at most ${RESET_CODE_MAX_ATTEMPTS} codes however many arrive at once, hashes no password for them, and refuses the right code after`, async () => {
    const code = await resetFor('rob', 'rob@example.com');
    const { value: answers, computations } = await argon2During(() =>
      Promise.all(
        Array.from({ length: BURST }, async () => {
          const r = await t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, {
            u: 'rob',
            c: otherCode(code),
            p: 'a brand new passphrase',
          });
          return r.body.data!.forgotPasswordSubmit;
        }),
      ),
    );
    expect(tally(answers)).toEqual({ CODE_MISMATCH: BURST });
    // Each refusal is recorded; only the answers the code had left were compared with it.
    expect(await eventCount('rob', 'password_reset_failed')).toBe(BURST);
    const row = await t.database.db
      .selectFrom('password_resets')
      .select('attempts')
      .where('username', '=', 'rob')
      .executeTakeFirstOrThrow();
    expect(row.attempts).toBe(RESET_CODE_MAX_ATTEMPTS);
    // A wrong code costs no argon2 hash of the new password.
    expect(computations).toBe(0);
    const right = await t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, {
      u: 'rob',
      c: code,
      p: 'a brand new passphrase',
    });
    expect(right.body.data!.forgotPasswordSubmit.errors[0]!.type).toBe('CODE_MISMATCH');
    const signIn = await t.graphql<{ signIn: Answer }>(SIGN_IN, { u: 'rob', p: 'correct horse battery' });
    expect(signIn.body.data!.signIn.session).toEqual({ authenticated: true, challengeName: null });
  });

  it('uses a right code once, even when it is sent many times at once', async () => {
    const code = await resetFor('ray', 'ray@example.com');
    const answers = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const r = await t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, {
          u: 'ray',
          c: code,
          p: `ray's new passphrase ${i}`,
        });
        return r.body.data!.forgotPasswordSubmit;
      }),
    );
    expect(answers.filter((a) => a.session?.authenticated === true)).toHaveLength(1);
    expect(await eventCount('ray', 'password_reset')).toBe(1);
  });
});

describe('forgotPasswordSubmit tells no one whether a user exists', () => {
  const PASSWORDS = ['short', 'password', 'rex', 'a fine long passphrase'];

  it('answers an unknown user as it answers a wrong code, whatever the new password', async () => {
    const code = await resetFor('rex', 'rex@example.com');
    for (const p of PASSWORDS) {
      const unknown = await t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, {
        u: 'no-rex-here',
        c: code,
        p,
      });
      const wrong = await t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, {
        u: 'rex',
        c: otherCode(code),
        p,
      });
      expect(unknown.body.data!.forgotPasswordSubmit).toEqual({
        errors: [{ type: 'CODE_MISMATCH', message: 'The code is wrong or expired.' }],
        session: null,
      });
      expect(wrong.body).toEqual(unknown.body);
    }
    // Only the right code is told what is wrong with the password, and is not used up by it.
    const weak = await t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, { u: 'rex', c: code, p: 'short' });
    expect(weak.body.data!.forgotPasswordSubmit.errors[0]!.type).toBe('INVALID_PASSWORD');
    // (Four wrong codes above leave one answer; the refused password gave its answer back.)
    const done = await t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, {
      u: 'rex',
      c: code,
      p: 'a fine long passphrase',
    });
    expect(done.body.data!.forgotPasswordSubmit.session).toEqual({ authenticated: true });
  });

  it('does the same work for an unknown user as for a wrong code: no argon2, the same statements', async () => {
    const code = await resetFor('ron', 'ron@example.com');
    const work = async (u: string, p: string) => {
      const before = statements();
      const { value, computations } = await argon2During(() =>
        t.graphql<{ forgotPasswordSubmit: Answer }>(SUBMIT, { u, c: otherCode(code), p }),
      );
      return { answer: value.body, computations, statements: statements() - before };
    };
    for (const p of PASSWORDS) {
      const unknown = await work('no-ron-here', p);
      const known = await work('ron', p);
      expect(unknown.computations).toBe(0);
      expect(known).toEqual(unknown);
    }
  });
});
