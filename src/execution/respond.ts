import type { ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { parsedJsonBody } from './request-body.ts';

/**
 * How a request is read by a door that skips Yoga's pipeline (the gateway's, a subgraph's early
 * one), and how its answer is written: exactly as Yoga would, so that no client can tell the door
 * its request came in by.
 */

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
  const chosen = answerMediaType(accept);
  return chosen && REGULAR.includes(chosen) ? chosen : null;
}

/**
 * The media type Yoga answers with for this `Accept` header (an event stream included), or null
 * when nothing matches (406).
 */
function answerMediaType(accept: string | null): string | null {
  // Clients send the same few values again and again: each decided once, the 64 most recent kept.
  // A value longer than any browser's is decided anew; none at all is Yoga's default.
  if (accept === null) return NO_ACCEPT;
  if (accept.length > MEDIA_TYPE_MEMO_LENGTH) return mediaTypeFor(accept);
  let kept = mediaTypes.get(accept);
  if (kept === undefined) {
    kept = { chosen: mediaTypeFor(accept) };
    mediaTypes.set(accept, kept);
  }
  return kept.chosen;
}

const MEDIA_TYPE_MEMO_LENGTH = 256;
/** What a request without an `Accept` header is answered with (as one accepting anything). */
const NO_ACCEPT = mediaTypeFor(null);
const mediaTypes = new LRUCache<string, { chosen: string | null }>({ max: 64 });

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
  return chosen;
}

/** Whether the asked type (`*` allowed on either side of the slash) covers the offered one. */
function matches(offered: string, asked: string): boolean {
  const [offeredType, offeredSub] = offered.split('/');
  const [type, sub] = asked.split('/');
  return (type === '*' || type === offeredType) && (sub === '*' || sub === offeredSub);
}

/** What a plain request asks, when it asks nothing Yoga's pipeline must look at. */
export interface PlainRequest {
  query: string;
  operationName: string | null;
  /** The variables, when given. */
  variables?: Record<string, unknown>;
  /** The media type to answer with, as Yoga would choose it. */
  mediaType: string;
}

/**
 * The query text, operation name, variables and answer's media type of a POST whose JSON body
 * (request-body.ts) holds nothing else the pipeline would have to look at: variables, if any, a
 * JSON object, no extensions, no other field; whose `Accept` Yoga answers with one JSON document;
 * and whose `Content-Length` Yoga's own bound accepts. Undefined otherwise.
 *
 * `resolve`, at the gateway, first turns the body's parameters into the ones the request runs (a
 * trusted document's text in place of its id: trusted-documents.ts), or undefined for a request
 * the pipeline must answer (refused, or not one it knows).
 */
export function plainRequest(
  request: Request,
  resolve?: (params: Record<string, unknown>) => Record<string, unknown> | undefined,
  options: { eventStream?: boolean } = {},
): PlainRequest | undefined {
  if (request.method !== 'POST') return undefined;
  const body = parsedJsonBody(request);
  if (!body || !('params' in body)) return undefined;
  const given = resolve && !Array.isArray(body.params) ? resolve(body.params) : body.params;
  if (!given) return undefined;
  const params = plainParams(given);
  if (!params) return undefined;
  const accept = request.headers.get('accept');
  const mediaType =
    regularMediaType(accept) ??
    (options.eventStream && answerMediaType(accept) === EVENT_STREAM ? EVENT_STREAM : null);
  if (!mediaType || !yogaReadsLength(request.headers.get('content-length'))) return undefined;
  return { ...params, mediaType };
}

/**
 * What a client asking for GraphQL over SSE (distinct connections mode) is answered with: with
 * `plainRequest`'s `eventStream`, a request whose `Accept` Yoga answers with an event stream is
 * plain too, its media type this.
 */
export const EVENT_STREAM = 'text/event-stream';

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
      variables = value as Record<string, unknown>;
    } else {
      return undefined;
    }
  }
  if (query === undefined) return undefined;
  return variables ? { query, operationName, variables } : { query, operationName };
}

/**
 * What every answer's errors get before they are written, at the gateway and in every subgraph
 * (Yoga's `onResultProcess`; {@link respond} for a door that writes its own answer):
 *
 * HTTP 400 whatever the `Accept` header for a request that is not a GraphQL request at all (a
 * body that is not JSON, no body, params that are not an object: Yoga's `BAD_REQUEST`) or that a
 * limit refused (`extensions.limit`, docs/security.md). GraphQL over HTTP lets a server answer
 * request errors 200 under the legacy `application/json`, and Yoga does, marking them
 * `http.spec`; for these two kinds assetql follows Apollo Server instead, which answers 400
 * under every media type, so that the status alone tells a client, a proxy or a log that the
 * request was wrong. Parse, validation and variable errors keep the documented behaviour
 * (docs/schema.md §13). Nothing quotes server internals: Yoga's copy of the JSON parser's own
 * message (quoting the body, under `extensions.originalError`) is dropped from every error.
 */
export function finishErrors(result: unknown): void {
  for (const one of Array.isArray(result) ? result : [result]) {
    if (!one || typeof one !== 'object') continue;
    // Errors first: an answer passed on as a subgraph's JSON text has none, and reading its
    // `data` would parse the text only to look at it (transports/http.ts, passedOn).
    const errors = (one as { errors?: readonly { extensions?: Record<string, unknown> }[] }).errors;
    if (!errors?.length) continue;
    const requestError = (one as { data?: unknown }).data == null;
    for (const error of errors) {
      const extensions = error.extensions;
      if (!extensions) continue;
      delete extensions.originalError;
      if (!requestError) continue;
      const http = extensions.http as { spec?: boolean; status?: number } | undefined;
      if (http?.spec && (extensions.code === 'BAD_REQUEST' || extensions.limit !== undefined))
        extensions.http = { ...http, spec: false, status: http.status ?? 400 };
    }
  }
}

/** {@link finishErrors} as the Yoga plugin the gateway and every subgraph run. */
export function useFinishedErrors() {
  return {
    onResultProcess({ result }: { result: unknown }) {
      finishErrors(result);
    },
  };
}

/**
 * The answer to a result, as Yoga writes one that is not a stream: its errors finished
 * ({@link finishErrors}), its status from them (graphql-yoga's `processRegularResult`), of the
 * server adapter's own response class.
 */
export function respond(
  result: ExecutionResult,
  mediaType: string,
  Response: { new (body?: BodyInit | null, init?: ResponseInit): Response },
): Response {
  finishErrors(result);
  return processRegularResult(result, { Response } as never, mediaType) as Response;
}
