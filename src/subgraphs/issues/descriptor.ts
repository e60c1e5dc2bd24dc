import type { SubgraphDescriptor } from '../../shared/subgraph-descriptor.ts';

/** What the gateway needs of the issues subgraph besides its schema: nothing but its name. */
export const issuesDescriptor: SubgraphDescriptor = { name: 'issues' };
