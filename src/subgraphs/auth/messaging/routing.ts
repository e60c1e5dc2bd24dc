import type { Message, Messenger } from './messenger.ts';

export interface RoutingMessengerOptions {
  /** Delivers `email` messages, e.g. smtpMessenger(...). */
  email?: Messenger | undefined;
  /** Delivers `sms` messages, e.g. smsMessenger(twilioSmsSender(...)). */
  sms?: Messenger | undefined;
  /** Takes the channels with no messenger of their own: the outbox. */
  fallback: Messenger;
}

/**
 * Sends each message to the messenger configured for its channel, else to the fallback. A
 * configured messenger that fails fails the send: a code is never quietly parked in the outbox
 * when the user expects it by mail or text.
 */
export function routingMessenger(options: RoutingMessengerOptions): Messenger {
  const { email, sms, fallback } = options;
  return {
    send(message: Message) {
      const routed = message.channel === 'email' ? email : message.channel === 'sms' ? sms : undefined;
      return (routed ?? fallback).send(message);
    },
  };
}
