import { createRequire } from 'node:module';
import type { Message, Messenger } from './messenger.ts';

export interface SmtpMessengerOptions {
  /**
   * Connection URL, as nodemailer reads it: `smtp://user:pass@host:587` (STARTTLS when the
   * server offers it), `smtps://user:pass@host:465` (TLS from the start). Query parameters set
   * further transport options, e.g. `?requireTLS=true` or `?tls.rejectUnauthorized=false`.
   */
  url: string;
  /** The From address, e.g. `assetql <no-reply@example.com>`; also the envelope sender. */
  from: string;
}

/** A Messenger that owns pooled SMTP connections: close() it on shutdown. */
export interface SmtpMessenger extends Messenger {
  /** Connects and authenticates once, to check the configuration at startup. */
  verify(): Promise<void>;
  /** Closes the pooled connections; sending afterwards opens new ones. */
  close(): void;
}

/** A single plain address: no display name, no list, no whitespace or line breaks. */
const SINGLE_ADDRESS = /^[^\s@,;:<>()[\]"\\]+@[^\s@,;:<>()[\]"\\]+$/;

/**
 * Sends `email` messages through an SMTP server, as plain text. One pooled transport is reused
 * for every message. `sms` messages are refused: route them elsewhere (see routingMessenger).
 */
export function smtpMessenger(options: SmtpMessengerOptions): SmtpMessenger {
  // Keys of the URL win over these; the timeouts keep a dead server from holding up a sign-in
  // for nodemailer's defaults of two (connect) and ten (idle socket) minutes.
  // nodemailer (~20 MB resident) loads only when mail goes out by SMTP.
  const { createTransport } = createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer');
  const transport = createTransport({
    url: options.url,
    pool: true,
    maxConnections: 2,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  });

  return {
    async send(message: Message) {
      if (message.channel !== 'email') {
        throw new Error(`smtpMessenger sends email only, not ${message.channel} messages`);
      }
      // The recipient comes from a user record: never let it turn into several addresses.
      if (!SINGLE_ADDRESS.test(message.to)) {
        throw new Error('smtpMessenger: the recipient is not a single plain email address');
      }
      await transport.sendMail({
        from: options.from,
        to: message.to,
        subject: message.subject ?? '',
        text: message.body,
      });
    },
    async verify() {
      await transport.verify();
    },
    close() {
      transport.close();
    },
  };
}
