import { readFileSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, SUBGRAPH_NAMES } from '../config/index.ts';
import { demoCommands } from './commands/demo.ts';
import { documentsCommands } from './commands/documents.ts';
import { importCommands } from './commands/import.ts';
import { migrateCommand } from './commands/migrate.ts';
import { outboxCommand } from './commands/outbox.ts';
import { profilesCommands } from './commands/profiles.ts';
import { serveCommand } from './commands/serve.ts';
import { supergraphCommand } from './commands/supergraph.ts';
import { telemetryCommands } from './commands/telemetry.ts';
import { usersCommands } from './commands/users.ts';
import { errorReport } from './errors.ts';

/** Builds the `assetql` program; commands resolve to their exit code. */
export function program(): Command {
  const cli = new Command('assetql')
    .description('Federated GraphQL asset-management API and its authentication service')
    .version(version(), '-V, --version', 'print the version and exit')
    .showHelpAfterError()
    .exitOverride();

  cli
    .command('serve')
    .description('serve the API: everything in one process (default), one subgraph, or the gateway')
    .addOption(new Option('--subgraph <name>', 'serve only this subgraph').choices(SUBGRAPH_NAMES))
    .option('--gateway', 'serve only the gateway, reaching subgraphs at ASSETQL_SUBGRAPH_<NAME>_URL')
    .option('--port <port>', 'port to listen on (PORT) [default: 4000]')
    .option('--host <host>', 'address to listen on (HOST)')
    .action(serveCommand);

  cli.command('migrate').description('apply pending database migrations').action(migrateCommand);

  cli
    .command('supergraph')
    .description('print the composed supergraph SDL, for other Federation v2 routers')
    .option(
      '--subgraph-url <name=url...>',
      'where the router reaches a subgraph (default: ASSETQL_SUBGRAPH_<NAME>_URL, else http://localhost:<port>/…)',
    )
    .action(supergraphCommand);

  usersCommands(cli);
  profilesCommands(cli);
  outboxCommand(cli);
  importCommands(cli);
  demoCommands(cli);
  telemetryCommands(cli);
  documentsCommands(cli);
  return cli;
}

/** The version in the project's package.json (the nearest above this file: sources or a build). */
function version(): string {
  const file = findPackageJSON('..', import.meta.url);
  return file ? String(JSON.parse(readFileSync(file, 'utf8')).version) : 'unknown';
}

/**
 * Runs the program; resolves with the exit code. An error that ends a command is written to
 * stderr in one line (`assetql: <message>`), with its stack only when it is a fault of assetql
 * itself (src/cli/errors.ts).
 */
export async function run(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    process.stderr.write(errorReport(e));
    return e instanceof ConfigError ? 78 /* EX_CONFIG */ : 1;
  }
}
