import type { Kysely } from 'kysely';
import type { Config } from '../config/index.ts';
import { withChangeStamp } from '../storage/change-log.ts';
import { LOCKS, withAdvisoryLock } from '../storage/locks.ts';
import type { Tables } from '../storage/tables.ts';
import type { DatasetRow, ObservationRow } from '../subgraphs/assets/datasets/rows.ts';
import { kyselyExec } from '../subgraphs/assets/exec.ts';
import {
  type AssetImportRow,
  type PreparedProfile,
  prepareProfile,
  validateAsset,
} from '../subgraphs/assets/import/validate.ts';
import {
  type EffectiveProfile,
  effectiveProfile,
  type ProfileDocument,
} from '../subgraphs/assets/profiles/definition.ts';
import { addMissingProfiles } from '../subgraphs/assets/profiles/store.ts';
import { validateEffective, valueFits } from '../subgraphs/assets/profiles/validate.ts';
import { writeUpDatasetIn } from '../subgraphs/assets/write/datasets.ts';
import { writeObservationsIn } from '../subgraphs/assets/write/observations.ts';
import { upsertAssetsIn } from '../subgraphs/assets/write/upsert.ts';
import { createUser } from '../subgraphs/auth/users.ts';
import { insertIssue } from '../subgraphs/issues/issues.repository.ts';
import {
  EQUIPMENT_AT,
  EQUIPMENT_DOCUMENT,
  type FacilityPlace,
  generateEquipment,
  SENSOR_DOCUMENT,
  type WellPlace,
} from './equipment.ts';
import { listedBy, refersTo } from './relationships.ts';
import { saveFiltersAndViews } from './views.ts';

/** The demo tenants: user `demo` belongs to both. */
export const DEMO_GROUPS = ['demo', 'demo-east'] as const;
/** The demo user and its well-known password (the demo environment only). */
export const DEMO_USER = 'demo';
export const DEMO_PASSWORD = 'demo';
const OWNER = DEMO_USER;

interface SeedProfile {
  profile: string;
  title: string;
  document: ProfileDocument;
}

const PROFILES: SeedProfile[] = [
  {
    profile: 'site',
    title: 'Site',
    document: {
      displayNameProperty: 'name',
      properties: [
        { name: 'name', type: 'STRING', title: 'Name', required: true },
        { name: 'region', type: 'STRING', title: 'Region' },
        { name: 'operator', type: 'STRING', title: 'Operator', default: 'Northwind Energy' },
      ],
      relationships: [listedBy('facilities', 'facility', 'siteId')],
    },
  },
  {
    profile: 'facility',
    title: 'Facility',
    document: {
      displayNameProperty: 'name',
      displayNameTemplate: '{name} ({kind|"facility"})',
      secondaryDisplayNameProperty: 'kind',
      properties: [
        { name: 'name', type: 'STRING', title: 'Name', required: true },
        {
          name: 'kind',
          type: 'ENUM',
          title: 'Kind',
          enumValues: ['battery', 'compressor', 'gathering', 'plant'],
        },
        { name: 'siteId', type: 'STRING', title: 'Site' },
        { name: 'capacity', type: 'NUMBER', title: 'Capacity', unit: 'm3/d' },
      ],
      relationships: [
        refersTo('site', 'site', 'siteId'),
        listedBy('wells', 'well', 'facilityId'),
        EQUIPMENT_AT('facilityId'),
      ],
    },
  },
  {
    profile: 'well',
    title: 'Well',
    document: {
      displayNameProperty: 'name',
      secondaryDisplayNameProperty: 'uwi',
      isDeletedProperty: 'abandoned',
      properties: [
        { name: 'name', type: 'STRING', title: 'Name', required: true },
        { name: 'uwi', type: 'STRING', title: 'Unique well identifier' },
        {
          name: 'status',
          type: 'ENUM',
          title: 'Status',
          enumValues: ['drilling', 'producing', 'shut-in', 'abandoned'],
        },
        { name: 'facilityId', type: 'STRING', title: 'Facility' },
        { name: 'depth', type: 'NUMBER', title: 'Total depth', unit: 'm' },
        { name: 'spudDate', type: 'DATE', title: 'Spud date' },
        { name: 'abandoned', type: 'BOOLEAN', title: 'Abandoned', default: false },
      ],
      relationships: [refersTo('facility', 'facility', 'facilityId'), EQUIPMENT_AT('wellId')],
    },
  },
  { profile: 'equipment', title: 'Equipment', document: EQUIPMENT_DOCUMENT },
  { profile: 'sensor', title: 'Sensor', document: SENSOR_DOCUMENT },
];

/**
 * In the demo tenant wells are fed by datasets: a registry (its own column names, mapped onto
 * the profile's), an operations feed whose status wins over the registry's, and SCADA state.
 * `assetql demo generate` writes plain wells, without them.
 */
const WELL_DATASETS: Pick<ProfileDocument, 'upDatasets' | 'stateUpdateDatasets' | 'propertyMaps'> = {
  upDatasets: [
    { dataset: 'registry', title: 'Well registry', priority: 10 },
    { dataset: 'operations', title: 'Operations status feed', priority: 20 },
  ],
  stateUpdateDatasets: [{ dataset: 'scada', title: 'SCADA readings' }],
  propertyMaps: [
    { dataset: 'registry', column: 'well_name', property: 'name' },
    { dataset: 'registry', column: 'total_depth_m', property: 'depth' },
    { dataset: 'registry', column: 'spud_date', property: 'spudDate' },
  ],
};

const seedDocument = (p: SeedProfile): ProfileDocument =>
  p.profile === 'well' ? { ...p.document, ...WELL_DATASETS } : p.document;

/** The demo profiles by name, for `assetql demo generate`. */
export const DEMO_PROFILE_DOCUMENTS: Readonly<Record<string, { title: string; document: ProfileDocument }>> =
  Object.fromEntries(PROFILES.map((p) => [p.profile, { title: p.title, document: p.document }]));

const SITES = [
  { id: 'S-100', name: 'Red Deer Field', region: 'Alberta', lon: -113.81, lat: 52.27 },
  { id: 'S-200', name: 'Peace River Field', region: 'Alberta', lon: -117.29, lat: 56.23 },
  { id: 'S-300', name: 'Estevan Field', region: 'Saskatchewan', lon: -102.99, lat: 49.14 },
];
const FACILITY_KINDS = ['battery', 'compressor', 'gathering', 'plant'];
const WELL_STATUS = ['producing', 'producing', 'producing', 'shut-in', 'drilling'];

/** A small deterministic generator so the demo data is the same on every machine. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The profiles of `group` as the seed stores them, checked the way `profiles apply` checks them. */
function seedProfiles(group: string): Map<string, EffectiveProfile> {
  const profiles = new Map(
    PROFILES.map((p) => [
      p.profile,
      effectiveProfile(
        {
          user_group: group,
          profile: p.profile,
          title: p.title,
          owner_username: OWNER,
          definition: seedDocument(p) as unknown as Record<string, unknown>,
        },
        [],
      ),
    ]),
  );
  for (const p of profiles.values()) {
    const problem = validateEffective(p, (n) => profiles.get(n) ?? null);
    if (problem) throw new Error(`demo profile ${p.profile}: ${problem.message}`);
  }
  return profiles;
}

/** Refuses a seeded asset its profile would refuse: unknown properties, misfit or missing values. */
function checkAsset(profile: EffectiveProfile, id: string, properties: Record<string, unknown>) {
  for (const [name, value] of Object.entries(properties)) {
    const def = profile.properties.find((d) => d.name === name);
    if (!def || !valueFits(def, value))
      throw new Error(`demo ${profile.profile} ${id}: ${name} = ${JSON.stringify(value)} does not fit`);
  }
  for (const def of profile.properties)
    if (def.required && properties[def.name] == null && def.default == null)
      throw new Error(`demo ${profile.profile} ${id}: ${def.name} is required`);
}

/** The facility that `demo-east` has of its own, so that tenant isolation shows in its data. */
const EAST_FACILITY = {
  id: 'F-300-9',
  name: 'Estevan east compressor 9',
  kind: 'compressor',
  lon: -102.87,
  lat: 49.21,
};

/**
 * Loads the demo tenant when the group has no profiles yet: sites, facilities and wells with
 * geometry and relationships, the equipment at facilities and well pads with their sensors
 * and a few days of telemetry, saved filters and views, one open issue; in `demo-east` a copy
 * of one site and a facility of its own with its equipment. Returns whether anything was written.
 *
 * Processes started together (the subgraphs of a distributed deployment) each load it at start:
 * one at a time under an advisory lock, each looking for the tenant first, so that the first
 * loads it and the others find it and write nothing.
 */
export async function seedDemo(db: Kysely<Tables>, config: Pick<Config, 'env' | 'secret'>): Promise<boolean> {
  // Recorded in the change log as the demo loader's, like any system writer's.
  return withChangeStamp({ actorKind: 'SYSTEM', actor: 'assetql demo', correlationId: null }, () =>
    withAdvisoryLock(db, LOCKS.demoData, () => loadDemo(db, config)),
  );
}

async function loadDemo(db: Kysely<Tables>, config: Pick<Config, 'env' | 'secret'>): Promise<boolean> {
  const existing = await db
    .selectFrom('asset_profiles')
    .select('profile')
    .where('user_group', '=', DEMO_GROUPS[0])
    .limit(1)
    .execute();
  if (existing.length > 0) return false;

  // The demo user, with the demo's well-known password: only ever in the demo environment.
  if (config.env === 'demo') {
    const user = await db
      .selectFrom('users')
      .select('username')
      .where('username', '=', OWNER)
      .executeTakeFirst();
    if (!user) {
      await createUser(db, config.secret, {
        username: OWNER,
        groups: [...DEMO_GROUPS],
        password: DEMO_PASSWORD,
        allowWeakPassword: true,
      });
    }
  }

  const random = rng(42);
  const now = new Date();
  const profilesOf = new Map(DEMO_GROUPS.map((g) => [g, seedProfiles(g)]));
  await db.transaction().execute(async (trx) => {
    for (const group of DEMO_GROUPS) {
      await addMissingProfiles(
        trx,
        group,
        OWNER,
        PROFILES.map((p) => ({ profile: p.profile, title: p.title, document: seedDocument(p) })),
      );
    }
    // The rows of each group's profile, written through the assets writer like any import.
    const assets = new Map<
      string,
      { group: string; profile: EffectiveProfile; prepared: PreparedProfile; rows: AssetImportRow[] }
    >();
    const registry: DatasetRow[] = [];
    const operations: DatasetRow[] = [];
    const facilities: FacilityPlace[] = [];
    const wells: WellPlace[] = [];
    const add = (
      group: (typeof DEMO_GROUPS)[number],
      profile: string,
      id: string,
      properties: Record<string, unknown>,
      lon: number,
      lat: number,
    ) => {
      const p = profilesOf.get(group)!.get(profile)!;
      checkAsset(p, id, properties);
      const key = `${group}/${profile}`;
      if (!assets.has(key)) assets.set(key, { group, profile: p, prepared: prepareProfile(p), rows: [] });
      const entry = assets.get(key)!;
      const geometry = { type: 'Point', coordinates: [round(lon), round(lat)] };
      const row = validateAsset(entry.prepared, { id, properties, geometry });
      if (!row.ok) throw new Error(`demo ${profile} ${id}: ${row.message}`);
      entry.rows.push(row.value);
    };

    for (const site of SITES) {
      add('demo', 'site', site.id, { name: site.name, region: site.region }, site.lon, site.lat);
      if (site.region === 'Saskatchewan') {
        add('demo-east', 'site', site.id, { name: site.name, region: site.region }, site.lon, site.lat);
      }
      for (let f = 1; f <= 2; f++) {
        const fid = `${site.id.replace('S', 'F')}-${f}`;
        const flon = site.lon + (random() - 0.5) * 0.4;
        const flat = site.lat + (random() - 0.5) * 0.3;
        add(
          'demo',
          'facility',
          fid,
          {
            name: `${site.name.split(' ')[0]} ${FACILITY_KINDS[(f + site.id.length) % 4]} ${f}`,
            kind: FACILITY_KINDS[(f + site.id.length) % 4],
            siteId: site.id,
            capacity: Math.round(500 + random() * 4500),
          },
          flon,
          flat,
        );
        facilities.push({ id: fid, kind: FACILITY_KINDS[(f + site.id.length) % 4]!, lon: flon, lat: flat });
        for (let w = 1; w <= 4; w++) {
          const wid = `W-${fid.slice(2)}-${w}`;
          const status = WELL_STATUS[Math.floor(random() * WELL_STATUS.length)]!;
          const values = {
            well_name: `${site.name.split(' ')[0]} ${f}-${w}`,
            uwi: `100/${String(10 + w).padStart(2, '0')}-${String(f * 7).padStart(2, '0')}-0${f}-${site.id.slice(2)}W5`,
            status: 'drilling', // the registry's record; the operations feed has the current one
            facilityId: fid,
            total_depth_m: Math.round(1200 + random() * 2800),
            spud_date: `20${10 + Math.floor(random() * 14)}-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}`,
          };
          const geometry = {
            type: 'Point',
            coordinates: [round(flon + (random() - 0.5) * 0.05), round(flat + (random() - 0.5) * 0.05)],
          };
          registry.push({ id: wid, values, geometry });
          operations.push({ id: wid, values: { status } });
          wells.push({ id: wid, status, lon: geometry.coordinates[0]!, lat: geometry.coordinates[1]! });
        }
      }
    }
    // Equipment and sensors come from a generator of their own, so that the sites, facilities
    // and wells above stay what they were before there was equipment.
    const equipment = generateEquipment(rng(7), facilities, wells, now);
    for (const a of equipment.assets) add('demo', a.profile, a.id, a.properties, a.lon, a.lat);
    const { id: eastId, name, kind, lon, lat } = EAST_FACILITY;
    add('demo-east', 'facility', eastId, { name, kind, siteId: 'S-300', capacity: 1800 }, lon, lat);
    const east = generateEquipment(rng(300), [EAST_FACILITY], [], now, { days: 1 });
    for (const a of east.assets) add('demo-east', a.profile, a.id, a.properties, a.lon, a.lat);
    const exec = kyselyExec(trx);
    for (const { group, profile, rows } of assets.values()) await upsertAssetsIn(exec, group, profile, rows);
    await writeObservationsIn(
      exec,
      'demo',
      profilesOf.get('demo')!.get('sensor')!,
      'telemetry',
      equipment.telemetry,
    );
    await writeObservationsIn(
      exec,
      'demo-east',
      profilesOf.get('demo-east')!.get('sensor')!,
      'telemetry',
      east.telemetry,
    );
    {
      const group = 'demo';
      const profile = profilesOf.get(group)!.get('well')!;
      await writeUpDatasetIn(exec, group, profile, 'registry', registry);
      await writeUpDatasetIn(exec, group, profile, 'operations', operations);
      // A month of hourly SCADA readings for the first wells, so that history and its charts
      // have something to show; the last one, an hour ago, is each well's observation.
      const history: ObservationRow[] = registry.slice(0, 6).flatMap((r, i) =>
        Array.from({ length: DEMO_HISTORY_HOURS - 2 }, (_, k) => {
          const hoursAgo = DEMO_HISTORY_HOURS - k;
          const t = now.getTime() - hoursAgo * 3_600_000;
          // A daily swing, a slow decline of the first well's casing pressure, and noise.
          const daily = Math.sin((2 * Math.PI * (t % 86_400_000)) / 86_400_000);
          return {
            id: r.id,
            observedAt: new Date(t).toISOString(),
            values: {
              casingPressure: round(
                i === 0
                  ? 9.4 + (hoursAgo / DEMO_HISTORY_HOURS) * 1.5 + daily * 0.2
                  : 5.5 + daily * 0.8 + random() * 0.4,
              ),
              tubingPressure: round(3 + daily * 0.5 + random() * 0.3),
              oilRate: Math.round(50 + daily * 12 + random() * 8),
            },
          };
        }),
      );
      await writeObservationsIn(exec, group, profile, 'scada', history);
      const readings: ObservationRow[] = registry.slice(0, 6).flatMap((r, i) =>
        [2, 1].map((hoursAgo) => ({
          id: r.id,
          observedAt: new Date(now.getTime() - hoursAgo * 3_600_000).toISOString(),
          values: {
            casingPressure: round(i === 0 ? 9.4 - hoursAgo * 0.1 : 4 + random() * 3),
            tubingPressure: round(2 + random() * 2),
            oilRate: Math.round(20 + random() * 60),
          },
        })),
      );
      await writeObservationsIn(exec, group, profile, 'scada', readings);
    }

    await insertIssue(trx, {
      user_group: 'demo',
      id: '5b0c1f0e-3d4a-4a53-9a57-2d1f6b0d9e01',
      display_name: 'Casing pressure above threshold',
      description: 'Casing pressure has read above 9 bar for three days; schedule an inspection.',
      status: 'OPEN',
      subject_type: 'asset',
      subject_reference: 'well/W-100-1-1',
      created_at: now,
      created_by: OWNER,
    });
  });
  // Views open transactions of their own, so they follow the data rather than join it.
  const demo = profilesOf.get('demo')!;
  await saveFiltersAndViews(db, 'demo', OWNER, (n) => demo.get(n) ?? null);
  return true;
}

/** Hours of SCADA history each of the first demo wells has (30 days). */
export const DEMO_HISTORY_HOURS = 720;

function round(x: number) {
  return Math.round(x * 1e6) / 1e6;
}
