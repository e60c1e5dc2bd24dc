import type { SubgraphDescriptor, SubgraphRoute } from '../../shared/subgraph-descriptor.ts';

/**
 * Export downloads: links live under the service's base URL at `public` (any gateway process
 * serves them), and the subgraph serves them at `path`, checking the link's signature.
 */
export const EXPORTS_ROUTE = {
  public: '/api/exports/',
  path: '/exports/',
  title: 'Exports',
} as const satisfies SubgraphRoute;

/** What the gateway needs of the assets subgraph besides its schema. */
export const assetsDescriptor: SubgraphDescriptor = { name: 'assets', routes: [EXPORTS_ROUTE] };
