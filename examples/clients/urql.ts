/**
 * urql (`@urql/core` 6 with `@urql/exchange-graphcache` 9) for assetql (docs/clients.md).
 *
 * `node examples/clients/urql.ts` signs in to a running assetql at ASSETQL_URL (default
 * http://localhost:4000/api/graphql) as ASSETQL_USERNAME / ASSETQL_PASSWORD (default: the demo
 * user) and prints the first page of wells.
 */
import { Client, fetchExchange, gql } from '@urql/core';
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

const SIGN_IN = gql`
  mutation SignIn($username: String!, $password: String!) {
    signIn(input: { loginUsername: $username, password: $password, clientApplicationType: MOBILE_IOS }) {
      errors { type message }
    }
  }
`;

const WELLS = gql`
  query Wells {
    assets(profile: "well") {
      all(first: 10) {
        totalCount
        edges { node { profile id displayName properties(only: ["status", "depth"]) } }
      }
    }
  }
`;

interface Well {
  profile: string;
  id: string;
  displayName: string;
  properties: Record<string, unknown>;
}

/** Signs in with `client` and prints a page of wells; what a first program does. */
export async function signInAndListWells(
  client: Client,
  session: SessionStore,
  username: string,
  password: string,
): Promise<void> {
  const signedIn = await client.mutation(SIGN_IN, { username, password }).toPromise();
  if (signedIn.error) throw signedIn.error;
  const refused = signedIn.data?.signIn.errors[0] as { message: string } | undefined;
  if (refused || !session.id) throw new Error(`sign-in refused: ${refused?.message ?? 'no session'}`);
  const { data, error } = await client
    .query<{ assets: { all: { totalCount: number; edges: { node: Well }[] } } }>(WELLS, {})
    .toPromise();
  if (error) throw error;
  const page = data!.assets.all;
  console.table(page.edges.map(({ node }) => ({ id: node.id, name: node.displayName, ...node.properties })));
  console.log(`${page.edges.length} of ${page.totalCount} wells`);
}

if (process.argv[1] === import.meta.filename) {
  const url = process.env.ASSETQL_URL ?? 'http://localhost:4000/api/graphql';
  const session: SessionStore = { id: undefined };
  await signInAndListWells(
    headerSessionClient(url, session),
    session,
    process.env.ASSETQL_USERNAME ?? 'demo',
    process.env.ASSETQL_PASSWORD ?? 'demo',
  ).catch((e: Error) => {
    process.stderr.write(`urql example: ${e.message} (is assetql running at ${url}?)\n`);
    process.exitCode = 1;
  });
}
