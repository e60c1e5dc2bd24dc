import { loadConfig, SUBGRAPH_NAMES, type SubgraphName } from '../../config/index.ts';
import { composeSupergraph } from '../../gateway/composition.ts';
import { TYPE_DEFS } from '../../server/app.ts';
import { UsageError } from '../errors.ts';

export async function supergraphCommand(options: { subgraphUrl?: string[] }): Promise<void> {
  const config = loadConfig();
  const urls: Partial<Record<SubgraphName, string>> = { ...config.subgraphUrls };
  for (const pair of options.subgraphUrl ?? []) {
    const [name, url] = pair.split(/=(.*)/s);
    if (!name || !url || !SUBGRAPH_NAMES.includes(name as SubgraphName)) {
      throw new UsageError(
        `--subgraph-url takes name=url with name one of ${SUBGRAPH_NAMES.join(', ')}: ${pair}`,
      );
    }
    urls[name as SubgraphName] = url;
  }
  const sdl = await composeSupergraph(
    SUBGRAPH_NAMES.map((name, i) => ({
      name,
      typeDefs: TYPE_DEFS[name],
      url: urls[name] ?? `http://localhost:${4001 + i}/graphql`,
    })),
  );
  process.stdout.write(sdl.endsWith('\n') ? sdl : `${sdl}\n`);
}
