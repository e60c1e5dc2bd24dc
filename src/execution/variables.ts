import { GraphQLError, type GraphQLSchema, getVariableValues, type VariableDefinitionNode } from 'graphql';
import type { DocumentLimits } from '../config/index.ts';
import { limitError } from './document-limits.ts';

/**
 * A request's variables, checked before anything reads them as values: their size and nesting
 * ({@link variablesOverLimits}), and their coercion to the operation's types ({@link coerceVariables}).
 * The one module that coerces a request's variables, for every door and route (src/execution/README.md).
 */

/**
 * The most coercion errors a request is answered with, the last of them saying that more were
 * left out (graphql-js's `maxErrors`, as the runtime's own executor bounds them): a variable of a
 * recursive input type holding 100,000 wrong items is refused after 50, not after writing 14 MB
 * of errors.
 */
export const MAX_COERCION_ERRORS = 50;

const NO_NAMES: ReadonlySet<string> = new Set();

/**
 * Refuses `variables` over `maxVariablesBytes` as JSON text, or nested deeper than
 * `maxVariablesDepth`, or returns null. `requestBytes` is what the request carried (its body, or a
 * GET's URL): when that fits the bound, so do the variables, which are then not written out again
 * to be measured. The `exempt` variables (a router's entity representations, which the cost model
 * prices by their number) are not counted in the bytes.
 */
export function variablesOverLimits(
  variables: unknown,
  limits: Pick<DocumentLimits, 'maxVariablesBytes' | 'maxVariablesDepth'>,
  requestBytes?: number,
  exempt: ReadonlySet<string> = NO_NAMES,
): GraphQLError | null {
  if (variables === undefined || variables === null) return null;
  const measured = requestBytes !== undefined && requestBytes <= limits.maxVariablesBytes;
  if (!measured) {
    const counted =
      exempt.size && typeof variables === 'object'
        ? Object.fromEntries(Object.entries(variables).filter(([name]) => !exempt.has(name)))
        : variables;
    const text = typeof counted === 'string' ? counted : JSON.stringify(counted);
    if (Buffer.byteLength(text ?? '') > limits.maxVariablesBytes)
      return limitError(
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
    if (depth >= limits.maxVariablesDepth)
      return limitError(
        'maxVariablesDepth',
        limits.maxVariablesDepth,
        `The variables are nested more than ${limits.maxVariablesDepth} levels deep.`,
      );
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
  return null;
}

export interface CoercionOptions {
  /**
   * Leave out "Did you mean …?" (with introspection off, a suggestion would spell the schema's
   * field and enum names out one wrong guess at a time) @default false
   */
  hideSuggestions?: boolean;
}

/**
 * Coerces a request's variables to the types `definitions` give them, against `schema` (whose
 * scalars parse as the subgraphs' do): their coerced values, or the request errors to answer
 * (at most {@link MAX_COERCION_ERRORS} and one saying more were left out), each located in the
 * client's document and answered with HTTP 400 whatever the `Accept` header, as the runtime's
 * executor answers them.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
  options: CoercionOptions = {},
): { coerced: Record<string, unknown> } | { errors: GraphQLError[] } {
  if (definitions.length === 0) return { coerced: {} };
  const coerced = getVariableValues(schema, definitions, variables ?? {}, {
    maxErrors: MAX_COERCION_ERRORS,
    hideSuggestions: options.hideSuggestions ?? false,
  });
  if (!coerced.errors) return { coerced: coerced.coerced };
  const errors = coerced.errors.map(
    (e) =>
      new GraphQLError(e.message, {
        nodes: e.nodes,
        originalError: e.originalError,
        extensions: { ...e.extensions, http: { status: 400 } },
      }),
  );
  return { errors };
}
