/**
 * twilioSmsSender against a local stand-in for Twilio's Messages API (node:http on 127.0.0.1):
 * the request it makes, the answers it understands, and errors that never carry the token.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Message } from './messenger.ts';
import { routingMessenger } from './routing.ts';
import { SmsDeliveryError, smsMessenger, twilioSmsSender } from './sms-http.ts';

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'twilio-auth-token-0123456789abcdef';
const FROM = '+15005550006';
const MESSAGING_SERVICE = `MG${'fedcba9876543210'.repeat(2)}`;
const SID = `SM${'a'.repeat(32)}`;

interface Seen {
  method: string | undefined;
  path: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

/** What the stand-in does with the next request; by default it plays Twilio. */
type Behaviour = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

let server: Server;
let baseUrl: string;
let seen: Seen[];
let behaviour: Behaviour;

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Twilio's checks, in its order: credentials, then the form. */
const playTwilio: Behaviour = (_req, res, s) => {
  const expectedAuth = `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`;
  if (s.method !== 'POST' || s.path !== `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`) {
    return json(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
  }
  if (s.authorization !== expectedAuth) {
    return json(res, 401, { code: 20003, message: 'Authenticate', status: 401 });
  }
  if (!s.contentType?.startsWith('application/x-www-form-urlencoded')) {
    return json(res, 400, { code: 20001, message: 'Unsupported content type', status: 400 });
  }
  if (!/^\+[1-9]\d{6,14}$/.test(s.form.To ?? '')) {
    return json(res, 400, { code: 21211, message: "Invalid 'To' Phone Number", status: 400 });
  }
  if (!s.form.From && !s.form.MessagingServiceSid) {
    return json(res, 400, {
      code: 21603,
      message: "A 'From' or 'MessagingServiceSid' parameter is required",
      status: 400,
    });
  }
  json(res, 201, { sid: SID, status: 'queued', to: s.form.To, body: s.form.Body, account_sid: ACCOUNT_SID });
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method,
        path: req.url,
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
      };
      seen.push(s);
      behaviour(req, res, s);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  behaviour = playTwilio;
});

function sender(overrides: Partial<Parameters<typeof twilioSmsSender>[0]> = {}) {
  return twilioSmsSender({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    from: FROM,
    baseUrl,
    ...overrides,
  });
}

async function failure(p: Promise<unknown>): Promise<SmsDeliveryError> {
  const err = await p.then(
    () => {
      throw new Error('expected the send to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SmsDeliveryError);
  const e = err as SmsDeliveryError;
  // Neither the message nor anything a logger would serialize carries the token.
  const everything = JSON.stringify(e, Object.getOwnPropertyNames(e)) + String(e.stack) + String(e.cause);
  expect(everything).not.toContain(AUTH_TOKEN);
  expect(everything).not.toContain(Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64'));
  return e;
}

describe('twilioSmsSender', () => {
  it('posts a form with To, From and Body under Basic auth and returns the message sid', async () => {
    const receipt = await sender().sendSms({
      to: '+14155550100',
      body: 'Your assetql sign-in code is 123456',
    });

    expect(receipt).toEqual({ id: SID });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({
      method: 'POST',
      path: `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`,
      authorization: `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`,
      contentType: expect.stringMatching(/^application\/x-www-form-urlencoded/),
      form: { To: '+14155550100', From: FROM, Body: 'Your assetql sign-in code is 123456' },
    });
  });

  it('sends a Messaging Service sid as MessagingServiceSid instead of From', async () => {
    await sender({ from: MESSAGING_SERVICE }).sendSms({ to: '+14155550100', body: 'code' });
    expect(seen[0]!.form).toEqual({
      To: '+14155550100',
      MessagingServiceSid: MESSAGING_SERVICE,
      Body: 'code',
    });
  });

  it('encodes bodies with form-significant characters intact', async () => {
    const body = 'Code: 12 & 34 = 1234 + 0; ünïcødé ✓ 100%';
    await sender().sendSms({ to: '+14155550100', body });
    expect(seen[0]!.form.Body).toBe(body);
  });

  it('tolerates a trailing slash on the base URL', async () => {
    await sender({ baseUrl: `${baseUrl}/` }).sendSms({ to: '+14155550100', body: 'x' });
    expect(seen[0]!.path).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
  });

  it("throws Twilio's code and message for a 400", async () => {
    const e = await failure(sender().sendSms({ to: '12345', body: 'code' }));
    expect(e.message).toBe("Twilio refused the SMS (HTTP 400, code 21211): Invalid 'To' Phone Number");
    expect(e.status).toBe(400);
    expect(e.providerCode).toBe(21211);
    expect(seen[0]!.form.To).toBe('12345');
  });

  it('throws on wrong credentials without naming the token', async () => {
    const e = await failure(
      sender({ authToken: `${AUTH_TOKEN}-old` }).sendSms({ to: '+14155550100', body: 'x' }),
    );
    expect(e.message).toBe('Twilio refused the SMS (HTTP 401, code 20003): Authenticate');
    expect(e.message).not.toContain(`${AUTH_TOKEN}-old`);
  });

  it('redacts the token should the provider ever echo it', async () => {
    behaviour = (_req, res) =>
      json(res, 400, { code: 99999, message: `bad credentials ${ACCOUNT_SID}:${AUTH_TOKEN}`, status: 400 });
    const e = await failure(sender().sendSms({ to: '+14155550100', body: 'x' }));
    expect(e.message).toBe(
      `Twilio refused the SMS (HTTP 400, code 99999): bad credentials ${ACCOUNT_SID}:[redacted]`,
    );
  });

  it('reports a non-JSON error page by status and a short excerpt', async () => {
    behaviour = (_req, res) => {
      res
        .writeHead(503, { 'content-type': 'text/html' })
        .end(`<html><body>${'Service Unavailable '.repeat(50)}</body></html>`);
    };
    const e = await failure(sender().sendSms({ to: '+14155550100', body: 'x' }));
    expect(e.status).toBe(503);
    expect(e.providerCode).toBeUndefined();
    expect(e.message).toMatch(/^Twilio refused the SMS \(HTTP 503\): <html><body>Service Unavailable/);
    expect(e.message.length).toBeLessThan(260);
  });

  it('rejects a 2xx answer without a sid', async () => {
    behaviour = (_req, res) => json(res, 200, { ok: true });
    const e = await failure(sender().sendSms({ to: '+14155550100', body: 'x' }));
    expect(e.message).toBe('Twilio answered HTTP 200 without a message sid');
  });

  it('times out when Twilio does not answer', async () => {
    behaviour = () => {}; // never answers
    const started = Date.now();
    const e = await failure(sender({ timeoutMs: 200 }).sendSms({ to: '+14155550100', body: 'x' }));
    expect(e.message).toBe('Twilio did not answer within 200 ms');
    expect(e.status).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('times out after 10 s by default', async () => {
    const timeout = vi.spyOn(AbortSignal, 'timeout');
    try {
      let signal: AbortSignal | null | undefined;
      const fetch: typeof globalThis.fetch = async (_url, init) => {
        signal = init?.signal;
        return new Response(JSON.stringify({ sid: SID }), { status: 201 });
      };
      await sender({ fetch }).sendSms({ to: '+14155550100', body: 'x' });
      expect(timeout).toHaveBeenCalledExactlyOnceWith(10_000);
      expect(signal).toBe(timeout.mock.results[0]!.value);
    } finally {
      timeout.mockRestore();
    }
  });

  it('reports an unreachable provider', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const e = await failure(
      sender({ baseUrl: `http://127.0.0.1:${port}` }).sendSms({ to: '+14155550100', body: 'x' }),
    );
    expect(e.message).toMatch(/^Twilio could not be reached/);
    expect(e.cause).toBeDefined();
  });
});

describe('smsMessenger and routingMessenger', () => {
  /** SMS to the Twilio sender; everything else parked in a list the test reads. */
  const routedWithParking = () => {
    const parked: Message[] = [];
    const routed = routingMessenger({
      sms: smsMessenger(sender()),
      fallback: {
        async send(m) {
          parked.push(m);
        },
      },
    });
    return { parked, routed };
  };

  it('routes sms to Twilio and email to the fallback', async () => {
    const { parked, routed } = routedWithParking();

    await routed.send({ channel: 'sms', to: '+14155550100', body: 'Your assetql sign-in code is 654321' });
    await routed.send({ channel: 'email', to: 'alice@example.test', subject: 'Reset', body: 'code 1' });

    expect(seen.map((s) => s.form)).toEqual([
      { To: '+14155550100', From: FROM, Body: 'Your assetql sign-in code is 654321' },
    ]);
    expect(parked).toEqual([
      { channel: 'email', to: 'alice@example.test', subject: 'Reset', body: 'code 1' },
    ]);
  });

  it('propagates a provider refusal instead of parking the code', async () => {
    const { parked, routed } = routedWithParking();
    await expect(routed.send({ channel: 'sms', to: 'not-a-number', body: 'x' })).rejects.toThrow(
      /code 21211/,
    );
    expect(parked).toEqual([]);
  });

  it('smsMessenger refuses email messages', async () => {
    await expect(
      smsMessenger(sender()).send({ channel: 'email', to: 'a@example.test', subject: 's', body: 'b' }),
    ).rejects.toThrow(/sms only/);
    expect(seen).toHaveLength(0);
  });
});
