import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { createUser, disableUser } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const DAY = 24 * 60 * 60 * 1000;
let t: TestApp;

beforeAll(async () => {
  // This file signs in far more often than a person would; auth-limits.test.ts tests the limits.
  const generous = { points: 10_000, seconds: 60 };
  t = await startTestApp({
    authLimits: {
      signIn: generous,
      confirmSignIn: generous,
      forgotPassword: generous,
      forgotPasswordSubmit: generous,
      createAPIKey: generous,
    },
  });
  await seedDemo(t.database.db, t.config);
});
afterAll(() => t.close());

const SESSION_FIELDS =
  'username authenticated expiresAt expiresAtHard userGroup challengeName challengeParam lastAuthenticatedAt userGroups deviceKey';
const SIGN_IN = `mutation($u: String!, $p: String!, $c: ClientApplicationType!, $d: String) {
  signIn(input: { loginUsername: $u, password: $p, clientApplicationType: $c, deviceKey: $d }) {
    correlationId errors { message type } session { ${SESSION_FIELDS} }
  }
}`;
const CONFIRM = `mutation($code: String!, $t: AuthChallengeName!) {
  confirmSignIn(input: { code: $code, mfaType: $t }) { correlationId errors { message type } session { ${SESSION_FIELDS} } }
}`;
const SESSION = `{ session { ${SESSION_FIELDS} } }`;

type Result = {
  correlationId: string;
  errors: { type: string; message: string }[];
  session: Record<string, any> | null;
};

/** Signs in and returns the result, the session ID from the response header, and the cookie. */
async function signIn(username: string, password: string, clientType = 'EXPLORER', deviceKey?: string) {
  const r = await t.graphql<{ signIn: Result }>(SIGN_IN, {
    u: username,
    p: password,
    c: clientType,
    d: deviceKey,
  });
  return {
    result: r.body.data!.signIn,
    id: r.headers.get('x-svc-sessionid'),
    cookie: r.headers.get('set-cookie'),
  };
}

const as = (id: string | null) => ({ 'x-svc-sessionid': id ?? '' });

async function sessionOf(id: string | null) {
  const r = await t.graphql<{ session: Record<string, any> }>(SESSION, {}, as(id));
  return r.body.data!.session;
}

/** An RFC 6238 code computed by oathtool, independently of our TOTP code. */
function oathtool(secret: string, at: Date) {
  const now = at
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  return execFileSync('oathtool', ['--totp', '-b', '--now', now, secret], { encoding: 'utf8' }).trim();
}

async function addUser(username: string, extra: Partial<Parameters<typeof createUser>[2]> = {}) {
  return createUser(t.database.db, t.config.secret, {
    username,
    groups: ['acme'],
    password: 'correct horse battery',
    ...extra,
  });
}

describe('sign-in without a challenge (§3 row 1)', () => {
  it('authenticates, sets the cookie and the header, and reports both expiries', async () => {
    const now = t.clock.now().getTime();
    const { result, id, cookie } = await signIn('demo', 'demo');
    expect(result.errors).toEqual([]);
    expect(result.session).toMatchObject({
      username: 'demo',
      authenticated: true,
      userGroup: 'demo',
      challengeName: null,
    });
    expect(result.session!.userGroups).toEqual(['demo', 'demo-east']);
    expect(Date.parse(result.session!.expiresAt)).toBe(now + 7 * DAY);
    expect(Date.parse(result.session!.expiresAtHard)).toBe(now + 30 * DAY);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie).toMatch(/^svc_sessionid=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i); // http://localhost only
    expect((await sessionOf(id)).authenticated).toBe(true);
    // The ID is never stored: only its SHA-256.
    const stored = await t.database.db.selectFrom('sessions').select('id_hash').execute();
    expect(stored.every((s) => !s.id_hash.toString('utf8').includes(id!))).toBe(true);
  });

  it('gives unknown users and wrong passwords the same answer', async () => {
    const unknown = await signIn('nobody-here', 'whatever-password');
    const wrong = await signIn('demo', 'not-the-password');
    expect(unknown.result).toEqual({ ...wrong.result, correlationId: unknown.result.correlationId });
    expect(wrong.result.errors).toEqual([
      { type: 'NOT_AUTHORIZED', message: 'Incorrect username or password.' },
    ]);
    expect(wrong.id).toBeNull();
  });

  it('uses the lifetimes of the client type (§5.5)', async () => {
    const now = t.clock.now().getTime();
    const { result } = await signIn('demo', 'demo', 'MOBILE_IOS');
    expect(Date.parse(result.session!.expiresAt)).toBe(now + 60 * DAY);
    expect(Date.parse(result.session!.expiresAtHard)).toBe(now + 365 * DAY);
  });
});

describe('expiry (§3 rows 6-8)', () => {
  it('ends a session idle past its soft expiry', async () => {
    const { id } = await signIn('demo', 'demo');
    t.clock.advance(7 * DAY - 1000);
    expect((await sessionOf(id)).authenticated).toBe(true);
    // That request moved the soft expiry; idle the full period again.
    t.clock.advance(7 * DAY + 1000);
    expect((await sessionOf(id)).authenticated).toBe(false);
  });

  it('slides the soft expiry with activity, never beyond the hard expiry', async () => {
    const start = t.clock.now().getTime();
    const { id } = await signIn('demo', 'demo');
    for (let day = 6; day < 30; day += 6) {
      t.clock.set(start + day * DAY);
      const s = await sessionOf(id);
      expect(s.authenticated).toBe(true);
      expect(Date.parse(s.expiresAt)).toBe(Math.min(start + day * DAY + 7 * DAY, start + 30 * DAY));
      expect(Date.parse(s.expiresAtHard)).toBe(start + 30 * DAY);
    }
    t.clock.set(start + 30 * DAY);
    expect((await sessionOf(id)).authenticated).toBe(false);
  });
});

describe('sign-out (§3 row 5)', () => {
  it('ends the session on the server and clears the cookie', async () => {
    const { id } = await signIn('demo', 'demo');
    const r = await t.graphql<{ signOut: Result }>(
      'mutation { signOut { correlationId errors { type } session { authenticated } } }',
      {},
      as(id),
    );
    expect(r.body.data!.signOut).toMatchObject({ errors: [], session: { authenticated: false } });
    expect(r.headers.get('set-cookie')).toMatch(/^svc_sessionid=;.*Max-Age=0/i);
    expect((await sessionOf(id)).authenticated).toBe(false);
  });
});

describe('challenges (§3 rows 2-3, §5.2)', () => {
  it('SOFTWARE_TOKEN_MFA: an oathtool code completes sign-in once; the same code is refused after', async () => {
    const { totp } = await addUser('tina', { mfa: 'totp' });
    const first = await signIn('tina', 'correct horse battery');
    expect(first.result.session).toMatchObject({ authenticated: false, challengeName: 'SOFTWARE_TOKEN_MFA' });
    // A pending challenge reads no data.
    const peek = await t.graphql<any>(
      '{ assetProfiles { all { edges { node { profile } } } } }',
      {},
      as(first.id),
    );
    expect(peek.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const code = oathtool(totp!.secret, t.clock.now());
    const done = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code, t: 'SOFTWARE_TOKEN_MFA' },
      as(first.id),
    );
    expect(done.body.data!.confirmSignIn.session).toMatchObject({
      authenticated: true,
      username: 'tina',
      userGroup: 'acme',
    });
    const newId = done.headers.get('x-svc-sessionid');
    expect(newId).not.toBe(first.id);
    expect((await sessionOf(first.id)).authenticated).toBe(false);

    const again = await signIn('tina', 'correct horse battery');
    const replay = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code, t: 'SOFTWARE_TOKEN_MFA' },
      as(again.id),
    );
    expect(replay.body.data!.confirmSignIn.errors[0]!.type).toBe('CODE_MISMATCH');
    // One step of drift is allowed: next period's code works.
    t.clock.advance(30_000);
    const next = oathtool(totp!.secret, t.clock.now());
    const ok = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code: next, t: 'SOFTWARE_TOKEN_MFA' },
      as(again.id),
    );
    expect(ok.body.data!.confirmSignIn.session?.authenticated).toBe(true);
  });

  it('SMS_MFA: the code sent by SMS completes sign-in', async () => {
    await addUser('sam', { mfa: 'sms', phone: '+15551234567' });
    const first = await signIn('sam', 'correct horse battery');
    expect(first.result.session).toMatchObject({ authenticated: false, challengeName: 'SMS_MFA' });
    expect(first.result.session!.challengeParam.CODE_DELIVERY_DESTINATION).toBe('+1********67');
    const sms = await t.database.db
      .selectFrom('outbox')
      .select('body')
      .where('recipient', '=', '+15551234567')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const code = /(\d{6})/.exec(sms.body)![1]!;
    const wrong = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code: code === '000000' ? '111111' : '000000', t: 'SMS_MFA' },
      as(first.id),
    );
    expect(wrong.body.data!.confirmSignIn.errors[0]!.type).toBe('CODE_MISMATCH');
    const done = await t.graphql<{ confirmSignIn: Result }>(CONFIRM, { code, t: 'SMS_MFA' }, as(first.id));
    expect(done.body.data!.confirmSignIn.session?.authenticated).toBe(true);
  });

  it('MFA_SETUP: the pending sign-in gets a secret, and the first valid code sets it up and signs in', async () => {
    await addUser('mia', { requireMfa: true });
    const first = await signIn('mia', 'correct horse battery');
    expect(first.result.session).toMatchObject({ authenticated: false, challengeName: 'MFA_SETUP' });
    const assoc = await t.graphql<any>(
      'mutation { associateSoftwareToken { errors { type } softwareToken { secret otpauthUri } } }',
      {},
      as(first.id),
    );
    const { secret, otpauthUri } = assoc.body.data.associateSoftwareToken.softwareToken;
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/assetql:mia\?/);
    const done = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code: oathtool(secret, t.clock.now()), t: 'MFA_SETUP' },
      as(first.id),
    );
    expect(done.body.data!.confirmSignIn.session?.authenticated).toBe(true);
    // From now on, TOTP is asked for.
    t.clock.advance(60_000);
    const next = await signIn('mia', 'correct horse battery');
    expect(next.result.session!.challengeName).toBe('SOFTWARE_TOKEN_MFA');
  });

  it('NEW_PASSWORD_REQUIRED: the new password goes in `code`, and must pass the policy', async () => {
    await addUser('nora', { requireNewPassword: true });
    const first = await signIn('nora', 'correct horse battery');
    expect(first.result.session!.challengeName).toBe('NEW_PASSWORD_REQUIRED');
    const weak = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code: 'password1', t: 'NEW_PASSWORD_REQUIRED' },
      as(first.id),
    );
    expect(weak.body.data!.confirmSignIn.errors[0]!.type).toBe('INVALID_PASSWORD');
    const ok = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code: 'a much better passphrase', t: 'NEW_PASSWORD_REQUIRED' },
      as(first.id),
    );
    expect(ok.body.data!.confirmSignIn.session?.authenticated).toBe(true);
    expect((await signIn('nora', 'a much better passphrase')).result.session?.authenticated).toBe(true);
    expect((await signIn('nora', 'correct horse battery')).result.errors[0]!.type).toBe('NOT_AUTHORIZED');
  });

  it('a challenge dies after 5 wrong codes, and after 3 minutes', async () => {
    await addUser('walt', { mfa: 'totp' });
    const first = await signIn('walt', 'correct horse battery');
    const types: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.graphql<{ confirmSignIn: Result }>(
        CONFIRM,
        { code: '000000', t: 'SOFTWARE_TOKEN_MFA' },
        as(first.id),
      );
      types.push(r.body.data!.confirmSignIn.errors[0]!.type);
    }
    expect(types).toEqual([
      'CODE_MISMATCH',
      'CODE_MISMATCH',
      'CODE_MISMATCH',
      'CODE_MISMATCH',
      'CHALLENGE_EXPIRED',
    ]);
    expect((await sessionOf(first.id)).challengeName).toBeNull();

    const second = await signIn('walt', 'correct horse battery');
    t.clock.advance(3 * 60 * 1000 + 1);
    expect((await sessionOf(second.id)).challengeName).toBeNull();
  });

  it('confirmSignIn without a pending challenge says so', async () => {
    const r = await t.graphql<{ confirmSignIn: Result }>(CONFIRM, {
      code: '123456',
      t: 'SOFTWARE_TOKEN_MFA',
    });
    expect(r.body.data!.confirmSignIn).toMatchObject({
      session: null,
      errors: [{ type: 'NO_PENDING_CHALLENGE' }],
    });
  });
});

describe('groups, reauthentication and rotation (§3 rows 9-10)', () => {
  it('switches to another of the user’s groups under a new session ID, and refuses others', async () => {
    const { id } = await signIn('demo', 'demo');
    const switchTo = (group: string, sid: string | null) =>
      t.graphql<{ setSessionUserGroup: Result }>(
        'mutation($g: String!) { setSessionUserGroup(input: { userGroup: $g }) { errors { type } session { userGroup authenticated } } }',
        { g: group },
        as(sid),
      );
    const denied = await switchTo('acme', id);
    expect(denied.body.data!.setSessionUserGroup.errors[0]!.type).toBe('GROUP_ACCESS_DENIED');
    const ok = await switchTo('demo-east', id);
    expect(ok.body.data!.setSessionUserGroup.session).toEqual({
      userGroup: 'demo-east',
      authenticated: true,
    });
    const newId = ok.headers.get('x-svc-sessionid');
    expect(newId).toBeTruthy();
    expect(newId).not.toBe(id);
    expect((await sessionOf(id)).authenticated).toBe(false);
    expect((await sessionOf(newId)).userGroup).toBe('demo-east');
    // Tenant isolation follows the group: demo-east has no wells.
    const wells = await t.graphql<any>(
      '{ assets(profile: "well") { all { edges { node { id } } } } }',
      {},
      as(newId),
    );
    expect(wells.body.data.assets.all.edges).toEqual([]);
  });

  it('reauthenticate updates lastAuthenticatedAt and rotates the ID', async () => {
    const { id } = await signIn('demo', 'demo');
    t.clock.advance(60 * 60 * 1000);
    const r = await t.graphql<{ reauthenticate: Result }>(
      'mutation($p: String!) { reauthenticate(input: { password: $p }) { errors { type } session { lastAuthenticatedAt } } }',
      { p: 'demo' },
      as(id),
    );
    expect(Date.parse(r.body.data!.reauthenticate.session!.lastAuthenticatedAt)).toBe(
      t.clock.now().getTime(),
    );
    const bad = await t.graphql<{ reauthenticate: Result }>(
      'mutation { reauthenticate(input: { password: "wrong" }) { errors { type } } }',
      {},
      as(r.headers.get('x-svc-sessionid')),
    );
    expect(bad.body.data!.reauthenticate.errors[0]!.type).toBe('NOT_AUTHORIZED');
    expect((await sessionOf(id)).authenticated).toBe(false);
  });
});

describe('API keys (§5.3)', () => {
  const CREATE = `mutation($k: ID!, $g: String!) { createAPIKey(input: { apiKeyId: $k, userGroup: $g }) {
    errors { type } apiKey { apiKeyId apiKeySessionId username authenticated expiresAt userGroup } } }`;

  it('needs a recent password, carries its creator’s group, and is shown once', async () => {
    await addUser('kay', { groups: ['acme', 'beta'] });
    const { id } = await signIn('kay', 'correct horse battery');
    t.clock.advance(16 * 60 * 1000);
    const stale = await t.graphql<any>(CREATE, { k: 'etl', g: 'acme' }, as(id));
    expect(stale.body.data.createAPIKey.errors[0].type).toBe('REAUTHENTICATION_REQUIRED');
    const re = await t.graphql<any>(
      'mutation { reauthenticate(input: { password: "correct horse battery" }) { errors { type } } }',
      {},
      as(id),
    );
    const sid = re.headers.get('x-svc-sessionid');
    const created = await t.graphql<any>(CREATE, { k: 'etl', g: 'beta' }, as(sid));
    const key = created.body.data.createAPIKey.apiKey;
    expect(key).toMatchObject({ apiKeyId: 'etl', username: 'kay', authenticated: true, userGroup: 'beta' });
    expect(Date.parse(key.expiresAt)).toBe(t.clock.now().getTime() + 60 * DAY);
    expect((await sessionOf(key.apiKeySessionId)).userGroup).toBe('beta');
    const dup = await t.graphql<any>(CREATE, { k: 'etl', g: 'acme' }, as(sid));
    expect(dup.body.data.createAPIKey.errors[0].type).toBe('DUPLICATE_ID');
    const listed = await t.graphql<any>(
      '{ user(id: "kay") { apiKeys { apiKeyId apiKeySessionId userGroup } } }',
      {},
      as(sid),
    );
    expect(listed.body.data.user.apiKeys).toEqual([
      { apiKeyId: 'etl', apiKeySessionId: null, userGroup: 'beta' },
    ]);
    // An API key cannot mint more keys.
    const chained = await t.graphql<any>(CREATE, { k: 'etl2', g: 'beta' }, as(key.apiKeySessionId));
    expect(chained.body.data.createAPIKey.errors[0].type).toBe('UNAUTHENTICATED');

    // Revoked: it stops working at once.
    const revoked = await t.graphql<any>(
      'mutation { revokeAPIKey(input: { apiKeyId: "etl" }) { errors { type } apiKey { apiKeyId } } }',
      {},
      as(sid),
    );
    expect(revoked.body.data.revokeAPIKey.errors).toEqual([]);
    t.clock.advance(5000);
    expect((await sessionOf(key.apiKeySessionId)).authenticated).toBe(false);
  });

  it('stops working when its creator leaves the group or is disabled', async () => {
    await addUser('lee', { groups: ['acme', 'beta'] });
    const { id } = await signIn('lee', 'correct horse battery');
    const a = (await t.graphql<any>(CREATE, { k: 'one', g: 'beta' }, as(id))).body.data.createAPIKey.apiKey;
    const b = (await t.graphql<any>(CREATE, { k: 'two', g: 'acme' }, as(id))).body.data.createAPIKey.apiKey;
    await t.database.db
      .deleteFrom('user_groups')
      .where('username', '=', 'lee')
      .where('user_group', '=', 'beta')
      .execute();
    t.clock.advance(5000);
    expect((await sessionOf(a.apiKeySessionId)).authenticated).toBe(false);
    expect((await sessionOf(b.apiKeySessionId)).authenticated).toBe(true);
    await disableUser(t.database.db, 'lee');
    t.clock.advance(5000);
    expect((await sessionOf(b.apiKeySessionId)).authenticated).toBe(false);
    expect((await signIn('lee', 'correct horse battery')).result.errors[0]!.type).toBe('USER_DISABLED');
  });
});

describe('devices (§5.6)', () => {
  it('lists the user’s devices and forgets them, ending their sessions', async () => {
    await addUser('dev');
    const phone = await signIn('dev', 'correct horse battery', 'MOBILE_ANDROID');
    const phoneKey = phone.result.session!.deviceKey;
    const again = await signIn('dev', 'correct horse battery', 'MOBILE_ANDROID', phoneKey);
    expect(again.result.session!.deviceKey).toBe(phoneKey);
    const laptop = await signIn('dev', 'correct horse battery');
    const devices = await t.graphql<any>(
      '{ user(id: "dev") { devices { deviceKey remembered createdAt lastSignedInAt lastIpAddress } } }',
      {},
      as(laptop.id),
    );
    expect(devices.body.data.user.devices).toHaveLength(2);
    const others = await t.graphql<any>('{ user(id: "demo") { devices { deviceKey } } }', {}, as(laptop.id));
    expect(others.body.data.user).toBeNull();

    const forget = await t.graphql<any>(
      'mutation($k: [String!]!) { forgetDevices(input: { deviceKeys: $k }) { errors { type } session { authenticated } } }',
      { k: [phoneKey] },
      as(laptop.id),
    );
    expect(forget.body.data.forgetDevices).toEqual({ errors: [], session: { authenticated: true } });
    t.clock.advance(5000);
    expect((await sessionOf(phone.id)).authenticated).toBe(false);
    expect((await sessionOf(again.id)).authenticated).toBe(false);
    expect((await sessionOf(laptop.id)).authenticated).toBe(true);
  });
});

describe('password reset (§5.6)', () => {
  const SUBMIT = `mutation($u: String!, $c: String!, $p: String!) {
    forgotPasswordSubmit(input: { loginUsername: $u, confirmationCode: $c, password: $p }) { errors { type } session { authenticated username } } }`;
  const FORGOT =
    'mutation($u: String!) { forgotPassword(input: { loginUsername: $u }) { correlationId errors { type } } }';

  async function resetCode(email: string) {
    for (let i = 0; i < 50; i++) {
      const m = await t.database.db
        .selectFrom('outbox')
        .select('body')
        .where('recipient', '=', email)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      if (m) return /(\d{6})/.exec(m.body)![1]!;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no reset mail');
  }

  it('answers the same for unknown users, and a single-use code sets the password and ends other sessions', async () => {
    await addUser('rita', { email: 'rita@example.com' });
    const other = await signIn('rita', 'correct horse battery');
    const unknown = await t.graphql<any>(FORGOT, { u: 'no-such-user' });
    const known = await t.graphql<any>(FORGOT, { u: 'rita' });
    expect(unknown.body.data.forgotPassword.errors).toEqual(known.body.data.forgotPassword.errors);
    const code = await resetCode('rita@example.com');
    const wrongCode = code === '000000' ? '000001' : '000000';
    const wrong = await t.graphql<any>(SUBMIT, { u: 'rita', c: wrongCode, p: 'brand new passphrase' });
    expect(wrong.body.data.forgotPasswordSubmit.errors[0].type).toBe('CODE_MISMATCH');
    const ok = await t.graphql<any>(SUBMIT, { u: 'rita', c: code, p: 'brand new passphrase' });
    expect(ok.body.data.forgotPasswordSubmit.session).toEqual({ authenticated: true, username: 'rita' });
    expect((await sessionOf(other.id)).authenticated).toBe(false);
    const replay = await t.graphql<any>(SUBMIT, { u: 'rita', c: code, p: 'another new passphrase' });
    expect(replay.body.data.forgotPasswordSubmit.errors[0].type).toBe('CODE_MISMATCH');
    expect((await signIn('rita', 'brand new passphrase')).result.session?.authenticated).toBe(true);
  });
});

describe('abuse resistance', () => {
  it('backs off an account after 5 consecutive wrong passwords', async () => {
    await addUser('bob');
    for (let i = 0; i < 5; i++)
      expect((await signIn('bob', 'nope nope nope')).result.errors[0]!.type).toBe('NOT_AUTHORIZED');
    expect((await signIn('bob', 'nope nope nope')).result.errors[0]!.type).toBe('NOT_AUTHORIZED');
    expect((await signIn('bob', 'correct horse battery')).result.errors[0]!.type).toBe('LIMIT_EXCEEDED');
    t.clock.advance(5000);
    expect((await signIn('bob', 'correct horse battery')).result.session?.authenticated).toBe(true);
  });

  it('keeps an audit trail of sign-in events', async () => {
    const events = await sql<{ event: string }>`select distinct event from auth_events`.execute(
      t.database.db,
    );
    const names = events.rows.map((r) => r.event);
    for (const e of [
      'sign_in',
      'sign_in_failed',
      'sign_out',
      'challenge_failed',
      'api_key_created',
      'password_reset',
    ]) {
      expect(names).toContain(e);
    }
  });
});

describe('temporary storage credentials (§5.6)', () => {
  it('need a session and a group of the user, and say clearly when no provider is configured', async () => {
    const anonymous = await t.graphql<any>('{ credentials { accessKeyId } }');
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const { id } = await signIn('demo', 'demo');
    const other = await t.graphql<any>('{ credentials(group: "acme") { accessKeyId } }', {}, as(id));
    expect(other.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const own = await t.graphql<any>(
      '{ credentials { accessKeyId secretAccessKey sessionToken expiration } }',
      {},
      as(id),
    );
    expect(own.body.data.credentials).toBeNull();
    expect(own.body.errors?.[0]?.extensions).toMatchObject({
      code: 'CREDENTIALS_UNAVAILABLE',
      reason: 'not-configured',
    });
  });
});

describe('hardening', () => {
  it('answers no CORS grant to another origin', async () => {
    const preflight = await t.handle(
      new Request('http://localhost:4000/api/graphql', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      }),
    );
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('refuses cookie-authenticated requests that a cross-site form could send', async () => {
    const { id } = await signIn('demo', 'demo');
    const r = await t.handle(
      new Request('http://localhost:4000/api/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `svc_sessionid=${id}` },
        body: 'query=mutation%7BsignOut%7Bsession%7Bauthenticated%7D%7D%7D',
      }),
    );
    expect(r.status).toBe(403);
    expect((await r.json()).errors[0].extensions.code).toBe('CSRF_REJECTED');
    expect((await sessionOf(id)).authenticated).toBe(true);
  });

  it('lets an API key get storage credentials for its own group only', async () => {
    await addUser('ivy', { groups: ['acme', 'beta'] });
    const { id } = await signIn('ivy', 'correct horse battery');
    const created = await t.graphql<any>(
      'mutation { createAPIKey(input: { apiKeyId: "k", userGroup: "acme" }) { apiKey { apiKeySessionId } } }',
      {},
      as(id),
    );
    const key = created.body.data.createAPIKey.apiKey.apiKeySessionId;
    const other = await t.graphql<any>('{ credentials(group: "beta") { accessKeyId } }', {}, as(key));
    expect(other.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const own = await t.graphql<any>('{ credentials { accessKeyId } }', {}, as(key));
    expect(own.body.errors?.[0]?.extensions?.code).toBe('CREDENTIALS_UNAVAILABLE');
  });

  it('applies the account backoff to reauthenticate too', async () => {
    await addUser('rey');
    const { id } = await signIn('rey', 'correct horse battery');
    let sid = id;
    const reauth = async (password: string) => {
      const r = await t.graphql<any>(
        'mutation($p: String!) { reauthenticate(input: { password: $p }) { errors { type } } }',
        { p: password },
        as(sid),
      );
      sid = r.headers.get('x-svc-sessionid') ?? sid;
      return r.body.data.reauthenticate.errors[0]?.type ?? 'OK';
    };
    for (let i = 0; i < 6; i++) await reauth('wrong guess here');
    expect(await reauth('correct horse battery')).toBe('LIMIT_EXCEEDED');
  });

  it('still asks for the second factor after a password reset', async () => {
    const { totp } = await addUser('mo', { mfa: 'totp', email: 'mo@example.com' });
    expect(totp).toBeDefined();
    await t.graphql<any>('mutation { forgotPassword(input: { loginUsername: "mo" }) { errors { type } } }');
    let body = '';
    for (let i = 0; i < 50 && !body; i++) {
      body =
        (
          await t.database.db
            .selectFrom('outbox')
            .select('body')
            .where('recipient', '=', 'mo@example.com')
            .executeTakeFirst()
        )?.body ?? '';
      if (!body) await new Promise((r) => setTimeout(r, 20));
    }
    const code = /(\d{6})/.exec(body)![1]!;
    const r = await t.graphql<any>(
      `mutation($c: String!) { forgotPasswordSubmit(input: { loginUsername: "mo", confirmationCode: $c, password: "a fresh passphrase" }) {
        errors { type } session { authenticated challengeName } } }`,
      { c: code },
    );
    expect(r.body.data.forgotPasswordSubmit).toEqual({
      errors: [],
      session: { authenticated: false, challengeName: 'SOFTWARE_TOKEN_MFA' },
    });
  });
});
