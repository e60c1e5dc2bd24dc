import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionNode,
  type SelectionSetNode,
  specifiedRules,
  type VariableDefinitionNode,
  validate,
  visit,
} from 'graphql';
import { operationAlone } from '../documents.ts';
import { type Operation, ParsedDocument } from '../operation.ts';
import type { SubgraphTransport } from '../transports/transport.ts';
import { type Candidate, candidate, selectsAnythingUnsafe } from './direct.ts';
import { type EntityFetch, JoinedPlan, type JoinedPlanOptions, REPRESENTATIONS } from './joined-run.ts';

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
 * answers have any error, whose entities do not all come back, or whose requests together the cost
 * rule might refuse is **declined** (joined-run.ts) and executed by the planner, which reports it
 * as it always does: the errors of a joined operation, and the limit on the sum of its requests'
 * costs, stay the planner's to shape.
 */
export class JoinedRoutes {
  readonly #subgraphs: readonly Entities[];
  readonly #options: JoinedPlanOptions;

  constructor(subgraphs: readonly SubgraphTransport[], options: Omit<JoinedPlanOptions, 'addedPerObject'>) {
    this.#subgraphs = subgraphs.map((subgraph) => ({
      ...candidate(subgraph),
      entities: entityKeys(subgraph.typeDefs),
    }));
    // The most the planner adds to an object of a request: its `__typename` and an entity's keys.
    const keys = this.#subgraphs.flatMap((c) => [...c.entities.values()].map((k) => k.length));
    this.#options = { ...options, addedPerObject: 1 + Math.max(0, ...keys) };
  }

  /** The joined plan of an operation, or null to leave it to the runtime's planner. */
  decide(record: Operation): JoinedPlan | null {
    const operation = record.definition;
    if (operation?.operation !== 'query') return null;
    if (operation.variableDefinitions?.some((d) => d.variable.name.value === REPRESENTATIONS)) return null;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of record.document.definitions)
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    for (const root of this.#subgraphs) {
      const plan = this.#planFrom(root, operation, fragments);
      if (plan) return plan;
    }
    return null;
  }

  #planFrom(
    root: Entities,
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
        // The plan's own documents, each with a record of its own (its price, its printed text).
        operation: new ParsedDocument(part.document).operation(operation.name?.value ?? null),
        variables: part.variables,
      },
      fetch,
      this.#options,
    );
  }

  /** The `_entities` request of the subgraph that resolves every one of `fields` on `typename`, if one does. */
  #entityFetch(
    root: Entities,
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
        operation: new ParsedDocument(part.document).operation(null),
        // The representations are the join's own, given separately.
        variables: part.variables.filter((v) => v !== REPRESENTATIONS),
      };
    }
    return null;
  }
}

/** A subgraph as a join reads it: what it may answer, and the entity types it resolves. */
interface Entities extends Candidate<SubgraphTransport> {
  /** The key fields each entity type this subgraph resolves is fetched by (its first plain `@key`). */
  entities: ReadonlyMap<string, readonly string[]>;
}

const REPRESENTATIONS_DEFINITION = (
  parse(`query ($${REPRESENTATIONS}: [_Any!]!) { __typename }`).definitions[0] as OperationDefinitionNode
).variableDefinitions![0]!;

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
