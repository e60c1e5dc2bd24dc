import type { Kysely } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';
import { type Messenger, outboxMessenger } from './messenger.ts';
import { routingMessenger } from './routing.ts';
import { smsMessenger, type TwilioOptions, twilioSmsSender } from './sms-http.ts';
import { smtpMessenger } from './smtp.ts';

export interface MessagingSettings {
  /** `ASSETQL_SMTP_URL` @default none: email goes to the outbox */
  smtpUrl?: string | undefined;
  /** `ASSETQL_MAIL_FROM` */
  mailFrom: string;
  /** Twilio credentials @default none: text messages go to the outbox */
  twilio?: TwilioOptions | undefined;
}

/**
 * The messenger the settings describe: SMTP for email and Twilio for text messages where
 * configured, the outbox table for the rest (as the server sends). close() it when done.
 */
export function configuredMessenger(
  settings: MessagingSettings,
  db: Kysely<Tables>,
): Messenger & { close(): void } {
  const smtp = settings.smtpUrl
    ? smtpMessenger({ url: settings.smtpUrl, from: settings.mailFrom })
    : undefined;
  const sms = settings.twilio ? smsMessenger(twilioSmsSender(settings.twilio)) : undefined;
  const routed = routingMessenger({ email: smtp, sms, fallback: outboxMessenger(db) });
  return {
    send: (message) => routed.send(message),
    close: () => smtp?.close(),
  };
}
