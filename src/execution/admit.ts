import type { GraphQLError, GraphQLSchema } from 'graphql';
import type { DocumentLimits } from '../config/index.ts';
import { type CostOptions, estimateCost } from './cost.ts';
import { costError, type LimitName } from './document-limits.ts';
import { checkInputs, type InputLimits, longerLists, representationVariables } from './input-limits.ts';
import type { Operation } from './operation.ts';
import { coerceVariables, variablesOverLimits } from './variables.ts';

/**
 * Where an operation is admitted: the gateway (the supergraph's schema, with the spec's scalars)
 * or a subgraph (its own schema), with the limits that hold there.
 */
export interface Place {
  /** The schema a request's variables are coerced to, and its operations priced against. */
  readonly schema: GraphQLSchema;
  readonly documentLimits: DocumentLimits;
  readonly inputLimits: InputLimits;
  /** Whether the schema is described to clients: without it, no error suggests a name. */
  readonly introspection: boolean;
  /**
   * Whether this place prices operations itself (a subgraph); at the gateway the planned route is
   * priced by the runtime's demand control and the joined route by its own requests' prices.
   */
  readonly prices: boolean;
  /** Told the name of each limit that refuses a request (metrics). */
  readonly refused?: (limit: LimitName) => void;
}

/** What a request brings to an operation. */
export interface Asked {
  /** The request's variables, as it sent them. */
  variables: Readonly<Record<string, unknown>> | null | undefined;
  /** The bytes the request carried (its body, or a GET's URL), when its door read them. */
  requestBytes?: number;
  /**
   * A caller in this process (our gateway) has admitted these variables already, under the same
   * limits: their size, nesting, strings and lists are not looked at again (they are coerced
   * again, to this place's types) @default false
   */
  checked?: boolean;
}

/** An admitted request: its variables as it sent them, and as they coerce here. */
export interface Admitted {
  readonly variables: Readonly<Record<string, unknown>>;
  /** Coerced to this place's types (a DateTime a Date): what a plan of its own reads. */
  readonly coerced: Readonly<Record<string, unknown>>;
}

/** The answer to a request that is not admitted: request errors, nothing run. */
export interface Refused {
  readonly refused: readonly GraphQLError[];
}

export type Admission = Admitted | Refused;

export function isRefused(admission: Admission): admission is Refused {
  return 'refused' in admission;
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Every check a request gets before its operation runs, in one ordered list, the same at every
 * door of a place (src/execution/README.md has the table). The document's own checks (tokens,
 * depth, aliases, directives, validity, the introspection rule) were made once when it was
 * parsed and validated here; what a request adds is checked now, cheapest and most bounding
 * first:
 *
 * 1. its variables' size and nesting (`maxVariablesBytes`, `maxVariablesDepth`; a router's entity
 *    representations are priced by their number instead of counted in the bytes);
 * 2. the strings and lists in its document and variables (`maxStringLength`, `maxListLength`);
 * 3. its variables' coercion to the operation's types, at most 50 errors, naming nothing of the
 *    schema when introspection is off;
 * 4. its price, where this place prices (`maxCost`).
 */
export function admit(place: Place, operation: Operation, asked: Asked): Admission {
  const variables = asked.variables ?? NO_VARIABLES;
  if (!asked.checked) {
    const representations = representationVariables(operation);
    const limited =
      variablesOverLimits(asked.variables, place.documentLimits, asked.requestBytes, representations) ??
      checkInputs(
        operation.parsed,
        asked.variables,
        place.inputLimits,
        representations,
        longerLists(operation),
      );
    if (limited) return refusedFor(place, [limited]);
  }
  const coercion = coerceVariables(place.schema, operation.variableDefinitions, variables, {
    hideSuggestions: !place.introspection,
  });
  if ('errors' in coercion) return { refused: coercion.errors };
  if (place.prices) {
    const cost = priced(place.schema, operation, variables);
    const maximum = place.documentLimits.maxCost;
    if (cost > maximum) return refusedFor(place, [costError(cost, maximum)]);
  }
  return { variables, coerced: coercion.coerced };
}

/**
 * What an operation costs by the cost model (cost.ts), against `schema`, with these variables: the
 * one price every check reads, a place's own (above) and the joined route's, which prices its
 * requests together as the runtime's demand control prices a plan's (routes/joined-run.ts).
 */
export function priced(
  schema: GraphQLSchema,
  operation: Operation,
  variables: Readonly<Record<string, unknown>>,
  options?: CostOptions,
): number {
  return estimateCost(schema, operation, variables as Record<string, unknown>, options);
}

function refusedFor(place: Place, errors: GraphQLError[]): Refused {
  for (const e of errors) place.refused?.(e.extensions.limit as LimitName);
  return { refused: errors };
}
