/**
 * Peer: PostGraphile v5 (Amber preset, Relay connections) over read-only views of the same
 * tables in schema `peer` (bench/peers/sql.ts makes them). No session: it reads as the
 * database user, the views fixed to the benchmark group.
 */
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

const pgl = postgraphile({
  extends: [PostGraphileAmberPreset],
  pgServices: [makePgService({ connectionString: process.env.DATABASE_URL!, schemas: ['peer'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
});
const serv = pgl.createServ(grafserv);
const server = createServer();
serv.addTo(server).catch((e) => {
  process.stderr.write(`${e}\n`);
  process.exit(1);
});
await pgl.getSchema();
server.listen(0, '127.0.0.1', () => {
  const a = server.address() as { port: number };
  process.stdout.write(`peer at http://127.0.0.1:${a.port}/graphql\n`);
});
process.once('SIGTERM', () => {
  server.close();
  void Promise.resolve(pgl.release()).finally(() => process.exit(0));
});
