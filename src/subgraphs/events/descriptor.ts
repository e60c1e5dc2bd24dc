import type { SubgraphDescriptor } from '../../shared/subgraph-descriptor.ts';

/** What the gateway needs of the events subgraph besides its schema: nothing but its name. */
export const eventsDescriptor: SubgraphDescriptor = { name: 'events' };
