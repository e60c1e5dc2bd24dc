import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { join } from 'node:path';
import { parse } from 'graphql';
import type { SubgraphDescriptor } from '../shared/subgraph-descriptor.ts';

/** A subgraph as the gateway serves it: what it declares, its SDL, and where it is. */
export interface SubgraphDefinition extends SubgraphDescriptor {
  typeDefs: string;
  /** Where the gateway sends the subgraph's part of a query. */
  url: string;
}

export class CompositionError extends Error {
  override name = 'CompositionError';
}

/** Composes the Federation v2 supergraph SDL; fails with every composition error listed. */
export async function composeSupergraph(subgraphs: readonly SubgraphDefinition[]): Promise<string> {
  return (await composed(subgraphs)).supergraphSdl;
}

/** The API schema clients see of the composed subgraphs (what a client's documents validate against). */
export async function composeApiSchema(subgraphs: readonly SubgraphDefinition[]): Promise<string> {
  return (await composed(subgraphs)).publicSdl;
}

async function composed(subgraphs: readonly SubgraphDefinition[]) {
  // Loaded only to compose: a start that finds its supergraph kept never loads it (~5 MB).
  const { composeServices } = await import('@theguild/federation-composition');
  const result = composeServices(
    subgraphs.map((s) => ({ name: s.name, typeDefs: parse(s.typeDefs), url: s.url })),
  );
  if (result.errors?.length || !('supergraphSdl' in result) || !result.supergraphSdl) {
    const messages = (result.errors ?? []).map((e) => `  ${e.message}`).join('\n');
    throw new CompositionError(`the subgraphs do not compose:\n${messages}`);
  }
  return result;
}

/**
 * The supergraph of `subgraphs`: kept in the build this process runs from (scripts/build.ts), by
 * a digest of every subgraph's name, URL and SDL and of the composer's version, so that a start
 * with the same subgraphs reads it instead of composing again; composed (and kept) otherwise.
 * Run from the sources, or from a build it cannot write to, it composes every time.
 */
export async function supergraphOf(subgraphs: readonly SubgraphDefinition[]): Promise<string> {
  const file = keptAt(subgraphs);
  if (file && existsSync(file)) return readFileSync(file, 'utf8');
  const sdl = await composeSupergraph(subgraphs);
  if (file) keep(file, sdl);
  return sdl;
}

/** Where this build keeps the supergraph of `subgraphs`, or undefined when not run from a build. */
function keptAt(subgraphs: readonly SubgraphDefinition[]): string | undefined {
  const build = join(import.meta.dirname, '..');
  if (!existsSync(join(build, '.complete'))) return undefined;
  const composer = findPackageJSON('@theguild/federation-composition', import.meta.url);
  const hash = createHash('sha256').update(composer ? readFileSync(composer) : '');
  for (const s of subgraphs) hash.update(`\0${s.name}\0${s.url}\0${s.typeDefs}`);
  return join(build, '.supergraphs', `${hash.digest('hex').slice(0, 32)}.graphql`);
}

function keep(file: string, sdl: string): void {
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    const aside = `${file}.${randomBytes(6).toString('hex')}`;
    writeFileSync(aside, sdl);
    renameSync(aside, file);
  } catch (e) {
    // A build this process may not write to: it composes at every start, as from the sources.
    if (typeof (e as { code?: unknown }).code === 'string') return;
    throw e;
  }
}
