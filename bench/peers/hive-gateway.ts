/**
 * Peer: Hive Gateway runtime over our three subgraph processes, with the supergraph our
 * composition makes. Forwards the signed identity of the session presented (bench/peers/identity.ts).
 */
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { composeSupergraph } from '../../src/gateway/composition.ts';
import { TYPE_DEFS } from '../../src/server/app.ts';
import { listen } from '../../src/server/listen.ts';
import { IDENTITY_HEADER, IdentitySigner } from '../../src/shared/identity.ts';
import { peerIdentities, subgraphUrl } from './identity.ts';

const identityOf = peerIdentities();
const signer = new IdentitySigner(process.env.ASSETQL_SECRET!);
const supergraph = composeSupergraph(
  SUBGRAPH_NAMES.map((name) => ({ name, typeDefs: TYPE_DEFS[name], url: subgraphUrl(name) })),
);

interface State {
  identityToken?: string;
}

const runtime = createGatewayRuntime<State>({
  supergraph,
  graphqlEndpoint: '/api/graphql',
  landingPage: false,
  graphiql: false,
  logging: false,
  propagateHeaders: {
    fromClientToSubgraphs: ({ context }) =>
      context.identityToken ? { [IDENTITY_HEADER]: context.identityToken } : {},
  },
});

// The same HTTP front as our gateway (src/server/listen.ts); one signature per client request.
const server = await listen(
  async (request) =>
    runtime.fetch(request, {
      identityToken: await signer.sign(identityOf(request.headers.get('x-svc-sessionid'))),
    }),
  0,
  '127.0.0.1',
);
process.stdout.write(`peer at ${server.url}/api/graphql\n`);
process.once('SIGTERM', () => {
  void server.close(1000).then(() => Promise.resolve(runtime.dispose()).finally(() => process.exit(0)));
});
