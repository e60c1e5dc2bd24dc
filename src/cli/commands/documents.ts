import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildSchema } from 'graphql';
import type { Kysely } from 'kysely';
import { type Config, loadConfig, SUBGRAPH_NAMES } from '../../config/index.ts';
import { readManifest } from '../../execution/manifest.ts';
import { sha256Hex, type TrustedDocument } from '../../execution/trusted-documents.ts';
import { composeApiSchema } from '../../gateway/composition.ts';
import { TYPE_DEFS } from '../../server/app.ts';
import type { Tables } from '../../storage/tables.ts';
import {
  type AppliedDocuments,
  applyTrustedDocuments,
  readTrustedDocuments,
} from '../../storage/trusted-documents.ts';
import { withDatabase } from '../database.ts';
import { UsageError } from '../errors.ts';

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/**
 * The documents of a manifest file (Apollo's persisted query manifest), each checked against the
 * service's schema and its limits (src/execution/manifest.ts); throws what is wrong with them.
 */
export async function manifestDocuments(
  file: string,
  config: Pick<Config, 'documentLimits'>,
): Promise<TrustedDocument[]> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    // A missing file or a syntax error is the user's to fix: the message says where.
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const schema = buildSchema(
    await composeApiSchema(
      SUBGRAPH_NAMES.map((name) => ({
        name,
        typeDefs: TYPE_DEFS[name],
        url: `http://${name}.invalid/graphql`,
      })),
    ),
  );
  const { maxBodyBytes, maxTokens } = config.documentLimits;
  return readManifest(json, { maxBodyBytes, maxTokens, schema });
}

/**
 * Applies a manifest file's documents to the deployment's database, all or none: what
 * `assetql documents apply` does (and tests call on a database of their own). Servers read them
 * at their next start.
 */
export async function applyManifest(
  db: Kysely<Tables>,
  file: string,
  config: Pick<Config, 'documentLimits'>,
  options: { replace?: boolean } = {},
): Promise<AppliedDocuments> {
  return applyDocuments(db, await manifestDocuments(file, config), options);
}

function applyDocuments(
  db: Kysely<Tables>,
  documents: readonly TrustedDocument[],
  options: { replace?: boolean },
): Promise<AppliedDocuments> {
  const stored = documents.map((d) => ({ ...d, sha256: sha256Hex(d.body) }));
  return applyTrustedDocuments(db, stored, options);
}

export function documentsCommands(cli: Command): void {
  const documents = cli
    .command('documents')
    .description("trusted documents: the operations this deployment's own clients send");

  documents
    .command('apply <file>')
    .description(
      "apply a persisted query manifest (Apollo's apollo-persisted-query-manifest format), each document validated against the schema, all or none; servers read them when they start",
    )
    .option('--replace', 'also remove the applied documents the manifest does not hold')
    .action(async (file: string, o: { replace?: boolean }) => {
      // Checked before the database is opened: a wrong manifest changes nothing.
      const checked = await manifestDocuments(file, loadConfig());
      const applied = await withDatabase((d) => applyDocuments(d.db, checked, o));
      print({ ...applied, file });
    });

  documents
    .command('list')
    .description('list the applied documents: id, name and type')
    .action(async () => {
      const rows = await withDatabase((d) => readTrustedDocuments(d.db));
      print(rows.map(({ id, name, type }) => ({ id, name, type })));
    });
}
