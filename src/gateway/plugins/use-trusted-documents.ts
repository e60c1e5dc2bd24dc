import { type DocumentNode, Kind, parse } from 'graphql';
import type { DocumentCache } from '../../execution/document-cache.ts';
import {
  type Caller,
  type Params,
  type Registration,
  TRUSTED_DOCUMENT_CODES,
  type TrustedDocument,
  type TrustedDocuments,
} from '../../execution/trusted-documents.ts';
import { ANONYMOUS, type Identity } from '../../shared/identity.ts';
import type { Logger } from '../../shared/logger.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import type { HttpContext, Plugin } from '../http.ts';
import type { ExecutionContext } from './use-execution.ts';
import type { IdentityContext } from './use-session-identity.ts';

/**
 * Whether a caller holds the explorer's right: a session signed in as the `EXPLORER` client (the
 * query explorer, the web console), which may run any document where only trusted ones run
 * (`ASSETQL_TRUSTED_DOCUMENTS=require`). API keys and the mobile clients run their apps' documents.
 */
export function holdsExplorerRight(identity: Identity | undefined): boolean {
  return identity?.kind === 'session' && identity.clientType === 'EXPLORER';
}

/** The GET parameters the appendix and Relay name a document by, which Yoga's GET reader leaves out. */
const ID_PARAMETERS = ['documentId', 'doc_id'] as const;

/** The text this request's APQ extension would register, until it has passed parse and validation. */
export interface TrustedDocumentsContext {
  pendingRegistration?: Registration | undefined;
}

type Context = Partial<IdentityContext> & ExecutionContext & TrustedDocumentsContext;

export interface TrustedDocumentsPlugin extends Plugin<Context> {
  /**
   * The parameters a request's body runs, for the fast door (plugins/use-execution.ts): resolved as
   * the pipeline resolves them, or undefined when the pipeline must answer it (a refusal, a miss).
   */
  resolve(params: Params, context: Context): Params | undefined;
  /**
   * The request's document has parsed and validated (the fast door found it validated): the text
   * its APQ extension sent, if any, is registered now, and never before.
   */
  validated(context: Context): void;
  /**
   * Prepares every trusted document ahead, as its first request would: parsed, validated and its
   * route decided by the gateway's own pipeline through `fetch` (the runtime's), each kept in the
   * document cache for good, so that none pays a first sight. A document that no longer validates
   * is logged and not kept.
   */
  prepare(fetch: (request: Request, context: HttpContext & Context) => Promise<Response>): Promise<void>;
}

/**
 * Trusted documents at the gateway (docs/security.md#trusted-documents): every request's
 * parameters are resolved by {@link TrustedDocuments} before anything parses them, at the
 * runtime's pipeline (`onParams`, for every request it reads: POST, GET, batches) and at the fast
 * door (`resolve`): an id becomes its text, APQ registers a text, and where only trusted documents
 * run any other text is refused unless the caller holds the explorer's right.
 */
export function useTrustedDocuments(options: {
  documents: TrustedDocuments;
  cache: DocumentCache;
  graphqlPath: string;
  log: Logger;
  metrics?: Metrics;
}): TrustedDocumentsPlugin {
  const { documents, cache, log } = options;
  const metrics = options.metrics ?? NO_METRICS;
  const callerOf = (context: Context): Caller => ({ explorer: holdsExplorerRight(context.identity) });
  // Apollo Server's order: a text is registered only once it has parsed and validated (its
  // execute or subscribe hook, past every document limit), so junk never takes a slot.
  const validated = (context: Context | undefined) => {
    const pending = context?.pendingRegistration;
    if (!pending) return;
    context.pendingRegistration = undefined;
    documents.register(pending);
  };

  return {
    onParams({ params, request, setParams, context }) {
      let given = params as Params;
      if (request.method === 'GET' && request.url.includes('?')) given = withUrlIds(given, request.url);
      const resolution = documents.resolve(given, callerOf(context as Context));
      if ('refused' in resolution) {
        // APQ's answers that ask for the text (or for none) are not refusals.
        const code = String(resolution.refused.extensions.code);
        if (code !== TRUSTED_DOCUMENT_CODES.notFound && code !== TRUSTED_DOCUMENT_CODES.notSupported)
          metrics.refusal('trusted_document', code);
        throw resolution.refused;
      }
      // Each operation of a batch has a context of its own (Yoga's `Object.create`).
      (context as Context).pendingRegistration = resolution.register;
      if (resolution.params !== params) setParams(resolution.params as typeof params);
    },
    onExecute({ args }) {
      validated(args.contextValue as Context);
    },
    onSubscribe({ args }) {
      validated(args.contextValue as Context);
    },
    resolve(params, context) {
      const resolution = documents.resolve(params, callerOf(context));
      if (!('params' in resolution)) return undefined;
      context.pendingRegistration = resolution.register;
      return resolution.params;
    },
    validated,
    async prepare(fetch) {
      const started = performance.now();
      let prepared = 0;
      for (const document of documents.documents) {
        cache.pin(document.body);
        for (const operationName of operationNames(document)) {
          const request = new Request(new URL(options.graphqlPath, 'http://localhost'), {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
            body: JSON.stringify({ query: document.body, operationName }),
          });
          const context = {
            pathname: options.graphqlPath,
            remoteAddress: undefined,
            identity: ANONYMOUS,
            execution: { preparing: true },
          } as HttpContext & Context;
          const answer = (await (await fetch(request, context)).json()) as { errors?: { message: string }[] };
          if (answer.errors?.length) {
            log.warn(
              { document: document.id, operationName, error: answer.errors[0]!.message },
              'a trusted document does not validate against the schema: its clients are refused',
            );
            prepared--;
            break;
          }
        }
        prepared++;
      }
      if (prepared)
        log.info(
          { documents: prepared, ms: Math.round(performance.now() - started) },
          'trusted documents prepared',
        );
    },
  };
}

/** The parameters with the document ids a GET's URL carries, if any. */
function withUrlIds(params: Params, url: string): Params {
  const search = new URL(url).searchParams;
  let out = params;
  for (const name of ID_PARAMETERS) {
    const value = search.get(name);
    if (value !== null) out = { ...out, [name]: value };
  }
  return out;
}

/**
 * The operation names a document is asked for by: each operation's name, and no name when it has
 * only one (Relay sends `doc_id` without `operationName`).
 */
function operationNames(document: TrustedDocument): (string | null)[] {
  let parsed: DocumentNode;
  try {
    parsed = parse(document.body, { noLocation: true });
  } catch (e) {
    // Checked when applied; a body that no longer parses is prepared as sent, for its error.
    if (!(e instanceof Error)) throw e;
    return [document.name];
  }
  const names: (string | null)[] = [];
  for (const d of parsed.definitions)
    if (d.kind === Kind.OPERATION_DEFINITION) names.push(d.name?.value ?? null);
  if (names.length === 1 && names[0] !== null) names.push(null);
  return names;
}
