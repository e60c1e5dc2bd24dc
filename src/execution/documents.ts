import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  visit,
} from 'graphql';

/** A document of the operation and the fragments it spreads, directly or through others. */
export function operationAlone(document: DocumentNode, operation: OperationDefinitionNode): DocumentNode {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: ASTNode[] = [operation];
  while (pending.length) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const fragment = fragments.get(node.name.value);
        if (fragment && !used.has(node.name.value)) {
          used.set(node.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return { kind: Kind.DOCUMENT, definitions: [operation, ...used.values()] };
}
