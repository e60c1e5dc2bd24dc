import { GraphQLError } from 'graphql';
import type { Plugin as EnvelopPlugin } from 'graphql-yoga';
import { ClientGoneError } from '../shared/errors.ts';

/**
 * A GraphQL request's body, read once (the gateway before anything else; a subgraph reached
 * over HTTP or in process as its first step) within a bound, and parsed once.
 *
 * Yoga reads a body itself: it pipes it through its own 25-MB limit into a new stream and a new
 * request, reads that into a buffer, decodes it and parses the JSON. Here the bytes are read
 * (stopping at the bound), decoded and, for a JSON body, parsed by {@link useReadBody}'s request
 * parser, and the request goes on without its bytes, of the class it came as. A small request
 * such as `{ session { authenticated } }` spent a sixth of its CPU on Yoga's reading.
 */

/** A request whose body was read: the request to go on with, and the bytes it carried (its URL's too). */
export interface ReadBody {
  request: Request;
  bytes: number;
}

/**
 * The largest body a subgraph reads: Yoga's own bound, which it had before. A subgraph's requests
 * come from routers as much as from clients, and a router's entity fetch for a page of related
 * assets lists every one of them: the client's `maxBodyBytes` is no bound for what a plan sends.
 */
export const SUBGRAPH_MAX_BODY_BYTES = 25_000_000;

/** The code of a request body over `maxBodyBytes`, answered with HTTP 413. */
const BODY_LIMIT_CODE = 'PAYLOAD_TOO_LARGE';

/** The 413 answer to a body over `maxBodyBytes`; nothing of it is parsed. */
export function bodyTooLarge(maximum: number): Response {
  return Response.json(
    {
      errors: [
        {
          message: `The request body is larger than ${maximum} bytes.`,
          extensions: { code: BODY_LIMIT_CODE, limit: 'maxBodyBytes', maximum },
        },
      ],
    },
    { status: 413 },
  );
}

/** Requests node's HTTP parser read, which delivers no more of a body than its Content-Length. */
const heldToLength = new WeakSet<Request>();

/**
 * Notes that `request` came through node's HTTP parser (server/listen.ts), so that a body of a
 * declared length within the bound is read whole by {@link readBody}.
 */
export function heldToDeclaredLength(request: Request): void {
  heldToLength.add(request);
}

/** The JSON bodies read, by the request that goes on without them. */
const jsonBodies = new WeakMap<Request, string>();

/** What each request read by {@link readBody} carried (its body and URL), by the request that goes on. */
const carried = new WeakMap<Request, number>();

/**
 * The bytes `request` carried when {@link readBody} read it (its body, or a GET's URL): the
 * variables are part of them, so when they fit `maxVariablesBytes` the variables do too, and need
 * not be written out again to be measured.
 */
export function bodyBytes(request: Request): number | undefined {
  return carried.get(request);
}

/**
 * The request with its body read into memory, or null when the body (as declared, or as it
 * arrives) is over `maximum` bytes: reading stops there, so a huge upload costs no more.
 */
export async function readBody(request: Request, maximum: number): Promise<ReadBody | null> {
  try {
    return await read(request, maximum);
  } catch (e) {
    // A client that closes its connection half-way through its body has gone: not a fault here.
    if (request.signal.aborted || (e as { code?: unknown }).code === 'ECONNRESET')
      throw new ClientGoneError(e);
    throw e;
  }
}

async function read(request: Request, maximum: number): Promise<ReadBody | null> {
  if (request.url.length > maximum) return null;
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maximum) return null;
  let chunks: Uint8Array[];
  let size = 0;
  if (declared > 0 && heldToLength.has(request)) {
    // A declared length within the bound, which node's HTTP parser holds the body to: the bytes
    // are read whole, without a stream and a read per chunk. A request made in process is held
    // to nothing and streams through the bound below.
    const whole = (await request.arrayBuffer()) as ArrayBuffer | Uint8Array;
    const bytes = ArrayBuffer.isView(whole) ? whole : new Uint8Array(whole);
    chunks = [bytes];
    size = bytes.byteLength;
  } else {
    if (!request.body) {
      const bytes = Buffer.byteLength(request.url);
      carried.set(request, bytes);
      return { request, bytes };
    }
    const reader = request.body.getReader();
    chunks = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maximum) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  }
  const text = decodeChunks(chunks);
  const json = isJsonPost(request);
  // Handed on as text rather than one more copy of the bytes (under a stream of large bodies,
  // half the full collections); a JSON body not at all, its text kept for the request parser.
  const Ctor = request.constructor as typeof Request;
  const read = new Ctor(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    ...(json ? {} : { body: text }),
  });
  if (json) jsonBodies.set(read, text);
  const bytes = size + Buffer.byteLength(request.url);
  carried.set(read, bytes);
  return { request: read, bytes };
}

/**
 * A Yoga plugin that takes the GraphQL parameters of a request {@link readBody} read from its
 * text: wherever `readBody` hands requests to a Yoga, that Yoga must run this plugin (without it,
 * a JSON request arrives without a body).
 */
export function useReadBody(): EnvelopPlugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      const parsed = parsedJsonBody(request);
      if (parsed === undefined) {
        // A GET, read as Yoga reads it but for malformed JSON in `variables` or `extensions`:
        // the client's mistake (400), not a SyntaxError answered and logged as the server's
        // fault. (A form POST, Yoga's other query-string reader, is refused first: CSRF, 403.)
        if (request.method === 'GET') setRequestParser(() => searchParams(queryString(request.url)));
        return;
      }
      setRequestParser(() => {
        if ('error' in parsed) throw parsed.error;
        return parsed.params;
      });
    },
  };
}

/** A URL's query string, as Yoga's GET reader takes it. */
function queryString(url: string): string {
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

/**
 * The GraphQL parameters of a query string, as Yoga's `handleURLSearchParams` reads them, but for
 * `variables` or `extensions` that are not JSON: a request error naming the parameter (400
 * `BAD_REQUEST`, as a POST body that is not JSON is answered) rather than Yoga's SyntaxError.
 */
export function searchParams(query: string): Record<string, unknown> {
  const search = new URLSearchParams(query);
  return {
    operationName: search.get('operationName') || undefined,
    query: search.get('query') || undefined,
    variables: jsonParameter(search, 'variables'),
    extensions: jsonParameter(search, 'extensions'),
  };
}

function jsonParameter(search: URLSearchParams, name: 'variables' | 'extensions'): unknown {
  const text = search.get(name);
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    throw new GraphQLError(`${name} is not valid JSON.`, {
      extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
    });
  }
}

/** A JSON body's parameters, or the refusal its text earns (kept until the request is let go). */
type ParsedBody = { params: Record<string, unknown> } | { error: unknown };
const parsedBodies = new WeakMap<Request, ParsedBody>();

/**
 * The parameters of a JSON body {@link readBody} read, parsed once whoever asks first (the
 * gateway's or a subgraph's prepared operations, then Yoga's request parser); undefined for a
 * request with no such body. The text is dropped once parsed: the request, kept while its answer
 * streams, need not keep it too.
 */
export function parsedJsonBody(request: Request): ParsedBody | undefined {
  let parsed = parsedBodies.get(request);
  if (parsed) return parsed;
  const text = jsonBodies.get(request);
  if (text === undefined) return undefined;
  jsonBodies.delete(request);
  try {
    parsed = { params: parseJsonBody(text) };
  } catch (error) {
    parsed = { error };
  }
  parsedBodies.set(request, parsed);
  return parsed;
}

/**
 * A POST whose body is JSON: `application/json` or `application/graphql+json`, parameters
 * (`charset`) aside, in any case (media types are case-insensitive; Yoga's own test is not, and
 * answered `Application/JSON` with 415).
 */
function isJsonPost(request: Request): boolean {
  if (request.method !== 'POST') return false;
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/graphql+json';
}

/**
 * The GraphQL parameters of a JSON body, refused as Yoga's own JSON reader refuses them (same
 * messages, codes and statuses), so that a request read here answers as one Yoga read.
 */
function parseJsonBody(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new GraphQLError('POST body sent invalid JSON.', {
      extensions: {
        http: { spec: true, status: 400 },
        code: 'BAD_REQUEST',
        originalError: { name: (e as Error).name, message: (e as Error).message },
      },
    });
  }
  if (body === null || typeof body !== 'object') {
    throw new GraphQLError(
      `POST body is expected to be object but received ${body === null ? 'null' : typeof body}`,
      { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } },
    );
  }
  return body as Record<string, unknown>;
}

function decodeChunks(chunks: Uint8Array[]): string {
  const decoder = new TextDecoder();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
