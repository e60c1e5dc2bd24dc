import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { viewportRequest } from './map-data.ts';
import { viewportBbox } from './map-projection.ts';
import {
  assetQuery,
  chartSeries,
  DEFAULT_RANGE_MS,
  durationMs,
  layoutOf,
  listSetting,
  type MapLayer,
  mapLayerOf,
  mapLayersOf,
  readAsset,
  relatedNeeds,
  resolutionFor,
  seriesId,
  type ViewConfiguration,
  type Widget,
  widgetKind,
  widgetsInput,
} from './view-data.ts';
import { anyOf, WIDGET_MAP, widgetLayers, widgetPosition } from './view-map.ts';

const widget = (id: string, kind: string, settings: Record<string, unknown> = {}): Widget => ({
  id,
  name: id,
  widget: kind,
  settings,
  layout: { x: 0, y: 0, w: 4, h: 2 },
});

/** The demo's WEB layout of the well view, and a status grid. */
const widgets = [
  widget('map', 'map', { layers: ['wells'] }),
  widget('details', 'properties', { properties: ['name', 'status'] }),
  widget('scada', 'timeseries', { dataset: 'scada', keys: ['casingPressure', 'oilRate'], range: 'P3D' }),
  widget('equipment', 'related-table', { relationship: 'equipment', columns: ['name', 'kind'] }),
  widget('pads', 'status-grid', { relationship: 'equipment' }),
  widget('issues', 'issues'),
];

/**
 * The API's schema enough to check the query: the assets subgraph's SDL, federation stripped, and
 * the part of the issues subgraph's that the issues widget reads.
 */
function apiSchema() {
  const assets = readFileSync(join(import.meta.dirname, '../../subgraphs/assets/schema.graphql'), 'utf8')
    .replace(/extend schema[\s\S]*?\)\s*\n/, '')
    .replace(/@\w+(\([^)]*\))?/g, '');
  return buildSchema(`${assets}
extend type IssueSubject { issues(first: Int, after: String): IssuesConnection! }
type IssuesConnection { edges: [IssueEdge!]! }
type IssueEdge { node: Issue! }
type Issue { id: ID! displayName: String! status: String! createdAt: DateTime! }`);
}

describe("what a view's widgets read", () => {
  it('knows the kinds of widget by their names', () => {
    expect(['gauge', 'observation', 'KPI'].map(widgetKind)).toEqual(['kpi', 'kpi', 'kpi']);
    expect(['timeseries', 'related-list', 'status-grid', 'clock'].map(widgetKind)).toEqual([
      'chart',
      'related',
      'status',
      'unknown',
    ]);
    expect(listSetting({ keys: ['a', 1, '', 'b'] }, 'keys')).toEqual(['a', 'b']);
    expect(listSetting({ key: 'value' }, 'key')).toEqual(['value']);
  });

  it('reads ranges and picks a bucket giving a chart of at most 200 points', () => {
    expect(durationMs('P3D')).toBe(3 * 86_400_000);
    expect(durationMs('PT12H')).toBe(12 * 3_600_000);
    expect(durationMs('P1W')).toBe(7 * 86_400_000);
    expect(durationMs('PT90M')).toBe(90 * 60_000);
    for (const bad of ['P', 'PT', '3D', 'P1Y', null, 'P0D']) expect(durationMs(bad)).toBeNull();
    expect(resolutionFor(3 * 86_400_000)).toBe('1h');
    expect(resolutionFor(86_400_000)).toBe('15m');
    expect(resolutionFor(3_600_000)).toBe('1m');
    expect(resolutionFor(366 * 86_400_000)).toBe('1d');
    expect(chartSeries(widget('c', 'chart', { key: 'value' }))).toEqual([
      { key: 'value', dataset: null, rangeMs: DEFAULT_RANGE_MS },
    ]);
  });

  it('asks once per relationship for every property its widgets show', () => {
    const needs = relatedNeeds(widgets);
    expect([...needs.keys()]).toEqual(['equipment']);
    expect([...needs.get('equipment')!]).toEqual(['name', 'kind', 'status']);
  });

  it('writes a query the API takes, every name from the view a variable', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const { query, variables, plan } = assetQuery('well', 'W-1', widgets, now);
    expect(validate(apiSchema(), parse(query))).toEqual([]);
    expect(query).not.toContain('casingPressure');
    expect(query).not.toContain('equipment');
    expect(variables).toMatchObject({
      profile: 'well',
      id: 'W-1',
      r0: 'equipment',
      r0p: ['name', 'kind', 'status'],
      s0k: 'casingPressure',
      s0d: 'scada',
      s0r: '1h',
      s0f: '2026-11-19T12:00:00.000Z',
      s0t: '2026-11-22T12:00:00.000Z',
      s1k: 'oilRate',
    });
    expect(plan.series.size).toBe(2);
    expect(query).toContain('issueSubject');
    expect(assetQuery('well', 'W-1', [widget('d', 'properties')], now).query).not.toContain('issueSubject');
  });

  it("asks for a map widget's layers at the extent of their assets and the asset, in one request", () => {
    const layer: MapLayer = {
      id: 'wells',
      name: 'Wells',
      visible: true,
      labelProperty: null,
      styleProperty: 'status',
      styleColors: { producing: '#2e7d32', default: '#9e9e9e' },
      filter: { isDeleted: false },
    };
    const hidden = { ...layer, id: 'other', visible: false, styleProperty: null, filter: { search: 'x' } };
    expect(mapLayerOf(widget('m', 'map', { layers: ['wells'] }), [hidden, layer])).toBe(layer);
    expect(mapLayerOf(widget('m', 'map'), [hidden, layer])).toBe(layer);
    expect(mapLayerOf(widget('m', 'map', { layers: ['none'] }), [layer])).toBeNull();
    expect(mapLayersOf(widget('m', 'map', { layers: ['other', 'wells'] }), [hidden, layer])).toEqual([
      hidden,
      layer,
    ]);
    // A widget naming a hidden layer draws it; one naming none draws every asset.
    const named = widgetLayers(widget('m', 'map', { layers: ['other'] }), [hidden, layer]);
    expect(named.map((l) => [l.config.id, l.visible])).toEqual([['other', true]]);
    const every = widgetLayers(widget('m', 'map', { layers: ['none'] }), [layer]);
    expect(every.map((l) => [l.config.id, l.config.filter])).toEqual([['assets', null]]);
    // Its extent is of the assets of any of its layers.
    expect(anyOf(widgetLayers(widget('m', 'map'), [layer]))).toEqual({ isDeleted: false });
    expect(anyOf(widgetLayers(widget('m', 'map', { layers: ['wells', 'other'] }), [hidden, layer]))).toEqual({
      or: [{ search: 'x' }, { isDeleted: false }],
    });
    expect(anyOf(every)).toBeNull();
    // Fitted around the assets and the asset, with a margin; the world when there is nothing.
    const at = widgetPosition([-114, 50, -110, 53], [-109.5, 52, -109.5, 52]);
    const bbox = viewportBbox(at, WIDGET_MAP.width, WIDGET_MAP.height);
    expect(bbox[0]).toBeLessThan(-114);
    expect(bbox[2]).toBeGreaterThan(-109.5);
    expect(bbox[1]).toBeLessThan(50);
    expect(bbox[3]).toBeGreaterThan(53);
    expect(Number.isInteger(at.zoom)).toBe(true);
    expect(widgetPosition(null, null)).toEqual({ lon: 0, lat: 20, zoom: 1 });
    const { query, variables } = viewportRequest('well', named, null, at, [
      WIDGET_MAP.width,
      WIDGET_MAP.height,
    ]);
    expect(validate(apiSchema(), parse(query))).toEqual([]);
    expect(variables).toMatchObject({ profile: 'well', bbox, zoom: at.zoom, f0: { search: 'x' }, p0: [] });
  });

  it('reads the answer into what the widgets draw', () => {
    const { plan } = assetQuery('well', 'W-1', widgets, new Date());
    const one = {
      id: 'E-1',
      profile: 'equipment',
      displayName: 'Pump',
      properties: {},
      latestObservations: [],
    };
    const data = readAsset(
      {
        id: 'W-1',
        displayName: 'Well 1',
        properties: { status: 'producing' },
        latestObservations: [],
        geometry: { type: 'Point', point: [1, 2] },
        r0: { __typename: 'AssetRelationshipOne', asset: one },
        s0: { property: 'casingPressure', unit: 'bar', buckets: [] },
        s1: null,
        issueSubject: {
          issues: { edges: [{ node: { id: 'i', displayName: 'I', status: 'OPEN', createdAt: 'x' } }] },
        },
      },
      plan,
    );
    expect(data.related.get('equipment')).toEqual([one]);
    const [first, second] = [...plan.series.values()];
    expect(data.series.get(seriesId(first!))?.unit).toBe('bar');
    expect(data.series.get(seriesId(second!))).toBeNull();
    expect(data.issues).toHaveLength(1);
    expect(data.secondaryDisplayName).toBeNull();
  });

  it('finds the layout of a media type, and gives widgets back whole', () => {
    const view: ViewConfiguration = {
      id: 'v',
      name: null,
      version: 1,
      map: null,
      layouts: [{ mediaType: 'WEB', widgets: null }],
    };
    expect(layoutOf(view, 'WEB')).toEqual([]);
    expect(layoutOf(view, 'MOBILE')).toBeNull();
    const extra = { ...widgets[2]!, layout: { x: 1, y: 2, w: 3, h: 4, extra: 1 } } as Widget;
    expect(widgetsInput([extra])).toEqual([{ ...widgets[2]!, layout: { x: 1, y: 2, w: 3, h: 4 } }]);
  });
});
