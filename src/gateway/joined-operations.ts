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
import { estimateCost } from '../shared/cost.ts';
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
 * subgraphs' fields sit, as plain fields without directives, directly in the selection of an object
 * type that subgraph resolves as an entity (a `@key` whose fields are plain and resolvable), reached
 * from the root through plain fields only (no fragment, directive or response key used twice on
 * the way); everything else in the root subgraph's part is anything direct execution takes.
 * Anything else is left to the planner. A request whose answers have any error, whose entities do
 * not all come back, or whose requests together the cost rule might refuse is **declined** and
 * executed by the planner, which reports it as it always does: the errors of a joined operation,
 * and the limits on the sum of its requests' costs, stay the planner's to shape.
 */
export class JoinedOperations {
  readonly #subgraphs: readonly Candidate[];
  readonly #plans = new PerOperation<JoinedPlan | null>();
  readonly #options: JoinedOptions;

  constructor(subgraphs: readonly DirectSubgraph[], options: JoinedOptions) {
    this.#options = options;
    this.#subgraphs = subgraphs.map((subgraph) => ({
      subgraph,
      unsafe: fieldsResolvedElsewhere(subgraph.typeDefs),
      typeInfo: new TypeInfo(subgraph.schema),
      entities: entityKeys(subgraph.typeDefs),
    }));
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
    const fetches: EntityFetch[] = [];
    const split = (set: SelectionSetNode, type: GraphQLNamedType, path: string[], plain: boolean) => {
      const kept: SelectionNode[] = [];
      const foreign: FieldNode[] = [];
      const onlyFields = set.selections.every((s) => s.kind === Kind.FIELD);
      const keys = set.selections.map((s) => (s.kind === Kind.FIELD ? responseKey(s) : ''));
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
          const before = fetches.length;
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
          if (fetches.length > before && (!onlyFields || keys.indexOf(key) !== keys.lastIndexOf(key)))
            return null;
          kept.push({ ...selection, selectionSet: below });
        } else {
          if (!plain || selection.directives?.length) return null;
          foreign.push(selection);
        }
      }
      if (foreign.length === 0) return { ...set, selections: kept };
      // Another subgraph's fields: on an object type it resolves as an entity, in a selection of
      // fields alone, each response key once, so that the answer can be put together key by key.
      if (!onlyFields || !isObjectType(type) || new Set(keys).size !== keys.length) return null;
      const fetch = this.#entityFetch(root, type.name, foreign, fragments, operation, path);
      if (!fetch) return null;
      const taken = new Set(keys);
      for (const key of fetch.keys) {
        if (taken.has(key.alias) || !type.getFields()[key.field]) return null;
        kept.push(aliased(key.alias, key.field));
      }
      fetch.order = set.selections.map((s) => {
        const key = responseKey(s as FieldNode);
        return { key, foreign: foreign.includes(s as FieldNode) };
      });
      fetches.push(fetch);
      return { ...set, selections: kept };
    };
    const selectionSet = split(operation.selectionSet, queryType, [], !operation.directives?.length);
    if (!selectionSet || fetches.length === 0) return null;

    const rootOperation = withUsedVariables({ ...operation, selectionSet }, operation.variableDefinitions);
    const document = withFragments(rootOperation, fragments);
    if (validate(root.subgraph.schema, document, specifiedRules).length > 0) return null;
    if (selectsAnythingUnsafe(document, root)) return null;
    // Deepest first: an entity inside another is put together before the one that holds it.
    fetches.sort((a, b) => b.path.length - a.path.length);
    return new JoinedPlan(root.subgraph, document, rootOperation.name?.value ?? null, fetches, this.#options);
  }

  /** The `_entities` request of the subgraph that resolves every one of `fields` on `typename`, if one does. */
  #entityFetch(
    root: Candidate,
    typename: string,
    fields: readonly FieldNode[],
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    operation: OperationDefinitionNode,
    path: readonly string[],
  ): EntityFetch | null {
    for (const candidate of this.#subgraphs) {
      if (candidate === root) continue;
      const keyFields = candidate.entities.get(typename);
      if (!keyFields) continue;
      const entities: OperationDefinitionNode = withUsedVariables(
        {
          kind: Kind.OPERATION_DEFINITION,
          operation: 'query' as OperationDefinitionNode['operation'],
          selectionSet: {
            kind: Kind.SELECTION_SET,
            selections: [
              {
                kind: Kind.FIELD,
                name: { kind: Kind.NAME, value: '_entities' },
                arguments: [
                  {
                    kind: Kind.ARGUMENT,
                    name: { kind: Kind.NAME, value: 'representations' },
                    value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: REPRESENTATIONS } },
                  },
                ],
                selectionSet: {
                  kind: Kind.SELECTION_SET,
                  selections: [
                    {
                      kind: Kind.INLINE_FRAGMENT,
                      typeCondition: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: typename } },
                      selectionSet: { kind: Kind.SELECTION_SET, selections: fields },
                    },
                  ],
                },
              },
            ],
          },
        } as OperationDefinitionNode,
        [...(operation.variableDefinitions ?? []), REPRESENTATIONS_DEFINITION],
      );
      const document = withFragments(entities, fragments);
      if (validate(candidate.subgraph.schema, document, specifiedRules).length > 0) continue;
      if (selectsAnythingUnsafe(document, candidate)) continue;
      return {
        subgraph: candidate.subgraph,
        typename,
        path,
        keys: keyFields.map((field) => ({ field, alias: `${KEY_ALIAS}${field}` })),
        document,
        order: [],
      };
    }
    return null;
  }
}

export interface JoinedOptions extends Pick<DirectExecutionOptions, 'relayHeaders' | 'traceSubgraphCall'> {
  metrics?: Metrics;
  /** The cost the requests of one operation may add up to (the runtime's demand control). */
  maxCost: number;
}

/** The variable the `_entities` requests take their representations in (an operation using the name is not joined). */
const REPRESENTATIONS = 'assetqlRepresentations';
const REPRESENTATIONS_DEFINITION = (
  parse(`query ($${REPRESENTATIONS}: [_Any!]!) { __typename }`).definitions[0] as OperationDefinitionNode
).variableDefinitions![0]!;
/** The response keys key fields are added to the root subgraph's part under. */
const KEY_ALIAS = 'assetqlKey_';

interface Candidate {
  subgraph: DirectSubgraph;
  unsafe: ReadonlySet<string>;
  typeInfo: TypeInfo;
  /** The key fields each entity type this subgraph resolves is fetched by (its first plain `@key`). */
  entities: ReadonlyMap<string, readonly string[]>;
}

/** One entity fetch of a plan: where its entities are in the root's answer, and what it asks of them. */
interface EntityFetch {
  subgraph: DirectSubgraph;
  typename: string;
  /** Response keys from the root to the field whose value holds the entities (lists walked through). */
  path: readonly string[];
  /** The entity's key fields, and the response keys they are asked under. */
  keys: readonly { field: string; alias: string }[];
  /** `query($assetqlRepresentations: [_Any!]!, …) { _entities(…) { ... on T { <fields> } } }` */
  document: DocumentNode;
  /** The entity's selection in the client's order: which response keys this fetch supplies. */
  order: { key: string; foreign: boolean }[];
}

/** What a request made the prepared path leave to the pipeline: executed by the planner there, not joined again. */
export interface JoinedContext {
  joinedDeclined?: boolean;
}

type Context = CorrelationContext & IdentityContext;

/** The joined form of one operation, made once and run for each request of it. */
export class JoinedPlan {
  readonly root: DirectSubgraph;
  /** The root subgraph's part: the operation without others' fields, with the entities' key fields. */
  readonly document: DocumentNode;
  readonly operationName: string | null;
  readonly fetches: readonly EntityFetch[];
  readonly options: JoinedOptions;

  constructor(
    root: DirectSubgraph,
    document: DocumentNode,
    operationName: string | null,
    fetches: readonly EntityFetch[],
    options: JoinedOptions,
  ) {
    this.root = root;
    this.document = document;
    this.operationName = operationName;
    this.fetches = fetches;
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
    const declined = () => {
      metrics.joinedOperation('declined');
      return undefined;
    };
    const first = await runDirect(
      this.root,
      { document: this.document, operationName: this.operationName, variableValues: variables },
      context,
      this.options,
    );
    if (first.result.errors?.length || first.result.extensions?.http) return declined();
    let cost = estimateCost(this.root.schema, this.document, this.operationName, variables);
    const data = first.result.data as Record<string, unknown> | null | undefined;
    if (!data) return declined();

    // Every fetch's entities found before any is put together: a deeper one's holder is the
    // object a shallower one replaces.
    const found = this.fetches.map((fetch) => {
      const at: Holder[] = [];
      const representations: Record<string, unknown>[] = [];
      if (!holders({ data }, 'data', fetch.path, 0, at)) return undefined;
      for (const [holder, key] of at) {
        const entity = holder[key] as Record<string, unknown>;
        const representation: Record<string, unknown> = { __typename: fetch.typename };
        for (const k of fetch.keys) {
          const value = entity[k.alias];
          if (value === null || value === undefined) return undefined;
          representation[k.field] = value;
        }
        representations.push(representation);
      }
      const fetchVariables = { ...variables, [REPRESENTATIONS]: representations };
      cost += at.length ? estimateCost(fetch.subgraph.schema, fetch.document, null, fetchVariables) : 0;
      return { fetch, at, variables: fetchVariables };
    });
    if (found.some((f) => f === undefined) || cost > this.options.maxCost) return declined();

    const answers = await Promise.all(
      found.map(async (f) => {
        if (!f!.at.length) return [];
        const { result } = await runDirect(
          f!.fetch.subgraph,
          { document: f!.fetch.document, operationName: null, variableValues: f!.variables },
          context,
          this.options,
        );
        if (result.errors?.length || result.extensions?.http) return undefined;
        const entities = (result.data as { _entities?: unknown } | null | undefined)?._entities;
        return Array.isArray(entities) && entities.length === f!.at.length ? entities : undefined;
      }),
    );
    if (answers.some((a) => a === undefined)) return declined();

    for (let i = 0; i < found.length; i++) {
      const { fetch, at } = found[i]!;
      const entities = answers[i]!;
      for (let j = 0; j < at.length; j++) {
        const [holder, key] = at[j]!;
        const own = holder[key] as Record<string, unknown>;
        const added = entities[j] as Record<string, unknown> | null;
        if (!added || typeof added !== 'object') return declined();
        const joined: Record<string, unknown> = {};
        for (const { key: k, foreign } of fetch.order) {
          const value = foreign ? added[k] : own[k];
          if (value === undefined) return declined();
          joined[k] = value;
        }
        holder[key] = joined;
      }
    }
    metrics.joinedOperation('answered');
    return { data };
  }
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

function aliased(alias: string, field: string): FieldNode {
  return {
    kind: Kind.FIELD,
    alias: { kind: Kind.NAME, value: alias },
    name: { kind: Kind.NAME, value: field },
  };
}

/** `operation` with those of `definitions` it uses, and no others (an unused variable fails validation). */
function withUsedVariables(
  operation: OperationDefinitionNode,
  definitions: readonly VariableDefinitionNode[] | undefined,
): OperationDefinitionNode {
  const used = new Set<string>();
  visit(operation.selectionSet, {
    Variable(node) {
      used.add(node.name.value);
    },
  });
  return {
    ...operation,
    variableDefinitions: (definitions ?? []).filter((d) => used.has(d.variable.name.value)),
  };
}

/** A document of `operation` and the fragments it spreads. */
function withFragments(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): DocumentNode {
  return operationAlone({ kind: Kind.DOCUMENT, definitions: [operation, ...fragments.values()] }, operation);
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
