import type { Command } from 'commander';
import { withDatabase } from './users.ts';

export function outboxCommand(cli: Command): void {
  cli
    .command('outbox')
    .description('show mail and SMS kept in the outbox (where no SMTP server or SMS provider is configured)')
    .option('--to <address>', 'only messages to this address or phone number')
    .option('--json', 'one JSON object per line')
    .option('--limit <n>', 'newest n messages', '20')
    .action(async (o: { to?: string; json?: boolean; limit: string }) => {
      const rows = await withDatabase(async (d) => {
        let q = d.db
          .selectFrom('outbox')
          .selectAll()
          .orderBy('id', 'desc')
          .limit(Math.max(1, Number(o.limit) || 20));
        if (o.to) q = q.where('recipient', '=', o.to);
        return (await q.execute()).reverse();
      });
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
