import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, type ValidationContext } from 'graphql';
import type { DocumentLimits } from '../../config/index.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import type { Plugin } from '../http.ts';

/** The top-level `extensions.code` of every document or variables limit (docs/security.md). */
const LIMIT_CODE = 'BAD_USER_INPUT';
/** The code of a request body over `maxBodyBytes`, answered with HTTP 413. */
const BODY_LIMIT_CODE = 'PAYLOAD_TOO_LARGE';

type LimitName = keyof DocumentLimits;

/** A refusal the client can act on: which limit, its value, HTTP 400 whatever the Accept header. */
function limitError(limit: LimitName, maximum: number, message: string) {
  return new GraphQLError(message, {
    extensions: { code: LIMIT_CODE, limit, maximum, http: { status: 400 } },
  });
}

/**
 * graphql-armor throws its own "Syntax Error: …" without a code. Each rule is told to report
 * instead of throwing, and this reports our error in its place: a validation error for the
 * rules that run in validation, a thrown one for the token count (which runs in the lexer).
 */
function reject(limit: LimitName, maximum: number, describe: (found: string) => string, metrics: Metrics) {
  return {
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        const found = /found (\d+)/.exec(error.message)?.[1] ?? 'more';
        const ours = limitError(limit, maximum, describe(found));
        metrics.refusal('document_limit', limit);
        if (!context) throw ours;
        context.reportError(ours);
      },
    ],
  };
}

/**
 * Refuses requests too large or too complex to be honest work (docs/security.md): a body over
 * `maxBodyBytes` before anything of it is parsed; documents too deep, with too many aliases,
 * directives or tokens, or costing too much (graphql-armor's rules); field suggestions when
 * introspection is off; and `variables` too large or too deeply nested. Batches are bounded by
 * the runtime's `batching` option. The armor rules are plugins of their own, hence a list.
 */
export function useDocumentLimits(
  limits: DocumentLimits,
  introspection: boolean,
  metrics: Metrics = NO_METRICS,
): Plugin[] {
  const armor = new EnvelopArmor({
    // Without introspection, "Did you mean …?" would still spell the schema out field by field.
    blockFieldSuggestion: { enabled: !introspection },
    maxTokens: {
      n: limits.maxTokens,
      ...reject(
        'maxTokens',
        limits.maxTokens,
        () => `The document has more than ${limits.maxTokens} tokens.`,
        metrics,
      ),
    },
    maxDepth: {
      n: limits.maxDepth,
      // The explorer's introspection query nests type references deeply; tokens bound it anyway.
      ignoreIntrospection: true,
      ...reject(
        'maxDepth',
        limits.maxDepth,
        (found) => `The query is nested ${found} levels deep; at most ${limits.maxDepth} are allowed.`,
        metrics,
      ),
    },
    maxAliases: {
      n: limits.maxAliases,
      ...reject(
        'maxAliases',
        limits.maxAliases,
        (found) => `The operation uses ${found} aliases; at most ${limits.maxAliases} are allowed.`,
        metrics,
      ),
    },
    maxDirectives: {
      n: limits.maxDirectives,
      ...reject(
        'maxDirectives',
        limits.maxDirectives,
        (found) => `The operation uses ${found} directives; at most ${limits.maxDirectives} are allowed.`,
        metrics,
      ),
    },
    costLimit: {
      maxCost: limits.maxCost,
      // Linear: a field costs the same at any depth (maxDepth bounds depth on its own).
      depthCostFactor: 1,
      ignoreIntrospection: true,
      ...reject(
        'maxCost',
        limits.maxCost,
        (found) => `The query costs ${found}; at most ${limits.maxCost} is allowed.`,
        metrics,
      ),
    },
  });
  return [
    ...(armor.protect().plugins as Plugin[]),
    {
      async onHttpRequest(received, _context, next) {
        const request = await withBodyAtMost(received, limits.maxBodyBytes);
        if (!request) {
          metrics.refusal('document_limit', 'maxBodyBytes');
          return bodyTooLarge(limits.maxBodyBytes);
        }
        return withErrorBody(await next(request));
      },
      onParams({ params }) {
        try {
          checkVariables(params.variables, limits);
        } catch (e) {
          const limit = (e as { extensions?: { limit?: string } }).extensions?.limit;
          if (limit) metrics.refusal('document_limit', limit);
          throw e;
        }
      },
    },
  ];
}

/** Refuses `variables` over `maxVariablesBytes` as JSON, or nested deeper than `maxVariablesDepth`. */
function checkVariables(variables: unknown, limits: DocumentLimits): void {
  if (variables === undefined || variables === null) return;
  const text = typeof variables === 'string' ? variables : JSON.stringify(variables);
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
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
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
  if (!request.body) return request;
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
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: Buffer.concat(chunks),
    signal: request.signal,
  });
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
