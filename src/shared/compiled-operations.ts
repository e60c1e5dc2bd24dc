import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInputObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

/**
 * A subgraph's operations compiled with graphql-jit, once per parsed document: arguments, field
 * plans and serialisers are worked out once instead of for every field of every row.
 *
 * A document is compiled on its first execution: compiling on the second instead, so that a text
 * sent once is never compiled, was measured and not kept (a page of 1,000 wells cost more on
 * graphql-js than compiled on the spot; docs/performance.md, "Noisy neighbour"). The cache is
 * keyed by the DocumentNode, which the parser caches hand back for the same text and drop with
 * it, so it holds no more documents than they do.
 */
export class CompiledOperations {
  readonly #schema: GraphQLSchema;
  readonly #recursive: ReadonlySet<string>;
  readonly #compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  constructor(schema: GraphQLSchema) {
    this.#schema = schema;
    this.#recursive = recursiveInputTypes(schema);
  }

  /** The compiled operation, or null to execute it with graphql-js. */
  get(document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    let byName = this.#compiled.get(document);
    if (!byName) {
      byName = new Map();
      this.#compiled.set(document, byName);
    }
    const key = operationName ?? '';
    const known = byName.get(key);
    if (known !== undefined) return known;
    let query: CompiledQuery | null = null;
    if (!this.#takesRecursiveInput(document, operationName)) {
      const made = compileQuery(this.#schema, document, operationName ?? undefined);
      if (isCompiledQuery(made)) query = made;
    }
    byName.set(key, query);
    return query;
  }

  // graphql-jit unrolls the coercion of a recursive input type (AssetFilter: and, or, not,
  // related) into code that grows exponentially: compiling one document with an `AssetFilter`
  // variable took 12-16 s of CPU, and a client can send a new such document each time. Those
  // run on graphql-js instead; what they gain from compiling is small beside their queries.
  #takesRecursiveInput(document: DocumentNode, operationName: string | null | undefined): boolean {
    const operation = getOperationAST(document, operationName);
    return (operation?.variableDefinitions ?? []).some((v) => {
      const type = typeFromAST(this.#schema, v.type as never) as GraphQLInputType | undefined;
      return type !== undefined && this.#recursive.has(getNamedType(type).name);
    });
  }
}

/**
 * Executes a subgraph's HTTP requests with its compiled operations where there are some (a
 * router's requests repeat the same few documents). Variables are checked by graphql-js first:
 * a request with a bad one goes to the subgraph's usual executor, which refuses it as always.
 */
export function useCompiledExecution(operations: CompiledOperations) {
  return {
    onExecute({
      args,
      setExecuteFn,
    }: {
      args: ExecutionArgs;
      setExecuteFn(fn: (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult): void;
    }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation || operation.operation === 'subscription') return;
      const query = operations.get(args.document, args.operationName);
      if (!query) return;
      // Bad variables are left to the executor the subgraph would use anyway, for its errors.
      const variables = (args.variableValues ?? {}) as Record<string, unknown>;
      if (getVariableValues(args.schema, operation.variableDefinitions ?? [], variables).errors) return;
      setExecuteFn(async (a) => {
        const result = (await query.query(a.rootValue, a.contextValue, variables)) as ExecutionResult;
        if (!result.errors?.length) return result;
        // graphql-jit's field errors carry their location but not their node, from which Yoga
        // writes it (it rebuilds every error it answers): the node is found as graphql-js has it.
        const located = result.errors.map((e) => {
          if (e.nodes?.length || !e.path) return e;
          const node = fieldAt(a.document, operation, e.path);
          return node
            ? new GraphQLError(e.message, {
                nodes: [node],
                path: e.path,
                originalError: e.originalError ?? undefined,
                extensions: e.extensions,
              })
            : e;
        });
        return { ...result, errors: located };
      });
    },
  };
}

/**
 * The field an error's path points at, following response keys (aliases) through fragments; the
 * first that matches, as graphql-js reports the first node of a field merged from several.
 */
function fieldAt(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  path: readonly (string | number)[],
): FieldNode | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const find = (set: SelectionSetNode | undefined, key: string, seen: Set<string>): FieldNode | undefined => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if ((selection.alias ?? selection.name).value === key) return selection;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const found = find(selection.selectionSet, key, seen);
        if (found) return found;
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const found = find(fragments.get(selection.name.value)?.selectionSet, key, seen);
        if (found) return found;
      }
    }
    return undefined;
  };
  let set: SelectionSetNode | undefined = operation.selectionSet;
  let field: FieldNode | undefined;
  for (const key of path) {
    if (typeof key === 'number') continue;
    field = find(set, key, new Set());
    if (!field) return undefined;
    set = field.selectionSet;
  }
  return field;
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
