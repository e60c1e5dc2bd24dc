import type { Command } from 'commander';
import { withDatabase } from '../database.ts';
import { UsageError } from '../errors.ts';

export function outboxCommand(cli: Command): void {
  cli
    .command('outbox')
    .description('show mail and SMS kept in the outbox (where no SMTP server or SMS provider is configured)')
    .option('--to <address>', 'only messages to this address or phone number')
    .option(
      '--json',
      'one JSON object per line: {"id", "channel" ("email" or "sms"), "to", "subject" (null for SMS), "body", "createdAt"}',
    )
    .option('--limit <n>', 'newest n messages', '20')
    .action(async (o: { to?: string; json?: boolean; limit: string }) => {
      const limit = Number(o.limit);
      if (!Number.isSafeInteger(limit) || limit < 1) throw new UsageError('--limit takes a positive integer');
      const rows = await withDatabase(async (d) => {
        let q = d.db.selectFrom('outbox').selectAll().orderBy('id', 'desc').limit(limit);
        if (o.to) q = q.where('recipient', '=', o.to);
        return (await q.execute()).reverse();
      });
      // Said on stderr, so that --json output stays a (here empty) stream of JSON lines.
      if (rows.length === 0)
        process.stderr.write(o.to ? `The outbox has no message to ${o.to}.\n` : 'The outbox is empty.\n');
      for (const r of rows) {
        if (o.json) {
          process.stdout.write(
            `${JSON.stringify({ id: r.id, channel: r.channel, to: r.recipient, subject: r.subject, body: r.body, createdAt: r.created_at })}\n`,
          );
        } else {
          process.stdout.write(
            `#${r.id} ${r.created_at.toISOString()} ${r.channel} to ${r.recipient}${r.subject ? ` — ${r.subject}` : ''}\n  ${r.body}\n`,
          );
        }
      }
    });
}
