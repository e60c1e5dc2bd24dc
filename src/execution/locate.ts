import type {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { Kind } from 'graphql';

/**
 * The field an error's path points at in the client's document, following response keys
 * (aliases) through fragments; the first that matches, as graphql-js reports the first node of a
 * field merged from several. How a field error is located wherever it was made: in this process
 * against the client's document, in a subgraph against the text the gateway sent it, or by a
 * plan of the runtime's.
 */
export function fieldAt(
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
