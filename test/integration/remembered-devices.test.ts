import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, disableUser, resetMfa } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { requireTool } from '../helpers/tools.ts';

// Remembered devices (docs/auth.md §7), as Cognito's device tracking: after an MFA sign-in the
// device may be remembered; its whole key (public part and secret) then skips MFA at its next
// sign-ins. Three processes' worth of app share one database, one for each policy.

const DAY = 24 * 60 * 60 * 1000;
let database: TestDatabase;
let optIn: TestApp;
let always: TestApp;
let off: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  const generous = { points: 10_000, seconds: 60 };
  const authLimits = {
    signIn: generous,
    confirmSignIn: generous,
    forgotPassword: generous,
    forgotPasswordSubmit: generous,
    createAPIKey: generous,
  };
  optIn = await startTestApp({ database, authLimits });
  always = await startTestApp({
    database,
    authLimits,
    clock: optIn.clock,
    config: { rememberDevices: 'always' },
  });
  off = await startTestApp({ database, authLimits, clock: optIn.clock, config: { rememberDevices: 'off' } });
});
afterAll(async () => {
  for (const app of [optIn, always, off]) await app?.close();
  await database?.close();
});

type Session = { authenticated: boolean; challengeName: string | null; deviceKey: string | null };
type Result = { errors: { type: string }[]; session: Session | null };

const PASSWORD = 'correct horse battery';
const SIGN_IN = `mutation($u: String!, $p: String!, $d: String) {
  signIn(input: { loginUsername: $u, password: $p, clientApplicationType: EXPLORER, deviceKey: $d, deviceName: "Laptop" }) {
    errors { type } session { authenticated challengeName deviceKey } } }`;
const CONFIRM = `mutation($code: String!, $t: AuthChallengeName!, $r: Boolean) {
  confirmSignIn(input: { code: $code, mfaType: $t, rememberDevice: $r }) {
    errors { type } session { authenticated challengeName deviceKey } } }`;
const as = (id: string | null) => ({ 'x-svc-sessionid': id ?? '' });

let phones = 0;
/** A user with SMS MFA, whose codes the outbox holds. */
async function smsUser(username: string, extra: Partial<Parameters<typeof createUser>[2]> = {}) {
  const phone = `+1555020${String(phones++).padStart(4, '0')}`;
  await createUser(database.db, optIn.config.secret, {
    username,
    groups: ['acme'],
    password: PASSWORD,
    mfa: 'sms',
    phone,
    ...extra,
  });
  return phone;
}

async function lastCode(phone: string) {
  const m = await database.db
    .selectFrom('outbox')
    .select('body')
    .where('recipient', '=', phone)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return /(\d{6})/.exec(m.body)![1]!;
}

async function signIn(app: TestApp, username: string, deviceKey?: string | null, password = PASSWORD) {
  const r = await app.graphql<{ signIn: Result }>(SIGN_IN, {
    u: username,
    p: password,
    d: deviceKey ?? null,
  });
  return { result: r.body.data!.signIn, id: r.headers.get('x-svc-sessionid') };
}

/** Signs in with SMS MFA, answering the challenge; `remember` is the opt-in. */
async function signInWithMfa(
  app: TestApp,
  username: string,
  phone: string,
  options: { deviceKey?: string | null; remember?: boolean } = {},
) {
  const first = await signIn(app, username, options.deviceKey);
  expect(first.result.session).toMatchObject({ authenticated: false, challengeName: 'SMS_MFA' });
  const r = await app.graphql<{ confirmSignIn: Result }>(
    CONFIRM,
    { code: await lastCode(phone), t: 'SMS_MFA', r: options.remember ?? null },
    as(first.id),
  );
  const done = r.body.data!.confirmSignIn;
  expect(done.session?.authenticated).toBe(true);
  return { deviceKey: done.session!.deviceKey!, id: r.headers.get('x-svc-sessionid') };
}

/** Remembers a device of the user (opt-in) and checks that its whole key now skips MFA. */
async function rememberedDevice(username: string, phone: string) {
  const { deviceKey } = await signInWithMfa(optIn, username, phone, { remember: true });
  const skipped = await signIn(optIn, username, deviceKey);
  expect(skipped.result.session).toEqual({ authenticated: true, challengeName: null, deviceKey });
  return deviceKey;
}

const publicPart = (key: string) => key.split('.')[0]!;
const asksMfa = (r: { result: Result }) => expect(r.result.session?.challengeName).toBe('SMS_MFA');

async function devicesOf(app: TestApp, username: string, id: string | null) {
  const r = await app.graphql<any>(
    `{ user(id: "${username}") { devices { deviceKey name remembered } } }`,
    {},
    as(id),
  );
  return r.body.data.user.devices as { deviceKey: string; name: string; remembered: boolean }[];
}

describe('remembering a device after MFA', () => {
  it('on the user’s opt-in, gives the device a secret that skips MFA at its next sign-in, kept only as a hash', async () => {
    const phone = await smsUser('rue');
    // Without the opt-in nothing is remembered: the key is the public one, and MFA is asked again.
    const plain = await signInWithMfa(optIn, 'rue', phone);
    expect(plain.deviceKey).toMatch(/^[0-9a-f-]{36}$/);
    asksMfa(await signIn(optIn, 'rue', plain.deviceKey));

    const { deviceKey, id } = await signInWithMfa(optIn, 'rue', phone, {
      deviceKey: plain.deviceKey,
      remember: true,
    });
    expect(deviceKey).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    expect(publicPart(deviceKey)).toBe(plain.deviceKey);
    const [key, secret] = deviceKey.split('.') as [string, string];
    // The list and the session show the public key only; the store has the secret's SHA-256 only.
    expect(await devicesOf(optIn, 'rue', id)).toEqual([{ deviceKey: key, name: 'Laptop', remembered: true }]);
    const session = await optIn.graphql<any>('{ session { deviceKey } }', {}, as(id));
    expect(session.body.data.session.deviceKey).toBe(key);
    const row = await database.db
      .selectFrom('devices')
      .select(['secret_hash', 'remembered'])
      .where('device_key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ remembered: true, secret_hash: createHash('sha256').update(secret).digest() });
    const dump = await sql<{ t: string }>`select concat_ws(' ',
      (select string_agg(d::text, ' ') from devices d), (select string_agg(s::text, ' ') from sessions s),
      (select string_agg(e::text, ' ') from auth_events e)) as t`.execute(database.db);
    expect(dump.rows[0]!.t).not.toContain(secret);

    // The next sign-in with the whole key skips MFA, on the same device, and shows the key again.
    const next = await signIn(optIn, 'rue', deviceKey);
    expect(next.result.errors).toEqual([]);
    expect(next.result.session).toEqual({ authenticated: true, challengeName: null, deviceKey });
    const events = await database.db
      .selectFrom('auth_events')
      .select(['event', 'detail'])
      .where('username', '=', 'rue')
      .where('event', 'in', ['device_remembered', 'sign_in'])
      .orderBy('id', 'desc')
      .limit(3)
      .execute();
    expect(events.map((e) => [e.event, e.detail])).toEqual([
      ['sign_in', { clientType: 'EXPLORER', deviceKey: key, rememberedDevice: true }],
      ['device_remembered', { deviceKey: key }],
      ['sign_in', { clientType: 'EXPLORER', deviceKey: key }],
    ]);
  });

  it('with "always", remembers every device that completes MFA', async () => {
    const phone = await smsUser('ali');
    const { deviceKey } = await signInWithMfa(always, 'ali', phone);
    expect(deviceKey).toContain('.');
    expect((await signIn(always, 'ali', deviceKey)).result.session?.authenticated).toBe(true);
  });

  it('with "off", remembers nothing, and a device remembered before skips nothing', async () => {
    const phone = await smsUser('oz');
    const { deviceKey } = await signInWithMfa(off, 'oz', phone, { remember: true });
    expect(deviceKey).not.toContain('.');
    const remembered = await rememberedDevice('oz', phone);
    asksMfa(await signIn(off, 'oz', remembered));
  });

  it('gives no secret to a user without MFA: there is nothing for it to stand in for', async () => {
    await createUser(database.db, optIn.config.secret, {
      username: 'nomfa',
      groups: ['acme'],
      password: PASSWORD,
    });
    const first = await signIn(always, 'nomfa');
    expect(first.result.session?.authenticated).toBe(true);
    expect(first.result.session!.deviceKey).not.toContain('.');
  });

  it('ends after its maximum age, 30 days by default', async () => {
    const phone = await smsUser('max');
    const deviceKey = await rememberedDevice('max', phone);
    optIn.clock.advance(30 * DAY - 60_000);
    expect((await signIn(optIn, 'max', deviceKey)).result.session?.authenticated).toBe(true);
    optIn.clock.advance(60_000);
    asksMfa(await signIn(optIn, 'max', deviceKey));
  });
});

describe('what does not skip MFA', () => {
  it('the device key without its secret, or with a wrong one; such a sign-in is on a new device', async () => {
    const phone = await smsUser('kit');
    const deviceKey = await rememberedDevice('kit', phone);
    const key = publicPart(deviceKey);
    for (const presented of [
      key,
      `${key}.`,
      `${key}.${'A'.repeat(43)}`,
      `${key}.${deviceKey.split('.')[1]!.slice(1)}`,
    ]) {
      const r = await signIn(optIn, 'kit', presented);
      asksMfa(r);
    }
    const other = await signInWithMfa(optIn, 'kit', phone, { deviceKey: key });
    expect(publicPart(other.deviceKey)).not.toBe(key);
    // The remembered device itself still works with its whole key.
    expect((await signIn(optIn, 'kit', deviceKey)).result.session?.authenticated).toBe(true);
  });

  it('another user’s device key, whole', async () => {
    const phone = await smsUser('ivy');
    const herKey = await rememberedDevice('ivy', phone);
    const otherPhone = await smsUser('ike');
    asksMfa(await signIn(optIn, 'ike', herKey));
    const his = await signInWithMfa(optIn, 'ike', otherPhone, { deviceKey: herKey });
    expect(publicPart(his.deviceKey)).not.toBe(publicPart(herKey));
  });

  it('a forgotten device', async () => {
    const phone = await smsUser('fay');
    const deviceKey = await rememberedDevice('fay', phone);
    const { id } = await signIn(optIn, 'fay', deviceKey);
    const forget = await optIn.graphql<any>(
      'mutation($k: [String!]!) { forgetDevices(input: { deviceKeys: $k }) { errors { type } } }',
      { k: [publicPart(deviceKey)] },
      as(id),
    );
    expect(forget.body.data.forgetDevices.errors).toEqual([]);
    asksMfa(await signIn(optIn, 'fay', deviceKey));
  });

  it('a disabled user', async () => {
    const phone = await smsUser('dee');
    const deviceKey = await rememberedDevice('dee', phone);
    await disableUser(database.db, 'dee');
    const r = await signIn(optIn, 'dee', deviceKey);
    expect(r.result).toEqual({ errors: [{ type: 'USER_DISABLED' }], session: null });
    expect(r.id).toBeNull();
  });

  it('a device remembered before a password change', async () => {
    const phone = await smsUser('cy');
    const deviceKey = await rememberedDevice('cy', phone);
    const { id } = await signIn(optIn, 'cy', deviceKey);
    const changed = await optIn.graphql<any>(
      `mutation { changePassword(input: { currentPassword: "${PASSWORD}", newPassword: "cy's new passphrase" }) { errors { type } } }`,
      {},
      as(id),
    );
    expect(changed.body.data.changePassword.errors).toEqual([]);
    asksMfa(await signIn(optIn, 'cy', deviceKey, "cy's new passphrase"));
  });

  it('a device remembered before a password reset', async () => {
    const phone = await smsUser('rae');
    const deviceKey = await rememberedDevice('rae', phone);
    await optIn.graphql('mutation { forgotPassword(input: { loginUsername: "rae" }) { errors { type } } }');
    let code: string | undefined;
    for (let i = 0; i < 100 && !code; i++) {
      const m = await database.db
        .selectFrom('outbox')
        .select('body')
        .where('recipient', '=', phone)
        .where('body', 'like', '%reset code%')
        .executeTakeFirst();
      code = m && /(\d{6})/.exec(m.body)![1]!;
      if (!code) await new Promise((r) => setTimeout(r, 20));
    }
    const reset = await optIn.graphql<any>(
      `mutation($c: String!) { forgotPasswordSubmit(input: { loginUsername: "rae", confirmationCode: $c, password: "rae's new passphrase" }) { errors { type } session { challengeName } } }`,
      { c: code },
    );
    expect(reset.body.data.forgotPasswordSubmit).toEqual({
      errors: [],
      session: { challengeName: 'SMS_MFA' },
    });
    asksMfa(await signIn(optIn, 'rae', deviceKey, "rae's new passphrase"));
  });

  it('a device remembered before the user’s MFA was reset, once MFA is set up again', async () => {
    const phone = await smsUser('moe');
    const deviceKey = await rememberedDevice('moe', phone);
    await resetMfa(database.db, 'moe', true);
    const setup = await signIn(optIn, 'moe', deviceKey);
    expect(setup.result.session?.challengeName).toBe('MFA_SETUP');
    const assoc = await optIn.graphql<any>(
      'mutation { associateSoftwareToken { softwareToken { secret } } }',
      {},
      as(setup.id),
    );
    const secret: string = assoc.body.data.associateSoftwareToken.softwareToken.secret;
    const oathtool = requireTool(['oathtool'], {
      package: 'oathtool',
      for: 'checking TOTP codes independently',
    });
    const now = optIn.clock
      .now()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC');
    const code = execFileSync(oathtool, ['--totp', '-b', '--now', now, secret], { encoding: 'utf8' }).trim();
    const done = await optIn.graphql<{ confirmSignIn: Result }>(
      CONFIRM,
      { code, t: 'MFA_SETUP' },
      as(setup.id),
    );
    expect(done.body.data!.confirmSignIn.session?.authenticated).toBe(true);
    expect(
      (await devicesOf(optIn, 'moe', done.headers.get('x-svc-sessionid'))).map((d) => d.remembered),
    ).toEqual([false]);
    optIn.clock.advance(60_000);
    const again = await signIn(optIn, 'moe', deviceKey);
    expect(again.result.session?.challengeName).toBe('SOFTWARE_TOKEN_MFA');
  });
});
