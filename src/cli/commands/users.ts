import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import { configuredMessenger } from '../../subgraphs/auth/messaging/configured.ts';
import { createUser, disableUser, listUsers, resetMfa } from '../../subgraphs/auth/users.ts';
import { withDatabase } from '../database.ts';
import { UsageError } from '../errors.ts';

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export function usersCommands(cli: Command): void {
  const users = cli.command('users').description('manage users');

  users
    .command('add <username>')
    .description('create a user; prints the user and, with --mfa totp, the TOTP secret and otpauth:// URI')
    .requiredOption(
      '--group <group>',
      'a group (tenant) the user belongs to; repeat for several',
      collect,
      [],
    )
    .option('--password <password>', 'the password (prefer --password-stdin)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--email <email>')
    .option('--phone <phone>', 'E.164, e.g. +15551234567')
    .option('--mfa <kind>', 'totp or sms')
    .option('--require-mfa', 'make the user set up TOTP at the next sign-in (MFA_SETUP)')
    .option('--require-new-password', 'make the user choose a new password at the next sign-in')
    .action(async (username: string, o) => {
      if (Boolean(o.password) === Boolean(o.passwordStdin))
        throw new UsageError('give exactly one of --password and --password-stdin');
      if (o.mfa && o.mfa !== 'totp' && o.mfa !== 'sms') throw new UsageError('--mfa takes totp or sms');
      const password = o.password ?? (await text(process.stdin)).replace(/\r?\n$/, '');
      // The secret seals TOTP seeds: the same ASSETQL_SECRET as the server's must be set.
      const created = await withDatabase((d, secret) =>
        createUser(d.db, secret, {
          username,
          groups: o.group,
          password,
          email: o.email,
          phone: o.phone,
          mfa: o.mfa,
          requireMfa: o.requireMfa,
          requireNewPassword: o.requireNewPassword,
        }),
      );
      print(created);
    });

  users
    .command('list')
    .description('list users and their groups')
    .action(async () => {
      print(await withDatabase((d) => listUsers(d.db)));
    });

  users
    .command('disable <username>')
    .description('disable a user, ending all its sessions, API keys and export links at once')
    .action(async (username: string) => {
      print({ username, disabled: true, ...(await withDatabase((d) => disableUser(d.db, username))) });
    });

  users
    .command('reset-mfa <username>')
    .description("remove a user's MFA (with --require-mfa, they set it up again at the next sign-in)")
    .option('--require-mfa')
    .action(async (username: string, o) => {
      // The user hears of it by the server's mail or SMS settings (the outbox without them).
      const result = await withDatabase(async (d, _secret, config) => {
        const messenger = configuredMessenger(config, d.db);
        try {
          return await resetMfa(d.db, username, Boolean(o.requireMfa), { messenger });
        } finally {
          messenger.close();
        }
      });
      if (result.noticeError) process.stderr.write(`the user could not be told: ${result.noticeError}\n`);
      print({ username, mfa: null, mfaRequired: Boolean(o.requireMfa), notified: result.notified });
    });
}

function collect(value: string, previous: string[]) {
  return [...previous, value];
}
