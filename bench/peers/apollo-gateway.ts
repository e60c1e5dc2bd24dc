/**
 * Peer: Apollo Gateway (+ Apollo Server standalone) over our three subgraph processes, with
 * Apollo's own composition of the same SDLs. Forwards the signed identity of the session presented.
 */
import { composeServices } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { parse } from 'graphql';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { TYPE_DEFS } from '../../src/server/app.ts';
import { IDENTITY_HEADER, IdentitySigner } from '../../src/shared/identity.ts';
import { peerIdentities, subgraphUrl } from './identity.ts';

const identityOf = peerIdentities();
const signer = new IdentitySigner(process.env.ASSETQL_SECRET!);
const composed = composeServices(
  SUBGRAPH_NAMES.map((name) => ({ name, typeDefs: parse(TYPE_DEFS[name]), url: subgraphUrl(name) })),
);
if (composed.errors) throw new Error(composed.errors.map((e) => e.message).join('\n'));

interface Context {
  identityToken: string;
}
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const gateway = new ApolloGateway({
  supergraphSdl: composed.supergraphSdl,
  logger: quiet,
  buildService: ({ url }) =>
    new RemoteGraphQLDataSource<Context>({
      url,
      willSendRequest({ request, context }) {
        if (context.identityToken) request.http?.headers.set(IDENTITY_HEADER, context.identityToken);
      },
    }),
});
const server = new ApolloServer<Context>({ gateway, logger: quiet });
const { url } = await startStandaloneServer(server, {
  listen: { port: 0, host: '127.0.0.1' },
  // One signature per client request, as our gateway makes.
  context: async ({ req }) => ({
    identityToken: await signer.sign(identityOf(req.headers['x-svc-sessionid'] as string | undefined)),
  }),
});
process.stdout.write(`peer at ${url.replace('localhost', '127.0.0.1')}\n`);
process.once('SIGTERM', () => void server.stop().finally(() => process.exit(0)));
