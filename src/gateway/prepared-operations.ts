import { type DocumentNode, type ExecutionResult, getOperationAST } from 'graphql';
import type { DocumentCache } from '../shared/document-cache.ts';

/**
 * Operations the gateway has answered through the runtime's whole pipeline and may answer again
 * without it (plugins/use-prepared-operations.ts): documents that passed parsing, validation and
 * every document limit, whose operation one subgraph answers alone (in this process or over HTTP) and takes
 * no variables, so that nothing the pipeline decided for them can come out differently for another
 * request. What a request adds of its own (its body, its session, its tenant's turn) is checked
 * for every request by the HTTP hooks, which the prepared path does not skip.
 *
 * Kept with the parsed document, which the gateway's document cache keeps by its text and bounds
 * by size: an operation is found by the text of a request only while the cache still holds its
 * document, and nothing here outlives it.
 */
export class PreparedOperations<S> {
  readonly #documents: DocumentCache;
  readonly #byDocument = new WeakMap<DocumentNode, Map<string | null, PreparedOperation<S>>>();

  constructor(documents: DocumentCache) {
    this.#documents = documents;
  }

  /**
   * Notes that `document`'s operation `operationName` was executed, alone, by `subgraph` after
   * the whole pipeline passed it; only an operation without variables is kept.
   */
  record(document: DocumentNode, operationName: string | null | undefined, subgraph: S): void {
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation === 'subscription' || operation.variableDefinitions?.length) return;
    let byName = this.#byDocument.get(document);
    if (!byName) {
      byName = new Map();
      this.#byDocument.set(document, byName);
    }
    const key = operationName ?? null;
    if (!byName.has(key))
      byName.set(key, { document, operationName: key, name: operation.name?.value ?? null, subgraph });
  }

  /** The prepared operation for a request's query text and operation name, if there is one. */
  find(query: string, operationName: string | null): PreparedOperation<S> | undefined {
    const document = this.#documents.get(query);
    if (document === undefined || document instanceof Error) return undefined;
    return this.#byDocument.get(document)?.get(operationName);
  }
}

/**
 * What the prepared path hands the runtime's pipeline with a request it has executed but will not
 * answer itself (the result has errors, which the pipeline's hooks shape): direct execution shows
 * this result rather than executing the operation again.
 */
export interface PreparedContext {
  preparedResult?: ExecutionResult;
}

export interface PreparedOperation<S> {
  document: DocumentNode;
  /** As the client names it (null when it does not). */
  operationName: string | null;
  /** The operation's own name, as the metrics record it. */
  name: string | null;
  subgraph: S;
}

const REGULAR = ['application/graphql-response+json', 'application/json'];
/** Yoga's result processors in the order it tries them, the last that matches winning. */
const PROCESSORS = [['text/event-stream'], ['multipart/mixed'], REGULAR];

/**
 * The media type Yoga answers a result that is not a stream with, for this `Accept` header, or
 * null when it would not answer it as one JSON document (an event stream, a multipart answer, or
 * 406 when nothing matches). The same steps as graphql-yoga 5's result processors
 * (`use-result-processor.js`, `result-processor/accept.js`): only `charset=utf-8` (or none)
 * counts, the types are tried last to first, and the last match wins.
 */
export function regularMediaType(accept: string | null): string | null {
  const asked: string[] = [];
  for (const one of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = one.split(';');
    const charset = params.find((p) => p.includes('charset=')) || 'charset=utf-8';
    if (charset === 'charset=utf-8') asked.push(type!);
  }
  asked.reverse();
  let chosen: string | null = null;
  for (const processor of PROCESSORS)
    for (const type of asked) for (const offered of processor) if (matches(offered, type)) chosen = offered;
  return chosen && REGULAR.includes(chosen) ? chosen : null;
}

/** Whether the asked type (`*` allowed on either side of the slash) covers the offered one. */
function matches(offered: string, asked: string): boolean {
  const [offeredType, offeredSub] = offered.split('/');
  const [type, sub] = asked.split('/');
  return (type === '*' || type === offeredType) && (sub === '*' || sub === offeredSub);
}
