import { BREAK, type DocumentNode, GraphQLError, Kind, print, visit } from 'graphql';
import { operationAlone } from './documents.ts';
import { Fact, type Operation, type ParsedDocument } from './operation.ts';

/** What an operation's input may hold. */
export interface InputLimits {
  /** The longest string, in UTF-16 code units. */
  maxStringLength: number;
  /** The most items in one list. */
  maxListLength: number;
}

function refusal(message: string, limit: keyof InputLimits, maximum: number): GraphQLError {
  return new GraphQLError(message, {
    // HTTP 400 whatever the Accept header, like every limit (docs/security.md).
    extensions: { code: 'BAD_USER_INPUT', limit, maximum, http: { status: 400 } },
  });
}

/** A place in `variables` not yet spelled out: its parent's path and its key or index there. */
type Place = [value: unknown, parent: string, key: string | number | null];

/** `$input.assets[3].id`, spelled only when a refusal names it; long paths are cut. */
function pathOf([, parent, key]: Place): string {
  const path =
    key === null
      ? parent
      : typeof key === 'number'
        ? `${parent}[${key}]`
        : parent === '$'
          ? `$${key}`
          : `${parent}.${key}`;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
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
 * The first string in an operation's arguments that is too long, holds U+0000 or is not Unicode,
 * or the first list longer than `maxListLength`, as a client error, or null. It looks at every
 * string and list literal of the document (arguments, input objects and lists, directive
 * arguments, JSON literals) and every string and list anywhere in `variables` (object keys too),
 * before anything is coerced or resolved, so no resolver and no query ever sees one, and a list of
 * 20,000 items costs one look at its length. Iterative over `variables`, so a hostile nesting
 * cannot overflow the stack.
 */
export function checkInputs(
  document: ParsedDocument,
  variables: unknown,
  limits: InputLimits,
  /** The running operation's entity representations ({@link representationVariables}), held to the string limit only. */
  exempt: ReadonlySet<string> = NONE,
  /** Lists allowed more items than `maxListLength`, by path ({@link longerLists}). */
  longer: ReadonlyMap<string, number> = NO_LONGER,
): GraphQLError | null {
  const { maxStringLength: maximum, maxListLength } = limits;
  const literals = documentLiterals(document, limits);
  if (literals.refusal) return refusal(...literals.refusal);
  const stack: Place[] = [[variables, '$', null]];
  while (stack.length) {
    const place = stack.pop()!;
    const [value] = place;
    if (typeof value === 'string') {
      const why = problem(value, maximum);
      if (why) return refusal(`The variable ${pathOf(place)} ${why}.`, 'maxStringLength', maximum);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      const most =
        value.length > maxListLength ? (longer.get(pathOf(place)) ?? maxListLength) : maxListLength;
      if (value.length > most && !(place[1] === '$' && exempt.has(String(place[2]))))
        return refusal(
          `The variable ${pathOf(place)} has ${value.length} items; at most ${most} are allowed.`,
          'maxListLength',
          most,
        );
      const path = pathOf(place);
      for (let i = 0; i < value.length; i++) stack.push([value[i], path, i]);
      continue;
    }
    const path = pathOf(place);
    for (const [key, item] of Object.entries(value)) {
      const why = problem(key, maximum);
      if (why) return refusal(`A key in the variable ${path} ${why}.`, 'maxStringLength', maximum);
      stack.push([item, path, key]);
    }
  }
  return null;
}

const NONE: ReadonlySet<string> = new Set();
const NO_LONGER: ReadonlyMap<string, number> = new Map();

/**
 * Input fields that take more items than the API's list limit, with their own bound: a batch of
 * readings (`recordObservations`, docs/telemetry.md) is 10,000 observations, as Cognite's and
 * SiteWise's ingest batches are. Their resolvers hold them to it again.
 */
export const LONGER_LISTS: Readonly<Record<string, number>> = {
  'RecordObservationsInput.observations': 10_000,
};

/**
 * The lists of the running operation's variables that {@link LONGER_LISTS} allows more items, by
 * path (`$input.observations`): a variable of an input type named there, that field of it.
 */
export function longerLists(operation: Operation): ReadonlyMap<string, number> {
  return operation.get(LONGER, () => {
    const found = new Map<string, number>();
    for (const d of operation.definition?.variableDefinitions ?? []) {
      let type = d.type;
      while (type.kind === Kind.NON_NULL_TYPE) type = type.type;
      if (type.kind !== Kind.NAMED_TYPE) continue;
      for (const [coordinate, most] of Object.entries(LONGER_LISTS)) {
        const [typeName, field] = coordinate.split('.') as [string, string];
        if (typeName === type.name.value) found.set(`$${d.variable.name.value}.${field}`, most);
      }
    }
    return found.size ? found : NO_LONGER;
  });
}

const LONGER = new Fact<ReadonlyMap<string, number>>('longer lists');

/**
 * The variables the running operation (with the fragments it spreads) passes as a router's
 * `_entities(representations:)`, each declared `[_Any!]!`: one item per entity a plan reached,
 * bounded by their count in the cost model rather than by the list and variables limits a
 * client's own input is held to. Only the operation that runs counts: another operation of the
 * same document exempts nothing of it.
 */
export function representationVariables(operation: Operation): ReadonlySet<string> {
  return operation.get(REPRESENTATIONS, () => {
    const definition = operation.definition;
    if (!definition) return NONE;
    const declared = new Set(
      (definition.variableDefinitions ?? [])
        .filter((d) => print(d.type) === '[_Any!]!')
        .map((d) => d.variable.name.value),
    );
    const found = new Set<string>();
    visit(operationAlone(operation.document, definition), {
      [Kind.FIELD]: (node) => {
        if (node.name.value !== '_entities') return;
        for (const arg of node.arguments ?? [])
          if (
            arg.name.value === 'representations' &&
            arg.value.kind === Kind.VARIABLE &&
            declared.has(arg.value.name.value)
          )
            found.add(arg.value.name.value);
      },
    });
    return found.size ? found : NONE;
  });
}

const REPRESENTATIONS = new Fact<ReadonlySet<string>>('entity representations');

/** What a document's literals hold against the limits: the same for every request of it. */
interface Literals {
  limits: InputLimits;
  /** The refusal's message, limit and maximum, when a literal is over a limit. */
  refusal: [message: string, limit: keyof InputLimits, maximum: number] | null;
}

/** Kept with the parsed document, for the limits it was last checked against. */
const LITERALS = new Fact<{ literals?: Literals }>('literals against the input limits');

function documentLiterals(record: ParsedDocument, limits: InputLimits): Literals {
  const kept = record.get(LITERALS, (): { literals?: Literals } => ({}));
  const known = kept.literals;
  if (
    known &&
    known.limits.maxStringLength === limits.maxStringLength &&
    known.limits.maxListLength === limits.maxListLength
  )
    return known;
  kept.literals = literalsOf(record.document, limits);
  return kept.literals;
}

function literalsOf(document: DocumentNode, limits: InputLimits): Literals {
  const { maxStringLength: maximum, maxListLength } = limits;
  // A router's entity fetch lists one representation per entity a plan reached (a page of 1,000
  // assets' issues, the wells of 100 facilities): `_entities(representations:)` is priced by its
  // length instead (shared/cost.ts), so only its strings are bounded here.
  // A field is entered before its arguments, so one walk notes them before it reaches their lists.
  const representations = new Set<unknown>();
  let found: Literals['refusal'] = null;
  const at = (node: { loc?: { source: { body: string }; start: number } }) =>
    node.loc ? ` at line ${lineOf(node.loc.source.body, node.loc.start)}` : '';
  visit(document, {
    [Kind.FIELD]: (node) => {
      if (node.name.value !== '_entities') return;
      for (const arg of node.arguments ?? [])
        if (arg.name.value === 'representations' && arg.value.kind !== Kind.VARIABLE)
          representations.add(arg.value);
    },
    [Kind.STRING]: (node) => {
      const why = problem(node.value, maximum);
      if (!why) return undefined;
      found = [`The string argument${at(node)} ${why}.`, 'maxStringLength', maximum];
      return BREAK;
    },
    [Kind.LIST]: (node) => {
      if (node.values.length <= maxListLength || representations.has(node)) return undefined;
      found = [
        `The list argument${at(node)} has ${node.values.length} items; at most ${maxListLength} are allowed.`,
        'maxListLength',
        maxListLength,
      ];
      return BREAK;
    },
  });
  return { limits, refusal: found };
}

function lineOf(body: string, offset: number): number {
  let line = 1;
  for (let i = body.indexOf('\n'); i !== -1 && i < offset; i = body.indexOf('\n', i + 1)) line++;
  return line;
}
