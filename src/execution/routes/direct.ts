import {
  type DocumentNode,
  Kind,
  parse,
  specifiedRules,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { operationAlone } from '../documents.ts';
import type { Operation } from '../operation.ts';
import type { SubgraphTransport } from '../transports/transport.ts';

/** What deciding a route needs of a subgraph: its name, SDL and schema. */
export type PlannableSubgraph = Pick<SubgraphTransport, 'name' | 'typeDefs' | 'schema' | 'subscribe'>;

/**
 * The direct route: which subgraph can answer an operation on its own, if any.
 *
 * Most operations touch one subgraph only (a page of assets, the session, a mutation). The
 * gateway then hands the whole document to that subgraph — executed against its schema in the
 * single process, or sent as it is over HTTP in the distributed form — instead of planning it,
 * rewriting it into subgraph queries and walking the answer once more to merge it. The answer
 * is the same as through the query planner, because the operation is resolved by the same
 * resolvers in both cases; what is saved is only the work in between.
 *
 * An operation qualifies for subgraph S when, besides having passed the supergraph's
 * validation, it
 * - is valid against S's own schema (every field, argument, type condition and enum value it
 *   uses exists in S), so no other subgraph contributes a field;
 * - selects no field S marks `@external` (S may not resolve those) and none that `@requires`
 *   or `@provides` (the planner would fetch or trust other subgraphs' data for them);
 * - introspects nothing but `__typename` (`__schema`/`__type` must describe the supergraph,
 *   not S with its `_entities`), and is not deferred/streamed;
 * - is not a subscription, unless S can stream it to the gateway itself (`subscribe`: a subgraph
 *   in this process); over HTTP the runtime carries subscriptions.
 */
export class DirectRoutes<S extends PlannableSubgraph = PlannableSubgraph> {
  readonly #subgraphs: readonly Candidate<S>[];

  constructor(subgraphs: readonly S[]) {
    this.#subgraphs = subgraphs.map(candidate);
  }

  /** The subgraph that answers the whole operation alone, or null to plan it across subgraphs. */
  decide(operation: Operation): S | null {
    const definition = operation.definition;
    if (!definition) return null;
    const subscription = definition.operation === 'subscription';
    // Only the operation that runs counts: other operations of the document may need others.
    const alone = operationAlone(operation.document, definition);
    for (const c of this.#subgraphs) {
      if (subscription && !c.subgraph.subscribe) continue;
      // Validation does not ask whether the schema has the operation's root type at all.
      if (!c.subgraph.schema.getRootType(definition.operation)) continue;
      if (validate(c.subgraph.schema, alone, specifiedRules).length > 0) continue;
      if (selectsAnythingUnsafe(alone, c)) continue;
      return c.subgraph;
    }
    return null;
  }
}

/** A subgraph with what route decisions read of it, worked out once. */
export interface Candidate<S extends PlannableSubgraph> {
  subgraph: S;
  /** `Type.field` coordinates S does not resolve alone. */
  unsafe: ReadonlySet<string>;
  typeInfo: TypeInfo;
}

export function candidate<S extends PlannableSubgraph>(subgraph: S): Candidate<S> {
  return {
    subgraph,
    unsafe: fieldsResolvedElsewhere(subgraph.typeDefs),
    typeInfo: new TypeInfo(subgraph.schema),
  };
}

const NOT_ALONE = new Set(['external', 'requires', 'provides']);
const NOT_LOCAL_DIRECTIVES = new Set(['defer', 'stream']);

/** Fields of the subgraph's SDL marked `@external`, `@requires` or `@provides`. */
export function fieldsResolvedElsewhere(typeDefs: string): Set<string> {
  const found = new Set<string>();
  for (const definition of parse(typeDefs).definitions) {
    if (
      definition.kind !== Kind.OBJECT_TYPE_DEFINITION &&
      definition.kind !== Kind.OBJECT_TYPE_EXTENSION &&
      definition.kind !== Kind.INTERFACE_TYPE_DEFINITION &&
      definition.kind !== Kind.INTERFACE_TYPE_EXTENSION
    ) {
      continue;
    }
    const typeExternal = definition.directives?.some((d) => d.name.value === 'external') ?? false;
    for (const field of definition.fields ?? []) {
      if (typeExternal || field.directives?.some((d) => NOT_ALONE.has(d.name.value))) {
        found.add(`${definition.name.value}.${field.name.value}`);
      }
    }
  }
  return found;
}

/** Whether `document` selects what its candidate may not answer alone (see {@link DirectRoutes}). */
export function selectsAnythingUnsafe(
  document: DocumentNode,
  candidate: Candidate<PlannableSubgraph>,
): boolean {
  let unsafe = false;
  const { typeInfo } = candidate;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const name = node.name.value;
        const parent = typeInfo.getParentType();
        if (
          name === '__schema' ||
          name === '__type' ||
          (parent && candidate.unsafe.has(`${parent.name}.${name}`))
        ) {
          unsafe = true;
        }
      },
      Directive(node) {
        if (NOT_LOCAL_DIRECTIVES.has(node.name.value)) unsafe = true;
      },
    }),
  );
  return unsafe;
}
