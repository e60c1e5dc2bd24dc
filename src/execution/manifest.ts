import { type GraphQLSchema, Kind, parse, validate } from 'graphql';
import {
  isDocumentId,
  MAX_DOCUMENT_ID_LENGTH,
  type OperationKind,
  type TrustedDocument,
} from './trusted-documents.ts';

/**
 * Apollo's persisted query manifest (`@apollo/generate-persisted-query-manifest`, GraphOS
 * persisted query lists): the format `assetql documents apply` takes.
 *
 * ```json
 * { "format": "apollo-persisted-query-manifest", "version": 1,
 *   "operations": [{ "id": "<sha256 of body>", "name": "Wells", "type": "query", "body": "query Wells { … }" }] }
 * ```
 */
export const MANIFEST_FORMAT = 'apollo-persisted-query-manifest';

/** The most operations one manifest may hold: the gateway prepares each of them at start. */
export const MAX_MANIFEST_OPERATIONS = 10_000;

export interface ManifestLimits {
  /** The longest body (`maxBodyBytes`: no request could carry a longer one). */
  maxBodyBytes: number;
  /** The most tokens a body may hold (`maxTokens`). */
  maxTokens: number;
  /** Validated against this schema (the supergraph's API schema) when given. */
  schema?: GraphQLSchema;
}

/** A manifest that cannot be applied, with every problem found. */
export class ManifestError extends Error {
  override name = 'ManifestError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    const shown = problems.slice(0, 20);
    const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : '';
    super(`the manifest cannot be applied:\n  ${shown.join('\n  ')}${more}`);
    this.problems = problems;
  }
}

const TYPES: readonly OperationKind[] = ['query', 'mutation', 'subscription'];

/**
 * The documents of a manifest, each checked: an id as the persisted documents appendix allows,
 * unique in the manifest; a body of exactly one operation (and the fragments it spreads), named and
 * typed as the entry says, within the body and token bounds, valid against the schema when one is
 * given. Throws a {@link ManifestError} listing every problem; nothing is partly taken.
 */
export function readManifest(manifest: unknown, limits: ManifestLimits): TrustedDocument[] {
  const m = manifest as { format?: unknown; version?: unknown; operations?: unknown } | null;
  if (m === null || typeof m !== 'object' || Array.isArray(m)) throw new ManifestError(['not a JSON object']);
  const problems: string[] = [];
  if (m.format !== MANIFEST_FORMAT) problems.push(`"format" must be "${MANIFEST_FORMAT}"`);
  if (m.version !== 1) problems.push('"version" must be 1');
  if (!Array.isArray(m.operations)) problems.push('"operations" must be a list');
  else if (m.operations.length > MAX_MANIFEST_OPERATIONS)
    problems.push(`"operations" holds ${m.operations.length}; at most ${MAX_MANIFEST_OPERATIONS} are taken`);
  if (problems.length) throw new ManifestError(problems);
  const documents: TrustedDocument[] = [];
  const ids = new Set<string>();
  (m.operations as unknown[]).forEach((entry, i) => {
    const at = `operations[${i}]`;
    const found = checkEntry(entry, at, limits, problems);
    if (!found) return;
    if (ids.has(found.id)) problems.push(`${at}: id ${found.id} is given twice`);
    ids.add(found.id);
    documents.push(found);
  });
  if (problems.length) throw new ManifestError(problems);
  return documents;
}

function checkEntry(
  entry: unknown,
  at: string,
  limits: ManifestLimits,
  problems: string[],
): TrustedDocument | undefined {
  const e = entry as Record<string, unknown> | null;
  if (e === null || typeof e !== 'object' || Array.isArray(e)) {
    problems.push(`${at}: not an object`);
    return undefined;
  }
  const { id, name, type, body } = e;
  const before = problems.length;
  if (typeof id !== 'string' || !isDocumentId(id))
    problems.push(
      `${at}: "id" must be a document identifier of at most ${MAX_DOCUMENT_ID_LENGTH} characters (a hash, sha256:<hash>, or letters, digits, - . _ ~)`,
    );
  if (name !== undefined && name !== null && typeof name !== 'string')
    problems.push(`${at}: "name" must be a string`);
  if (!TYPES.includes(type as OperationKind))
    problems.push(`${at}: "type" must be query, mutation or subscription`);
  if (typeof body !== 'string' || body.length === 0)
    problems.push(`${at}: "body" must be a GraphQL document`);
  else if (Buffer.byteLength(body) > limits.maxBodyBytes)
    problems.push(`${at}: "body" is longer than maxBodyBytes (${limits.maxBodyBytes})`);
  if (problems.length > before) return undefined;
  const document = {
    id: id as string,
    name: (name as string | null) ?? null,
    type: type as OperationKind,
    body: body as string,
  };
  const wrong = bodyProblem(document, limits);
  if (wrong) {
    problems.push(`${at} (${document.name ?? document.id}): ${wrong}`);
    return undefined;
  }
  return document;
}

/** What is wrong with a document's body, if anything. */
function bodyProblem(document: TrustedDocument, limits: ManifestLimits): string | undefined {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(document.body, { maxTokens: limits.maxTokens, noLocation: true });
  } catch (e) {
    return `"body" does not parse: ${(e as Error).message}`;
  }
  const operations = parsed.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) return `"body" must hold one operation, not ${operations.length}`;
  const operation = operations[0]!;
  if ((operation.name?.value ?? null) !== document.name)
    return `"name" is ${JSON.stringify(document.name)} but the operation is named ${JSON.stringify(operation.name?.value ?? null)}`;
  if (operation.operation !== document.type)
    return `"type" is ${document.type} but the operation is a ${operation.operation}`;
  if (limits.schema) {
    const errors = validate(limits.schema, parsed);
    if (errors.length) return `not valid against the schema: ${errors[0]!.message}`;
  }
  return undefined;
}
