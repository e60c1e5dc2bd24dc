// What a view configuration holds (docs/schema.md §8), and what its widgets read of one asset:
// one query, written from the widgets shown, with every name from the view passed as a variable
// (never spliced into the document), answered into one AssetData for the widgets to draw.
import type { ProfileDetail } from './data.ts';
import type { Rect } from './layout-grid.ts';
import type { MapLayerConfig, MapLayer as ShownLayer } from './map-data.ts';
import type { MapPosition } from './map-projection.ts';
import type { RawGeometry } from './view-charts.ts';
import type { MediaType } from './views-route.ts';

export interface Widget {
  id: string;
  name: string;
  widget: string;
  settings: Record<string, unknown>;
  layout: Rect;
}

/** A layer of the view's map, as the map page reads it too. */
export type MapLayer = MapLayerConfig;

export interface ViewConfiguration {
  id: string;
  name: string | null;
  version: number;
  map: { layers: MapLayer[] } | null;
  layouts: { mediaType: MediaType; widgets: Widget[] | null }[] | null;
}

export interface Relationship {
  relationship: string;
  title: string | null;
  profile: string;
  type: 'ONE' | 'MANY';
}

/** A view's widgets of `media`, or null when it has no layout of that media type. */
export function layoutOf(view: ViewConfiguration, media: MediaType): Widget[] | null {
  const layout = view.layouts?.find((l) => l.mediaType === media);
  return layout ? (layout.widgets ?? []) : null;
}

/** The widgets as `updateAssetProfileViewLayout` takes them back: every setting kept as it was. */
export function widgetsInput(widgets: readonly Widget[]): Widget[] {
  return widgets.map(({ id, name, widget, settings, layout }) => ({
    id,
    name,
    widget,
    settings,
    layout: { x: layout.x, y: layout.y, w: layout.w, h: layout.h },
  }));
}

/** How the console draws a widget, by its `widget` name (names of the same kind are alike). */
export type WidgetKind =
  | 'kpi'
  | 'properties'
  | 'chart'
  | 'map'
  | 'status'
  | 'related'
  | 'issues'
  | 'text'
  | 'unknown';

const KINDS: Record<string, WidgetKind> = {
  kpi: 'kpi',
  gauge: 'kpi',
  observation: 'kpi',
  latest: 'kpi',
  value: 'kpi',
  properties: 'properties',
  'property-table': 'properties',
  details: 'properties',
  timeseries: 'chart',
  chart: 'chart',
  'line-chart': 'chart',
  trend: 'chart',
  map: 'map',
  'status-grid': 'status',
  status: 'status',
  'related-table': 'related',
  'related-list': 'related',
  related: 'related',
  issues: 'issues',
  text: 'text',
};

export function widgetKind(widget: string): WidgetKind {
  return KINDS[widget.toLowerCase()] ?? 'unknown';
}

/** A setting that should be a string: it, or null. */
export function textSetting(settings: Record<string, unknown>, key: string): string | null {
  const value = settings[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A setting that should be a list of strings: its strings (a lone string as a list of one). */
export function listSetting(settings: Record<string, unknown>, key: string): string[] {
  const value = settings[key];
  if (typeof value === 'string' && value !== '') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}

/** ISO 8601 durations a chart's `range` may be: weeks, days, hours, minutes (P3D, PT12H, P1W). */
export function durationMs(text: string | null): number | null {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(text ?? '');
  if (!m || m.slice(1).every((part) => part === undefined)) return null;
  const [weeks, days, hours, minutes] = m.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  const ms = (((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60_000;
  return ms > 0 ? ms : null;
}

/** A chart's range when it names none, or none the console reads. */
export const DEFAULT_RANGE_MS = 86_400_000;
/** The longest range a chart asks for: a year of daily buckets. */
const MAX_RANGE_MS = 366 * 86_400_000;
const RESOLUTIONS: [string, number][] = [
  ['1m', 60_000],
  ['15m', 900_000],
  ['1h', 3_600_000],
  ['1d', 86_400_000],
];

/** The finest bucket that gives a chart of `rangeMs` at most 200 points. */
export function resolutionFor(rangeMs: number): string {
  return (RESOLUTIONS.find(([, step]) => rangeMs / step <= 200) ?? RESOLUTIONS[RESOLUTIONS.length - 1]!)[0];
}

/** One line a chart widget draws: a key's readings over a range, of one dataset or all. */
export interface SeriesNeed {
  key: string;
  dataset: string | null;
  rangeMs: number;
}

export const seriesId = (n: SeriesNeed): string => JSON.stringify([n.dataset, n.key, n.rangeMs]);

/** The lines of a chart widget: `keys` (or `key`), `dataset`, `range`. */
export function chartSeries(widget: Widget): SeriesNeed[] {
  const keys = [...listSetting(widget.settings, 'keys'), ...listSetting(widget.settings, 'key')];
  const rangeMs = Math.min(
    MAX_RANGE_MS,
    durationMs(textSetting(widget.settings, 'range')) ?? DEFAULT_RANGE_MS,
  );
  const dataset = textSetting(widget.settings, 'dataset');
  return [...new Set(keys)].map((key) => ({ key, dataset, rangeMs }));
}

/** The property a status tile is coloured by. */
export const statusProperty = (widget: Widget): string =>
  textSetting(widget.settings, 'statusProperty') ?? 'status';

/** Of each relationship the widgets follow, the properties they show of the related assets. */
export function relatedNeeds(widgets: readonly Widget[]): Map<string, Set<string>> {
  const needs = new Map<string, Set<string>>();
  for (const w of widgets) {
    const kind = widgetKind(w.widget);
    if (kind !== 'related' && kind !== 'status') continue;
    const relationship = textSetting(w.settings, 'relationship');
    if (!relationship) continue;
    const properties = needs.get(relationship) ?? new Set<string>();
    for (const p of listSetting(w.settings, 'columns')) properties.add(p);
    if (kind === 'status') properties.add(statusProperty(w));
    needs.set(relationship, properties);
  }
  return needs;
}

const GEOMETRY = `geometry { type
  ... on GeoJSONPoint { point: coordinates }
  ... on GeoJSONMultiPoint { points: coordinates }
  ... on GeoJSONLineString { line: coordinates }
  ... on GeoJSONMultiLineString { lines: coordinates }
  ... on GeoJSONPolygon { polygon: coordinates }
  ... on GeoJSONMultiPolygon { polygons: coordinates } }`;
const READINGS = 'latestObservations { property value at unit }';

/** Where each part of the answer is: the alias of each relationship and each line. */
export interface AssetPlan {
  related: Map<string, string>;
  series: Map<string, SeriesNeed>;
}

/** The query of what `widgets` show of asset `id`, with the ranges of its charts ending `now`. */
export function assetQuery(
  profile: string,
  id: string,
  widgets: readonly Widget[],
  now: Date,
): { query: string; variables: Record<string, unknown>; plan: AssetPlan } {
  const variables: Record<string, unknown> = { profile, id };
  const declared = ['$profile: ID!', '$id: ID!'];
  const fields: string[] = [];
  const plan: AssetPlan = { related: new Map(), series: new Map() };
  [...relatedNeeds(widgets)].forEach(([relationship, properties], i) => {
    const a = `r${i}`;
    plan.related.set(a, relationship);
    declared.push(`$${a}: ID`, `$${a}p: [String!]`);
    Object.assign(variables, { [a]: relationship, [`${a}p`]: [...properties] });
    const asset = `id profile displayName properties(only: $${a}p) ${READINGS}`;
    fields.push(
      `${a}: related(relationship: $${a}) { __typename ... on AssetRelationshipMany { assets { ${asset} } } ... on AssetRelationshipOne { asset { ${asset} } } }`,
    );
  });
  const lines = new Map<string, SeriesNeed>();
  for (const w of widgets)
    if (widgetKind(w.widget) === 'chart') for (const n of chartSeries(w)) lines.set(seriesId(n), n);
  [...lines.values()].forEach((n, i) => {
    const a = `s${i}`;
    plan.series.set(a, n);
    declared.push(
      `$${a}k: String!`,
      `$${a}f: DateTime!`,
      `$${a}t: DateTime!`,
      `$${a}r: String!`,
      `$${a}d: ID`,
    );
    Object.assign(variables, {
      [`${a}k`]: n.key,
      [`${a}f`]: new Date(now.getTime() - n.rangeMs).toISOString(),
      [`${a}t`]: now.toISOString(),
      [`${a}r`]: resolutionFor(n.rangeMs),
      [`${a}d`]: n.dataset,
    });
    fields.push(
      `${a}: observationSeries(property: $${a}k, from: $${a}f, to: $${a}t, resolution: $${a}r, aggregates: [AVG, MIN, MAX], dataset: $${a}d) { property unit buckets { start avg min max } }`,
    );
  });
  if (widgets.some((w) => widgetKind(w.widget) === 'issues'))
    fields.push('issueSubject { issues(first: 10) { edges { node { id displayName status createdAt } } } }');
  const query = `query ConsoleViewAsset(${declared.join(', ')}) {
  assets(profile: $profile) { byId(id: $id) {
    id displayName secondaryDisplayName properties ${READINGS}
    ${GEOMETRY}
    ${fields.join('\n    ')}
  } }
}`;
  return { query, variables, plan };
}

export interface Reading {
  property: string;
  value: unknown;
  at: string | null;
  unit: string | null;
}

export interface RelatedAsset {
  id: string;
  profile: string;
  displayName: string;
  properties: Record<string, unknown> | null;
  latestObservations: Reading[];
}

export interface Series {
  property: string;
  unit: string | null;
  buckets: { start: string; avg: number | null; min: number | null; max: number | null }[];
}

export interface Issue {
  id: string;
  displayName: string;
  status: string;
  createdAt: string;
}

/** What the widgets draw of one asset. */
export interface AssetData {
  id: string;
  displayName: string;
  secondaryDisplayName: string | null;
  properties: Record<string, unknown>;
  latestObservations: Reading[];
  geometry: RawGeometry | null;
  /** By relationship; null where the API answered none (an unknown relationship). */
  related: Map<string, RelatedAsset[] | null>;
  /** By {@link seriesId}. */
  series: Map<string, Series | null>;
  issues: Issue[] | null;
  /** What a map widget draws around it (null when none is shown). */
  map: WidgetMap | null;
}

/** Where a map widget looks, and each of its layers with the API's answer there. */
export interface WidgetMap {
  position: MapPosition;
  layers: ShownLayer[];
}

/** What a widget is drawn with: the profile's definitions, its relationships and map layers, the asset. */
export interface WidgetContext {
  profile: ProfileDetail;
  relationships: readonly Relationship[];
  layers: readonly MapLayer[];
  asset: AssetData;
}

/** The layers a map widget draws: those its `layers` name, else the visible ones. */
export function mapLayersOf(widget: Widget, layers: readonly MapLayer[]): MapLayer[] {
  const named = listSetting(widget.settings, 'layers');
  return named.length ? layers.filter((l) => named.includes(l.id)) : layers.filter((l) => l.visible);
}

/** The layer whose style a map widget says its asset in: the first of its layers with a style. */
export function mapLayerOf(widget: Widget, layers: readonly MapLayer[]): MapLayer | null {
  const shown = mapLayersOf(widget, layers);
  return shown.find((l) => l.styleProperty) ?? shown[0] ?? null;
}

type RawRelated = { __typename: string; assets?: RelatedAsset[] | null; asset?: RelatedAsset | null } | null;

/** The answer to {@link assetQuery}'s query, as the widgets take it. */
export function readAsset(raw: Record<string, unknown>, plan: AssetPlan): AssetData {
  const related = new Map<string, RelatedAsset[] | null>();
  for (const [alias, relationship] of plan.related) {
    const r = raw[alias] as RawRelated | undefined;
    related.set(
      relationship,
      !r ? null : r.__typename === 'AssetRelationshipOne' ? (r.asset ? [r.asset] : []) : (r.assets ?? []),
    );
  }
  const series = new Map<string, Series | null>();
  for (const [alias, need] of plan.series)
    series.set(seriesId(need), (raw[alias] as Series | null | undefined) ?? null);
  const subject = raw.issueSubject as { issues: { edges: { node: Issue }[] } } | null | undefined;
  return {
    id: raw.id as string,
    displayName: raw.displayName as string,
    secondaryDisplayName: (raw.secondaryDisplayName as string | null) ?? null,
    properties: (raw.properties as Record<string, unknown> | null) ?? {},
    latestObservations: (raw.latestObservations as Reading[] | null) ?? [],
    geometry: (raw.geometry as RawGeometry | null) ?? null,
    related,
    series,
    issues: subject ? subject.issues.edges.map((e) => e.node) : null,
    map: null,
  };
}
