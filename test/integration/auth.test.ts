import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { hashSessionId } from '../../src/shared/session-policy.ts';
import { outboxMessenger } from '../../src/subgraphs/auth/messaging/messenger.ts';
import { replaceGroups } from '../../src/subgraphs/auth/repository/users.ts';
import { createUser, disableUser, resetMfa } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { requireTool } from '../helpers/tools.ts';

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
  const oathtool = requireTool(['oathtool'], {
    package: 'oathtool',
    for: 'checking TOTP codes independently',
  });
  return execFileSync(oathtool, ['--totp', '-b', '--now', now, secret], { encoding: 'utf8' }).trim();
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
    await replaceGroups(t.database.db, 'lee', ['acme']);
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

const CHANGE_PASSWORD = `mutation($c: String!, $n: String!) {
  changePassword(input: { currentPassword: $c, newPassword: $n }) {
    correlationId errors { message type } session { ${SESSION_FIELDS} }
  }
}`;

async function changePassword(id: string | null, current: string, next: string) {
  const r = await t.graphql<{ changePassword: Result }>(CHANGE_PASSWORD, { c: current, n: next }, as(id));
  return { result: r.body.data!.changePassword, id: r.headers.get('x-svc-sessionid'), headers: r.headers };
}

async function createKey(id: string | null, apiKeyId: string, group = 'acme'): Promise<string> {
  const r = await t.graphql<any>(
    'mutation($k: ID!, $g: String!) { createAPIKey(input: { apiKeyId: $k, userGroup: $g }) { errors { type } apiKey { apiKeySessionId } } }',
    { k: apiKeyId, g: group },
    as(id),
  );
  expect(r.body.data.createAPIKey.errors).toEqual([]);
  return r.body.data.createAPIKey.apiKey.apiKeySessionId;
}

async function eventsOf(username: string, event: string) {
  return t.database.db
    .selectFrom('auth_events')
    .select(['event', 'detail'])
    .where('username', '=', username)
    .where('event', '=', event)
    .orderBy('id')
    .execute();
}

describe('password change (ASVS 2.1.5, 2.1.6, 3.3.3)', () => {
  it('changes the password given the current one, under a new session ID, and ends the user’s other sessions but not its API keys', async () => {
    await addUser('cora');
    const laptop = await signIn('cora', 'correct horse battery');
    const phone = await signIn('cora', 'correct horse battery', 'MOBILE_IOS');
    const key = await createKey(laptop.id, 'cora-etl');
    t.clock.advance(60 * 60 * 1000);

    const changed = await changePassword(laptop.id, 'correct horse battery', 'a brand new passphrase');
    expect(changed.result.errors).toEqual([]);
    expect(changed.result.session).toMatchObject({
      username: 'cora',
      authenticated: true,
      userGroup: 'acme',
    });
    // The password was just entered: the session counts as freshly authenticated.
    expect(Date.parse(changed.result.session!.lastAuthenticatedAt)).toBe(t.clock.now().getTime());
    expect(changed.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(changed.id).not.toBe(laptop.id);
    expect(changed.headers.get('set-cookie')).toMatch(new RegExp(`^svc_sessionid=${changed.id};`));
    expect((await sessionOf(laptop.id)).authenticated).toBe(false);

    t.clock.advance(5000); // past the gateway's cache
    expect((await sessionOf(phone.id)).authenticated).toBe(false);
    expect((await sessionOf(changed.id)).authenticated).toBe(true);
    expect((await sessionOf(key)).authenticated).toBe(true);
    expect((await signIn('cora', 'correct horse battery')).result.errors[0]!.type).toBe('NOT_AUTHORIZED');
    expect((await signIn('cora', 'a brand new passphrase')).result.session?.authenticated).toBe(true);
    expect((await eventsOf('cora', 'password_changed')).map((e) => e.detail)).toEqual([
      { via: 'changePassword', sessionsEnded: 1 },
    ]);
  });

  it('refuses a wrong current password and a new password the policy refuses, changing nothing', async () => {
    await addUser('cody');
    const { id } = await signIn('cody', 'correct horse battery');
    const wrong = await changePassword(id, 'not my password', 'a brand new passphrase');
    expect(wrong.result).toMatchObject({
      session: null,
      errors: [{ type: 'NOT_AUTHORIZED', message: 'The current password is wrong.' }],
    });
    expect(wrong.id).toBeNull();
    // The same errors as NEW_PASSWORD_REQUIRED and reset give.
    for (const [next, message] of [
      ['short', 'The password must have at least 8 characters.'],
      ['password1', 'That password is too common; choose another.'],
    ] as const) {
      const weak = await changePassword(id, 'correct horse battery', next);
      expect(weak.result).toEqual({
        correlationId: expect.any(String),
        session: null,
        errors: [{ type: 'INVALID_PASSWORD', message }],
      });
      expect(weak.id).toBeNull();
    }
    expect((await sessionOf(id)).authenticated).toBe(true);
    expect((await signIn('cody', 'correct horse battery')).result.session?.authenticated).toBe(true);
    expect(await eventsOf('cody', 'password_change_failed')).toHaveLength(1);
    expect(await eventsOf('cody', 'password_changed')).toEqual([]);
  });

  it('is refused with UNAUTHENTICATED to API keys, pending challenges and anonymous callers', async () => {
    const { totp } = await addUser('cal', { mfa: 'totp' });
    expect(totp).toBeDefined();
    const challenge = await signIn('cal', 'correct horse battery');
    expect(challenge.result.session!.challengeName).toBe('SOFTWARE_TOKEN_MFA');
    const session = await t.sessionFor('cal', 'acme');
    const key = await createKey(session, 'cal-key');
    for (const caller of [key, challenge.id, null]) {
      const r = await changePassword(caller, 'correct horse battery', 'a brand new passphrase');
      expect(r.result).toMatchObject({ session: null, errors: [{ type: 'UNAUTHENTICATED' }] });
      expect(r.id).toBeNull();
    }
    expect((await signIn('cal', 'correct horse battery')).result.errors).toEqual([]);
    expect((await sessionOf(key)).authenticated).toBe(true);
  });

  it('counts wrong current passwords in the account backoff that sign-in uses', async () => {
    await addUser('bea');
    let { id } = await signIn('bea', 'correct horse battery');
    for (let i = 0; i < 6; i++) {
      const r = await changePassword(id, `wrong guess ${i}`, 'a brand new passphrase');
      expect(r.result.errors[0]!.type).toBe('NOT_AUTHORIZED');
    }
    const locked = await changePassword(id, 'correct horse battery', 'a brand new passphrase');
    expect(locked.result.errors[0]!.type).toBe('LIMIT_EXCEEDED');
    expect((await signIn('bea', 'correct horse battery')).result.errors[0]!.type).toBe('LIMIT_EXCEEDED');
    t.clock.advance(5000);
    const ok = await changePassword(id, 'correct horse battery', 'a brand new passphrase');
    expect(ok.result.errors).toEqual([]);
    id = ok.id;
    // Success clears the count, as a reset does.
    const row = await t.database.db
      .selectFrom('users')
      .select(['failed_attempts', 'locked_until'])
      .where('username', '=', 'bea')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ failed_attempts: 0, locked_until: null });
    expect((await sessionOf(id)).authenticated).toBe(true);
  });
});

const SESSIONS = `query($u: ID!) { user(id: $u) { sessions {
  sessionRef clientApplicationType userGroup deviceKey deviceName ipAddress createdAt lastSeenAt
  lastAuthenticatedAt expiresAt expiresAtHard current } } }`;
const SIGN_OUT_SESSION = `mutation($r: ID!) { signOutSession(input: { sessionRef: $r }) {
  correlationId errors { message type } session { authenticated username } } }`;

async function sessionsOf(username: string, id: string | null) {
  const r = await t.graphql<any>(SESSIONS, { u: username }, as(id));
  expect(r.body.errors).toBeUndefined();
  const user = r.body.data.user as { sessions: Record<string, any>[] } | null;
  return user === null ? null : user.sessions;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('sessions of a user (ASVS 3.3.4)', () => {
  it('lists the user’s signed-in sessions, newest first, under a reference that cannot be presented as a session', async () => {
    await addUser('sue', { groups: ['acme', 'beta'] });
    const start = t.clock.now().getTime();
    const laptop = await signIn('sue', 'correct horse battery');
    t.clock.advance(60_000);
    const phone = await signIn('sue', 'correct horse battery', 'MOBILE_IOS');
    const key = await createKey(phone.id, 'sue-key');
    await addUser('sue-mfa-peer', { mfa: 'totp' }); // someone else's pending challenge is not listed
    await signIn('sue-mfa-peer', 'correct horse battery');

    const listed = await sessionsOf('sue', laptop.id);
    expect(listed).toEqual([
      {
        sessionRef: expect.stringMatching(UUID),
        clientApplicationType: 'MOBILE_IOS',
        userGroup: 'acme',
        deviceKey: phone.result.session!.deviceKey,
        deviceName: null,
        ipAddress: null, // in-process requests have no address
        createdAt: new Date(start + 60_000).toISOString(),
        lastSeenAt: new Date(start + 60_000).toISOString(),
        lastAuthenticatedAt: new Date(start + 60_000).toISOString(),
        expiresAt: new Date(start + 60_000 + 60 * DAY).toISOString(),
        expiresAtHard: new Date(start + 60_000 + 365 * DAY).toISOString(),
        current: false,
      },
      {
        sessionRef: expect.stringMatching(UUID),
        clientApplicationType: 'EXPLORER',
        userGroup: 'acme',
        deviceKey: laptop.result.session!.deviceKey,
        deviceName: null,
        ipAddress: null,
        createdAt: new Date(start).toISOString(),
        // This very request, a minute after sign-in, slid the idle expiry.
        lastSeenAt: new Date(start + 60_000).toISOString(),
        lastAuthenticatedAt: new Date(start).toISOString(),
        expiresAt: new Date(start + 60_000 + 7 * DAY).toISOString(),
        expiresAtHard: new Date(start + 30 * DAY).toISOString(),
        current: true,
      },
    ]);
    // The reference is neither a session ID nor its hash, and presenting it gets nothing.
    const refs = listed!.map((s) => s.sessionRef as string);
    for (const id of [laptop.id!, phone.id!, key]) {
      for (const form of [id, hashSessionId(id).toString('hex'), hashSessionId(id).toString('base64url')])
        expect(refs.some((r) => form.includes(r.replaceAll('-', '')) || r === form)).toBe(false);
    }
    for (const ref of refs) expect((await sessionOf(ref)).authenticated).toBe(false);

    // Rotation keeps the reference: a group switch gives a new ID to the same session.
    const switched = await t.graphql<any>(
      'mutation { setSessionUserGroup(input: { userGroup: "beta" }) { errors { type } } }',
      {},
      as(laptop.id),
    );
    const rotated = switched.headers.get('x-svc-sessionid');
    const after = await sessionsOf('sue', rotated);
    expect(after!.map((s) => [s.sessionRef, s.userGroup, s.current])).toEqual([
      [refs[0], 'acme', false],
      [refs[1], 'beta', true],
    ]);
    // Only the user sees them (an API key of the user too, as for devices); an ended session is gone.
    expect(await sessionsOf('sue', await t.sessionFor('demo', 'demo'))).toBeNull();
    expect((await sessionsOf('sue', key))!.map((s) => s.current)).toEqual([false, false]);
    await t.graphql('mutation { signOut { errors { type } } }', {}, as(phone.id));
    expect((await sessionsOf('sue', rotated))!.map((s) => s.sessionRef)).toEqual([refs[1]]);
  });

  it('ends one of the caller’s sessions by reference after a recent password; another user’s, an API key’s or an unknown reference is NOT_FOUND and ends nothing', async () => {
    await addUser('sid');
    await addUser('sal');
    const one = await signIn('sid', 'correct horse battery');
    const two = await signIn('sid', 'correct horse battery', 'MOBILE_ANDROID');
    const key = await createKey(one.id, 'sid-key');
    const hers = await signIn('sal', 'correct horse battery');
    const [twoRef] = (await sessionsOf('sid', one.id))!.filter((s) => !s.current).map((s) => s.sessionRef);
    const [salRef] = (await sessionsOf('sal', hers.id))!.map((s) => s.sessionRef);
    const keyRef = (
      await t.database.db
        .selectFrom('sessions')
        .select('public_id')
        .where('username', '=', 'sid')
        .where('kind', '=', 'api_key')
        .executeTakeFirstOrThrow()
    ).public_id;

    const end = (ref: string, id: string | null) =>
      t.graphql<{ signOutSession: Result }>(SIGN_OUT_SESSION, { r: ref }, as(id));
    for (const ref of [salRef, keyRef, '00000000-0000-4000-8000-000000000000', 'not-a-reference']) {
      const r = await end(ref, one.id);
      expect(r.body.data!.signOutSession).toMatchObject({
        session: null,
        errors: [{ type: 'NOT_FOUND', message: 'You have no session with that reference.' }],
      });
    }
    // An API key may not end its user's sessions.
    expect((await end(twoRef, key)).body.data!.signOutSession.errors[0]!.type).toBe('UNAUTHENTICATED');
    t.clock.advance(5000);
    for (const id of [one.id, two.id, key, hers.id]) expect((await sessionOf(id)).authenticated).toBe(true);

    // Ending another session needs a password entered within 15 minutes (ASVS 3.3.4).
    t.clock.advance(16 * 60 * 1000);
    const stale = await end(twoRef, one.id);
    expect(stale.body.data!.signOutSession).toMatchObject({
      session: null,
      errors: [{ type: 'REAUTHENTICATION_REQUIRED' }],
    });
    const re = await t.graphql<any>(
      'mutation { reauthenticate(input: { password: "correct horse battery" }) { errors { type } } }',
      {},
      as(one.id),
    );
    const oneNow = re.headers.get('x-svc-sessionid');
    expect((await sessionOf(two.id)).authenticated).toBe(true);

    const ended = await end(twoRef, oneNow);
    expect(ended.body.data!.signOutSession).toMatchObject({
      errors: [],
      session: { authenticated: true, username: 'sid' },
    });
    expect(ended.headers.get('set-cookie')).toBeNull();
    t.clock.advance(5000);
    expect((await sessionOf(two.id)).authenticated).toBe(false);
    expect((await sessionOf(oneNow)).authenticated).toBe(true);
    expect((await sessionOf(key)).authenticated).toBe(true);
    expect((await end(twoRef, oneNow)).body.data!.signOutSession.errors[0]!.type).toBe('NOT_FOUND');

    // Its own session needs no recent password (signOut needs none): signed out at once, cookie cleared.
    t.clock.advance(16 * 60 * 1000);
    const [oneRef] = (await sessionsOf('sid', oneNow))!.map((s) => s.sessionRef);
    const self = await end(oneRef, oneNow);
    expect(self.body.data!.signOutSession).toMatchObject({ errors: [], session: { authenticated: false } });
    expect(self.headers.get('set-cookie')).toMatch(/^svc_sessionid=;.*Max-Age=0/i);
    expect((await sessionOf(oneNow)).authenticated).toBe(false);
    expect((await eventsOf('sid', 'session_signed_out')).map((e) => e.detail)).toEqual([
      { sessionRef: twoRef, current: false },
      { sessionRef: oneRef, current: true },
    ]);
  });
});

/** The messages to `to` in the outbox once there are `count` (notices go out after the reply). */
async function outboxFor(to: string, count: number) {
  for (let i = 0; i < 100; i++) {
    const rows = await t.database.db
      .selectFrom('outbox')
      .select(['channel', 'subject', 'body'])
      .where('recipient', '=', to)
      .orderBy('id')
      .execute();
    if (rows.length >= count) return rows;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`fewer than ${count} messages to ${to}`);
}

describe('security notices (ASVS 2.2.3, 2.5.5)', () => {
  it('tells the user by email after a password change, a reset, an MFA setup or removal and a new API key, with no code or key in it', async () => {
    await addUser('nia', { email: 'nia@example.com', requireMfa: true });
    // MFA_SETUP completes: the first notice.
    const first = await signIn('nia', 'correct horse battery');
    const assoc = await t.graphql<any>(
      'mutation { associateSoftwareToken { softwareToken { secret } } }',
      {},
      as(first.id),
    );
    const secret: string = assoc.body.data.associateSoftwareToken.softwareToken.secret;
    const setUp = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code: oathtool(secret, t.clock.now()), t: 'MFA_SETUP' },
      as(first.id),
    );
    const id = setUp.headers.get('x-svc-sessionid');
    expect(setUp.body.data!.confirmSignIn.session?.authenticated).toBe(true);
    const key = await createKey(id, 'nia-key');
    const changed = await changePassword(id, 'correct horse battery', 'nia’s new passphrase');
    expect(changed.result.errors).toEqual([]);
    await t.graphql('mutation { forgotPassword(input: { loginUsername: "nia" }) { errors { type } } }');
    const resetMail = (await outboxFor('nia@example.com', 4)).find(
      (m) => m.subject === 'Reset your assetql password',
    );
    const code = /(\d{6})/.exec(resetMail!.body)![1]!;
    const reset = await t.graphql<any>(
      `mutation($c: String!) { forgotPasswordSubmit(input: { loginUsername: "nia", confirmationCode: $c, password: "nia’s third passphrase" }) { errors { type } } }`,
      { c: code },
    );
    expect(reset.body.data.forgotPasswordSubmit.errors).toEqual([]);
    // An administrator removes the MFA (what `assetql users reset-mfa --require-mfa` does).
    const removed = await resetMfa(t.database.db, 'nia', true, {
      messenger: outboxMessenger(t.database.db),
      at: t.clock.now(),
    });
    expect(removed).toEqual({ notified: true });

    const mail = await outboxFor('nia@example.com', 6);
    const notices = new Map(
      mail.filter((m) => m.subject !== 'Reset your assetql password').map((m) => [m.subject, m]),
    );
    expect(mail.every((m) => m.channel === 'email')).toBe(true);
    expect([...notices.keys()].sort()).toEqual([
      'A new API key was created for your assetql account',
      'Two-step verification was removed from your assetql account',
      'Two-step verification was set up for your assetql account',
      'Your assetql password was changed',
      'Your assetql password was reset',
    ]);
    const at = t.clock.now().toISOString();
    expect(notices.get('Your assetql password was changed')!.body).toBe(
      [
        `The password of your assetql account nia was changed on ${at}.`,
        'Your other sessions were signed out; API keys still work.',
        'If you did not do this, reset your password now (Forgot password) and tell your administrator.',
      ].join('\n'),
    );
    expect(notices.get('A new API key was created for your assetql account')!.body).toContain(
      'API key "nia-key" for group acme was created for your assetql account nia',
    );
    expect(notices.get('Two-step verification was removed from your assetql account')!.body).toContain(
      'You will be asked to set it up again at your next sign-in.',
    );
    for (const m of notices.values()) {
      expect(m.body).not.toMatch(/\d{6}/);
      for (const s of [
        secret,
        key,
        code,
        'correct horse battery',
        'nia’s new passphrase',
        'nia’s third passphrase',
      ])
        expect(m.body).not.toContain(s);
    }
  });

  it('tells a user without an email address by text message, and NEW_PASSWORD_REQUIRED counts as a change', async () => {
    await addUser('pia', { phone: '+15550001111', requireNewPassword: true });
    const first = await signIn('pia', 'correct horse battery');
    const done = await t.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code: 'pia picks a passphrase', t: 'NEW_PASSWORD_REQUIRED' },
      as(first.id),
    );
    expect(done.body.data!.confirmSignIn.session?.authenticated).toBe(true);
    const [sms] = await outboxFor('+15550001111', 1);
    expect(sms).toEqual({
      channel: 'sms',
      subject: null,
      body: `The password of your assetql account pia was changed on ${t.clock.now().toISOString()}.`,
    });
  });
});
