import type { SubgraphDescriptor } from '../../shared/subgraph-descriptor.ts';

/** What the gateway needs of the auth subgraph besides its schema: it alone starts and ends sessions. */
export const authDescriptor: SubgraphDescriptor = { name: 'auth', mayChangeSession: true };
