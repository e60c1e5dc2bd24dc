import type { Identity } from '../../src/shared/identity.ts';

/**
 * The identity a peer gateway forwards to our subgraphs: the benchmark user, as our gateway's
 * session resolver would make it (PEER_IDENTITY, JSON). Peers sign it on every request with the
 * shared ASSETQL_SECRET, as our gateway does, but skip session resolution.
 */
export function peerIdentity(): Identity {
  const raw = process.env.PEER_IDENTITY;
  if (!raw) throw new Error('PEER_IDENTITY is not set');
  return JSON.parse(raw) as Identity;
}

export function subgraphUrl(name: string): string {
  const url = process.env[`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`];
  if (!url) throw new Error(`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL is not set`);
  return url;
}
