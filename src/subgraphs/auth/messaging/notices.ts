import type { Message, Messenger } from './messenger.ts';

/**
 * A change to how a user signs in, told to the user afterwards (ASVS 2.2.3 / 2.5.5) so that a
 * change they did not make does not go unnoticed. A notice names what changed, when and from
 * which address; it never carries a code, a password or a key.
 */
export type SecurityNotice =
  | { kind: 'password_changed'; otherSessionsEnded: boolean }
  | { kind: 'password_reset' }
  | { kind: 'mfa_setup' }
  | { kind: 'mfa_removed'; setUpAgain: boolean }
  | { kind: 'api_key_created'; apiKeyId: string; group: string };

/** Where and when the change happened. */
export interface NoticeContext {
  username: string;
  at: Date;
  /** The client address; null for administration commands. */
  ip: string | null;
}

/** Where a user can be told: email when they have one, else a text message. */
export interface Contact {
  email: string | null;
  phone: string | null;
}

const NOT_YOU_PASSWORD =
  'If you did not do this, reset your password now (Forgot password) and tell your administrator.';

/** The subject and text of a notice; the first line of `body` is what a text message says. */
export function noticeText(notice: SecurityNotice, c: NoticeContext): { subject: string; body: string } {
  const when = `on ${c.at.toISOString()}${c.ip ? ` from address ${c.ip}` : ''}`;
  const account = `your assetql account ${c.username}`;
  switch (notice.kind) {
    case 'password_changed':
      return {
        subject: 'Your assetql password was changed',
        body: lines(
          `The password of ${account} was changed ${when}.`,
          notice.otherSessionsEnded ? 'Your other sessions were signed out; API keys still work.' : null,
          NOT_YOU_PASSWORD,
        ),
      };
    case 'password_reset':
      return {
        subject: 'Your assetql password was reset',
        body: lines(
          `The password of ${account} was reset with a code sent to you, ${when}.`,
          'Every session was signed out; API keys still work.',
          NOT_YOU_PASSWORD,
        ),
      };
    case 'mfa_setup':
      return {
        subject: 'Two-step verification was set up for your assetql account',
        body: lines(
          `An authenticator app was set up for two-step verification of ${account} ${when}.`,
          NOT_YOU_PASSWORD,
        ),
      };
    case 'mfa_removed':
      return {
        subject: 'Two-step verification was removed from your assetql account',
        body: lines(
          `An administrator removed two-step verification from ${account} ${when}.`,
          notice.setUpAgain ? 'You will be asked to set it up again at your next sign-in.' : null,
          'If you did not ask for this, tell your administrator.',
        ),
      };
    case 'api_key_created':
      return {
        subject: 'A new API key was created for your assetql account',
        body: lines(
          `API key "${notice.apiKeyId}" for group ${notice.group} was created for ${account} ${when}.`,
          'If you did not do this, revoke the key and reset your password now, and tell your administrator.',
        ),
      };
  }
}

/**
 * Sends a notice to the user's email address, or by text message when they have none; does
 * nothing (and answers false) when they have neither. A failed send rejects: callers decide
 * that it must not fail what the user did.
 */
export async function sendNotice(
  messenger: Messenger,
  contact: Contact,
  notice: SecurityNotice,
  context: NoticeContext,
): Promise<boolean> {
  const { subject, body } = noticeText(notice, context);
  let message: Message;
  if (contact.email) message = { channel: 'email', to: contact.email, subject, body };
  else if (contact.phone) message = { channel: 'sms', to: contact.phone, body: body.split('\n')[0]! };
  else return false;
  await messenger.send(message);
  return true;
}

function lines(...parts: (string | null)[]): string {
  return parts.filter((p): p is string => p !== null).join('\n');
}
