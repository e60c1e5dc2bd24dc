import type { AuthCore } from './core.ts';
import { type SecurityNotice, sendNotice } from './messaging/notices.ts';
import { contactOf } from './repository/users.ts';

/**
 * Tells the user about a change to how they sign in (ASVS 2.2.3), after the reply and off
 * the request's path. Sending can fail (a mail server down, a mailbox refused): the change
 * stands, and the failure is logged.
 */
export function notify(core: AuthCore, username: string, notice: SecurityNotice, ip: string | null): void {
  const at = core.clock.now();
  const work = async () => {
    const contact = await contactOf(core.db, username);
    if (contact) await sendNotice(core.messenger, contact, notice, { username, at, ip });
  };
  work().catch((err) =>
    core.log.error({ err, username, notice: notice.kind }, 'security notice could not be sent'),
  );
}
