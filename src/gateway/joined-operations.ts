import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionNode,
  type SelectionSetNode,
  specifiedRules,
  TypeInfo,
  type VariableDefinitionNode,
  validate,
  visit,
} from 'graphql';
import { type CostOptions, estimateCost } from '../shared/cost.ts';
import { type Metrics, NO_METRICS } from '../shared/metrics.ts';
import { PerOperation } from '../shared/per-operation.ts';
import type { CorrelationContext } from './plugins/use-correlation-id.ts';
import {
  type DirectExecutionOptions,
  type DirectSubgraph,
  fieldsResolvedElsewhere,
  operationAlone,
  runDirect,
  selectsAnythingUnsafe,
} from './plugins/use-direct-execution.ts';
import type { IdentityContext } from './plugins/use-session-identity.ts';

/**
 * Joined operations: a query that one subgraph answers except for fields another subgraph adds to
 * an entity it returns (an asset's `issueSubject { issues }`, which the issues subgraph resolves
 * from the subject's key) is executed as two direct requests instead of through the runtime's
 * planner: the root subgraph's part, with the entity's key fields added, then one `_entities`
 * request to the other subgraph with the keys found in the answer, whose fields are put back where
 * the client asked for them. These are the requests the runtime's plan makes (Apollo Federation's
 * entity fetch), made without its per-request work: each is a document fixed for the operation, so
 * it is validated and compiled once, where the planner writes and delegates new ones for each
 * request and merges the answers by walking them once more.
 *
 * Only what it answers exactly as the planner does is joined. The operation is a query whose other
 * subgraph's fields sit, as plain fields, directly in one selection of an object type that subgraph
 * resolves as an entity (a `@key` whose fields are plain and resolvable): a selection of fields
 * alone, without directives, each response key once; reached from the root through plain fields
 * only (no fragment, directive or response key used twice on the way); everything else in the root
 * subgraph's part is anything direct execution takes. One such place per operation (the planner
 * fetches every place's entities in one request, with one response budget). The root's request
 * asks the entity's `__typename` and key fields as the planner's does, and each request is sent
 * only the client's variables it uses. Anything else is left to the planner. A request whose
 * answers have any error, whose entities do not all come back, whose requests together the cost
 * rule might refuse, or that fails in any way is **declined** and executed by the planner, which
 * reports it as it always does: the errors of a joined operation, and the limit on the sum of its
 * requests' costs, stay the planner's to shape.
 */
export class JoinedOperations {
  readonly #subgraphs: readonly Candidate[];
  readonly #plans = new PerOperation<JoinedPlan | null>();
  readonly #options: PlanOptions;

  constructor(subgraphs: readonly DirectSubgraph[], options: JoinedOptions) {
    this.#subgraphs = subgraphs.map((subgraph) => ({
      subgraph,
      unsafe: fieldsResolvedElsewhere(subgraph.typeDefs),
      typeInfo: new TypeInfo(subgraph.schema),
      entities: entityKeys(subgraph.typeDefs),
    }));
    // The most the planner adds to an object of a request: its `__typename` and an entity's keys.
    const keys = this.#subgraphs.flatMap((c) => [...c.entities.values()].map((k) => k.length));
    this.#options = { ...options, addedPerObject: 1 + Math.max(0, ...keys) };
  }

  /** The joined plan of `document`'s operation, or null to leave it to the runtime's planner. */
  plan(document: DocumentNode, operationName?: string | null): JoinedPlan | null {
    return this.#plans.get(document, operationName, () => {
      const operation = getOperationAST(document, operationName);
      if (operation?.operation !== 'query') return null;
      if (operation.variableDefinitions?.some((d) => d.variable.name.value === REPRESENTATIONS)) return null;
      const fragments = new Map<string, FragmentDefinitionNode>();
      for (const d of document.definitions)
        if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
      for (const root of this.#subgraphs) {
        const plan = this.#planFrom(root, operation, fragments);
        if (plan) return plan;
      }
      return null;
    });
  }

  #planFrom(
    root: Candidate,
    operation: OperationDefinitionNode,
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ): JoinedPlan | null {
    const queryType = root.subgraph.schema.getQueryType();
    if (!queryType) return null;
    let fetch: EntityFetch | undefined;
    const split = (
      set: SelectionSetNode,
      type: GraphQLNamedType,
      path: string[],
      plain: boolean,
    ): SelectionSetNode | null => {
      const kept: SelectionNode[] = [];
      const foreign: FieldNode[] = [];
      const onlyFields = set.selections.every((s) => s.kind === Kind.FIELD);
      const keys = set.selections.map((s) => (s.kind === Kind.FIELD ? responseKey(s) : ''));
      // A key the answer's objects would take for their prototype: not rebuilt here.
      if (keys.includes('__proto__')) return null;
      for (const selection of set.selections) {
        if (selection.kind !== Kind.FIELD) {
          // The root subgraph's: validated with its part below, which fails if it holds others' fields.
          kept.push(selection);
          continue;
        }
        const name = selection.name.value;
        const field =
          name !== '__typename' && (isObjectType(type) || isInterfaceType(type))
            ? type.getFields()[name]
            : undefined;
        if (name === '__typename' || (field && !selection.selectionSet)) {
          kept.push(selection);
        } else if (field && selection.selectionSet) {
          const had = fetch;
          const key = responseKey(selection);
          const below = split(
            selection.selectionSet,
            getNamedType(field.type),
            [...path, key],
            plain && !selection.directives?.length,
          );
          if (!below) return null;
          // On the way to an entity, a field is the only selection under its response key: an
          // answer merged from several (`issueSubject { type } issueSubject { issues }`, or one
          // in a fragment) would not be where the plan looks for it, whole.
          if (fetch !== had && (!onlyFields || keys.indexOf(key) !== keys.lastIndexOf(key))) return null;
          kept.push({ ...selection, selectionSet: below });
        } else {
          if (!plain || selection.directives?.length) return null;
          foreign.push(selection);
        }
      }
      if (foreign.length === 0) return { ...set, selections: kept };
      // Another subgraph's fields: on an object type it resolves as an entity, in a selection of
      // fields alone, without directives, each response key once, so that the answer can be put
      // together key by key. One such place per operation: the planner asks for the entities of
      // every place in one request, whose response budget this would otherwise split.
      if (fetch || !onlyFields || !isObjectType(type) || new Set(keys).size !== keys.length) return null;
      if (set.selections.some((s) => s.directives?.length)) return null;
      const found = this.#entityFetch(root, type.name, foreign, fragments, operation, path);
      if (!found) return null;
      // The root's request asks what the planner's asks of the entity: its `__typename` and key
      // fields, each once (a plain field the client selects already is not asked again), so that
      // both requests cost the response budget what the planner's do.
      for (const name of ['__typename', ...found.keys]) {
        const same = set.selections.find((s) => responseKey(s as FieldNode) === name) as
          | FieldNode
          | undefined;
        if (same) {
          if (same.name.value !== name || same.arguments?.length || same.selectionSet) return null;
          continue;
        }
        if (name !== '__typename' && !type.getFields()[name]) return null;
        kept.push({ kind: Kind.FIELD, name: { kind: Kind.NAME, value: name } });
      }
      fetch = {
        ...found,
        order: set.selections.map((s) => ({
          key: responseKey(s as FieldNode),
          foreign: foreign.includes(s as FieldNode),
        })),
      };
      return { ...set, selections: kept };
    };
    const selectionSet = split(operation.selectionSet, queryType, [], !operation.directives?.length);
    if (!selectionSet || !fetch) return null;

    const part = documentOf({ ...operation, selectionSet }, fragments, operation.variableDefinitions ?? []);
    if (validate(root.subgraph.schema, part.document, specifiedRules).length > 0) return null;
    if (selectsAnythingUnsafe(part.document, root)) return null;
    return new JoinedPlan(
      {
        subgraph: root.subgraph,
        document: part.document,
        operationName: operation.name?.value ?? null,
        variables: part.variables,
      },
      fetch,
      this.#options,
    );
  }

  /** The `_entities` request of the subgraph that resolves every one of `fields` on `typename`, if one does. */
  #entityFetch(
    root: Candidate,
    typename: string,
    fields: readonly FieldNode[],
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    operation: OperationDefinitionNode,
    path: readonly string[],
  ): Omit<EntityFetch, 'order'> | null {
    const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
    for (const candidate of this.#subgraphs) {
      if (candidate === root) continue;
      const keyFields = candidate.entities.get(typename);
      if (!keyFields) continue;
      const entities = {
        kind: Kind.OPERATION_DEFINITION,
        operation: 'query',
        selectionSet: {
          kind: Kind.SELECTION_SET,
          selections: [
            {
              kind: Kind.FIELD,
              name: name('_entities'),
              arguments: [
                {
                  kind: Kind.ARGUMENT,
                  name: name('representations'),
                  value: { kind: Kind.VARIABLE, name: name(REPRESENTATIONS) },
                },
              ],
              selectionSet: {
                kind: Kind.SELECTION_SET,
                selections: [
                  { kind: Kind.FIELD, name: name('__typename') },
                  {
                    kind: Kind.INLINE_FRAGMENT,
                    typeCondition: { kind: Kind.NAMED_TYPE, name: name(typename) },
                    selectionSet: { kind: Kind.SELECTION_SET, selections: fields },
                  },
                ],
              },
            },
          ],
        },
      } as OperationDefinitionNode;
      const part = documentOf(entities, fragments, [
        ...(operation.variableDefinitions ?? []),
        REPRESENTATIONS_DEFINITION,
      ]);
      if (validate(candidate.subgraph.schema, part.document, specifiedRules).length > 0) continue;
      if (selectsAnythingUnsafe(part.document, candidate)) continue;
      return {
        subgraph: candidate.subgraph,
        typename,
        path,
        keys: keyFields,
        document: part.document,
        // The representations are the join's own, given separately.
        variables: part.variables.filter((v) => v !== REPRESENTATIONS),
      };
    }
    return null;
  }
}

export interface JoinedOptions extends Pick<DirectExecutionOptions, 'relayHeaders' | 'traceSubgraphCall'> {
  metrics?: Metrics;
  /** The cost the requests of one operation may add up to (the runtime's demand control). */
  maxCost: number;
  /** The fields one subgraph request may resolve (its response budget). */
  maxFields: number;
}

interface PlanOptions extends JoinedOptions {
  addedPerObject: number;
}

/** The variable the `_entities` request takes its representations in (an operation defining it is not joined). */
const REPRESENTATIONS = 'assetqlRepresentations';
const REPRESENTATIONS_DEFINITION = (
  parse(`query ($${REPRESENTATIONS}: [_Any!]!) { __typename }`).definitions[0] as OperationDefinitionNode
).variableDefinitions![0]!;
/** Prices a plan's requests never below the runtime's demand control (see `CostOptions`). */
const AS_THE_RUNTIME: CostOptions = { listsAtLeastOne: true };

interface Candidate {
  subgraph: DirectSubgraph;
  unsafe: ReadonlySet<string>;
  typeInfo: TypeInfo;
  /** The key fields each entity type this subgraph resolves is fetched by (its first plain `@key`). */
  entities: ReadonlyMap<string, readonly string[]>;
}

/** A request of a plan: its subgraph and document, and the client's variables the document uses. */
interface PlannedRequest {
  subgraph: DirectSubgraph;
  document: DocumentNode;
  variables: readonly string[];
}

/** The root subgraph's request: the operation without others' fields, with the entity's key fields. */
interface RootRequest extends PlannedRequest {
  operationName: string | null;
}

/** The entity request of a plan: where its entities are in the root's answer, and what it asks of them. */
interface EntityFetch extends PlannedRequest {
  typename: string;
  /** Response keys from the root to the field whose value holds the entities (lists walked through). */
  path: readonly string[];
  /** The entity's key fields, asked of the root by their names. */
  keys: readonly string[];
  /** The entity's selection in the client's order: which response keys the fetch supplies. */
  order: readonly { key: string; foreign: boolean }[];
}

type Context = CorrelationContext & IdentityContext;

/** The joined form of one operation, made once and run for each request of it. */
export class JoinedPlan {
  readonly root: RootRequest;
  readonly fetch: EntityFetch;
  readonly options: PlanOptions;

  constructor(root: RootRequest, fetch: EntityFetch, options: PlanOptions) {
    this.root = root;
    this.fetch = fetch;
    this.options = options;
  }

  /**
   * The operation's answer, or undefined when this request is declined (see {@link JoinedOperations}):
   * the caller then hands it to the planner.
   */
  async run(
    variables: Record<string, unknown> | null | undefined,
    context: Context,
  ): Promise<ExecutionResult | undefined> {
    const metrics = this.options.metrics ?? NO_METRICS;
    let answered: ExecutionResult | undefined;
    try {
      answered = await this.#join(variables ?? {}, context);
    } catch {
      // Whatever went wrong (an answer of an unexpected shape, a failure), the planner meets it
      // and reports it as it always does.
      answered = undefined;
    }
    metrics.joinedOperation(answered ? 'answered' : 'declined');
    return answered;
  }

  async #join(variables: Record<string, unknown>, context: Context): Promise<ExecutionResult | undefined> {
    const { root, fetch, options } = this;
    const rootVariables = only(variables, root.variables);
    // Priced first: a root request the cost rule refuses is not run only to be declined after.
    let cost = estimateCost(
      root.subgraph.schema,
      root.document,
      root.operationName,
      rootVariables,
      AS_THE_RUNTIME,
    );
    if (cost > options.maxCost) return undefined;
    const first = await runDirect(
      root.subgraph,
      { document: root.document, operationName: root.operationName, variableValues: rootVariables },
      context,
      options,
    );
    if (first.result.errors?.length || first.result.extensions?.http) return undefined;
    const data = first.result.data as Record<string, unknown> | null | undefined;
    if (!data || !withinBudget(data, options)) return undefined;

    const at: Holder[] = [];
    if (!holders({ data }, 'data', fetch.path, 0, at)) return undefined;
    if (at.length) {
      const representations = at.map(([holder, key]) => {
        const entity = holder[key] as Record<string, unknown>;
        const representation: Record<string, unknown> = { __typename: fetch.typename };
        for (const k of fetch.keys) {
          const value = Object.hasOwn(entity, k) ? entity[k] : undefined;
          if (value === null || value === undefined) return undefined;
          representation[k] = value;
        }
        return representation;
      });
      if (representations.includes(undefined)) return undefined;
      const fetchVariables = { ...only(variables, fetch.variables), [REPRESENTATIONS]: representations };
      cost += estimateCost(fetch.subgraph.schema, fetch.document, null, fetchVariables, AS_THE_RUNTIME);
      if (cost > options.maxCost) return undefined;
      const { result } = await runDirect(
        fetch.subgraph,
        { document: fetch.document, operationName: null, variableValues: fetchVariables },
        context,
        options,
      );
      if (result.errors?.length || result.extensions?.http) return undefined;
      const entities = (result.data as { _entities?: unknown } | null | undefined)?._entities;
      if (!Array.isArray(entities) || entities.length !== at.length || !withinBudget(entities, options))
        return undefined;
      for (let i = 0; i < at.length; i++) {
        const [holder, key] = at[i]!;
        const own = holder[key] as Record<string, unknown>;
        const added = entities[i] as Record<string, unknown> | null;
        if (!added || typeof added !== 'object') return undefined;
        // Rebuilt in the client's order, without what the join added to the root's request.
        const joined: Record<string, unknown> = {};
        for (const { key: k, foreign } of fetch.order) {
          const from = foreign ? added : own;
          if (!Object.hasOwn(from, k)) return undefined;
          joined[k] = from[k];
        }
        holder[key] = joined;
      }
    }
    return { data };
  }
}

/**
 * Whether the planner's request for this answer surely fits its response budget too. The planner
 * asks what the join asks and may add, to any object of the answer, its `__typename` and an
 * entity's key fields; every key of every object here is a field resolved (and the keys inside a
 * JSON scalar's value count too: more, never fewer). Near the limit the planner decides, and
 * refuses as it refuses.
 */
function withinBudget(answer: unknown, options: PlanOptions): boolean {
  let fields = 0;
  const pending: unknown[] = [answer];
  while (pending.length) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    fields += options.addedPerObject;
    for (const key in value) {
      fields++;
      const child = (value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') pending.push(child);
    }
    if (fields > options.maxFields) return false;
  }
  return true;
}

/** The variables `names` of the request's, left out where the request leaves them out. */
function only(variables: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(variables, name)) out[name] = variables[name];
  return out;
}

/** Where a value sits: the object or list holding it, and its key there. */
type Holder = [Record<string | number, unknown>, string | number];

/**
 * Collects where the objects at `path` below `holder[key]` are (lists walked through, nulls
 * skipped) into `out`; false when something there is not what the plan expects (a scalar or
 * nothing where an object should be).
 */
function holders(
  holder: Record<string | number, unknown>,
  key: string | number,
  path: readonly string[],
  depth: number,
  out: Holder[],
): boolean {
  const value = holder[key];
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      if (!holders(value as unknown as Record<number, unknown>, i, path, depth, out)) return false;
    return true;
  }
  if (typeof value !== 'object' || value === undefined) return false;
  if (depth === path.length) {
    out.push([holder, key]);
    return true;
  }
  return holders(value as Record<string, unknown>, path[depth]!, path, depth + 1, out);
}

function responseKey(field: FieldNode): string {
  return field.alias?.value ?? field.name.value;
}

/**
 * A document of `operation` and the fragments it spreads, with those of `definitions` it uses
 * (in its selections or its fragments') and no others: an unused variable fails validation.
 */
function documentOf(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  definitions: readonly VariableDefinitionNode[],
): { document: DocumentNode; variables: string[] } {
  const bare = { ...operation, variableDefinitions: [] };
  const alone = operationAlone({ kind: Kind.DOCUMENT, definitions: [bare, ...fragments.values()] }, bare);
  const used = new Set<string>();
  visit(alone, {
    Variable(node) {
      used.add(node.name.value);
    },
  });
  const defined = definitions.filter((d) => used.has(d.variable.name.value));
  return {
    document: {
      ...alone,
      definitions: [{ ...bare, variableDefinitions: defined }, ...alone.definitions.slice(1)],
    },
    variables: defined.map((d) => d.variable.name.value),
  };
}

/**
 * The entity types a subgraph resolves, each with the fields of its first `@key` that is
 * resolvable and plain (`fields: "type reference"`, not nested selections).
 */
function entityKeys(typeDefs: string): Map<string, readonly string[]> {
  const found = new Map<string, readonly string[]>();
  for (const definition of parse(typeDefs).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION)
      continue;
    for (const directive of definition.directives ?? []) {
      if (directive.name.value !== 'key') continue;
      const argument = (name: string) => directive.arguments?.find((a) => a.name.value === name)?.value;
      const resolvable = argument('resolvable');
      if (resolvable?.kind === Kind.BOOLEAN && !resolvable.value) continue;
      const fields = argument('fields');
      if (fields?.kind !== Kind.STRING || /[{}]/.test(fields.value)) continue;
      const names = fields.value.split(/[\s,]+/).filter(Boolean);
      if (names.length && !found.has(definition.name.value)) found.set(definition.name.value, names);
    }
  }
  return found;
}
