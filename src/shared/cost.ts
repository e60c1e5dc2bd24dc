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
  getOperationAST,
  isAbstractType,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';

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
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  options: CostOptions = {},
): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const atLeastOne = options.listsAtLeastOne ?? false;
  const cache = atLeastOne ? pricedAtLeastOne : priced;
  let bySchema = cache.get(schema);
  if (!bySchema) {
    bySchema = new WeakMap();
    cache.set(schema, bySchema);
  }
  let byOperation = bySchema.get(document);
  if (!byOperation) {
    byOperation = new Map();
    bySchema.set(document, byOperation);
  }
  let known = byOperation.get(operation);
  // Without variables the cost is the document's: priced once per parsed document and schema.
  if (!operation.variableDefinitions?.length) {
    if (!known) {
      known = { read: [], costs: new Map([['', price(schema, document, operation, undefined, atLeastOne)]]) };
      byOperation.set(operation, known);
    }
    return known.costs.get('')!;
  }
  // With variables, it depends only on those a slicing argument or `_entities` reads, which are
  // the same whatever their values (every field is visited at least once): priced once per
  // distinct value of those, when they are scalars (a page size, not a list of representations).
  if (!known) {
    const read = new Set<string>();
    const unpriced = { arguments: 0 };
    const cost = price(schema, document, operation, reading(variables ?? {}, read), atLeastOne, unpriced);
    // A field whose arguments did not coerce may not have read all of them: not noted then.
    if (unpriced.arguments > 0) return cost;
    known = { read: [...read], costs: new Map() };
    byOperation.set(operation, known);
    const key = costKey(known.read, variables);
    if (key !== null) known.costs.set(key, cost);
    return cost;
  }
  const key = costKey(known.read, variables);
  if (key === null) return price(schema, document, operation, variables, atLeastOne);
  let cost = known.costs.get(key);
  if (cost === undefined) {
    cost = price(schema, document, operation, variables, atLeastOne);
    // Bounded: a client cycling page sizes costs a pricing each, never memory.
    if (known.costs.size >= MAX_COSTS_PER_OPERATION) known.costs.clear();
    known.costs.set(key, cost);
  }
  return cost;
}

/** Distinct values of the priced variables remembered per operation. */
const MAX_COSTS_PER_OPERATION = 64;

interface KnownCosts {
  /** The variables pricing reads. */
  read: readonly string[];
  /** The cost by the values of those ({@link costKey}). */
  costs: Map<string, number>;
}

/** The values of `read` as a key, or null when one is not a scalar (not worth keying). */
function costKey(
  read: readonly string[],
  variables: Record<string, unknown> | null | undefined,
): string | null {
  if (read.length === 0) return '';
  const values: unknown[] = [];
  for (const name of read) {
    const v = variables?.[name];
    if (v !== null && v !== undefined && typeof v === 'object') return null;
    // [v] for a value given, 0 for none: null and absent differ (absent takes the default).
    values.push(v === undefined ? 0 : [v]);
  }
  return JSON.stringify(values);
}

/** `variables`, noting in `read` the name of each one looked up (graphql-js's getArgumentValues). */
function reading(variables: Record<string, unknown>, read: Set<string>): Record<string, unknown> {
  return new Proxy(variables, {
    get(target, name, receiver) {
      if (typeof name === 'string') read.add(name);
      return Reflect.get(target, name, receiver);
    },
    has(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.has(target, name);
    },
    getOwnPropertyDescriptor(target, name) {
      if (typeof name === 'string') read.add(name);
      return Reflect.getOwnPropertyDescriptor(target, name);
    },
  });
}

export interface CostOptions {
  /**
   * Price a list whose slicing argument is 0 as one item, as Hive Gateway's demand control does
   * (for a sum that must never be below the runtime's own) @default false
   */
  listsAtLeastOne?: boolean;
}

const priced = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<OperationDefinitionNode, KnownCosts>>>();
const pricedAtLeastOne = new WeakMap<
  GraphQLSchema,
  WeakMap<DocumentNode, Map<OperationDefinitionNode, KnownCosts>>
>();

function price(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | null | undefined,
  atLeastOne: boolean,
  unpriced = { arguments: 0 },
): number {
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const vars = variables ?? {};
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
      const args = argumentsOf(field, node, vars, unpriced);
      const slicing = (listSize.slicingArguments as string[] | undefined) ?? [];
      const given = slicing.map((a) => args[a]).filter((v): v is number => typeof v === 'number' && v >= 0);
      const largest = given.length ? Math.max(...given) : Number(listSize.assumedSize ?? 1);
      const size = atLeastOne ? Math.max(largest, 1) : largest;
      const sizedFields = (listSize.sizedFields as string[] | undefined) ?? [];
      if (sizedFields.length) childSized = new Map(sizedFields.map((f) => [f, size]));
      else factor = size;
    } else if (name === '_entities' && isListType(getNullableType(field.type))) {
      const representations = argumentsOf(field, node, vars, unpriced).representations;
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
  unpriced: { arguments: number },
): Record<string, unknown> {
  try {
    return getArgumentValues(field, node, variables);
  } catch {
    unpriced.arguments++;
    return {};
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
