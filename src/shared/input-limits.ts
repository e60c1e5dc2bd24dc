import { BREAK, type DocumentNode, GraphQLError, Kind, visit } from 'graphql';

/**
 * The longest string any argument or input field may carry, in UTF-16 code units (JavaScript's
 * `length`), unless `ASSETQL_MAX_STRING_LENGTH` sets another (docs/security.md). It bounds what
 * no field-specific rule does: a name, a description, a string inside a JSON property value.
 * Fields with a domain of their own are held to tighter limits where they are handled (device
 * names, usernames, passwords, filter strings).
 */
export const DEFAULT_MAX_STRING_LENGTH = 100_000;

/** The `extensions.limit` of a refused string. */
const LIMIT = 'maxStringLength';

function refusal(message: string, maximum: number): GraphQLError {
  return new GraphQLError(message, {
    // HTTP 400 whatever the Accept header, like every limit (docs/security.md).
    extensions: { code: 'BAD_USER_INPUT', limit: LIMIT, maximum, http: { status: 400 } },
  });
}

/**
 * Why `value` may not be an argument, or null: too long, holding U+0000 (no text column can), or
 * a lone surrogate (not Unicode: PostgreSQL's JSON parser refuses its `\ud800` escape).
 */
function problem(value: string, maximum: number): string | null {
  if (value.length > maximum) return `has ${value.length} characters; at most ${maximum} are allowed`;
  if (value.includes('\u0000')) return 'contains the NUL character (U+0000), which is not allowed';
  if (!value.isWellFormed()) return 'is not well-formed Unicode (it has a lone surrogate)';
  return null;
}

/**
 * The first string in an operation's arguments that is too long, holds U+0000 or is not Unicode, as a client
 * error, or null. It looks at every string literal of the document (arguments, input objects and
 * lists, directive arguments, JSON literals) and every string anywhere in `variables` (object keys
 * too), before anything is coerced or resolved, so no resolver and no query ever sees one.
 * Iterative over `variables`, so a hostile nesting cannot overflow the stack.
 */
export function checkInputStrings(
  document: DocumentNode,
  variables: unknown,
  maximum: number,
): GraphQLError | null {
  let found: GraphQLError | null = null;
  visit(document, {
    [Kind.STRING]: (node) => {
      const why = problem(node.value, maximum);
      if (!why) return undefined;
      const at = node.loc ? ` at line ${lineOf(node.loc.source.body, node.loc.start)}` : '';
      found = refusal(`The string argument${at} ${why}.`, maximum);
      return BREAK;
    },
  });
  if (found) return found;
  const stack: [unknown, string][] = [[variables, '$']];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const why = problem(value, maximum);
      if (why) return refusal(`The variable ${path} ${why}.`, maximum);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        stack.push([item, `${path}[${i}]`]);
      });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const name = path === '$' ? `$${key}` : `${path}.${key}`;
      const why = problem(key, maximum);
      if (why) return refusal(`A key in the variable ${path} ${why}.`, maximum);
      stack.push([item, name.length > 200 ? `${name.slice(0, 200)}…` : name]);
    }
  }
  return null;
}

function lineOf(body: string, offset: number): number {
  let line = 1;
  for (let i = body.indexOf('\n'); i !== -1 && i < offset; i = body.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The Envelop plugin every subgraph (and the gateway) runs: an operation with a string argument
 * over `maximum` characters, or holding U+0000, is answered with that client error and not run.
 */
export function useInputLimits(maximum: number) {
  return {
    onExecute({
      args,
      setResultAndStopExecution,
    }: {
      args: { document: DocumentNode; variableValues?: unknown };
      setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void;
    }) {
      const error = checkInputStrings(args.document, args.variableValues, maximum);
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
