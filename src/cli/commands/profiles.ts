import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import {
  applyProfiles,
  getProfileDocument,
  type ProfileInput,
} from '../../subgraphs/assets/profiles/profiles.service.ts';
import { withDatabase } from '../database.ts';
import { UsageError } from '../errors.ts';

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Reads profile documents: one object, an array, or `{ "profiles": [...] }`, in JSON or YAML. */
export async function readProfiles(file: string): Promise<ProfileInput[]> {
  let parsed: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    parsed = /\.ya?ml$/i.test(file) ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (e) {
    // A missing file or a syntax error is the user's to fix: the message says where.
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : ((parsed as { profiles?: unknown })?.profiles ?? [parsed]);
  if (
    !Array.isArray(list) ||
    list.some((p) => typeof p !== 'object' || p === null || typeof (p as ProfileInput).profile !== 'string')
  ) {
    throw new UsageError(
      `${file}: expected a profile document (with "profile" and "title"), or a list of them`,
    );
  }
  return list as ProfileInput[];
}

export function profilesCommands(cli: Command): void {
  const profiles = cli.command('profiles').description('define asset profiles');

  profiles
    .command('apply <file>')
    .description(
      'create or replace the profiles in a JSON or YAML file, all or none, after validating them together',
    )
    .requiredOption('--group <group>', 'the group (tenant) the profiles belong to')
    .option('--owner <username>', 'owner of new profiles', 'admin')
    .action(async (file: string, o: { group: string; owner: string }) => {
      const inputs = await readProfiles(file);
      const outcome = await withDatabase((d) => applyProfiles(d.db, o.group, o.owner, inputs));
      if (!outcome.ok) {
        process.stderr.write(`assetql: ${outcome.type}: ${outcome.message}\n`);
        process.exitCode = 1;
        return;
      }
      print({ applied: outcome.value, group: o.group });
    });

  profiles
    .command('get <profile>')
    .description('print a profile document as stored (with its extensions)')
    .requiredOption('--group <group>')
    .action(async (profile: string, o: { group: string }) => {
      const doc = await withDatabase(async (d) => {
        await knownGroup(d.db, o.group);
        return getProfileDocument(d.db, o.group, profile);
      });
      if (!doc) {
        process.stderr.write(`assetql: no profile ${profile} in group ${o.group}\n`);
        process.exitCode = 1;
        return;
      }
      print(doc);
    });

  profiles
    .command('list')
    .description('list the profiles of a group')
    .requiredOption('--group <group>')
    .action(async (o: { group: string }) => {
      const rows = await withDatabase(async (d) => {
        await knownGroup(d.db, o.group);
        return d.db
          .selectFrom('asset_profiles')
          .select(['profile', 'title', 'version', 'updated_at as updatedAt'])
          .where('user_group', '=', o.group)
          .orderBy('profile')
          .execute();
      });
      print(rows);
    });
}

/**
 * Refuses a group nobody belongs to and nothing is kept for: a misspelt name would otherwise
 * list nothing, successfully.
 */
async function knownGroup(db: Kysely<Tables>, group: string): Promise<void> {
  const known = await db
    .selectFrom('user_groups')
    .select('user_group')
    .where('user_group', '=', group)
    .union(db.selectFrom('asset_profiles').select('user_group').where('user_group', '=', group))
    .limit(1)
    .executeTakeFirst();
  if (!known) throw new UsageError(`no group ${group} (a group is made by \`assetql users add --group\`)`);
}
