import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { composeServices as composeWithApollo } from '@apollo/composition';
import { composeServices as composeWithGuild } from '@theguild/federation-composition';
import {
  buildSchema,
  type GraphQLScalarType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { TYPE_DEFS } from '../../src/server/app.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Every type and field the spec names, one check a line (scripts/check-surface.mjs reads it too). */
const SURFACE = fileURLToPath(new URL('../fixtures/spec/surface.txt', import.meta.url));

const services = () =>
  SUBGRAPH_NAMES.map((name) => ({
    name,
    typeDefs: parse(TYPE_DEFS[name]),
    url: `http://${name}.example.test/graphql`,
  }));

/** Types the spec names and this suite insists on even if surface.txt is reworded. */
const CORE_TYPES = [
  'Query',
  'Mutation',
  'AssetProfile',
  'AssetProfiles',
  'Asset',
  'Assets',
  'AssetsConnection',
  'AssetSelectionFilter',
  'AssetProfileRelationship',
  'AssetRelationship',
  'GeoJSONGeometryInterface',
  'GeoJSONPoint',
  'Session',
  'IssueSubject',
  'AssetReference',
  'EntityOwner',
  'Issue',
  'Issues',
  'PageInfo',
];

/** `Type.field` pairs and bare type names from surface.txt. */
function specSurface(): { types: Set<string>; fields: [string, string][] } {
  const types = new Set(CORE_TYPES);
  const fields: [string, string][] = [];
  for (const raw of readFileSync(SURFACE, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const named = line.match(/^(?:enum|input) (\w+):/);
    const union = line.match(/^union (\w+) = (.+)$/);
    // `values Type.field: ...` and `Type.field...` both name a field of a type.
    const field = line.match(/^(?:values )?(\w+)\.(\w+)/);
    if (named) types.add(named[1]!);
    else if (union) {
      types.add(union[1]!);
      for (const member of union[2]!.split('|')) types.add(member.trim());
    } else if (field) {
      types.add(field[1]!);
      fields.push([field[1]!, field[2]!]);
    }
  }
  return { types, fields };
}

function missingFromSchema(schema: GraphQLSchema): string[] {
  const { types, fields } = specSurface();
  const missing: string[] = [];
  for (const name of types) if (!schema.getType(name)) missing.push(name);
  for (const [typeName, fieldName] of fields) {
    const type = schema.getType(typeName);
    if (!type) continue; // already reported
    const has =
      isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)
        ? fieldName in type.getFields()
        : false;
    if (!has) missing.push(`${typeName}.${fieldName}`);
  }
  return missing;
}

describe('composition of the subgraphs', () => {
  it('composes with @theguild/federation-composition (the gateway’s composer) without errors', () => {
    const result = composeWithGuild(services());
    const messages = (result.errors ?? []).map((e) => e.message);
    expect(messages, messages.join('\n')).toEqual([]);
    expect('supergraphSdl' in result && result.supergraphSdl).toBeTruthy();
    const supergraph = buildSchema((result as { supergraphSdl: string }).supergraphSdl);
    expect(missingFromSchema(supergraph)).toEqual([]);
  });

  it('composes with @apollo/composition without errors or hints', () => {
    const result = composeWithApollo(services());
    const errors = (result.errors ?? []).map((e) => e.message);
    expect(errors, errors.join('\n')).toEqual([]);
    // Apollo hints flag merges that work but are probably mistakes (INCONSISTENT_DESCRIPTION,
    // INCONSISTENT_BUT_COMPATIBLE_FIELD_TYPE, INCONSISTENT_ENTITY, UNUSED_ENUM_TYPE, ...).
    const hints = (result.hints ?? []).map((h) => `${h.definition.code}: ${h.message}`);
    expect(hints, `Apollo composition hints:\n${hints.join('\n')}`).toEqual([]);
    expect(result.supergraphSdl).toBeTruthy();
    const supergraph = buildSchema(result.supergraphSdl!);
    expect(missingFromSchema(supergraph)).toEqual([]);
  });

  it('the two composers agree on the client-facing schema’s types', () => {
    const guild = composeWithGuild(services()) as { supergraphSdl: string };
    const apollo = composeWithApollo(services());
    const api = (sdl: string) => {
      const schema = buildSchema(sdl);
      return Object.keys(schema.getTypeMap())
        .filter((n) => !n.startsWith('__') && !n.startsWith('join__') && !n.startsWith('link__'))
        .sort();
    };
    expect(api(guild.supergraphSdl)).toEqual(api(apollo.supergraphSdl!));
  });

  it('both composers keep the scalars’ @specifiedBy, so clients and code generators can read it', () => {
    const expected = {
      DateTime: 'https://scalars.graphql.org/andimarek/date-time.html',
      JSON: 'https://www.rfc-editor.org/rfc/rfc8259',
      JSONObject: 'https://www.rfc-editor.org/rfc/rfc8259#section-4',
    };
    const guild = composeWithGuild(services()) as { supergraphSdl: string };
    const apollo = composeWithApollo(services());
    for (const sdl of [guild.supergraphSdl, apollo.supergraphSdl!]) {
      const schema = buildSchema(sdl);
      const urls = Object.fromEntries(
        Object.keys(expected).map((name) => [
          name,
          (schema.getType(name) as GraphQLScalarType).specifiedByURL,
        ]),
      );
      expect(urls).toEqual(expected);
    }
  });

  it('`assetql supergraph` prints a supergraph SDL naming the four subgraphs', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['src/cli/bin.ts', 'supergraph'], {
      cwd: ROOT,
      // A clean environment: no DATABASE_URL, ASSETQL_* or config file from the caller.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      timeout: 30_000,
    });
    const document = parse(stdout);
    expect(document.definitions.length).toBeGreaterThan(0);
    const schema = buildSchema(stdout);
    const graphs = schema.getType('join__Graph');
    expect(isEnumType(graphs), 'join__Graph is an enum').toBe(true);
    if (!isEnumType(graphs)) return;
    expect(
      graphs
        .getValues()
        .map((v) => v.name)
        .sort(),
    ).toEqual(['ASSETS', 'AUTH', 'EVENTS', 'ISSUES']);
    for (const name of SUBGRAPH_NAMES) {
      expect(stdout).toMatch(new RegExp(`@join__graph\\(name: "${name}", url: "http://[^"]+"\\)`));
    }
    expect(missingFromSchema(schema)).toEqual([]);
    expect(isUnionType(schema.getType('AssetRelationship'))).toBe(true);
  });

  it('reads the spec surface it checks against', () => {
    expect(existsSync(SURFACE), `${SURFACE} is missing`).toBe(true);
    expect(specSurface().fields.length).toBeGreaterThan(100);
  });
});
