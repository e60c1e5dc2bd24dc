import {
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { fieldAt } from '../locate.ts';
import { Fact, type Operation } from '../operation.ts';

/** An operation compiled, with what each request needs of it. */
export interface CompiledOperation {
  query: CompiledQuery;
  operation: OperationDefinitionNode;
  /** The variables that have a default. */
  defaulted: readonly string[];
  /** Executes it; errors as graphql-js makes them ({@link settled}). */
  run(
    rootValue: unknown,
    contextValue: unknown,
    variables: Record<string, unknown>,
  ): Promise<ExecutionResult>;
}

/**
 * A subgraph's operations compiled with graphql-jit, once per operation (a fact of its record):
 * arguments, field plans and serialisers are worked out once instead of for every field of every
 * row.
 *
 * An operation is compiled on its first execution: compiling on the second instead, so that a
 * text sent once is never compiled, was measured and not kept (a page of 1,000 wells cost more on
 * graphql-js than compiled on the spot; docs/performance.md, "Noisy neighbour"). The records live
 * as long as their parsed documents (operation.ts), so nothing compiled outlives its text.
 */
export class CompiledOperations {
  readonly #schema: GraphQLSchema;
  readonly #recursive: ReadonlySet<string>;
  /** This schema's compiled form of an operation (a fact of its own: another schema compiles apart). */
  readonly #compiled = new Fact<CompiledOperation | null>('compiled');

  constructor(schema: GraphQLSchema) {
    this.#schema = schema;
    this.#recursive = recursiveInputTypes(schema);
  }

  /** The compiled operation, or null to execute it with graphql-js. */
  get(operation: Operation): CompiledQuery | null {
    return this.#entry(operation)?.query ?? null;
  }

  /**
   * The compiled operation for one request, or null to execute it with graphql-js: also null when
   * the request leaves out, or sends null for, a variable that has a default (graphql-jit refuses
   * a left-out non-null one, and takes the default for a null).
   */
  forRequest(
    operation: Operation,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): CompiledOperation | null {
    const entry = this.#entry(operation);
    if (!entry) return null;
    return entry.defaulted.some((name) => (variables?.[name] ?? undefined) === undefined) ? null : entry;
  }

  #entry(record: Operation): CompiledOperation | null {
    return record.get(this.#compiled, () => {
      const { document, definition: operation, operationName } = record;
      if (
        !operation ||
        operation.operation === 'subscription' ||
        this.#takesRecursiveInput(operation) ||
        expandedFields(document, operation, MAX_COMPILED_FIELDS) > MAX_COMPILED_FIELDS
      )
        return null;
      const query = compileQuery(this.#schema, document, operationName ?? undefined);
      if (!isCompiledQuery(query)) return null;
      return {
        query,
        operation,
        defaulted: (operation.variableDefinitions ?? [])
          .filter((v) => v.defaultValue !== undefined)
          .map((v) => v.variable.name.value),
        run: async (rootValue, contextValue, variables) =>
          settled(
            (await query.query(rootValue, contextValue, variables)) as ExecutionResult,
            document,
            operation,
          ),
      };
    });
  }

  // graphql-jit unrolls the coercion of a recursive input type (AssetFilter: and, or, not,
  // related) into code that grows exponentially: compiling one document with an `AssetFilter`
  // variable took 12-16 s of CPU, and a client can send a new such document each time. Those
  // run on graphql-js instead; what they gain from compiling is small beside their queries.
  #takesRecursiveInput(operation: OperationDefinitionNode): boolean {
    return (operation.variableDefinitions ?? []).some((v) => {
      const type = typeFromAST(this.#schema, v.type as never) as GraphQLInputType | undefined;
      return type !== undefined && this.#recursive.has(getNamedType(type).name);
    });
  }
}

/**
 * A compiled operation's result with its errors as graphql-js makes them, for the error masking
 * that follows. An error graphql-jit raised itself (a null in a non-null field, a value a scalar
 * could not serialise) has no original error, so the mask would show its message as a client's
 * error: it gets one, and is masked and logged as unexpected, as graphql-js's are; except an
 * invalid argument, which is the client's. And a field error's node (graphql-jit gives its
 * location only, and Yoga writes locations from nodes) is found by its path.
 */
export function settled(
  result: ExecutionResult,
  document: DocumentNode,
  operation: OperationDefinitionNode | null | undefined,
): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((e) => {
    if (e.originalError && (e.nodes?.length || !e.path)) return e;
    const field = e.path && operation ? fieldAt(document, operation, e.path) : undefined;
    // An argument the client's variables made invalid (a null for a non-null argument) is the
    // client's error, shown as graphql-js shows it, at the argument's value.
    const argument = !e.originalError && /^Argument "([^"]+)"/.exec(e.message)?.[1];
    if (argument) {
      const node = field?.arguments?.find((a) => a.name.value === argument)?.value ?? field;
      return new GraphQLError(e.message, {
        nodes: node ? [node] : undefined,
        path: e.path,
        extensions: e.extensions,
      });
    }
    const node = e.nodes?.[0] ?? field;
    return new GraphQLError(e.message, {
      nodes: node ? [node] : undefined,
      path: e.path,
      originalError: e.originalError ?? new Error(e.message),
      extensions: e.extensions,
    });
  });
  // Errors first, as graphql-js writes them.
  const { errors: _, ...rest } = result;
  return { errors, ...rest };
}

/** Operations with more fields than this, fragments expanded, are not compiled (graphql-js runs them). */
export const MAX_COMPILED_FIELDS = 500;

/**
 * How many fields an operation selects with its fragments expanded, counted up to `limit` (+1):
 * what graphql-jit generates code for. Each fragment is counted once and its count reused, so
 * the count takes time linear in the document, however its fragments fan out.
 */
export function expandedFields(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  limit: number,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const counted = new Map<string, number>();
  const count = (set: SelectionSetNode | undefined, path: Set<string>): number => {
    let n = 0;
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) n += 1 + count(selection.selectionSet, path);
      else if (selection.kind === Kind.INLINE_FRAGMENT) n += count(selection.selectionSet, path);
      else {
        const name = selection.name.value;
        let c = counted.get(name);
        if (c === undefined) {
          // A cycle is a validation error; counted as over the limit if it gets here.
          if (path.has(name)) return limit + 1;
          path.add(name);
          c = count(fragments.get(name)?.selectionSet, path);
          path.delete(name);
          counted.set(name, c);
        }
        n += c;
      }
      if (n > limit) return limit + 1;
    }
    return n;
  };
  return count(operation.selectionSet, new Set());
}

/** The input object types from which a cycle of input types can be reached (a recursive filter). */
export function recursiveInputTypes(schema: GraphQLSchema): Set<string> {
  const result = new Set<string>();
  const done = new Set<string>();
  const onPath = new Set<string>();
  // Depth-first; a type reaches a cycle when a field's type is on the path, or reaches one.
  const visit = (name: string): boolean => {
    if (onPath.has(name)) return true;
    if (done.has(name)) return result.has(name);
    const type = schema.getType(name);
    if (!isInputObjectType(type)) return false;
    onPath.add(name);
    let reaches = false;
    for (const field of Object.values(type.getFields()))
      if (visit(getNamedType(field.type).name)) reaches = true;
    onPath.delete(name);
    done.add(name);
    if (reaches) result.add(name);
    return reaches;
  };
  for (const name of Object.keys(schema.getTypeMap())) visit(name);
  return result;
}
