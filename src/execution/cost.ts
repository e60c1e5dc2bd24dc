import {
  type ConstDirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isInputType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
  type ValueNode,
  valueFromAST,
  valueFromASTUntyped,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { isGraphQLError } from '../shared/mask-error.ts';
import { Fact, type Operation } from './operation.ts';

/**
 * The cost of an operation under the GraphQL Cost Specification (IBM, the model of Apollo
 * Router's and Hive Gateway's demand control), read from the schema's `@cost` and `@listSize`:
 *
 * - a field costs its `@cost(weight)` plus its type's: the type's `@cost(weight)` where it has
 *   one, else 1 for an object, interface or union and 0 for a scalar or enum;
 * - a list field is multiplied by its size: the largest of its `slicingArguments` given (from the
 *   document or the variables), else its `assumedSize`, else 1; with `sizedFields` the size
 *   applies to those children (`edges` of a connection) instead of the field itself;
 * - `_entities` is sized by the `representations` it is given (a router's entity fetch);
 * - everything below a field is multiplied by the sizes of every list above it;
 * - a mutation costs 10 more; fragments on abstract types are all counted (an upper bound).
 *
 * Hive Gateway's `demandControl` applies the same rules to the subgraph requests it plans, with
 * one difference: it counts a list whose slicing argument is omitted as 1, where this counts its
 * `assumedSize` (the page a resolver returns by default). Subgraphs use this estimate, so the
 * stricter of the two always applies.
 */
export function estimateCost(
  schema: GraphQLSchema,
  operation: Operation,
  variables: Record<string, unknown> | null | undefined,
  options: CostOptions = {},
): number {
  const definition = operation.definition;
  if (!definition) return 0;
  const document = operation.document;
  const atLeastOne = options.listsAtLeastOne ?? false;
  const bySchema = operation.get(atLeastOne ? PRICED_AT_LEAST_ONE : PRICED, () => new Map());
  let known = bySchema.get(schema);
  // Without variables the cost is the document's: priced once per operation and schema.
  if (!definition.variableDefinitions?.length) {
    if (!known) {
      const cost = price(schema, document, definition, undefined, atLeastOne);
      known = { reads: { valued: [], stated: [], counted: [] }, costs: pricedCosts([['', cost]]) };
      bySchema.set(schema, known);
    }
    return known.costs.get('')!;
  }
  // With variables, it depends on the values of those a slicing argument or `_entities`'
  // representations are given, and on whether the others in those fields' arguments are given
  // (absent, null or a value decide whether the arguments coerce, and a default applies): priced
  // once per distinct key of those (costKey). Which variables they are is read from the
  // document as it is priced, every field being visited at least once, so it is the same
  // whatever the values.
  if (!known) {
    const reads: Reads = { valued: new Set(), stated: new Set(), counted: new Set() };
    const cost = price(schema, document, definition, variables, atLeastOne, reads);
    known = {
      reads: { valued: [...reads.valued], stated: [...reads.stated], counted: [...(reads.counted ?? [])] },
      costs: pricedCosts(),
    };
    bySchema.set(schema, known);
    const key = costKey(known.reads, variables);
    if (key !== null) known.costs.set(key, cost);
    return cost;
  }
  const key = costKey(known.reads, variables);
  if (key === null) return price(schema, document, definition, variables, atLeastOne);
  let cost = known.costs.get(key);
  if (cost === undefined) {
    cost = price(schema, document, definition, variables, atLeastOne);
    // Bounded: a client cycling page sizes costs a pricing each, never memory.
    known.costs.set(key, cost);
  }
  return cost;
}

/** An operation's prices by variables, at most MAX_COSTS_PER_OPERATION of them. */
function pricedCosts(entries: [string, number][] = []): LRUCache<string, number> {
  const costs = new LRUCache<string, number>({ max: MAX_COSTS_PER_OPERATION });
  for (const [key, cost] of entries) costs.set(key, cost);
  return costs;
}

/** What an operation was priced at, by schema: for the stricter pricing, and the runtime's. */
const PRICED = new Fact<Map<GraphQLSchema, KnownCosts>>('price');
const PRICED_AT_LEAST_ONE = new Fact<Map<GraphQLSchema, KnownCosts>>("price as the runtime's");

/** Distinct values of the priced variables remembered per operation. */
const MAX_COSTS_PER_OPERATION = 64;

/**
 * The variables pricing reads: by value (sizes), by their length alone (a router's entity
 * representations, priced one item each), and only by whether they are given (the rest).
 */
interface Reads<T = Set<string>> {
  valued: T;
  stated: T;
  counted?: T;
}

interface KnownCosts {
  reads: Reads<readonly string[]>;
  /** The cost by {@link costKey}. */
  costs: LRUCache<string, number>;
}

/** Longest text of a size variable kept in a key: sizes are numbers; anything else is priced. */
const MAX_KEYED_VALUE = 64;

/**
 * The key of what a pricing depends on: each valued variable's value (0 when absent, [v] when
 * given), each counted one's length (a list's, [v] for anything else), each stated one's state
 * (0 absent, 1 null, 2 given); null when a valued one is a list, an object or a long text, which
 * is priced every time instead.
 */
function costKey(
  reads: Reads<readonly string[]>,
  variables: Record<string, unknown> | null | undefined,
): string | null {
  const counted = reads.counted ?? [];
  if (reads.valued.length === 0 && reads.stated.length === 0 && counted.length === 0) return '';
  const parts: unknown[] = [];
  for (const name of counted) {
    const v = variables && Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (Array.isArray(v)) parts.push(['n', v.length]);
    else if (v !== null && typeof v === 'object') return null;
    else parts.push([v ?? null]);
  }
  for (const name of reads.valued) {
    if (!variables || !Object.hasOwn(variables, name)) {
      parts.push(0);
      continue;
    }
    const v = variables[name];
    if (v !== null && typeof v === 'object') return null;
    if (typeof v === 'string' && v.length > MAX_KEYED_VALUE) return null;
    parts.push([v ?? null]);
  }
  for (const name of reads.stated) {
    const given = variables !== null && variables !== undefined && Object.hasOwn(variables, name);
    parts.push(!given ? 0 : variables[name] === null || variables[name] === undefined ? 1 : 2);
  }
  return JSON.stringify(parts);
}

/** The names of the variables in an argument's value (a variable, or inside a list or object). */
function variablesIn(value: ValueNode, into: Set<string>): void {
  if (value.kind === Kind.VARIABLE) into.add(value.name.value);
  else if (value.kind === Kind.LIST) for (const v of value.values) variablesIn(v, into);
  else if (value.kind === Kind.OBJECT) for (const f of value.fields) variablesIn(f.value, into);
}

/** Notes the variables a field's arguments use: `sizing` ones by value, the others by state. */
function noteReads(node: FieldNode, sizing: readonly string[], reads: Reads | undefined): void {
  if (!reads) return;
  for (const argument of node.arguments ?? [])
    variablesIn(argument.value, sizing.includes(argument.name.value) ? reads.valued : reads.stated);
}

export interface CostOptions {
  /**
   * Price a list whose slicing argument is 0 as one item, as Hive Gateway's demand control does
   * (for a sum that must never be below the runtime's own) @default false
   */
  listsAtLeastOne?: boolean;
}

function price(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
  atLeastOne: boolean,
  reads?: Reads,
): number {
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const vars = withDefaults(schema, operation, variables);
  /**
   * What each fragment costs at multiplier 1, by name and the sizes applied to its fields: a
   * fragment costs the same wherever it is spread under the same sizes, scaled by the lists
   * above it. Priced once each, a document that spreads fragments into fragments (four spreads of
   * the next on each of 16 levels: 4^16 paths) is priced in time of its length, not of its paths.
   */
  const fragmentCosts = new Map<string, number>();

  /** The cost of a selection set on `parent`, each field multiplied by `multiplier`. */
  const selectionCost = (
    selectionSet: SelectionSetNode,
    parent: GraphQLNamedType,
    multiplier: number,
    sized: ReadonlyMap<string, number>,
    seen: ReadonlySet<string>,
  ): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        total += fieldCost(selection, parent, multiplier, sized, seen);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (on) total += selectionCost(selection.selectionSet, on, multiplier, sized, seen);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        // A cycle is a validation error; it is never priced twice on one path.
        if (!fragment || seen.has(name)) continue;
        const on = schema.getType(fragment.typeCondition.name.value);
        if (!on) continue;
        const key = sized.size ? `${name}\u0000${[...sized].join('\u0000')}` : name;
        let unit = fragmentCosts.get(key);
        if (unit === undefined) {
          unit = selectionCost(fragment.selectionSet, on, 1, sized, new Set([...seen, name]));
          fragmentCosts.set(key, unit);
        }
        total += multiplier * unit;
      }
    }
    return total;
  };

  const fieldCost = (
    node: FieldNode,
    parent: GraphQLNamedType,
    multiplier: number,
    sized: ReadonlyMap<string, number>,
    seen: ReadonlySet<string>,
  ): number => {
    const name = node.name.value;
    if (name.startsWith('__')) return 0;
    const candidates: GraphQLObjectType[] = isObjectType(parent)
      ? [parent]
      : isAbstractType(parent)
        ? [...schema.getPossibleTypes(parent)]
        : [];
    // An interface's field, or one of its implementations' (they agree on the type).
    const field =
      'getFields' in parent && typeof parent.getFields === 'function'
        ? (parent.getFields() as Record<string, GraphQLField<unknown, unknown>>)[name]
        : candidates.map((c) => c.getFields()[name]).find(Boolean);
    if (!field) return 0;
    const type = getNamedType(field.type);
    const own = weightOf(field.astNode?.directives);
    const typeWeight = weightOf(type.astNode?.directives) ?? (isCompositeType(type) ? 1 : 0);
    const listSize = directive(field.astNode?.directives, 'listSize');
    let factor = sized.get(name) ?? 1;
    let childSized: ReadonlyMap<string, number> = EMPTY;
    if (!sized.has(name) && listSize) {
      const slicing = (listSize.slicingArguments as string[] | undefined) ?? [];
      noteReads(node, slicing, reads);
      const args = argumentsOf(field, node, vars);
      const given = slicing.map((a) => args[a]).filter((v): v is number => typeof v === 'number' && v >= 0);
      const largest = given.length ? Math.max(...given) : Number(listSize.assumedSize ?? 1);
      const size = atLeastOne ? Math.max(largest, 1) : largest;
      const sizedFields = (listSize.sizedFields as string[] | undefined) ?? [];
      if (sizedFields.length) childSized = new Map(sizedFields.map((f) => [f, size]));
      else factor = size;
    } else if (name === '_entities' && isListType(getNullableType(field.type))) {
      // Priced by how many representations there are, whatever they hold.
      const given = node.arguments?.find((a) => a.name.value === 'representations')?.value;
      if (reads?.counted && given?.kind === Kind.VARIABLE) reads.counted.add(given.name.value);
      else noteReads(node, ['representations'], reads);
      const representations = argumentsOf(field, node, vars).representations;
      factor = Array.isArray(representations) ? representations.length : 1;
    }
    const here = multiplier * factor;
    let total = here * ((own ?? 0) + typeWeight);
    if (node.selectionSet) total += selectionCost(node.selectionSet, type, here, childSized, seen);
    return total;
  };

  const base = operation.operation === 'mutation' ? MUTATION_COST : 0;
  return base + selectionCost(operation.selectionSet, root, 1, EMPTY, new Set());
}

/** What a mutation costs beyond its fields (Hive Gateway's and Apollo Router's default). */
const MUTATION_COST = 10;
const EMPTY: ReadonlyMap<string, number> = new Map();

/** The arguments a field is given, variables substituted; a bad one prices as absent. */
function argumentsOf(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  try {
    return getArgumentValues(field, node, variables);
  } catch (e) {
    if (isGraphQLError(e)) return {};
    throw e;
  }
}

/** The arguments of the named directive on a definition, if it carries it. */
function directive(
  directives: readonly ConstDirectiveNode[] | undefined,
  name: string,
): Record<string, unknown> | undefined {
  const found = directives?.find((d) => d.name.value === name || d.name.value === `federation__${name}`);
  if (!found) return undefined;
  return Object.fromEntries((found.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)]));
}

function weightOf(directives: readonly ConstDirectiveNode[] | undefined): number | undefined {
  const cost = directive(directives, 'cost');
  const weight = Number(cost?.weight);
  return cost && Number.isFinite(weight) ? weight : undefined;
}

/**
 * The variables as execution sees them for pricing: the operation's default for each one not
 * given (`query($n: Int = 5000)` runs with 5000, and is priced so).
 */
function withDefaults(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  let out = variables ?? {};
  let copied = false;
  for (const d of operation.variableDefinitions ?? []) {
    const name = d.variable.name.value;
    if (!d.defaultValue || Object.hasOwn(out, name)) continue;
    const type = typeFromAST(schema, d.type);
    if (!type || !isInputType(type)) continue;
    const value = valueFromAST(d.defaultValue, type);
    if (value === undefined) continue;
    if (!copied) {
      out = { ...out };
      copied = true;
    }
    out[name] = value;
  }
  return out;
}
