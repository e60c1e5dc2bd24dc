/**
 * Random documents over the demo data: whatever a client asks, no answer holds more fields than
 * the budget allows. Each is refused before execution (its estimated cost), stopped while it
 * runs (fields or related assets resolved), or answered in full within the budget; an answer
 * never holds more objects than the cost model estimated (docs/security.md).
 */
import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import fc from 'fast-check';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { estimateCost } from '../../src/execution/cost.ts';
import { ParsedDocument } from '../../src/execution/operation.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

const SECRET = 'property-test-secret-0123456789abcdefghijk';
const LIMITS = { maxCost: 3_000, maxFields: 300, maxRelated: 40 };

/** The demo's relationships: which profile each leads to, and whether to one asset or many. */
const RELATIONSHIPS: Record<string, { name: string; to: string; many: boolean }[]> = {
  site: [{ name: 'facilities', to: 'facility', many: true }],
  facility: [
    { name: 'site', to: 'site', many: false },
    { name: 'wells', to: 'well', many: true },
    { name: 'equipment', to: 'equipment', many: true },
  ],
  well: [
    { name: 'facility', to: 'facility', many: false },
    { name: 'equipment', to: 'equipment', many: true },
  ],
  equipment: [{ name: 'sensors', to: 'sensor', many: true }],
  sensor: [{ name: 'equipment', to: 'equipment', many: false }],
};
const PROFILES = Object.keys(RELATIONSHIPS);
const LEAVES = ['id', 'profile', 'displayName', 'secondaryDisplayName', 'isDeleted', 'modifiedAt'];

const schema = buildSubgraphSchema({
  typeDefs: parse(
    readFileSync(new URL('../../src/subgraphs/assets/schema.graphql', import.meta.url), 'utf8'),
  ),
});

/** A selection on an asset of `profile`, with `related` down to `depth` more levels. */
function assetSelection(profile: string, depth: number): fc.Arbitrary<string> {
  const leaves = fc.subarray(LEAVES, { minLength: 1 }).map((l) => l.join(' '));
  if (depth === 0) return leaves;
  const related = fc
    .constantFrom(...RELATIONSHIPS[profile]!)
    .chain((r) =>
      assetSelection(r.to, depth - 1).map((inner) =>
        r.many
          ? `related(relationship: "${r.name}") { ... on AssetRelationshipMany { assets { ${inner} } } }`
          : `related(relationship: "${r.name}") { ... on AssetRelationshipOne { asset { ${inner} } } }`,
      ),
    );
  return fc
    .tuple(leaves, fc.option(related, { nil: '' }), fc.boolean())
    .map(([l, r, withProfile]) => `${l} ${r} ${withProfile ? 'assetProfile { profile title }' : ''}`);
}

/** A whole operation: a page of one profile (its size literal or a variable), then a selection. */
const operation = fc
  .tuple(
    fc.constantFrom(...PROFILES),
    fc.integer({ min: 0, max: 3 }),
    fc.integer({ min: 0, max: 1000 }),
    fc.boolean(),
  )
  .chain(([profile, depth, first, asVariable]) =>
    assetSelection(profile, depth).map((selection) => ({
      query: `query${asVariable ? '($n: Int)' : ''} { assets(profile: "${profile}") { all(first: ${asVariable ? '$n' : first}) {
        edges { cursor node { ${selection} } } pageInfo { hasNextPage } } } }`,
      variables: asVariable ? { n: first } : {},
    })),
  );

/** Fields in an answer (every key of every object), and the objects among them. */
function measure(value: unknown): { fields: number; objects: number } {
  let fields = 0;
  let objects = 0;
  const walk = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') {
      objects++;
      for (const x of Object.values(v)) {
        fields++;
        walk(x);
      }
    }
  };
  walk(value);
  return { fields, objects: objects - 1 }; // `data` itself is no object of the schema
}

let database: TestDatabase;
let tight: TestApp;
let defaults: TestApp;
const headers: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  database = await freshDatabase();
  tight = await startTestApp({ database, config: { secret: SECRET, documentLimits: LIMITS } });
  defaults = await startTestApp({ database, config: { secret: SECRET } });
  await seedDemo(database.db, tight.config);
  headers.tight = { 'x-svc-sessionid': await tight.sessionFor('demo', 'demo') };
  headers.defaults = { 'x-svc-sessionid': await defaults.sessionFor('demo', 'demo') };
}, 60_000);
afterAll(async () => {
  await tight?.close();
  await defaults?.close();
  await database?.close();
});

describe('whatever a client asks', () => {
  it('is refused by its cost, stopped by its budget, or answered within both', async () => {
    const outcomes = { refused: 0, stopped: 0, answered: 0 };
    await fc.assert(
      fc.asyncProperty(operation, async ({ query, variables }) => {
        const r = await tight.graphql(query, variables, headers.tight);
        const codes = (r.body.errors ?? []).map((e) => e.extensions?.code);
        const cost = estimateCost(schema, new ParsedDocument(parse(query)).operation(null), variables);
        if (r.status === 400) {
          expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost' });
          expect(cost).toBeGreaterThan(LIMITS.maxCost);
          outcomes.refused++;
          return;
        }
        expect(cost).toBeLessThanOrEqual(LIMITS.maxCost);
        if (codes.length) {
          expect(r.body.data ?? null).toBeNull();
          expect(codes).toEqual(['RESPONSE_TOO_LARGE']);
          outcomes.stopped++;
          return;
        }
        const { fields, objects } = measure(r.body.data);
        expect(fields).toBeLessThanOrEqual(LIMITS.maxFields);
        // The estimate is an upper bound of the objects an answer holds.
        expect(objects).toBeLessThanOrEqual(cost);
        outcomes.answered++;
      }),
      { numRuns: 120, seed: Number(process.env.FC_SEED ?? 20261124), endOnFailure: true },
    );
    // The generator reaches every outcome, or the property says little.
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.stopped).toBeGreaterThan(0);
    expect(outcomes.answered).toBeGreaterThan(0);
  }, 60_000);

  it('never resolves more than the defaults allow, and the legitimate shapes pass them', async () => {
    const legitimate = [
      {
        query: `query($n: Int) { assets(profile: "well") { all(first: $n) { edges { node { id properties } } } } }`,
        variables: { n: 100 },
      },
      {
        query: `query($id: ID!) { assets(profile: "facility") { byId(id: $id) { id
          related(relationship: "wells") { ... on AssetRelationshipMany { assets { id
            related(relationship: "equipment") { ... on AssetRelationshipMany { assets { id displayName } } } } } } } } }`,
        variables: { id: 'F-100-1' },
      },
    ];
    for (const { query, variables } of legitimate) {
      const r = await defaults.graphql(query, variables, headers.defaults);
      expect(r.status).toBe(200);
      expect(r.body.errors).toBeUndefined();
    }
    await fc.assert(
      fc.asyncProperty(operation, async ({ query, variables }) => {
        const r = await defaults.graphql(query, variables, headers.defaults);
        if (r.status === 400) {
          expect(r.body.errors?.[0]?.extensions).toMatchObject({ limit: 'maxCost' });
          return;
        }
        expect(r.body.errors).toBeUndefined();
        expect(measure(r.body.data).objects).toBeLessThanOrEqual(
          estimateCost(schema, new ParsedDocument(parse(query)).operation(null), variables),
        );
      }),
      { numRuns: 40, seed: Number(process.env.FC_SEED ?? 20261124), endOnFailure: true },
    );
  }, 60_000);
});
