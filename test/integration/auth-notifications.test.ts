/**
 * Security notices (ASVS 2.2.3) through a configured SMTP server: a real SMTP peer (smtp-server
 * on 127.0.0.1) receives them, and refuses mailboxes at blocked.test, which must not undo or
 * fail what the user did.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type SmtpPeer, startSmtpPeer } from '../helpers/smtp.ts';

let peer: SmtpPeer;
let logLines: string[] = [];
let t: TestApp;

beforeAll(async () => {
  peer = await startSmtpPeer();
  const port = peer.port;
  const log = pino({ level: 'error' }, { write: (line: string) => void logLines.push(line) });
  t = await startTestApp({
    config: { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'no-reply@assetql.test', trustProxy: true },
    log,
  });
});

afterAll(async () => {
  await t.close();
  await peer.close();
});

const FROM = { 'x-forwarded-for': '198.51.100.23' };

async function signIn(username: string, password: string) {
  const r = await t.graphql<any>(
    `mutation($u: String!, $p: String!) { signIn(input: { loginUsername: $u, password: $p, clientApplicationType: EXPLORER }) {
      errors { type } session { authenticated } } }`,
    { u: username, p: password },
    FROM,
  );
  expect(r.body.data.signIn.errors).toEqual([]);
  return r.headers.get('x-svc-sessionid')!;
}

async function changePassword(id: string, current: string, next: string) {
  const r = await t.graphql<any>(
    `mutation($c: String!, $n: String!) { changePassword(input: { currentPassword: $c, newPassword: $n }) {
      errors { type } session { authenticated } } }`,
    { c: current, n: next },
    { ...FROM, 'x-svc-sessionid': id },
  );
  return r.body.data.changePassword;
}

async function until<T>(what: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = what();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('gave up waiting');
}

describe('security notices by SMTP (ASVS 2.2.3)', () => {
  it('mails the user after a password change, naming when and from where, and records the address on the session', async () => {
    await createUser(t.database.db, t.config.secret, {
      username: 'olga',
      groups: ['acme'],
      password: 'correct horse battery',
      email: 'olga@example.com',
    });
    const id = await signIn('olga', 'correct horse battery');
    const sessions = await t.graphql<any>(
      '{ user(id: "olga") { sessions { ipAddress current } } }',
      {},
      {
        'x-svc-sessionid': id,
      },
    );
    expect(sessions.body.data.user.sessions).toEqual([{ ipAddress: '198.51.100.23', current: true }]);

    expect(await changePassword(id, 'correct horse battery', 'olga’s new passphrase')).toEqual({
      errors: [],
      session: { authenticated: true },
    });
    const mail = await until(() => peer.received.find((m) => m.to.includes('olga@example.com')));
    expect(mail.raw).toMatch(/^Subject: Your assetql password was changed$/m);
    expect(mail.raw).toMatch(/^From: no-reply@assetql\.test$/m);
    // Undo quoted-printable's soft line breaks.
    expect(mail.raw.replaceAll('=\r\n', '')).toContain(
      `The password of your assetql account olga was changed on ${t.clock.now().toISOString()} from address 198.51.100.23.`,
    );
    expect(mail.raw).not.toContain('passphrase');
    // Sent by SMTP, so not parked in the outbox as well.
    const outbox = await t.database.db.selectFrom('outbox').selectAll().execute();
    expect(outbox).toEqual([]);
  });

  it('changes the password when the mail server refuses the notice, and logs the failure', async () => {
    await createUser(t.database.db, t.config.secret, {
      username: 'otto',
      groups: ['acme'],
      password: 'correct horse battery',
      email: 'otto@blocked.test',
    });
    const id = await signIn('otto', 'correct horse battery');
    logLines = [];
    peer.received.length = 0;
    expect(await changePassword(id, 'correct horse battery', 'otto’s new passphrase')).toEqual({
      errors: [],
      session: { authenticated: true },
    });
    const line = await until(() => logLines.find((l) => l.includes('security notice could not be sent')));
    expect(JSON.parse(line)).toMatchObject({
      level: 50,
      username: 'otto',
      notice: 'password_changed',
      err: { message: expect.stringContaining('Mailbox unavailable') },
    });
    expect(line).not.toContain('passphrase');
    expect(peer.received).toEqual([]);
    expect(await signIn('otto', 'otto’s new passphrase')).toBeTruthy();
  });
});
