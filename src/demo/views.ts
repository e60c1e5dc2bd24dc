import type { Kysely } from 'kysely';
import type { Tables } from '../storage/tables.ts';
import type { AssetFilterInput, ProfileLookup } from '../subgraphs/assets/filters/types.ts';
import { type CreateFilter, createSelectionFilter } from '../subgraphs/assets/selection-filters.ts';
import {
  type MapInput,
  type MediaType,
  putLayout,
  putView,
  type ViewOutcome,
  type WidgetInput,
} from '../subgraphs/assets/views.ts';

/**
 * Saved selection filters and view configurations of the demo tenant. They are written
 * through the same functions as `createAssetFilter` and `updateAssetProfileView*`, so the
 * demo holds nothing those mutations would refuse.
 */

const producing: AssetFilterInput = { property: { name: 'status', equals: 'producing' } };

export const DEMO_FILTERS: CreateFilter[] = [
  {
    id: 'wells-producing',
    displayName: 'Producing wells',
    description: 'Wells in production, with their facility and their lift units and its sensors.',
    profile: 'well',
    filter: { isDeleted: false, ...producing },
    subProfiles: [
      { relationship: 'facility' },
      {
        relationship: 'equipment',
        filter: { property: { name: 'kind', in: ['pumpjack', 'esp'] } },
        subProfiles: [{ relationship: 'sensors' }],
      },
    ],
  },
  {
    id: 'wells-without-equipment',
    displayName: 'Wells with no surface equipment',
    description: 'Wells still drilling or awaiting tie-in: nothing is installed on the pad yet.',
    profile: 'well',
    filter: { related: { relationship: 'equipment', none: {} } },
    subProfiles: [{ relationship: 'facility' }],
  },
  {
    id: 'equipment-attention',
    displayName: 'Equipment needing attention',
    description: 'Units in maintenance or failed, with their sensors and where they stand.',
    profile: 'equipment',
    filter: { property: { name: 'status', in: ['maintenance', 'failed'] } },
    subProfiles: [{ relationship: 'sensors' }, { relationship: 'facility' }, { relationship: 'well' }],
  },
  {
    id: 'equipment-before-2012',
    displayName: 'Equipment installed before 2012',
    description: 'Candidates for the next replacement programme.',
    profile: 'equipment',
    filter: { property: { name: 'installedOn', lt: '2012-01-01' } },
    subProfiles: [],
  },
  {
    id: 'compressor-vibration',
    displayName: 'Compressor vibration sensors',
    profile: 'sensor',
    filter: {
      property: { name: 'measurement', equals: 'vibration' },
      related: { relationship: 'equipment', some: { property: { name: 'kind', equals: 'compressor' } } },
    },
    subProfiles: [{ relationship: 'equipment', subProfiles: [{ relationship: 'facility' }] }],
  },
  {
    id: 'alberta-plants',
    displayName: 'Alberta gas plants and their producing wells',
    profile: 'site',
    filter: { property: { name: 'region', equals: 'Alberta' } },
    subProfiles: [
      {
        relationship: 'facilities',
        filter: { property: { name: 'kind', equals: 'plant' } },
        subProfiles: [{ relationship: 'wells', filter: producing }],
      },
    ],
  },
];

interface DemoView {
  profile: string;
  id: string;
  name: string;
  map: MapInput;
  layouts: Record<MediaType, WidgetInput[]>;
}

const at = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

/** A sensor's latest reading against its alarm limits, on the web and the mobile layout alike. */
const sensorGauge = (layout: ReturnType<typeof at>) => ({
  id: 'gauge',
  layout,
  name: 'Latest reading',
  widget: 'gauge',
  settings: { key: 'value', unitProperty: 'unit', lowProperty: 'lowAlarm', highProperty: 'highAlarm' },
});

const STATUS_COLORS = {
  running: '#2e7d32',
  standby: '#1565c0',
  maintenance: '#f9a825',
  failed: '#c62828',
  default: '#9e9e9e',
};

export const DEMO_VIEWS: DemoView[] = [
  {
    profile: 'well',
    id: 'operations',
    name: 'Well operations',
    map: {
      center: [-110.5, 52.5],
      zoom: 5,
      minZoom: 3,
      maxZoom: 18,
      baseLayer: 'streets',
      layers: [
        {
          id: 'wells',
          name: 'Wells by status',
          labelProperty: 'name',
          styleProperty: 'status',
          styleColors: {
            producing: '#2e7d32',
            'shut-in': '#f9a825',
            drilling: '#1565c0',
            abandoned: '#757575',
            default: '#9e9e9e',
          },
          filter: { isDeleted: false },
        },
        {
          id: 'no-equipment',
          name: 'Wells with no surface equipment',
          visible: false,
          labelProperty: 'uwi',
          filter: { related: { relationship: 'equipment', none: {} } },
        },
      ],
    },
    layouts: {
      WEB: [
        { id: 'map', layout: at(0, 0, 8, 6), name: 'Map', widget: 'map', settings: { layers: ['wells'] } },
        {
          id: 'details',
          layout: at(8, 0, 4, 6),
          name: 'Details',
          widget: 'properties',
          settings: { properties: ['name', 'uwi', 'status', 'depth', 'spudDate', 'facilityId'] },
        },
        {
          id: 'scada',
          layout: at(0, 6, 8, 4),
          name: 'Pressures and rate',
          widget: 'timeseries',
          settings: { dataset: 'scada', keys: ['casingPressure', 'tubingPressure', 'oilRate'], range: 'P3D' },
        },
        {
          id: 'equipment',
          layout: at(8, 6, 4, 4),
          name: 'Equipment on the pad',
          widget: 'related-table',
          settings: { relationship: 'equipment', columns: ['name', 'kind', 'status'] },
        },
        { id: 'issues', layout: at(0, 10, 12, 3), name: 'Open issues', widget: 'issues', settings: {} },
      ],
      MOBILE: [
        {
          id: 'details',
          layout: at(0, 0, 12, 4),
          name: 'Details',
          widget: 'properties',
          settings: { properties: ['name', 'status', 'facilityId'] },
        },
        {
          id: 'latest',
          layout: at(0, 4, 12, 3),
          name: 'Latest readings',
          widget: 'observation',
          settings: { keys: ['casingPressure', 'oilRate'] },
        },
        { id: 'map', layout: at(0, 7, 12, 4), name: 'Map', widget: 'map', settings: { layers: ['wells'] } },
      ],
      PRINTABLE: [
        {
          id: 'details',
          layout: at(0, 0, 6, 5),
          name: 'Details',
          widget: 'properties',
          settings: { properties: ['name', 'uwi', 'status', 'depth', 'spudDate'] },
        },
        {
          id: 'map',
          layout: at(6, 0, 6, 5),
          name: 'Location',
          widget: 'map',
          settings: { layers: ['wells'], interactive: false },
        },
        {
          id: 'equipment',
          layout: at(0, 5, 12, 4),
          name: 'Equipment',
          widget: 'related-table',
          settings: {
            relationship: 'equipment',
            columns: ['name', 'kind', 'manufacturer', 'model', 'serialNumber'],
          },
        },
      ],
    },
  },
  {
    profile: 'equipment',
    id: 'maintenance',
    name: 'Equipment maintenance',
    map: {
      zoom: 12,
      maxZoom: 20,
      baseLayer: 'satellite',
      layers: [
        {
          id: 'status',
          name: 'Equipment by status',
          labelProperty: 'name',
          styleProperty: 'status',
          styleColors: STATUS_COLORS,
        },
        {
          id: 'compressors',
          name: 'Compressors',
          visible: false,
          labelProperty: 'serialNumber',
          styleProperty: 'manufacturer',
          styleColors: { Ariel: '#6a1b9a', 'Dresser-Rand': '#00838f', default: '#9e9e9e' },
          filter: { property: { name: 'kind', equals: 'compressor' } },
        },
      ],
    },
    layouts: {
      WEB: [
        {
          id: 'details',
          layout: at(0, 0, 4, 6),
          name: 'Nameplate',
          widget: 'properties',
          settings: {
            properties: [
              'kind',
              'status',
              'manufacturer',
              'model',
              'serialNumber',
              'installedOn',
              'ratedPowerKw',
            ],
          },
        },
        { id: 'map', layout: at(4, 0, 8, 6), name: 'Map', widget: 'map', settings: { layers: ['status'] } },
        {
          id: 'sensors',
          layout: at(0, 6, 12, 5),
          name: 'Sensors',
          widget: 'related-table',
          settings: {
            relationship: 'sensors',
            columns: ['name', 'measurement', 'unit', 'lowAlarm', 'highAlarm'],
            observation: ['value'],
          },
        },
      ],
      MOBILE: [
        {
          id: 'details',
          layout: at(0, 0, 12, 4),
          name: 'Nameplate',
          widget: 'properties',
          settings: { properties: ['kind', 'status', 'serialNumber'] },
        },
        {
          id: 'sensors',
          layout: at(0, 4, 12, 5),
          name: 'Sensors',
          widget: 'related-list',
          settings: { relationship: 'sensors', observation: ['value'] },
        },
      ],
      PRINTABLE: [
        {
          id: 'details',
          layout: at(0, 0, 12, 4),
          name: 'Nameplate',
          widget: 'properties',
          settings: {
            properties: [
              'name',
              'kind',
              'manufacturer',
              'model',
              'serialNumber',
              'installedOn',
              'ratedPowerKw',
            ],
          },
        },
        {
          id: 'sensors',
          layout: at(0, 4, 12, 4),
          name: 'Sensors',
          widget: 'related-table',
          settings: { relationship: 'sensors', columns: ['name', 'measurement', 'unit', 'highAlarm'] },
        },
      ],
    },
  },
  {
    profile: 'sensor',
    id: 'readings',
    name: 'Sensor readings',
    map: {
      zoom: 15,
      baseLayer: 'satellite',
      layers: [
        {
          id: 'sensors',
          name: 'Sensors by measurement',
          labelProperty: 'name',
          styleProperty: 'measurement',
          styleColors: {
            pressure: '#1565c0',
            temperature: '#c62828',
            flow: '#2e7d32',
            level: '#00838f',
            vibration: '#6a1b9a',
          },
        },
      ],
    },
    layouts: {
      WEB: [
        sensorGauge(at(0, 0, 4, 4)),
        {
          id: 'history',
          layout: at(4, 0, 8, 4),
          name: 'Last three days',
          widget: 'timeseries',
          settings: { dataset: 'telemetry', keys: ['value'], range: 'P3D' },
        },
        {
          id: 'details',
          layout: at(0, 4, 12, 3),
          name: 'Details',
          widget: 'properties',
          settings: { properties: ['measurement', 'unit', 'equipmentId', 'lowAlarm', 'highAlarm'] },
        },
      ],
      MOBILE: [sensorGauge(at(0, 0, 12, 4))],
      PRINTABLE: [
        {
          id: 'history',
          layout: at(0, 0, 12, 5),
          name: 'Last three days',
          widget: 'timeseries',
          settings: { dataset: 'telemetry', keys: ['value'], range: 'P3D' },
        },
        {
          id: 'details',
          layout: at(0, 5, 12, 3),
          name: 'Details',
          widget: 'properties',
          settings: { properties: ['name', 'measurement', 'unit', 'equipmentId', 'lowAlarm', 'highAlarm'] },
        },
      ],
    },
  },
];

function expectOk(what: string, outcome: ViewOutcome | { ok: boolean; message?: string }) {
  if (!outcome.ok) throw new Error(`demo ${what}: ${'message' in outcome ? outcome.message : 'refused'}`);
}

/** Saves the demo's filters and views in `group`; a refusal is a fault in the demo data. */
export async function saveFiltersAndViews(
  db: Kysely<Tables>,
  group: string,
  owner: string,
  profiles: ProfileLookup,
): Promise<void> {
  for (const f of DEMO_FILTERS) {
    expectOk(`filter ${f.id}`, await createSelectionFilter(db, group, owner, f, profiles));
  }
  for (const v of DEMO_VIEWS) {
    expectOk(
      `view ${v.profile}/${v.id}`,
      await putView(db, group, owner, { profile: v.profile, id: v.id, name: v.name, map: v.map }, profiles),
    );
    for (const [mediaType, widgets] of Object.entries(v.layouts) as [MediaType, WidgetInput[]][]) {
      expectOk(
        `layout ${v.profile}/${v.id}/${mediaType}`,
        await putLayout(db, group, owner, {
          profile: v.profile,
          viewConfiguration: v.id,
          mediaType,
          widgets,
        }),
      );
    }
  }
}
