/**
 * Apollo Client (`@apollo/client` 4) for assetql (docs/clients.md).
 *
 * `node examples/clients/apollo-client.ts` signs in to a running assetql at ASSETQL_URL (default
 * http://localhost:4000/api/graphql) as ASSETQL_USERNAME / ASSETQL_PASSWORD (default: the demo
 * user) and prints the first page of wells.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
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

const SIGN_IN = gql`
  mutation SignIn($username: String!, $password: String!) {
    signIn(input: { loginUsername: $username, password: $password, clientApplicationType: MOBILE_ANDROID }) {
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
  client: ApolloClient,
  session: SessionStore,
  username: string,
  password: string,
): Promise<void> {
  const { data: signedIn } = await client.mutate<{ signIn: { errors: { message: string }[] } }>({
    mutation: SIGN_IN,
    variables: { username, password },
  });
  const refused = signedIn?.signIn.errors[0];
  if (refused || !session.id) throw new Error(`sign-in refused: ${refused?.message ?? 'no session'}`);
  const { data } = await client.query<{ assets: { all: { totalCount: number; edges: { node: Well }[] } } }>({
    query: WELLS,
  });
  const page = data!.assets.all;
  console.table(page.edges.map(({ node }) => ({ id: node.id, name: node.displayName, ...node.properties })));
  console.log(`${page.edges.length} of ${page.totalCount} wells`);
}

if (process.argv[1] === import.meta.filename) {
  const uri = process.env.ASSETQL_URL ?? 'http://localhost:4000/api/graphql';
  const session: SessionStore = { id: undefined };
  await signInAndListWells(
    headerSessionClient(uri, session),
    session,
    process.env.ASSETQL_USERNAME ?? 'demo',
    process.env.ASSETQL_PASSWORD ?? 'demo',
  ).catch((e: Error) => {
    process.stderr.write(`apollo-client example: ${e.message} (is assetql running at ${uri}?)\n`);
    process.exitCode = 1;
  });
}
