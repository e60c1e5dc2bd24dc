import type { Identity } from '../../src/shared/identity.ts';

/**
 * The identities a peer gateway forwards to our subgraphs: one per benchmark session, as our
 * gateway's session resolver would make them (PEER_IDENTITIES, JSON: session ID -> identity).
 * Peers look the presented `x-svc-sessionid` up in this table instead of resolving it (a cached
 * lookup of microseconds in our gateway) and sign the identity on every request with the shared
 * ASSETQL_SECRET, as our gateway does.
 */
export function peerIdentities(): (sessionId: string | null | undefined) => Identity {
  const raw = process.env.PEER_IDENTITIES;
  if (!raw) throw new Error('PEER_IDENTITIES is not set');
  const table = new Map(Object.entries(JSON.parse(raw) as Record<string, Identity>));
  const first = table.values().next().value;
  if (!first) throw new Error('PEER_IDENTITIES is empty');
  return (sessionId) => (sessionId ? table.get(sessionId) : undefined) ?? first;
}

export function subgraphUrl(name: string): string {
  const url = process.env[`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`];
  if (!url) throw new Error(`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL is not set`);
  return url;
}
