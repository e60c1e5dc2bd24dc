import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import type { SubgraphDescriptor } from '../shared/subgraph-descriptor.ts';

/** A subgraph as the gateway serves it: what it declares, its SDL, and where it is. */
export interface SubgraphDefinition extends SubgraphDescriptor {
  typeDefs: string;
  /** Where the gateway sends the subgraph's part of a query. */
  url: string;
}

export class CompositionError extends Error {
  override name = 'CompositionError';
}

/** Composes the Federation v2 supergraph SDL; fails with every composition error listed. */
export function composeSupergraph(subgraphs: readonly SubgraphDefinition[]): string {
  const result = composeServices(
    subgraphs.map((s) => ({ name: s.name, typeDefs: parse(s.typeDefs), url: s.url })),
  );
  if (result.errors?.length || !('supergraphSdl' in result) || !result.supergraphSdl) {
    const messages = (result.errors ?? []).map((e) => `  ${e.message}`).join('\n');
    throw new CompositionError(`the subgraphs do not compose:\n${messages}`);
  }
  return result.supergraphSdl;
}
