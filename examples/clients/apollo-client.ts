/**
 * Apollo Client (`@apollo/client` 4) for assetql (docs/clients.md).
 */
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { type SessionStore, sessionFetch } from './session-fetch.ts';

/**
 * The cache must know that an asset is identified by its profile *and* id: ids are unique only
 * within a profile, so the default key (`Asset:<id>`) would merge a site and a well that share an
 * id into one cache entry. Select `profile` and `id` wherever you select an asset.
 */
export const assetqlCache = () =>
  new InMemoryCache({
    typePolicies: {
      Asset: { keyFields: ['profile', 'id'] },
    },
  });

/** A client that carries the session in `x-svc-sessionid` (mobile, server, another site). */
export function headerSessionClient(uri: string, session: SessionStore) {
  return new ApolloClient({
    cache: assetqlCache(),
    link: new HttpLink({ uri, fetch: sessionFetch(session) }),
  });
}
