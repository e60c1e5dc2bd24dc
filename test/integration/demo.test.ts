import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PROFILE_DOCUMENTS, seedDemo } from '../../src/demo/seed.ts';
import { type DemoApp, startDemoApp } from '../helpers/app.ts';

let d: DemoApp;

beforeAll(async () => {
  d = await startDemoApp();
});
afterAll(() => d.app.close());

const PROFILE_NAMES = Object.keys(DEMO_PROFILE_DOCUMENTS).sort();
const MEDIA_TYPES = ['WEB', 'MOBILE', 'PRINTABLE'];

interface Node {
  id: string;
  displayName: string;
  properties: Record<string, unknown>;
  observation: Record<string, unknown> | null;
  geometry: { type: string; coordinates: number[] } | null;
}

async function gql(query: string, variables: Record<string, unknown> = {}, as = d.demo) {
  const r = await d.app.graphql<any>(query, variables, as);
  expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
  return r.body.data;
}

/** Every asset of a profile in one page (the demo holds fewer than the maximum page). */
async function all(profile: string, filter: unknown = null, as = d.demo): Promise<Node[]> {
  const data = await gql(
    `query($p: ID!, $f: AssetFilter) { assets(profile: $p) { all(first: 1000, filter: $f) {
      edges { node { id displayName properties observation geometry { type ... on GeoJSONPoint { coordinates } } } }
      pageInfo { hasNextPage } } } }`,
    { p: profile, f: filter },
    as,
  );
  expect(data.assets.all.pageInfo.hasNextPage).toBe(false);
  return data.assets.all.edges.map((e: { node: Node }) => e.node);
}

const ids = (nodes: { id: string }[]) => nodes.map((n) => n.id).sort();

/** Great-circle distance in metres between two [lon, lat] points. */
function metres(a: number[], b: number[]): number {
  const rad = Math.PI / 180;
  const [lon1, lat1] = [a[0]! * rad, a[1]! * rad];
  const [lon2, lat2] = [b[0]! * rad, b[1]! * rad];
  const h =
    Math.sin((lat2 - lat1) / 2) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin((lon2 - lon1) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

describe('the demo tenant', () => {
  it('has every demo profile, each with assets that carry a point', async () => {
    const data = await gql('{ assetProfiles { all { edges { node { profile } } } } }');
    expect(data.assetProfiles.all.edges.map((e: any) => e.node.profile)).toEqual(PROFILE_NAMES);
    expect(PROFILE_NAMES).toEqual(expect.arrayContaining(['equipment', 'sensor']));
    for (const profile of PROFILE_NAMES) {
      const nodes = await all(profile);
      expect(nodes.length, profile).toBeGreaterThan(0);
      for (const n of nodes) expect(n.geometry?.type, `${profile}/${n.id}`).toBe('Point');
    }
  });

  it('places equipment at a facility or a well, near it, and names it by the template', async () => {
    const equipment = await all('equipment');
    const facilities = new Map((await all('facility')).map((f) => [f.id, f]));
    const wells = new Map((await all('well')).map((w) => [w.id, w]));
    const kinds = new Set<unknown>();
    for (const e of equipment) {
      const { facilityId, wellId, name, kind } = e.properties;
      kinds.add(kind);
      // exactly one of the two places
      expect(
        [facilityId, wellId].filter((x) => x !== undefined),
        e.id,
      ).toHaveLength(1);
      const parent = (facilityId ? facilities.get(String(facilityId)) : wells.get(String(wellId)))!;
      expect(parent, e.id).toBeDefined();
      expect(metres(e.geometry!.coordinates, parent.geometry!.coordinates), e.id).toBeLessThan(500);
      expect(e.displayName).toBe(`${name} @ ${facilityId ?? wellId}`);
    }
    expect([...kinds]).toEqual(expect.arrayContaining(['compressor', 'separator', 'tank', 'pumpjack']));
    // Every facility has equipment; no drilling well has any yet.
    const at = new Set(equipment.map((e) => e.properties.facilityId ?? e.properties.wellId));
    for (const f of facilities.keys()) expect(at.has(f), f).toBe(true);
    for (const w of wells.values()) expect(at.has(w.id), w.id).toBe(w.properties.status !== 'drilling');
  });

  it('relates equipment to its sensors (MANY) and each sensor back to its equipment (ONE)', async () => {
    const data = await gql(`{ assets(profile: "equipment") { all(first: 1000) { edges { node { id
      geometry { ... on GeoJSONPoint { coordinates } }
      related(relationship: "sensors") { __typename ... on AssetRelationshipMany {
        assets { id properties geometry { ... on GeoJSONPoint { coordinates } }
          related(relationship: "equipment") { ... on AssetRelationshipOne { asset { id } } } }
        observations } } } } } } }`);
    const sensors = await all('sensor');
    const reached: string[] = [];
    for (const { node: e } of data.assets.all.edges) {
      expect(e.related.__typename).toBe('AssetRelationshipMany');
      const mine = e.related.assets;
      expect(mine.length, e.id).toBeGreaterThanOrEqual(1);
      expect(e.related.observations).toHaveLength(mine.length);
      for (const s of mine) {
        expect(s.properties.equipmentId).toBe(e.id);
        expect(s.related.asset.id).toBe(e.id);
        expect(metres(s.geometry.coordinates, e.geometry.coordinates), s.id).toBeLessThan(20);
        reached.push(s.id);
      }
    }
    // every sensor hangs off exactly one piece of equipment
    expect(reached.sort()).toEqual(ids(sensors));
    // and facilities and wells reach the same equipment as the equipment's own references
    const facility = await gql(`{ assets(profile: "facility") { byId(id: "F-100-1") {
      related(relationship: "equipment") { ... on AssetRelationshipMany { assets { id } } } } } }`);
    const expected = (await all('equipment', { property: { name: 'facilityId', equals: 'F-100-1' } })).map(
      (e) => e.id,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(facility.assets.byId.related.assets)).toEqual(expected.sort());
  });

  it('gives every sensor its latest telemetry reading as its observation', async () => {
    const sensors = await all('sensor');
    const stats = await gql(`{ assetProfiles { byId(profile: "sensor") {
      stateUpdateDatasets { dataset observationCount latestObservationAt columns } } } }`);
    const [telemetry] = stats.assetProfiles.byId.stateUpdateDatasets;
    expect(telemetry).toMatchObject({ dataset: 'telemetry', columns: ['value'] });
    // several readings per sensor, the newest within the last hour
    expect(telemetry.observationCount).toBeGreaterThanOrEqual(sensors.length * 6);
    expect(Date.now() - Date.parse(telemetry.latestObservationAt)).toBeLessThan(3_600_000);
    const { rows: history } = await sql<{ asset_id: string; observed_at: string; values: unknown }>`
      select s.asset_id, r.at as observed_at, jsonb_object_agg(s.property, coalesce(to_jsonb(r.num), r.val)) as values
      from observation_series s join observation_readings r on r.series = s.id
      where s.user_group = 'demo' and s.profile = 'sensor' and s.dataset = 'telemetry'
      group by s.asset_id, r.at`.execute(d.app.database.db);
    const newest = new Map<string, { at: number; values: unknown }>();
    for (const h of history) {
      const at = new Date(h.observed_at as unknown as string).getTime();
      if ((newest.get(h.asset_id)?.at ?? -1) < at) newest.set(h.asset_id, { at, values: h.values });
    }
    expect(newest.size).toBe(sensors.length);
    for (const s of sensors) {
      expect(typeof s.observation?.value, s.id).toBe('number');
      expect(s.observation, s.id).toEqual(newest.get(s.id)!.values);
    }
    // Some readings sit outside their alarm band, so the demo has something to alarm on.
    const outside = sensors.filter((s) => {
      const v = s.observation!.value as number;
      const { lowAlarm, highAlarm } = s.properties as { lowAlarm?: number; highAlarm: number };
      return v > highAlarm || (lowAlarm !== undefined && v < lowAlarm);
    });
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.length).toBeLessThan(sensors.length / 2);
  });

  it('has saved filters that select what a listing with the same filter selects', async () => {
    const data = await gql(`{ assetFilters { id displayName profile filter
      subProfiles { relationship profile subProfiles { relationship profile } }
      assets(first: 1000) { edges { node { id } } pageInfo { hasNextPage } } } }`);
    const filters: any[] = data.assetFilters;
    expect(filters.length).toBeGreaterThanOrEqual(4);
    for (const f of filters) {
      expect(f.assets.pageInfo.hasNextPage).toBe(false);
      const selected = f.assets.edges.map((e: any) => e.node.id).sort();
      const listed = await all(f.profile, f.filter);
      expect(selected, f.id).toEqual(ids(listed));
      // each selects something, and is a real narrowing of its profile
      expect(selected.length, f.id).toBeGreaterThan(0);
      expect(selected.length, f.id).toBeLessThan((await all(f.profile)).length);
      // sub-profiles are stored with the profile their relationship reaches
      const rels = DEMO_PROFILE_DOCUMENTS[f.profile]!.document.relationships!;
      for (const s of f.subProfiles)
        expect(s.profile, `${f.id}.${s.relationship}`).toBe(
          rels.find((r) => r.relationship === s.relationship)?.profile,
        );
    }
    const byId = new Map(filters.map((f) => [f.id, f.assets.edges.map((e: any) => e.node.id).sort()]));
    const wells = await all('well');
    const equipment = await all('equipment');
    const sensors = await all('sensor');
    // The selections, worked out from the plain listings rather than from the filter language.
    expect(byId.get('wells-producing')).toEqual(
      ids(wells.filter((w) => w.properties.status === 'producing')),
    );
    const equipped = new Set(equipment.map((e) => e.properties.wellId));
    expect(byId.get('wells-without-equipment')).toEqual(ids(wells.filter((w) => !equipped.has(w.id))));
    expect(byId.get('equipment-attention')).toEqual(
      ids(equipment.filter((e) => ['maintenance', 'failed'].includes(String(e.properties.status)))),
    );
    const compressors = new Set(equipment.filter((e) => e.properties.kind === 'compressor').map((e) => e.id));
    expect(byId.get('compressor-vibration')).toEqual(
      ids(
        sensors.filter(
          (s) =>
            s.properties.measurement === 'vibration' && compressors.has(String(s.properties.equipmentId)),
        ),
      ),
    );
  });

  it('has views with a styled map and a layout for every media type', async () => {
    const profiles = ['well', 'equipment'];
    for (const profile of profiles) {
      const data = await gql(
        `query($p: ID!) { assetProfiles { byId(profile: $p) {
          properties { name }
          viewConfigurations { id name version
            map { center zoom layers { id styleProperty styleColors labelProperty filter } }
            layouts { mediaType widgets { id name widget settings layout { x y w h } } }
            web: layouts(mediaTypes: [WEB]) { mediaType } } } } }`,
        { p: profile },
      );
      const p = data.assetProfiles.byId;
      const names = new Set(p.properties.map((x: any) => x.name));
      expect(p.viewConfigurations.length, profile).toBeGreaterThan(0);
      for (const v of p.viewConfigurations) {
        expect(v.name, v.id).toBeTruthy();
        expect(
          v.layouts.map((l: any) => l.mediaType),
          v.id,
        ).toEqual(MEDIA_TYPES);
        expect(v.web).toEqual([{ mediaType: 'WEB' }]);
        for (const l of v.layouts) {
          expect(l.widgets.length, `${v.id} ${l.mediaType}`).toBeGreaterThan(0);
          for (const w of l.widgets) expect(w.layout.x + w.layout.w).toBeLessThanOrEqual(12);
        }
        const styled = v.map.layers.filter((l: any) => l.styleProperty);
        expect(styled.length, v.id).toBeGreaterThan(0);
        for (const l of styled) {
          expect(names.has(l.styleProperty), l.styleProperty).toBe(true);
          expect(Object.values(l.styleColors).every((c) => /^#[0-9a-f]{6}$/i.test(String(c)))).toBe(true);
        }
        // a layer's filter is one the listing accepts
        for (const l of v.map.layers.filter((x: any) => x.filter)) await all(profile, l.filter);
      }
    }
  });

  it('shows demo-east none of it, and only its own', async () => {
    const east = await gql(
      `{ assetFilters { id }
         w: assetProfiles { byId(profile: "well") { viewConfigurations { id } } }
         e: assetProfiles { byId(profile: "equipment") { viewConfigurations { id } } } }`,
      {},
      d.east,
    );
    expect(east).toEqual({
      assetFilters: [],
      w: { byId: { viewConfigurations: [] } },
      e: { byId: { viewConfigurations: [] } },
    });
    const [demoFilter] = (await gql('{ assetFilters { id } }')).assetFilters;
    const byFilter = await gql(
      `query($id: ID!) { assetFilter(id: $id) { id } }`,
      { id: demoFilter.id },
      d.east,
    );
    expect(byFilter.assetFilter).toBeNull();
    for (const profile of ['facility', 'equipment', 'sensor']) {
      const mine = ids(await all(profile));
      const theirs = ids(await all(profile, null, d.east));
      expect(theirs.length, profile).toBeGreaterThan(0);
      expect(
        theirs.filter((id) => mine.includes(id)),
        profile,
      ).toEqual([]);
      const one = await gql(
        `query($p: ID!, $id: ID!) { assets(profile: $p) { byId(id: $id) { id } } }`,
        { p: profile, id: mine[0] },
        d.east,
      );
      expect(one.assets.byId, profile).toBeNull();
    }
    // east's equipment stands at east's own facility, and its sensors report
    const eastFacilities = new Set(ids(await all('facility', null, d.east)));
    for (const e of await all('equipment', null, d.east))
      expect(eastFacilities.has(String(e.properties.facilityId)), e.id).toBe(true);
    for (const s of await all('sensor', null, d.east)) expect(typeof s.observation?.value).toBe('number');
  });

  it('is loaded once: seeding again writes nothing', async () => {
    const count = async () =>
      Number(
        (
          await d.app.database.db
            .selectFrom('assets')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    expect(await seedDemo(d.app.database.db, d.app.config)).toBe(false);
    expect(await count()).toBe(before);
  });
});
