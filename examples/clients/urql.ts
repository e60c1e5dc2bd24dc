/**
 * urql (`@urql/core` 6 with `@urql/exchange-graphcache` 9) for assetql (docs/clients.md).
 */
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { type SessionStore, sessionFetch } from './session-fetch.ts';

/**
 * Graphcache keys: an asset is identified by its profile and id (ids repeat across profiles).
 * Types without an identity of their own are embedded in their parent (`null`).
 */
export const assetqlCacheExchange = () =>
  cacheExchange({
    keys: {
      Asset: (asset) => `${asset.profile}/${asset.id}`,
      AssetProfile: (profile) => String(profile.profile),
      Assets: () => null,
      AssetsConnection: () => null,
      AssetEdge: () => null,
      AssetRelationshipOne: () => null,
      AssetRelationshipMany: () => null,
      AssetProfiles: () => null,
      Session: () => null,
      AuthSessionResult: () => null,
      PageInfo: () => null,
    },
  });

/** A client that carries the session in `x-svc-sessionid` (mobile, server, another site). */
export function headerSessionClient(url: string, session: SessionStore) {
  return new Client({
    url,
    exchanges: [assetqlCacheExchange(), fetchExchange],
    fetch: sessionFetch(session),
  });
}
