import type { DocumentLimits } from '../../config/index.ts';
import { costError, documentShapeLimits, limitError } from '../../shared/document-limits.ts';
import { isGraphQLError } from '../../shared/mask-error.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import { bodyTooLarge, readBody, useReadBody } from '../../shared/request-body.ts';
import { RESPONSE_TOO_LARGE } from '../../shared/response-budget.ts';
import type { Plugin } from '../http.ts';

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
    useReadBody() as Plugin,
    {
      async onHttpRequest(received, _context, next) {
        const read = await readBody(received, limits.maxBodyBytes);
        if (!read) {
          refused('maxBodyBytes');
          return bodyTooLarge(limits.maxBodyBytes);
        }
        carried.set(read.request, read.bytes);
        return withErrorBody(await next(read.request));
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
 * The bytes each request read by {@link readBody} carries (its body, or a GET's URL): the
 * variables are part of them, so when they fit `maxVariablesBytes` the variables do too and need
 * not be written out again to be measured.
 */
const carried = new WeakMap<Request, number>();

/**
 * Whether a request's `variables` pass what this plugin checks of them ({@link checkVariables}),
 * for a path that answers the request without the runtime's pipeline (use-prepared-operations.ts):
 * it leaves a request that would be refused to the pipeline, which refuses it.
 */
export function variablesFit(variables: unknown, limits: DocumentLimits, request: Request): boolean {
  try {
    checkVariables(variables, limits, carried.get(request));
    return true;
  } catch {
    return false;
  }
}

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
    // Only what can nest is kept to look at: a list of 20,000 strings adds nothing to the stack,
    // and is read in place (Object.values would copy it).
    if (Array.isArray(value)) {
      for (const child of value)
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    } else {
      for (const key in value) {
        const child = (value as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      }
    }
  }
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
