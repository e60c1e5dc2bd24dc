import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  getOperationAST,
  type VariableDefinitionNode,
} from 'graphql';
import type { DocumentCache } from './document-cache.ts';
import { PerOperation } from './per-operation.ts';
import { parsedJsonBody } from './request-body.ts';

/**
 * Operations answered once through a server's whole per-request pipeline (Yoga's, or the gateway
 * runtime's) that may be answered again without it: documents that passed parsing, validation
 * and every document limit, whose operation was executed, so that nothing the pipeline decided by
 * the document can come out differently for another request. What a request adds of its own (its
 * body, its variables, its caller, its tenant's turn) is still checked for each one. The gateway
 * prepares the operations one subgraph answers alone or that are joined
 * (gateway/plugins/use-prepared-operations.ts); a subgraph, those our gateway sends it
 * (shared/subgraph.ts).
 *
 * Kept with the parsed document, which the document cache keeps by its text and bounds by size:
 * an operation is found by the text of a request only while the cache still holds its document,
 * and nothing here outlives it.
 */
export class PreparedOperations<S> {
  readonly #documents: DocumentCache;
  /** Each operation's decision, made once: null for one that is not kept (variables, a subscription). */
  readonly #operations = new PerOperation<PreparedOperation<S> | null>();
  readonly #variables: boolean;

  /**
   * With `variables`, operations that take variables are kept too: for a pipeline that decides
   * nothing by a request's variables that the prepared path does not decide again (a subgraph's,
   * whose execution coerces, limits and prices them itself; the gateway's, whose prepared path
   * checks them as its pipeline does).
   */
  constructor(documents: DocumentCache, options: { variables?: boolean } = {}) {
    this.#documents = documents;
    this.#variables = options.variables ?? false;
  }

  /**
   * Notes that `document`'s operation `operationName` was executed, alone, by `subgraph` after
   * the whole pipeline passed it, against `schema` (whose types its variables are coerced to);
   * only an operation without variables is kept, unless the constructor allowed them.
   */
  record(
    document: DocumentNode,
    operationName: string | null | undefined,
    subgraph: S,
    schema?: GraphQLSchema,
  ): void {
    this.#operations.get(document, operationName, () => {
      const operation = getOperationAST(document, operationName);
      if (
        !operation ||
        operation.operation === 'subscription' ||
        (operation.variableDefinitions?.length && !this.#variables)
      )
        return null;
      return {
        document,
        operationName: operationName ?? null,
        name: operation.name?.value ?? null,
        type: operation.operation,
        variableDefinitions: operation.variableDefinitions ?? [],
        subgraph,
        ...(schema ? { schema } : {}),
      };
    });
  }

  /** The prepared operation for a request's query text and operation name, if there is one. */
  find(query: string, operationName: string | null): PreparedOperation<S> | undefined {
    const document = this.#documents.get(query);
    if (document === undefined || document instanceof Error) return undefined;
    return this.#operations.peek(document, operationName) ?? undefined;
  }
}

/**
 * What the prepared path hands the pipeline with a request it has executed but will not answer
 * itself (the result has errors, which the pipeline's hooks shape): the pipeline shows this result
 * rather than executing the operation again.
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
  /** A query or a mutation (subscriptions are never prepared). */
  type: 'query' | 'mutation';
  /** What its variables must be: none when it takes none. */
  variableDefinitions: readonly VariableDefinitionNode[];
  subgraph: S;
  /** The schema the pipeline executed it against, when {@link PreparedOperations.record} was given it. */
  schema?: GraphQLSchema;
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
  // Clients send the same few values again and again: each decided once. A value longer than any
  // browser's, or one past the first 64 seen since the last clearing, is decided anew.
  if (accept === null || accept.length > MEDIA_TYPE_MEMO_LENGTH) return mediaTypeFor(accept);
  let chosen = mediaTypes.get(accept);
  if (chosen === undefined) {
    chosen = mediaTypeFor(accept);
    if (mediaTypes.size >= MEDIA_TYPE_MEMO_SIZE) mediaTypes.clear();
    mediaTypes.set(accept, chosen);
  }
  return chosen;
}

const MEDIA_TYPE_MEMO_SIZE = 64;
const MEDIA_TYPE_MEMO_LENGTH = 256;
const mediaTypes = new Map<string, string | null>();

function mediaTypeFor(accept: string | null): string | null {
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

/** What a request asks of a prepared operation, when it asks nothing the pipeline must look at. */
export interface PreparedRequest {
  query: string;
  operationName: string | null;
  /** The variables, when they were asked for ({@link preparedRequest}'s `variables`) and given. */
  variables?: Record<string, unknown>;
  /** The media type to answer with, as Yoga would choose it. */
  mediaType: string;
}

/**
 * The query text, operation name and answer's media type of a POST whose JSON body
 * (shared/request-body.ts) holds nothing else the pipeline would have to look at: no variables
 * (or none given: `null`, `{}`) unless `variables` allows them as a JSON object, no extensions,
 * no other field; whose `Accept` Yoga answers with one JSON document; and whose `Content-Length`
 * Yoga's own bound accepts. Undefined otherwise.
 */
export function preparedRequest(
  request: Request,
  options: { variables?: boolean } = {},
): PreparedRequest | undefined {
  if (request.method !== 'POST') return undefined;
  const body = parsedJsonBody(request);
  if (!body || !('params' in body)) return undefined;
  const params = plainParams(body.params, options.variables ?? false);
  if (!params) return undefined;
  const mediaType = regularMediaType(request.headers.get('accept'));
  if (!mediaType || !yogaReadsLength(request.headers.get('content-length'))) return undefined;
  return { ...params, mediaType };
}

/**
 * Yoga's own body bound (graphql-yoga 5's `useLimitRequestBodySize`, on by default): it refuses a
 * `Content-Length` that is not one decimal number (400) or is over 25,000,000 (413). Such a
 * request takes the pipeline, for its refusal; node's HTTP parser refuses most of them first.
 */
const YOGA_MAX_BODY_BYTES = 25_000_000;
function yogaReadsLength(length: string | null): boolean {
  return length === null || (/^\d+$/.test(length) && Number(length) <= YOGA_MAX_BODY_BYTES);
}

function plainParams(
  params: Record<string, unknown>,
  allowVariables: boolean,
): { query: string; operationName: string | null; variables?: Record<string, unknown> } | undefined {
  let query: string | undefined;
  let operationName: string | null = null;
  let variables: Record<string, unknown> | undefined;
  for (const key in params) {
    const value = params[key];
    if (key === 'query') {
      if (typeof value !== 'string') return undefined;
      query = value;
    } else if (key === 'operationName') {
      if (value !== null && value !== undefined && typeof value !== 'string') return undefined;
      operationName = value ?? null;
    } else if (key === 'variables') {
      if (value === null || value === undefined) continue;
      if (typeof value !== 'object' || Array.isArray(value)) return undefined;
      if (allowVariables) variables = value as Record<string, unknown>;
      else for (const _ in value) return undefined;
    } else {
      return undefined;
    }
  }
  if (query === undefined) return undefined;
  return variables ? { query, operationName, variables } : { query, operationName };
}

/** An answer's body as Yoga writes a result without errors: its own serialiser when it has one (a compiled one). */
export function resultText(result: ExecutionResult): string {
  const stringify = (result as { stringify?: (r: unknown) => string }).stringify ?? JSON.stringify;
  return stringify(result);
}
