import { GraphQLError } from 'graphql';
import type { DocumentLimits } from '../../config/index.ts';
import { costError, documentShapeLimits, limitError } from '../../shared/document-limits.ts';
import { isGraphQLError } from '../../shared/mask-error.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import { RESPONSE_TOO_LARGE } from '../../shared/response-budget.ts';
import type { Plugin } from '../http.ts';

/** The code of a request body over `maxBodyBytes`, answered with HTTP 413. */
const BODY_LIMIT_CODE = 'PAYLOAD_TOO_LARGE';

/** The code Hive Gateway's demand control refuses an operation with. */
const DEMAND_CONTROL_CODE = 'COST_ESTIMATED_TOO_EXPENSIVE';

/**
 * Refuses requests too large or too complex to be honest work (docs/security.md): a body over
 * `maxBodyBytes` before anything of it is parsed; documents too deep, with too many aliases,
 * directives or tokens (src/shared/document-limits.ts, the same rules every subgraph applies);
 * field suggestions when introspection is off; and `variables` too large or too deeply nested.
 * Batches are bounded by the runtime's `batching` option, the cost by its `demandControl`
 * ({@link demandControl}), whose refusal this gives the shape of every other limit.
 */
export function useDocumentLimits(
  limits: DocumentLimits,
  introspection: boolean,
  metrics: Metrics = NO_METRICS,
): Plugin[] {
  const refused = (limit: string) => metrics.refusal('document_limit', limit);
  return [
    ...(documentShapeLimits(limits, introspection, refused) as Plugin[]),
    {
      async onHttpRequest(received, _context, next) {
        const request = await withBodyAtMost(received, limits.maxBodyBytes);
        if (!request) {
          refused('maxBodyBytes');
          return bodyTooLarge(limits.maxBodyBytes);
        }
        return withErrorBody(await next(request));
      },
      onRequestParse({ request, setRequestParser }) {
        const text = jsonBodies.get(request);
        if (text !== undefined) setRequestParser(() => parseJsonBody(text));
      },
      onParams({ params, request }) {
        try {
          checkVariables(params.variables, limits, carried.get(request));
        } catch (e) {
          const limit = (e as { extensions?: { limit?: string } }).extensions?.limit;
          if (limit) refused(limit);
          throw e;
        }
      },
      onExecutionResult({ result, setResult }) {
        if (!result || !('errors' in result) || !result.errors?.length) return;
        const refusal = result.errors.map(costRefusal(limits.maxCost)).find(Boolean);
        // The whole operation is refused, as a validation error would be: no partial data.
        if (refusal) {
          refused('maxCost');
          return setResult({ errors: [refusal] });
        }
        // A subgraph stopped its part for resolving too much: the whole answer stops, as it does
        // when the subgraph answers the operation alone (shared/response-budget.ts).
        const stopped = result.errors.find((e) => e.extensions?.code === RESPONSE_TOO_LARGE);
        if (stopped) setResult({ data: null, errors: [stopped] });
      },
    },
  ];
}

/**
 * The options of the gateway runtime's demand control: the IBM GraphQL Cost Specification over
 * the `@cost`/`@listSize` the subgraphs declare, with the variables of the request, priced for
 * each subgraph request the plan makes (their sum must stay within `maxCost`).
 */
export function demandControl(limits: DocumentLimits) {
  return { maxCost: limits.maxCost, includeExtensionMetadata: false };
}

/**
 * The cost refusal in our shape, from an error of the runtime's demand control or from a
 * subgraph's own pricing (relayed through the plan, which wraps it), else undefined.
 */
function costRefusal(maximum: number) {
  return (error: unknown) => {
    for (let e: unknown = error; isGraphQLError(e); e = e.originalError) {
      const extensions = e.extensions as Record<string, unknown>;
      if (extensions.code === DEMAND_CONTROL_CODE) {
        const cost = (extensions.cost as { estimated?: number } | undefined)?.estimated;
        return costError(cost ?? maximum + 1, maximum);
      }
      if (extensions.code === 'BAD_USER_INPUT' && extensions.limit === 'maxCost') {
        return limitError('maxCost', Number(extensions.maximum), e.message);
      }
    }
    return undefined;
  };
}

/**
 * The bytes each request read by {@link withBodyAtMost} carries (its body, or a GET's URL): the
 * variables are part of them, so when they fit `maxVariablesBytes` the variables do too and need
 * not be written out again to be measured.
 */
const carried = new WeakMap<Request, number>();

/** Refuses `variables` over `maxVariablesBytes` as JSON, or nested deeper than `maxVariablesDepth`. */
function checkVariables(variables: unknown, limits: DocumentLimits, requestBytes?: number): void {
  if (variables === undefined || variables === null) return;
  const measured = requestBytes !== undefined && requestBytes <= limits.maxVariablesBytes;
  const text = measured ? '' : typeof variables === 'string' ? variables : JSON.stringify(variables);
  if (Buffer.byteLength(text ?? '') > limits.maxVariablesBytes) {
    throw limitError(
      'maxVariablesBytes',
      limits.maxVariablesBytes,
      `The variables are larger than ${limits.maxVariablesBytes} bytes.`,
    );
  }
  // Iterative, so that a hostile nesting cannot overflow the stack while being measured.
  const stack: [unknown, number][] = [[variables, 0]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limits.maxVariablesDepth) {
      throw limitError(
        'maxVariablesDepth',
        limits.maxVariablesDepth,
        `The variables are nested more than ${limits.maxVariablesDepth} levels deep.`,
      );
    }
    // Only what can nest is kept to look at: a list of 20,000 strings adds nothing to the stack.
    for (const child of Object.values(value))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
}

/** The 413 answer to a body over `maxBodyBytes`; nothing of it is parsed. */
function bodyTooLarge(maximum: number): Response {
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

/**
 * The request with its body read into memory, or null when the body (as declared, or as it
 * arrives) is over `maximum` bytes: reading stops there, so a huge upload costs no more.
 */
async function withBodyAtMost(request: Request, maximum: number): Promise<Request | null> {
  if (request.url.length > maximum) return null;
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maximum) return null;
  if (!request.body) {
    carried.set(request, Buffer.byteLength(request.url));
    return request;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
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
  const text = decodeChunks(chunks);
  // The request as the runtime gets it, of the class it came as. A JSON body goes without its
  // bytes: the runtime's own reading of it (a stream piped through its 25-MB limit, read again
  // into a buffer, a string, then parsed) is replaced by parsing this text (jsonBodies), which is
  // a sixth of the CPU of a small request such as `{ session { authenticated } }`.
  const Ctor = request.constructor as typeof Request;
  const json = isJsonPost(request);
  const read = new Ctor(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    ...(json ? {} : { body: text }),
  });
  if (json) jsonBodies.set(read, text);
  carried.set(read, size + Buffer.byteLength(request.url));
  return read;
}

/** The JSON bodies read for their limit, by the request the runtime gets without them. */
const jsonBodies = new WeakMap<Request, string>();

/** A POST the runtime reads as JSON (Yoga's own test: `application/json`, `application/graphql+json`). */
function isJsonPost(request: Request): boolean {
  if (request.method !== 'POST') return false;
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/graphql+json';
}

/**
 * The GraphQL parameters of a JSON body, refused as Yoga's own JSON reader refuses them (same
 * messages, codes and statuses), so that a request read here answers as one the runtime read.
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

/**
 * Yoga answers a body of a media type it does not read with an empty 415; a client gets a
 * GraphQL error instead, like every other refusal.
 */
function withErrorBody(response: Response): Response {
  if (response.status !== 415) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(
    JSON.stringify({
      errors: [
        {
          message: 'Send the request as application/json (or application/graphql).',
          extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
        },
      ],
    }),
    { status: 415, headers },
  );
}
