// What the map asks the API and how it reads the answers: a profile's view configurations with
// their maps (layers and styling), and `Assets.mapViewport` (docs/schema.md §6) for every visible
// layer in one request, each layer's filter joined by `and` to the list's. The API answers each
// viewport with the assets themselves when few, else their counts per grid cell.
import type { Api } from './api.ts';
import type { AssetFilter } from './filters.ts';
import { type Bbox, type MapPosition, viewportBbox } from './map-projection.ts';

/** A layer of a view configuration's map, as the API answers it (docs/schema.md §8). */
export interface MapLayerConfig {
  id: string;
  name: string;
  visible: boolean;
  labelProperty: string | null;
  styleProperty: string | null;
  styleColors: Record<string, unknown> | null;
  filter: AssetFilter | null;
}

export interface MapConfig {
  center: number[] | null;
  zoom: number | null;
  minZoom: number | null;
  maxZoom: number | null;
  layers: MapLayerConfig[];
}

export interface MapViewConfig {
  id: string;
  name: string | null;
  map: MapConfig | null;
}

/** A GeoJSON geometry (RFC 7946), as the map draws it. */
export interface Geometry {
  type: string;
  coordinates?: unknown;
  geometries?: Geometry[];
}

export interface MapFeature {
  id: string;
  displayName: string;
  properties: Record<string, unknown>;
  geometry: Geometry | null;
}

export interface MapCluster {
  key: string;
  count: number;
  centroid: [number, number];
  bbox: Bbox;
}

/** One layer's answer: the assets, or their clusters. */
export interface ViewportAnswer {
  count: number;
  clustered: boolean;
  features: MapFeature[];
  clusters: MapCluster[];
}

/** The most viewports the API answers in one request. */
export const MAX_LAYERS = 10;
/**
 * The most assets a layer shows one by one; more are clustered. Half the API's default: a
 * screenful of 500 dots is as much as a reader tells apart, and an answer of 1,000 assets with
 * their geometry took as long as the clusters of 100,000 (170 kB to send, read and draw).
 */
export const VIEWPORT_LIMIT = 500;
/** The world as the API takes a bbox: Web Mercator's latitudes. */
export const WORLD: Bbox = [-180, -85.0511287798066, 180, 85.0511287798066];

export const MAP_VIEWS = `query ConsoleMapViews($profile: ID!) {
  assetProfiles { byId(profile: $profile) {
    viewConfigurations { id name map {
      center zoom minZoom maxZoom
      layers { id name visible labelProperty styleProperty styleColors filter }
    } }
  } }
}`;

// Each geometry type's coordinates under a name of their own: fields of one name must have one
// shape in a selection (GraphQL's field merging), and the four shapes differ.
const GEOMETRY = `type
  ... on GeoJSONPoint { c1: coordinates }
  ... on GeoJSONMultiPoint { c2: coordinates }
  ... on GeoJSONLineString { c2: coordinates }
  ... on GeoJSONMultiLineString { c3: coordinates }
  ... on GeoJSONPolygon { c3: coordinates }
  ... on GeoJSONMultiPolygon { c4: coordinates }`;

/** `layers` viewports in one request: `l0`, `l1`, … with filters `$f0`, … and properties `$p0`, …. */
export function viewportsDocument(layers: number): string {
  const indexes = Array.from({ length: Math.min(layers, MAX_LAYERS) }, (_, i) => i);
  return `query ConsoleMap($profile: ID!, $bbox: [Float!]!, $zoom: Int!, $limit: Int${indexes
    .map((i) => `, $f${i}: AssetFilter, $p${i}: [String!]`)
    .join('')}) {
  assets(profile: $profile) {
    ${indexes
      .map(
        (i) => `l${i}: mapViewport(bbox: $bbox, zoom: $zoom, filter: $f${i}, limit: $limit) {
      count clustered
      clusters { key count centroid bbox }
      features { id displayName properties(only: $p${i}) geometry { ${GEOMETRY} ... on GeoJSONGeometryCollection { geometries { ${GEOMETRY} } } } }
    }`,
      )
      .join('\n    ')}
  }
}`;
}

/** Where the assets are: one cell for the whole world, whose box holds them all. */
export const EXTENT = `query ConsoleMapExtent($profile: ID!, $filter: AssetFilter) {
  assets(profile: $profile) {
    mapViewport(bbox: [${WORLD.join(', ')}], zoom: 0, filter: $filter, limit: 1) {
      count clusters { bbox } features { geometry { bbox } }
    }
  }
}`;

interface RawGeometry {
  type: string;
  c1?: unknown;
  c2?: unknown;
  c3?: unknown;
  c4?: unknown;
  geometries?: RawGeometry[];
}

/** A geometry as the map document asks it, back to GeoJSON. */
export function geometryOf(raw: RawGeometry | null | undefined): Geometry | null {
  if (!raw) return null;
  if (raw.type === 'GeometryCollection')
    return { type: raw.type, geometries: (raw.geometries ?? []).flatMap((g) => geometryOf(g) ?? []) };
  return { type: raw.type, coordinates: raw.c1 ?? raw.c2 ?? raw.c3 ?? raw.c4 };
}

export interface RawViewport {
  count: number;
  clustered: boolean;
  clusters: MapCluster[];
  features: {
    id: string;
    displayName: string;
    properties: Record<string, unknown> | null;
    geometry: RawGeometry | null;
  }[];
}

export function answerOf(raw: RawViewport): ViewportAnswer {
  return {
    count: raw.count,
    clustered: raw.clustered,
    clusters: raw.clusters,
    features: raw.features.map((f) => ({
      id: f.id,
      displayName: f.displayName,
      properties: f.properties ?? {},
      geometry: geometryOf(f.geometry),
    })),
  };
}

/**
 * The box around every asset of `profile` under `filter` (asked with {@link EXTENT}), or null when
 * there are none.
 */
export async function readExtent(
  api: Api,
  profile: string,
  filter: AssetFilter | null,
  signal: AbortSignal,
): Promise<Bbox | null> {
  const data = await api.request<{ assets: { mapViewport: Parameters<typeof extentOf>[0] } | null }>(
    EXTENT,
    { profile, filter },
    signal,
  );
  return data.assets ? extentOf(data.assets.mapViewport) : null;
}

/** The extent answer's box around every asset, or null when there are none. */
export function extentOf(raw: {
  count: number;
  clusters: { bbox: number[] }[];
  features: { geometry: { bbox: number[] | null } | null }[];
}): Bbox | null {
  const boxes = [
    ...raw.clusters.map((c) => c.bbox),
    ...raw.features.map((f) => f.geometry?.bbox ?? null),
  ].filter((b): b is number[] => Array.isArray(b) && b.length >= 4);
  if (boxes.length === 0) return null;
  return [
    Math.min(...boxes.map((b) => b[0]!)),
    Math.min(...boxes.map((b) => b[1]!)),
    Math.max(...boxes.map((b) => b[2]!)),
    Math.max(...boxes.map((b) => b[3]!)),
  ];
}

/** A layer's filter joined to the list's: both must hold. */
export function layerFilter(current: AssetFilter | null, layer: AssetFilter | null): AssetFilter | null {
  const parts = [current, layer].filter((f): f is AssetFilter => !!f && Object.keys(f).length > 0);
  if (parts.length === 0) return null;
  return parts.length === 1 ? parts[0]! : { and: parts };
}

/** Colours for layers that name none, told apart and dark enough for white text. */
const PALETTE = ['#0b5cad', '#b4235a', '#2f7d32', '#7b3fa0', '#a15c00', '#00727a'];

/** How a layer draws: its colour for an asset (by the style property), its clusters' colour. */
export interface LayerStyle {
  colour(properties: Record<string, unknown>): string;
  clusterColour: string;
  /** The swatches of the legend: value → colour, `default` last. */
  legend: [string, string][];
}

const HEX = /^#[0-9a-fA-F]{6}$/;

export function layerStyle(layer: MapLayerConfig, index: number): LayerStyle {
  const colours = Object.entries(layer.styleColors ?? {}).filter(
    (e): e is [string, string] => typeof e[1] === 'string' && HEX.test(e[1]),
  );
  const byValue = new Map(colours);
  const own = PALETTE[index % PALETTE.length]!;
  const fallback = byValue.get('default') ?? own;
  const property = layer.styleProperty;
  return {
    colour: (properties) => {
      const value = property ? properties[property] : undefined;
      return (value !== undefined && value !== null && byValue.get(String(value))) || fallback;
    },
    // A cluster holds assets of every colour: it takes the layer's own, dark enough for white text.
    clusterColour: own,
    legend: [...colours.filter(([k]) => k !== 'default'), ['default', fallback]],
  };
}

/** A layer as the map holds it: what it is, how it draws, whether shown, its last answer. */
export interface MapLayer {
  config: MapLayerConfig;
  style: LayerStyle;
  visible: boolean;
  answer: ViewportAnswer | null;
}

/** The layers of `configs` as a map holds them: styled in order, shown as configured, not answered yet. */
export function mapLayers(configs: readonly MapLayerConfig[]): MapLayer[] {
  return configs.map((config, i) => ({
    config,
    style: layerStyle(config, i),
    visible: config.visible,
    answer: null,
  }));
}

/**
 * The request of the viewport that a map of `size` pixels shows at `position`, for each of
 * `shown` (at most {@link MAX_LAYERS}), each layer's filter joined to `current`.
 */
export function viewportRequest(
  profile: string,
  shown: readonly MapLayer[],
  current: AssetFilter | null,
  position: MapPosition,
  size: readonly [number, number],
): { query: string; variables: Record<string, unknown> } {
  const variables: Record<string, unknown> = {
    profile,
    bbox: viewportBbox(position, size[0], size[1]),
    zoom: position.zoom,
    limit: VIEWPORT_LIMIT,
  };
  shown.slice(0, MAX_LAYERS).forEach((l, i) => {
    variables[`f${i}`] = layerFilter(current, l.config.filter);
    variables[`p${i}`] = [l.config.styleProperty, l.config.labelProperty].filter((p): p is string => !!p);
  });
  return { query: viewportsDocument(shown.length), variables };
}

/**
 * Asks for the viewport of `shown` at `position` in a map of `size` pixels, in one request (none
 * for no layer): each layer's answer, in order.
 */
export async function askViewports(
  api: Api,
  signal: AbortSignal,
  profile: string,
  shown: readonly MapLayer[],
  current: AssetFilter | null,
  position: MapPosition,
  size: readonly [number, number],
): Promise<(ViewportAnswer | null)[]> {
  if (shown.length === 0) return [];
  const { query, variables } = viewportRequest(profile, shown, current, position, size);
  const data = await api.request<{ assets: Record<string, RawViewport> | null }>(query, variables, signal);
  return shown.map((_, i) => {
    const raw = data.assets?.[`l${i}`];
    return raw ? answerOf(raw) : null;
  });
}

/** The view configuration whose map applies: the one named, else the first with a map. */
export function chosenView(views: readonly MapViewConfig[], wanted: string | null): MapViewConfig | null {
  const withMap = views.filter((v) => v.map);
  return withMap.find((v) => v.id === wanted) ?? withMap[0] ?? null;
}

/** The layers a map draws: its view's, or one of every asset when it has none. */
export function layersOf(view: MapViewConfig | null): MapLayerConfig[] {
  const layers = view?.map?.layers ?? [];
  if (layers.length > 0) return layers.slice(0, MAX_LAYERS);
  return [
    {
      id: 'assets',
      name: 'Assets',
      visible: true,
      labelProperty: null,
      styleProperty: null,
      styleColors: null,
      filter: null,
    },
  ];
}
