import type { Message, Messenger } from './messenger.ts';

/** One text message to one phone number (E.164, e.g. `+14155550100`). */
export interface Sms {
  to: string;
  body: string;
}

/** What an SMS provider answers once it has accepted a message. */
export interface SmsReceipt {
  /** The provider's id of the message (Twilio: the `SM…` sid). */
  id: string;
}

/** An SMS provider: accepts a message for delivery, or throws. */
export interface SmsSender {
  sendSms(sms: Sms): Promise<SmsReceipt>;
}

/** A provider refused a message, or could not be reached. Carries no credentials. */
export class SmsDeliveryError extends Error {
  override name = 'SmsDeliveryError';
  /** HTTP status of the provider's answer; undefined when there was none (network, timeout). */
  readonly status: number | undefined;
  /** The provider's error code (Twilio: e.g. 21211), when it gave one. */
  readonly providerCode: number | string | undefined;

  constructor(
    message: string,
    details: { status?: number; providerCode?: number | string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.providerCode = details.providerCode;
  }
}

/** A Messenger for `sms` messages that hands them to an SMS provider; refuses `email`. */
export function smsMessenger(sender: SmsSender): Messenger {
  return {
    async send(message: Message) {
      if (message.channel !== 'sms') {
        throw new Error(`smsMessenger sends sms only, not ${message.channel} messages`);
      }
      await sender.sendSms({ to: message.to, body: message.body });
    },
  };
}

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  /**
   * The sender: a Twilio phone number (E.164) or alphanumeric sender id, sent as `From`; or a
   * Messaging Service sid (`MG` and 32 hex digits), sent as `MessagingServiceSid`.
   */
  from: string;
  /** Defaults to https://api.twilio.com; tests point it at a local stand-in. */
  baseUrl?: string;
  fetch?: typeof globalThis.fetch;
  /** Defaults to 10 s, covering the request and reading the answer. */
  timeoutMs?: number;
}

const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;

/**
 * Twilio Programmable Messaging: POST {baseUrl}/2010-04-01/Accounts/{AccountSid}/Messages.json,
 * form-encoded, HTTP Basic auth AccountSid:AuthToken. Twilio answers 201 with the message
 * resource; errors come as JSON `{ code, message, more_info, status }`.
 */
export function twilioSmsSender(options: TwilioOptions): SmsSender {
  const {
    accountSid,
    authToken,
    from,
    baseUrl = 'https://api.twilio.com',
    fetch = globalThis.fetch,
    timeoutMs = 10_000,
  } = options;
  const url = `${baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  /** Provider text goes into error messages: make sure the token can never ride along. */
  const redact = (text: string) => (authToken ? text.split(authToken).join('[redacted]') : text);

  return {
    async sendSms({ to, body }) {
      const form = new URLSearchParams({ To: to, Body: body });
      form.set(MESSAGING_SERVICE_SID.test(from) ? 'MessagingServiceSid' : 'From', from);

      let status: number | undefined;
      let text: string;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            authorization,
            accept: 'application/json',
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: form,
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        text = await response.text();
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        throw new SmsDeliveryError(
          timedOut
            ? `Twilio did not answer within ${timeoutMs} ms`
            : `Twilio could not be reached: ${redact(err instanceof Error ? err.message : String(err))}`,
          // The cause of a fetch failure names the host and the socket error, never the headers.
          { status, cause: timedOut ? undefined : err },
        );
      }

      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        // An answer that is not JSON (a proxy's error page) is read by its status alone.
        if (!(e instanceof SyntaxError)) throw e;
        json = undefined;
      }
      const fields = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;

      if (status < 200 || status > 299) {
        const code =
          typeof fields.code === 'number' || typeof fields.code === 'string' ? fields.code : undefined;
        const detail =
          typeof fields.message === 'string'
            ? fields.message
            : text.replace(/\s+/g, ' ').trim().slice(0, 200) || '(no details)';
        throw new SmsDeliveryError(
          redact(
            `Twilio refused the SMS (HTTP ${status}${code === undefined ? '' : `, code ${code}`}): ${detail}`,
          ),
          { status, providerCode: code },
        );
      }
      if (typeof fields.sid !== 'string') {
        throw new SmsDeliveryError(`Twilio answered HTTP ${status} without a message sid`, { status });
      }
      return { id: fields.sid };
    },
  };
}
