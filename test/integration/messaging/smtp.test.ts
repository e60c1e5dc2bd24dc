/**
 * smtpMessenger against a real SMTP peer (smtp-server on 127.0.0.1, plain text, no STARTTLS):
 * what arrives in the envelope and the message, and how refusals surface.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Message, Messenger } from '../../../src/subgraphs/auth/messaging/messenger.ts';
import { routingMessenger } from '../../../src/subgraphs/auth/messaging/routing.ts';
import { type SmtpMessenger, smtpMessenger } from '../../../src/subgraphs/auth/messaging/smtp.ts';
import { type ReceivedMail, type SmtpPeer, startSmtpPeer } from '../../helpers/smtp.ts';

const USER = 'mailer';
const PASS = 'smtp-secret-Pa55word';
const FROM = 'no-reply@assetql.test';

let peer: SmtpPeer;
let port: number;
let received: ReceivedMail[];
const messengers: SmtpMessenger[] = [];

function messenger(url = `smtp://${USER}:${PASS}@127.0.0.1:${port}`, from = FROM): SmtpMessenger {
  const m = smtpMessenger({ url, from });
  messengers.push(m);
  return m;
}

beforeAll(async () => {
  peer = await startSmtpPeer({ user: USER, pass: PASS });
  port = peer.port;
});

afterAll(async () => {
  for (const m of messengers) m.close();
  await peer.close();
});

beforeEach(() => {
  peer.received.length = 0;
  received = peer.received;
});

describe('smtpMessenger', () => {
  it('delivers an email message with envelope, subject and plain-text body', async () => {
    await messenger().send({
      channel: 'email',
      to: 'alice@example.test',
      subject: 'Reset your assetql password',
      body: 'Your assetql password reset code is 123456. It is valid for 15 minutes.',
    });

    expect(received).toHaveLength(1);
    const [mail] = received;
    expect(mail!.from).toBe(FROM);
    expect(mail!.to).toEqual(['alice@example.test']);
    expect(mail!.user).toBe(USER);
    expect(mail!.raw).toMatch(/^Subject: Reset your assetql password\r?$/m);
    expect(mail!.raw).toMatch(/^From: no-reply@assetql\.test\r?$/m);
    expect(mail!.raw).toMatch(/^To: alice@example\.test\r?$/m);
    expect(mail!.raw).toMatch(/^Content-Type: text\/plain/m);
    expect(mail!.raw).toContain('Your assetql password reset code is 123456. It is valid for 15 minutes.');
  });

  it('reuses one pooled transport for several messages', async () => {
    const m = messenger();
    await Promise.all(
      ['a', 'b', 'c'].map((n) =>
        m.send({ channel: 'email', to: `${n}@example.test`, subject: n, body: `body ${n}` }),
      ),
    );
    expect(received.map((r) => r.to[0]).sort()).toEqual([
      'a@example.test',
      'b@example.test',
      'c@example.test',
    ]);
    await m.send({ channel: 'email', to: 'd@example.test', subject: 'again', body: 'after the others' });
    expect(received).toHaveLength(4);
  });

  it('takes a display name in the From address and works without credentials', async () => {
    await messenger(`smtp://127.0.0.1:${port}`, 'assetql <no-reply@assetql.test>').send({
      channel: 'email',
      to: 'bob@example.test',
      subject: 'Hello',
      body: 'Hi Bob',
    });
    expect(received[0]!.from).toBe(FROM);
    expect(received[0]!.user).toBeUndefined();
    expect(received[0]!.raw).toMatch(/^From: assetql <no-reply@assetql\.test>\r?$/m);
  });

  it('rejects when the server refuses the recipient', async () => {
    const send = messenger().send({ channel: 'email', to: 'carol@blocked.test', subject: 'x', body: 'y' });
    await expect(send).rejects.toThrow(/Mailbox unavailable/);
    await expect(send).rejects.toMatchObject({ responseCode: 550 });
    expect(received).toHaveLength(0);
  });

  it('rejects on wrong credentials without repeating the password', async () => {
    const send = messenger(`smtp://${USER}:wrong-${PASS}@127.0.0.1:${port}`).send({
      channel: 'email',
      to: 'dave@example.test',
      subject: 'x',
      body: 'y',
    });
    const err = await send.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toMatch(/Invalid login/);
    const serialized = JSON.stringify(err, Object.getOwnPropertyNames(err)) + String((err as Error).stack);
    expect(serialized).not.toContain(PASS);
    expect(received).toHaveLength(0);
  });

  it('refuses sms messages and recipients that are not a single address, without connecting', async () => {
    const before = peer.connections();
    const m = messenger();
    await expect(m.send({ channel: 'sms', to: '+15555550100', body: 'code' })).rejects.toThrow(/email only/);
    for (const to of [
      'a@example.test, b@example.test',
      'Eve <eve@example.test>',
      'x@example.test\r\nBcc: y@z',
    ]) {
      await expect(m.send({ channel: 'email', to, subject: 's', body: 'b' })).rejects.toThrow(/single/);
    }
    expect(peer.connections()).toBe(before);
    expect(received).toHaveLength(0);
  });

  it('verifies the configuration', async () => {
    await expect(messenger().verify()).resolves.toBeUndefined();
    await expect(messenger(`smtp://${USER}:nope@127.0.0.1:${port}`).verify()).rejects.toThrow(
      /Invalid login/,
    );
  });
});

describe('routingMessenger', () => {
  it('sends email over SMTP and every channel without a messenger to the fallback', async () => {
    const parked: Message[] = [];
    const outbox: Messenger = {
      async send(m) {
        parked.push(m);
      },
    };
    const routed = routingMessenger({ email: messenger(), fallback: outbox });

    await routed.send({
      channel: 'email',
      to: 'erin@example.test',
      subject: 'Code',
      body: 'Mail code 111111',
    });
    await routed.send({ channel: 'sms', to: '+15555550100', body: 'SMS code 222222' });

    expect(received).toHaveLength(1);
    expect(received[0]!.raw).toContain('Mail code 111111');
    expect(parked).toEqual([{ channel: 'sms', to: '+15555550100', body: 'SMS code 222222' }]);
  });

  it('fails the send when the configured messenger fails, instead of parking the message', async () => {
    const parked: Message[] = [];
    const routed = routingMessenger({
      email: messenger(),
      fallback: {
        async send(m) {
          parked.push(m);
        },
      },
    });
    await expect(
      routed.send({ channel: 'email', to: 'frank@blocked.test', subject: 'x', body: 'y' }),
    ).rejects.toThrow(/Mailbox unavailable/);
    expect(parked).toEqual([]);
  });
});
