import type { Kysely } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';

export interface Message {
  channel: 'email' | 'sms';
  to: string;
  subject?: string;
  body: string;
}

/** Sends sign-in codes and password-reset codes. */
export interface Messenger {
  send(message: Message): Promise<void>;
}

/**
 * Keeps messages in the `outbox` table, where `assetql outbox` shows them: for demo and tests,
 * and wherever no SMTP server or SMS provider is configured.
 */
export function outboxMessenger(db: Kysely<Tables>): Messenger {
  return {
    async send(m) {
      await db
        .insertInto('outbox')
        .values({ channel: m.channel, recipient: m.to, subject: m.subject ?? null, body: m.body })
        .execute();
    },
  };
}
