import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { program } from './cli.ts';

const OPERATIONS = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

/** Every command with its full name (`users add`), depth first. */
function commands(cli: Command, prefix = ''): { name: string; command: Command }[] {
  return cli.commands.flatMap((c) => {
    const name = `${prefix}${c.name()}`;
    return [{ name, command: c }, ...commands(c, `${name} `)];
  });
}

describe('the command line’s documentation', () => {
  it('documents the output of every command with --json (docs/operations.md)', () => {
    const withJson = commands(program()).filter(({ command }) =>
      command.options.some((o) => o.long === '--json'),
    );
    expect(withJson.map((c) => c.name)).toContain('outbox');
    for (const { name } of withJson) expect(OPERATIONS, `${name} --json`).toContain(`| \`${name} --json\` |`);
  });

  it('documents what every command prints (docs/operations.md)', () => {
    const leaves = commands(program()).filter(({ command }) => command.commands.length === 0);
    for (const { name } of leaves.filter((c) => c.name !== 'serve'))
      expect(OPERATIONS, name).toContain(`| \`${name}\` |`);
  });

  it('defines every field of the import summary in docs/operations.md (the help: cli.e2e.ts)', () => {
    for (const field of ['rows', 'inserted', 'updated', 'unchanged', 'method'])
      expect(OPERATIONS).toMatch(new RegExp(`^\\| \`${field}\` \\| \\S`, 'm'));
  });
});
