import { type ExecutionResult, GraphQLError } from 'graphql';
import { IDENTITY_REFUSED } from '../shared/identity.ts';
import type { Logger } from '../shared/logger.ts';
import { isGraphQLError, withRequestId } from '../shared/mask-error.ts';
import { costError, type LimitName, limitError } from './document-limits.ts';
import { fieldAt } from './locate.ts';
import type { Operation } from './operation.ts';
import { boundedErrors, RESPONSE_TOO_LARGE } from './response-budget.ts';

/** The code Hive Gateway's demand control refuses an operation with. */
const DEMAND_CONTROL_CODE = 'COST_ESTIMATED_TOO_EXPENSIVE';

export interface ShapeOptions {
  maxCost: number;
  maxErrors: number;
  log: Logger;
  /** Told the name of each limit that refuses a result (metrics). */
  refused?: (limit: LimitName) => void;
}

/**
 * A result as the gateway's client gets it, whichever route made it (src/execution/README.md):
 *
 * - the cost rule's refusal of a planned operation (the runtime's demand control, or a subgraph's
 *   own pricing relayed through the plan) in the shape of every other limit, alone;
 * - a subgraph stopped for resolving too much: the whole answer stops, as when it answers alone;
 * - more errors than `maxErrors`: refused as a response too large;
 * - a subgraph that cannot be reached named, without its address or the subrequest;
 * - a field error located in the client's document by its path, wherever it was made;
 * - a masked error with the request's correlation id, for a user to quote;
 * - a request error (no `data`: variables that do not coerce) answered 400 under
 *   `application/graphql-response+json` (GraphQL over HTTP), 200 under `application/json`.
 *
 * A result without errors is handed on untouched (a subgraph's answer passed on as its text is not
 * parsed).
 */
export function shapeResult(
  result: ExecutionResult,
  operation: Operation | null,
  requestId: string,
  options: ShapeOptions,
): ExecutionResult {
  if (!result.errors?.length) return result;
  const refusal = result.errors.map(costRefusal(options.maxCost)).find(Boolean);
  // The whole operation is refused, as a validation error would be: no partial data.
  if (refusal) {
    options.refused?.('maxCost');
    return { errors: [refusal] };
  }
  const stopped = result.errors.find((e) => e.extensions?.code === RESPONSE_TOO_LARGE);
  // Of the whole response, not of a field: without the path a plan puts on a subgraph's error.
  if (stopped)
    return { data: null, errors: [new GraphQLError(stopped.message, { extensions: stopped.extensions })] };
  const bounded = boundedErrors(result, options.maxErrors);
  if (bounded !== result) return bounded;
  const requestError = !('data' in result) || result.data === undefined;
  const errors = result.errors.map((e) => {
    if (!isGraphQLError(e)) return e;
    const code = e.extensions?.code;
    if (code === 'SUBREQUEST_HTTP_ERROR' || e.extensions?.reason === IDENTITY_REFUSED)
      return unavailable(e, requestId, options.log);
    const located = locatedIn(e, operation);
    if (code === 'INTERNAL_SERVER_ERROR') return quoting(located, requestId);
    if (requestError && !located.extensions?.http)
      return new GraphQLError(located.message, {
        nodes: located.nodes,
        source: located.source,
        positions: located.positions,
        path: located.path,
        originalError: located.originalError,
        extensions: { ...located.extensions, http: { status: 400, spec: true } },
      });
    return located;
  });
  return { ...result, errors };
}

/**
 * A field error (one with a path) made without a place in the client's document (by a subgraph
 * over HTTP, against the text the gateway sent it) located there by its path, as graphql-js
 * locates it; an error that has its locations keeps them.
 */
function locatedIn(error: GraphQLError, operation: Operation | null): GraphQLError {
  if (!error.path || error.locations?.length || !operation?.definition) return error;
  const field = fieldAt(operation.document, operation.definition, error.path);
  if (!field) return error;
  // An argument the client's variables made invalid is located at the argument's value.
  const argument = ARGUMENT_ERROR.exec(error.message)?.[1];
  const node = (argument && field.arguments?.find((a) => a.name.value === argument)?.value) || field;
  return new GraphQLError(error.message, {
    nodes: [node],
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/**
 * graphql-js's refusal of a field's argument at execution (a variable with a default, given null
 * for a non-null argument): the client's error, made where the operation is executed, which the
 * planned route makes at the gateway and a direct route in its subgraph.
 */
export const ARGUMENT_ERROR = /^Argument "([^"]+)" (?:of (?:non-null |required )?type|has invalid value)/;

/**
 * A masked error with the request's correlation id (shared/mask-error.ts). Marked `unexpected`,
 * which Yoga reads (an answer of nothing but such errors is a 500) and never writes, so that no
 * later masking takes it for a client's error or masks it again.
 */
function quoting(error: GraphQLError, requestId: string): GraphQLError {
  const shown = withRequestId(error, requestId);
  return new GraphQLError(shown.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...shown.extensions, unexpected: true },
  });
}

/** A subgraph that could not be reached, by name, without its address or the subrequest. */
function unavailable(error: GraphQLError, requestId: string, log: Logger): GraphQLError {
  const subgraph = String(error.extensions.serviceName ?? 'a');
  log.warn({ requestId, subgraph, reason: error.message }, 'subgraph unreachable');
  return new GraphQLError(`The ${subgraph} service is unavailable; try again shortly.`, {
    ...(error.path ? { path: error.path } : {}),
    extensions: { code: 'SERVICE_UNAVAILABLE', subgraph, requestId, unexpected: true },
  });
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
