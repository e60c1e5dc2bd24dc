import type { ObservationRow } from '../subgraphs/assets/datasets/rows.ts';
import type { ProfileDocument } from '../subgraphs/assets/profiles/definition.ts';
import { listedBy, refersTo } from './relationships.ts';

/**
 * Equipment and sensors of the demo tenant: what stands at each facility and well pad, the
 * instruments on it, and a few days of their readings.
 */

export const EQUIPMENT_KINDS = [
  'compressor',
  'pump',
  'separator',
  'tank',
  'heater',
  'meter',
  'pumpjack',
  'esp',
] as const;
type EquipmentKind = (typeof EQUIPMENT_KINDS)[number];

export const EQUIPMENT_STATUS = ['running', 'standby', 'maintenance', 'failed'] as const;
export const MEASUREMENTS = ['pressure', 'temperature', 'flow', 'level', 'vibration'] as const;
type Measurement = (typeof MEASUREMENTS)[number];

export const EQUIPMENT_DOCUMENT: ProfileDocument = {
  displayNameProperty: 'name',
  displayNameTemplate: '{name} @ {facilityId|wellId|"unassigned"}',
  secondaryDisplayNameProperty: 'serialNumber',
  properties: [
    { name: 'name', type: 'STRING', title: 'Name', required: true },
    { name: 'kind', type: 'ENUM', title: 'Kind', required: true, enumValues: [...EQUIPMENT_KINDS] },
    {
      name: 'status',
      type: 'ENUM',
      title: 'Status',
      enumValues: [...EQUIPMENT_STATUS],
      default: 'running',
    },
    { name: 'manufacturer', type: 'STRING', title: 'Manufacturer' },
    { name: 'model', type: 'STRING', title: 'Model' },
    { name: 'serialNumber', type: 'STRING', title: 'Serial number' },
    { name: 'installedOn', type: 'DATE', title: 'Installed on' },
    { name: 'ratedPowerKw', type: 'NUMBER', title: 'Rated power', unit: 'kW' },
    { name: 'facilityId', type: 'STRING', title: 'Facility' },
    { name: 'wellId', type: 'STRING', title: 'Well' },
  ],
  relationships: [
    refersTo('facility', 'facility', 'facilityId'),
    refersTo('well', 'well', 'wellId'),
    listedBy('sensors', 'sensor', 'equipmentId'),
  ],
};

export const SENSOR_DOCUMENT: ProfileDocument = {
  displayNameProperty: 'name',
  displayNameTemplate: '{name} on {equipmentId|"no equipment"}',
  secondaryDisplayNameProperty: 'measurement',
  properties: [
    { name: 'name', type: 'STRING', title: 'Name', required: true },
    {
      name: 'measurement',
      type: 'ENUM',
      title: 'Measurement',
      required: true,
      enumValues: [...MEASUREMENTS],
    },
    { name: 'unit', type: 'STRING', title: 'Unit (UCUM)' },
    { name: 'equipmentId', type: 'STRING', title: 'Equipment' },
    { name: 'lowAlarm', type: 'NUMBER', title: 'Low alarm', description: 'In the sensor’s unit' },
    { name: 'highAlarm', type: 'NUMBER', title: 'High alarm', description: 'In the sensor’s unit' },
  ],
  relationships: [refersTo('equipment', 'equipment', 'equipmentId')],
  stateUpdateDatasets: [{ dataset: 'telemetry', title: 'Sensor telemetry' }],
};

/** The reverse of equipment → facility and equipment → well, added to those profiles. */
export const EQUIPMENT_AT = (via: 'facilityId' | 'wellId') => listedBy('equipment', 'equipment', via);

interface Catalogue {
  title: string;
  tag: string;
  makes: [manufacturer: string, model: string][];
  /** Rated power range in kW; none for passive equipment. */
  power?: [number, number];
  sensors: [name: string, measurement: Measurement][];
}

const CATALOGUE: Record<EquipmentKind, Catalogue> = {
  compressor: {
    title: 'Compressor',
    tag: 'K',
    makes: [
      ['Ariel', 'JGK/4'],
      ['Ariel', 'JGE/2'],
      ['Dresser-Rand', 'HOS-4'],
    ],
    power: [400, 1500],
    sensors: [
      ['Suction pressure', 'pressure'],
      ['Discharge pressure', 'pressure'],
      ['Discharge temperature', 'temperature'],
      ['Frame vibration', 'vibration'],
    ],
  },
  pump: {
    title: 'Transfer pump',
    tag: 'P',
    makes: [
      ['Flowserve', 'Durco Mark 3'],
      ['Grundfos', 'CR 64'],
      ['Gorman-Rupp', 'Super T'],
    ],
    power: [15, 90],
    sensors: [
      ['Discharge pressure', 'pressure'],
      ['Flow rate', 'flow'],
      ['Bearing vibration', 'vibration'],
    ],
  },
  separator: {
    title: 'Separator',
    tag: 'V',
    makes: [
      ['Exterran', '3-phase 36x10'],
      ['Natco', '2-phase 30x10'],
    ],
    sensors: [
      ['Vessel pressure', 'pressure'],
      ['Liquid level', 'level'],
      ['Vessel temperature', 'temperature'],
    ],
  },
  tank: {
    title: 'Storage tank',
    tag: 'T',
    makes: [
      ['ZCL Composites', '750 bbl FRP'],
      ['Fox Tank', '1000 bbl steel'],
    ],
    sensors: [
      ['Tank level', 'level'],
      ['Tank temperature', 'temperature'],
    ],
  },
  heater: {
    title: 'Line heater',
    tag: 'H',
    makes: [
      ['Natco', 'LH-500'],
      ['Sivalls', 'ID-750'],
    ],
    power: [250, 750],
    sensors: [
      ['Bath temperature', 'temperature'],
      ['Fuel gas pressure', 'pressure'],
    ],
  },
  meter: {
    title: 'Gas meter',
    tag: 'M',
    makes: [
      ['Emerson', 'Micro Motion CMF300'],
      ['Daniel', 'Senior Orifice'],
    ],
    sensors: [['Gas flow', 'flow']],
  },
  pumpjack: {
    title: 'Pumpjack',
    tag: 'PJ',
    makes: [
      ['Lufkin', 'C-320D-256-120'],
      ['Weatherford', 'Maximizer III 456'],
    ],
    power: [30, 75],
    sensors: [
      ['Wellhead pressure', 'pressure'],
      ['Gearbox vibration', 'vibration'],
    ],
  },
  esp: {
    title: 'Submersible pump',
    tag: 'ESP',
    makes: [
      ['Baker Hughes', 'Centrilift 538'],
      ['SLB', 'REDA Maximus'],
    ],
    power: [60, 250],
    sensors: [
      ['Intake pressure', 'pressure'],
      ['Motor temperature', 'temperature'],
      ['Motor vibration', 'vibration'],
    ],
  },
};

/** Typical operating value, alarm limits and unit per measurement. */
const RANGES: Record<Measurement, { unit: string; base: [number, number]; low?: number; high: number }> = {
  pressure: { unit: 'bar', base: [8, 40], low: 0.5, high: 1.3 },
  temperature: { unit: 'Cel', base: [35, 85], low: 0.4, high: 1.25 },
  flow: { unit: 'm3/d', base: [60, 400], low: 0.3, high: 1.5 },
  level: { unit: '%', base: [35, 65], low: 0.25, high: 1.4 },
  // ISO 10816: above 7.1 mm/s is unsatisfactory for most machines.
  vibration: { unit: 'mm/s', base: [1.5, 4], high: 1.8 },
};

/** Equipment at each kind of facility. */
const AT_FACILITY: Record<string, EquipmentKind[]> = {
  battery: ['separator', 'tank', 'tank', 'pump', 'heater', 'meter'],
  compressor: ['compressor', 'compressor', 'separator', 'meter'],
  gathering: ['separator', 'pump', 'heater', 'meter'],
  plant: ['compressor', 'compressor', 'separator', 'separator', 'pump', 'pump', 'tank', 'meter'],
};

export interface Place {
  id: string;
  lon: number;
  lat: number;
}

export interface FacilityPlace extends Place {
  kind: string;
}

export interface WellPlace extends Place {
  status: string;
}

export interface Generated {
  profile: 'equipment' | 'sensor';
  id: string;
  properties: Record<string, unknown>;
  lon: number;
  lat: number;
}

export interface EquipmentOutput {
  assets: Generated[];
  telemetry: ObservationRow[];
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Equipment for the facilities (by their kind) and the wells that produce or are shut in
 * (an artificial-lift unit and a meter each; drilling wells have none yet), two to four
 * sensors per unit, and a reading every `everyHours` over the last `days` days up to `now`.
 * A few units are in maintenance or failed; a few sensors end their history past an alarm.
 */
export function generateEquipment(
  random: () => number,
  facilities: readonly FacilityPlace[],
  wells: readonly WellPlace[],
  now: Date,
  options: { days?: number; everyHours?: number } = {},
): EquipmentOutput {
  const days = options.days ?? 3;
  const every = options.everyHours ?? 4;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const assets: Generated[] = [];
  const telemetry: ObservationRow[] = [];
  const near = (p: Pick<Place, 'lon' | 'lat'>, metres: number) => ({
    lon: p.lon + ((random() - 0.5) * 2 * metres) / (111_320 * Math.cos((p.lat * Math.PI) / 180)),
    lat: p.lat + ((random() - 0.5) * 2 * metres) / 110_540,
  });

  const unit = (
    at: { facilityId: string } | { wellId: string },
    place: Place,
    kind: EquipmentKind,
    tag: string,
    status: string,
    spread: number,
  ) => {
    const c = CATALOGUE[kind];
    const [manufacturer, model] = pick(c.makes);
    const id = `EQ-${place.id.slice(2)}-${tag}`;
    const year = 2008 + Math.floor(random() * 16);
    const where = near(place, spread);
    const properties: Record<string, unknown> = {
      name: `${c.title} ${tag}`,
      kind,
      status,
      manufacturer,
      model,
      serialNumber: `${manufacturer.slice(0, 2).toUpperCase()}${year % 100}-${String(Math.floor(random() * 1e5)).padStart(5, '0')}`,
      installedOn: `${year}-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`,
      ...(c.power ? { ratedPowerKw: Math.round(c.power[0] + random() * (c.power[1] - c.power[0])) } : {}),
      ...at,
    };
    assets.push({ profile: 'equipment', id, properties, ...where });
    const running = status === 'running';
    for (const [i, [name, measurement]] of c.sensors.entries()) {
      const r = RANGES[measurement];
      const base = r.base[0] + random() * (r.base[1] - r.base[0]);
      const sid = `${id}-S${i + 1}`;
      assets.push({
        profile: 'sensor',
        id: sid,
        properties: {
          name,
          measurement,
          unit: r.unit,
          equipmentId: id,
          ...(r.low !== undefined ? { lowAlarm: round2(base * r.low) } : {}),
          highAlarm: round2(base * r.high),
        },
        ...near(where, 3),
      });
      // A machine that is not running reads near zero (flow, vibration) or ambient; one in
      // roughly twenty drifts past its high alarm over the last day.
      const drifting = running && random() < 0.05;
      const idle = !running && (measurement === 'flow' || measurement === 'vibration');
      const readings = Math.floor((days * 24) / every);
      for (let k = readings; k >= 1; k--) {
        const hoursAgo = (k - 1) * every;
        const noise = 1 + (random() - 0.5) * 0.08;
        const drift = drifting && hoursAgo < 24 ? 1 + ((24 - hoursAgo) / 24) * (r.high - 0.9) : 1;
        const value = idle ? 0 : round2(base * noise * drift);
        telemetry.push({
          id: sid,
          observedAt: new Date(now.getTime() - hoursAgo * 3_600_000).toISOString(),
          values: { value },
        });
      }
    }
  };

  for (const f of facilities) {
    const counts = new Map<string, number>();
    for (const kind of AT_FACILITY[f.kind] ?? AT_FACILITY.battery!) {
      const c = CATALOGUE[kind];
      const n = (counts.get(c.tag) ?? 0) + 1;
      counts.set(c.tag, n);
      const roll = random();
      const status =
        roll < 0.06 ? 'failed' : roll < 0.16 ? 'maintenance' : roll < 0.24 ? 'standby' : 'running';
      unit({ facilityId: f.id }, f, kind, `${c.tag}${n}`, status, 150);
    }
  }
  for (const w of wells) {
    if (w.status === 'drilling') continue;
    const status = w.status === 'producing' ? 'running' : 'standby';
    const lift: EquipmentKind = random() < 0.7 ? 'pumpjack' : 'esp';
    unit({ wellId: w.id }, w, lift, CATALOGUE[lift].tag, status, 15);
    unit({ wellId: w.id }, w, 'meter', 'M1', status, 25);
  }
  return { assets, telemetry };
}
