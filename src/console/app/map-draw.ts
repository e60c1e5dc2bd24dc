// Drawing the map on a canvas: a plain background with a graticule (no base tiles: nothing may
// be fetched from elsewhere), then each layer's assets (points, lines, polygons) coloured by its
// style, or its clusters as discs sized by their counts. Every position is projected anew for
// each frame, so panning and zooming redraw what was last answered at once, before the answer
// for the new viewport arrives.
import type { Geometry, MapCluster, MapFeature, MapLayer } from './map-data.ts';
import {
  graticuleStep,
  MAX_LATITUDE,
  type MapPosition,
  project,
  ticks,
  unproject,
} from './map-projection.ts';

export interface DrawLayer {
  features: MapFeature[];
  clusters: MapCluster[];
  colour(properties: Record<string, unknown>): string;
  clusterColour: string;
  labelProperty: string | null;
}

/** What a map draws of `layers`: those shown and answered, each in its style. */
export function drawLayersOf(layers: readonly MapLayer[]): DrawLayer[] {
  return layers
    .filter((l) => l.visible && l.answer)
    .map((l) => ({
      features: l.answer!.features,
      clusters: l.answer!.clusters,
      colour: l.style.colour,
      clusterColour: l.style.clusterColour,
      labelProperty: l.config.labelProperty,
    }));
}

export interface Frame {
  width: number;
  height: number;
  position: MapPosition;
}

const BACKGROUND = '#e8eef3';
const GRATICULE = '#c3ccd5';
const GRATICULE_TEXT = '#4f5863';
/** Labels are drawn only when a layer shows at most this many assets. */
const MAX_LABELS = 200;

/** Screen pixel of a longitude and latitude in `frame`. */
export function screenOf(frame: Frame): (lon: number, lat: number) => [number, number] {
  const [cx, cy] = project(frame.position.lon, frame.position.lat, frame.position.zoom);
  const ox = frame.width / 2 - cx;
  const oy = frame.height / 2 - cy;
  return (lon, lat) => {
    const [x, y] = project(lon, lat, frame.position.zoom);
    return [x + ox, y + oy];
  };
}

export function drawMap(g: CanvasRenderingContext2D, frame: Frame, layers: readonly DrawLayer[]): void {
  g.fillStyle = BACKGROUND;
  g.fillRect(0, 0, frame.width, frame.height);
  drawGraticule(g, frame);
  const at = screenOf(frame);
  for (const layer of layers) {
    for (const f of layer.features)
      if (f.geometry) drawGeometry(g, at, f.geometry, layer.colour(f.properties));
    for (const c of layer.clusters) drawCluster(g, at, c, layer.clusterColour);
  }
  for (const layer of layers)
    if (layer.labelProperty && layer.features.length <= MAX_LABELS) drawLabels(g, at, layer);
}

function drawGraticule(g: CanvasRenderingContext2D, frame: Frame): void {
  const { width, height, position } = frame;
  const [cx, cy] = project(position.lon, position.lat, position.zoom);
  const [west, north] = unproject(cx - width / 2, cy - height / 2, position.zoom);
  const [east, south] = unproject(cx + width / 2, cy + height / 2, position.zoom);
  const step = graticuleStep(position.zoom);
  const at = screenOf(frame);
  g.strokeStyle = GRATICULE;
  g.lineWidth = 1;
  g.fillStyle = GRATICULE_TEXT;
  g.font = '11px system-ui, sans-serif';
  g.beginPath();
  const lons = ticks(Math.max(-180, west), Math.min(180, east), step);
  const lats = ticks(Math.max(-MAX_LATITUDE, south), Math.min(MAX_LATITUDE, north), step);
  for (const lon of lons) {
    const [x] = at(lon, 0);
    g.moveTo(Math.round(x) + 0.5, 0);
    g.lineTo(Math.round(x) + 0.5, height);
  }
  for (const lat of lats) {
    const [, y] = at(0, lat);
    g.moveTo(0, Math.round(y) + 0.5);
    g.lineTo(width, Math.round(y) + 0.5);
  }
  g.stroke();
  g.textBaseline = 'bottom';
  for (const lon of lons) g.fillText(degrees(lon, 'E', 'W'), at(lon, 0)[0] + 3, height - 3);
  g.textBaseline = 'top';
  // Not where the longitudes' labels are, along the bottom.
  for (const lat of lats) {
    const y = at(0, lat)[1] + 3;
    if (y < height - 30) g.fillText(degrees(lat, 'N', 'S'), 3, y);
  }
}

function degrees(v: number, positive: string, negative: string): string {
  if (v === 0) return '0°';
  return `${Number(Math.abs(v).toFixed(3))}°${v > 0 ? positive : negative}`;
}

type At = (lon: number, lat: number) => [number, number];

function drawGeometry(g: CanvasRenderingContext2D, at: At, geometry: Geometry, colour: string): void {
  const c = geometry.coordinates as never;
  switch (geometry.type) {
    case 'Point':
      drawPoints(g, at, [c], colour);
      break;
    case 'MultiPoint':
      drawPoints(g, at, c, colour);
      break;
    case 'LineString':
      drawLines(g, at, [c], colour);
      break;
    case 'MultiLineString':
      drawLines(g, at, c, colour);
      break;
    case 'Polygon':
      drawPolygons(g, at, [c], colour);
      break;
    case 'MultiPolygon':
      drawPolygons(g, at, c, colour);
      break;
    case 'GeometryCollection':
      for (const member of geometry.geometries ?? []) drawGeometry(g, at, member, colour);
  }
}

type Position = [number, number, ...number[]];

function drawPoints(g: CanvasRenderingContext2D, at: At, points: Position[], colour: string): void {
  g.fillStyle = colour;
  g.strokeStyle = '#ffffff';
  g.lineWidth = 1.5;
  for (const p of points) {
    const [x, y] = at(p[0], p[1]);
    g.beginPath();
    g.arc(x, y, 5, 0, 2 * Math.PI);
    g.fill();
    g.stroke();
  }
}

function path(g: CanvasRenderingContext2D, at: At, line: Position[], close: boolean): void {
  line.forEach((p, i) => {
    const [x, y] = at(p[0], p[1]);
    if (i === 0) g.moveTo(x, y);
    else g.lineTo(x, y);
  });
  if (close) g.closePath();
}

function drawLines(g: CanvasRenderingContext2D, at: At, lines: Position[][], colour: string): void {
  g.strokeStyle = colour;
  g.lineWidth = 2.5;
  g.lineJoin = 'round';
  g.beginPath();
  for (const line of lines) path(g, at, line, false);
  g.stroke();
}

function drawPolygons(g: CanvasRenderingContext2D, at: At, polygons: Position[][][], colour: string): void {
  g.beginPath();
  for (const rings of polygons) for (const ring of rings) path(g, at, ring, true);
  g.globalAlpha = 0.25;
  g.fillStyle = colour;
  g.fill('evenodd');
  g.globalAlpha = 1;
  g.strokeStyle = colour;
  g.lineWidth = 1.5;
  g.stroke();
}

/** A cluster's disc radius: 10 pixels for one asset, 24 for ten thousand or more (cells are 64). */
export function clusterRadius(count: number): number {
  return Math.min(24, 10 + 3.5 * Math.log10(Math.max(1, count)));
}

function drawCluster(g: CanvasRenderingContext2D, at: At, c: MapCluster, colour: string): void {
  const [x, y] = at(c.centroid[0], c.centroid[1]);
  const r = clusterRadius(c.count);
  g.beginPath();
  g.arc(x, y, r, 0, 2 * Math.PI);
  g.globalAlpha = 0.88;
  g.fillStyle = colour;
  g.fill();
  g.globalAlpha = 1;
  g.strokeStyle = '#ffffff';
  g.lineWidth = 2;
  g.stroke();
  g.fillStyle = '#ffffff';
  g.font = 'bold 12px system-ui, sans-serif';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText(compact(c.count), x, y);
  g.textAlign = 'start';
}

/** A count in at most four characters: 950, 1.2k, 35k, 1.1M. */
export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

function drawLabels(g: CanvasRenderingContext2D, at: At, layer: DrawLayer): void {
  g.font = '12px system-ui, sans-serif';
  g.textBaseline = 'middle';
  g.lineWidth = 3;
  g.strokeStyle = 'rgba(255, 255, 255, 0.9)';
  g.fillStyle = '#1b1f24';
  for (const f of layer.features) {
    const value = f.properties[layer.labelProperty!];
    const anchor = f.geometry && anchorOf(f.geometry);
    if (value === undefined || value === null || !anchor) continue;
    const [x, y] = at(anchor[0], anchor[1]);
    g.strokeText(String(value), x + 8, y);
    g.fillText(String(value), x + 8, y);
  }
}

/** Where a geometry's label goes: its first vertex. */
function anchorOf(geometry: Geometry): [number, number] | null {
  let c: unknown =
    geometry.type === 'GeometryCollection' ? geometry.geometries?.[0]?.coordinates : geometry.coordinates;
  while (Array.isArray(c) && Array.isArray(c[0])) c = c[0];
  return Array.isArray(c) && typeof c[0] === 'number' && typeof c[1] === 'number' ? [c[0], c[1]] : null;
}
