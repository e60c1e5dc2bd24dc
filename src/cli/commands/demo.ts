import { type Command, Option } from 'commander';
import { DEMO_PROFILE_DOCUMENTS } from '../../demo/seed.ts';
import type { Database } from '../../storage/database.ts';
import { profilesWithExtensions } from '../../subgraphs/assets/assets.repository.ts';
import {
  type AssetImportRow,
  type PreparedProfile,
  prepareProfile,
  validateAsset,
} from '../../subgraphs/assets/import/validate.ts';
import { effectiveProfile } from '../../subgraphs/assets/profiles/definition.ts';
import { addMissingProfiles } from '../../subgraphs/assets/profiles/store.ts';
import type { UpsertResult } from '../../subgraphs/assets/write/types.ts';
import { upsertAssets } from '../../subgraphs/assets/write/upsert.ts';
import { withDatabase } from '../database.ts';
import { UsageError } from '../errors.ts';
import { progress, round } from '../progress.ts';

type DemoProfile = 'site' | 'facility' | 'well';
const DEMO_PROFILES: DemoProfile[] = ['site', 'facility', 'well'];

export function demoCommands(cli: Command): void {
  const demo = cli.command('demo').description('demo data');
  demo
    .command('generate')
    .description(
      'fill a group with generated assets for benchmarks: n wells, with a facility per 20 wells and a site ' +
        'per 10 facilities (or n facilities or sites), in Western Canada; creates the demo profiles if missing. ' +
        'Re-running with the same options rewrites the same assets.',
    )
    .requiredOption('--assets <n>', 'how many assets of --profile to generate')
    .option('--group <group>', 'the group (tenant) to fill', 'demo-scale')
    .addOption(new Option('--profile <profile>', 'what to generate').choices(DEMO_PROFILES).default('well'))
    .option('--chunk <rows>', 'rows per transaction', '50000')
    .option('--seed <n>', 'seed of the generator', '1')
    .option('--parallel <n>', 'transactions writing at once (PostgreSQL; PGlite runs one at a time)', '2')
    .action(
      async (o: {
        assets: string;
        group: string;
        profile: DemoProfile;
        chunk: string;
        seed: string;
        parallel: string;
      }) => {
        const n = Number(o.assets);
        const chunk = Number(o.chunk);
        const parallel = Number(o.parallel);
        if (!Number.isSafeInteger(n) || n < 1) throw new UsageError('--assets takes a positive integer');
        if (!Number.isSafeInteger(chunk) || chunk < 1)
          throw new UsageError('--chunk takes a positive integer');
        if (!Number.isSafeInteger(parallel) || parallel < 1)
          throw new UsageError('--parallel takes a positive integer');
        const summary = await withDatabase((d) =>
          generate(
            d,
            o.group,
            o.profile,
            n,
            chunk,
            Number(o.seed) || 1,
            d.engine === 'postgres' ? parallel : 1,
          ),
        );
        process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      },
    );
}

export interface GenerateSummary {
  group: string;
  profile: DemoProfile;
  assets: number;
  /** Rows written per profile (the requested ones and those they refer to). */
  rows: Partial<Record<DemoProfile, number>>;
  inserted: number;
  updated: number;
  method: UpsertResult['method'];
  seconds: number;
  rowsPerSecond: number;
}

/** Writes `n` generated assets of `profile` (and the facilities and sites they refer to). */
export async function generate(
  database: Database,
  group: string,
  profile: DemoProfile,
  n: number,
  chunk: number,
  seed = 1,
  parallel = 2,
): Promise<GenerateSummary> {
  const started = performance.now();
  await ensureProfiles(database, group);
  const loaded = await profilesWithExtensions(database.db, group, DEMO_PROFILES);
  const prepared = new Map(
    loaded.map((r) => [r.profile as DemoProfile, prepareProfile(effectiveProfile(r, r.extensions))]),
  );

  const wells = profile === 'well' ? n : 0;
  const facilities = profile === 'facility' ? n : profile === 'well' ? Math.ceil(n / 20) : 0;
  const sites = profile === 'site' ? n : Math.ceil(facilities / 10);
  const world = new World(seed, sites, facilities);
  const plan: [DemoProfile, number, (i: number) => Generated][] = [
    ['site', sites, (i) => world.site(i)],
    ['facility', facilities, (i) => world.facility(i)],
    ['well', wells, (i) => world.well(i, wells)],
  ];

  const summary: GenerateSummary = {
    group,
    profile,
    assets: n,
    rows: {},
    inserted: 0,
    updated: 0,
    method: database.engine === 'postgres' ? 'copy' : 'insert',
    seconds: 0,
    rowsPerSecond: 0,
  };
  const total = sites + facilities + wells;
  const bar = progress('generating', total, 'rows');
  let done = 0;
  try {
    for (const [name, count, make] of plan) {
      if (count === 0) continue;
      const p = prepared.get(name)!;
      // Chunks are disjoint id ranges, so `parallel` transactions can write at once: one
      // streams its COPY while another merges its staging table into `assets`.
      let next = 0;
      const sent = new Map<number, number>();
      const worker = async () => {
        for (let from = next; from < count; from = next) {
          next = from + chunk;
          const to = Math.min(count, from + chunk);
          const result = await upsertAssets(database, group, name, rowsOf(p, from, to, make), {
            onProgress: (k) => {
              sent.set(from, k);
              bar.update(done + [...sent.values()].reduce((a, b) => a + b, 0));
            },
          });
          sent.delete(from);
          done += result.rows;
          summary.inserted += result.inserted;
          summary.updated += result.updated;
          summary.method = result.method;
          bar.update(done + [...sent.values()].reduce((a, b) => a + b, 0));
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
      summary.rows[name] = count;
    }
  } finally {
    bar.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  summary.seconds = round(seconds);
  summary.rowsPerSecond = Math.round(total / Math.max(seconds, 1e-3));
  return summary;
}

async function ensureProfiles(database: Database, group: string): Promise<void> {
  // Every demo profile, not only those generated: facilities and wells relate to equipment.
  await addMissingProfiles(
    database.db,
    group,
    'demo',
    Object.entries(DEMO_PROFILE_DOCUMENTS).map(([profile, { title, document }]) => ({
      profile,
      title,
      document,
    })),
  );
}

/** Generates and validates rows lazily, so a chunk streams into COPY as it is made. */
function* rowsOf(
  profile: PreparedProfile,
  from: number,
  to: number,
  make: (i: number) => Generated,
): Generator<AssetImportRow> {
  for (let i = from; i < to; i++) {
    const g = make(i);
    const r = validateAsset(profile, g);
    if (!r.ok) throw new Error(`generated ${profile.profile} ${g.id} does not fit the profile: ${r.message}`);
    yield r.value;
  }
}

interface Generated {
  id: string;
  properties: Record<string, unknown>;
  geometry: { type: 'Point'; coordinates: [number, number] };
}

/** Oil and gas fields of the Western Canada Sedimentary Basin, at about their real places. */
const FIELDS: [string, number, number][] = [
  ['Pembina', -115.0, 53.1],
  ['Swan Hills', -115.4, 54.7],
  ['Redwater', -113.1, 53.95],
  ['Leduc', -113.55, 53.27],
  ['Rainbow Lake', -119.4, 58.5],
  ['Judy Creek', -115.6, 54.4],
  ['Kaybob', -116.6, 54.1],
  ['Wapiti', -119.0, 55.0],
  ['Brazeau', -115.6, 52.9],
  ['Valhalla', -119.3, 55.4],
  ['Red Earth', -115.2, 56.5],
  ['Provost', -110.3, 52.35],
  ['Viking', -111.8, 53.1],
  ['Drumheller', -112.7, 51.46],
  ['Medicine Hat', -110.7, 50.04],
  ['Grande Prairie', -118.8, 55.17],
  ['Peace River', -117.3, 56.23],
  ['Sylvan Lake', -114.1, 52.3],
  ['Ferrier', -115.0, 52.3],
  ['Wilson Creek', -114.9, 52.8],
  ['Kindersley', -109.2, 51.47],
  ['Weyburn', -103.85, 49.66],
  ['Midale', -103.4, 49.4],
  ['Estevan', -102.99, 49.14],
  ['Shaunavon', -108.4, 49.65],
  ['Lloydminster', -109.9, 53.28],
];
const DIRECTIONS = ['', 'North', 'South', 'East', 'West', 'Central'];
const OPERATORS = [
  'Northwind Energy',
  'Prairie Crest',
  'Aurora Hydrocarbons',
  'Boreal Resources',
  'Chinook Oil',
];
const KINDS = ['battery', 'compressor', 'gathering', 'plant'];

/** A deterministic world: sites in the Western Canada basin, facilities near them, wells near those. */
class World {
  private readonly siteAt: { lon: number; lat: number; field: string; operator: string }[] = [];
  private readonly facilityAt: { lon: number; lat: number; field: string; operator: string }[] = [];
  private readonly width: Record<DemoProfile, number>;

  private readonly seed: number;

  constructor(seed: number, sites: number, facilities: number) {
    this.seed = seed;
    this.width = { site: digits(sites), facility: digits(facilities), well: 6 };
    const r = rng(seed);
    for (let i = 0; i < sites; i++) {
      // Around a real field; past the first round, a named part of it a little further out.
      const [name, fieldLon, fieldLat] = FIELDS[i % FIELDS.length]!;
      const lap = Math.floor(i / FIELDS.length);
      const spread = lap === 0 ? 0.1 : 0.6;
      const lon = fieldLon + (r() - 0.5) * spread * 1.6;
      const lat = fieldLat + (r() - 0.5) * spread;
      const field = lap === 0 ? name : `${name} ${DIRECTIONS[1 + (lap % (DIRECTIONS.length - 1))]}`;
      this.siteAt.push({ lon, lat, field, operator: OPERATORS[Math.floor(r() * OPERATORS.length)]! });
    }
    for (let i = 0; i < facilities; i++) {
      const s = this.siteAt[sites > 0 ? i % sites : 0] ?? {
        lon: -113.8,
        lat: 52.3,
        field: 'Red Deer',
        operator: OPERATORS[0]!,
      };
      this.facilityAt.push({
        lon: s.lon + (r() - 0.5) * 0.5,
        lat: s.lat + (r() - 0.5) * 0.3,
        field: s.field,
        operator: s.operator,
      });
    }
  }

  id(profile: DemoProfile, i: number, width = this.width[profile]): string {
    return `${profile === 'site' ? 'S' : profile === 'facility' ? 'F' : 'W'}-${String(i + 1).padStart(width, '0')}`;
  }

  site(i: number): Generated {
    const s = this.siteAt[i]!;
    return {
      id: this.id('site', i),
      properties: {
        name: `${s.field} Field`,
        region: s.lon < -110.005 ? 'Alberta' : 'Saskatchewan',
        operator: s.operator,
      },
      geometry: point(s.lon, s.lat),
    };
  }

  facility(i: number): Generated {
    const f = this.facilityAt[i]!;
    const r = rng(this.seed * 7919 + i);
    const kind = KINDS[Math.floor(r() * KINDS.length)]!;
    const sites = this.siteAt.length;
    return {
      id: this.id('facility', i),
      properties: {
        name: `${f.field} ${kind} ${Math.floor(i / Math.max(sites, 1)) + 1}`,
        kind,
        ...(sites > 0 ? { siteId: this.id('site', i % sites) } : {}),
        capacity: Math.round(300 + r() * 4700),
      },
      geometry: point(f.lon, f.lat),
    };
  }

  /** Well `i` of `n`: each facility gets a run of about 20 wells within a few km. */
  well(i: number, n: number): Generated {
    const r = rng(this.seed * 104729 + i);
    const fi = Math.min(this.facilityAt.length - 1, Math.floor((i * this.facilityAt.length) / n));
    const f = this.facilityAt[fi]!;
    const lon = f.lon + (r() - 0.5) * 0.12;
    const lat = f.lat + (r() - 0.5) * 0.07;
    const dls = dominionLandSurvey(lon, lat);
    const roll = r();
    const status =
      roll < 0.62 ? 'producing' : roll < 0.84 ? 'shut-in' : roll < 0.92 ? 'drilling' : 'abandoned';
    const year = status === 'drilling' ? 2024 + Math.floor(r() * 2) : 1955 + Math.floor(r() * 69);
    const spud = `${year}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`;
    const short = f.operator.split(' ')[0]!.toUpperCase();
    return {
      id: this.id('well', i, Math.max(6, digits(n))),
      properties: {
        name: `${short} ${f.field.toUpperCase()} ${dls.lsd}-${dls.sec}-${dls.twp}-${dls.rge}`,
        uwi: `10${Math.floor(r() * 3)}/${pad2(dls.lsd)}-${pad2(dls.sec)}-${String(dls.twp).padStart(3, '0')}-${pad2(dls.rge)}W${dls.mer}/0${Math.floor(r() * 3)}`,
        status,
        facilityId: this.id('facility', fi),
        depth: Math.round((600 + r() * r() * 4200) * 10) / 10,
        spudDate: spud,
        ...(status === 'abandoned' ? { abandoned: true } : {}),
      },
      geometry: point(lon, lat),
    };
  }
}

/** Approximate Dominion Land Survey location (legal subdivision, section, township, range, meridian). */
function dominionLandSurvey(lon: number, lat: number) {
  const meridians: [number, number][] = [
    [2, -102],
    [3, -106],
    [4, -110.005],
    [5, -114.06],
    [6, -118.06],
  ];
  let mer = 2;
  let merLon = -102;
  for (const [m, l] of meridians)
    if (l >= lon) {
      mer = m;
      merLon = l;
    }
  const twpF = (lat - 49) / 0.08696;
  const kmPerDegLon = 111.32 * Math.cos((lat * Math.PI) / 180);
  const rgeF = ((merLon - lon) * kmPerDegLon) / 9.656;
  const twp = Math.max(1, Math.floor(twpF) + 1);
  const rge = Math.max(1, Math.floor(rgeF) + 1);
  // Sections run in a boustrophedon from the south-east corner, 6 to a row.
  const row = Math.min(5, Math.floor((twpF % 1) * 6));
  const col = Math.min(5, Math.floor((rgeF % 1) * 6));
  const sec = row * 6 + (row % 2 === 0 ? col : 5 - col) + 1;
  const lsd = 1 + Math.min(15, Math.floor(((twpF * 24) % 4) * 4 + ((rgeF * 24) % 4)));
  return { lsd, sec, twp, rge, mer };
}

function point(lon: number, lat: number): Generated['geometry'] {
  return { type: 'Point', coordinates: [Math.round(lon * 1e6) / 1e6, Math.round(lat * 1e6) / 1e6] };
}

function pad2(n: number) {
  return String(n).padStart(2, '0');
}

function digits(n: number) {
  return Math.max(3, String(n).length);
}

/** A small deterministic generator (the demo seed's, with the seed mixed), so runs are reproducible. */
function rng(seed: number) {
  let s = Math.imul(seed ^ (seed >>> 16), 0x7feb352d);
  s = Math.imul(s ^ (s >>> 15), 0x846ca68b);
  s = (s ^ (s >>> 16)) >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
