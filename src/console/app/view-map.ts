// A view's map widget: the asset among every asset its layers show, drawn as the map page draws
// them (map-draw.ts) from what `Assets.mapViewport` answers for the widget's extent — the box
// around those assets and the asset itself — so a profile of 100,000 assets shows them all,
// clustered by the server. The asset is ringed and labelled on top; the words say where it is and
// what the map holds.
import type { Api } from './api.ts';
import { h } from './dom.ts';
import type { AssetFilter } from './filters.ts';
import { formatValue } from './format.ts';
import { askViewports, type Geometry, layersOf, type MapLayer, mapLayers, readExtent } from './map-data.ts';
import { drawLayersOf, drawMap, type Frame, screenOf } from './map-draw.ts';
import { mapSummary } from './map-panels.ts';
import { type Bbox, fitted, type MapPosition } from './map-projection.ts';
import { boundsOf, formatPosition, type Position, type Shapes, shapesOf } from './view-charts.ts';
import {
  mapLayerOf,
  mapLayersOf,
  type MapLayer as ViewMapLayer,
  type Widget,
  type WidgetContext,
  type WidgetMap,
} from './view-data.ts';
import { keyLabel, note } from './view-plots.ts';

/** The widget's map in CSS pixels, stretched to its box with its proportions kept. */
export const WIDGET_MAP = { width: 480, height: 288 } as const;
/** Canvas pixels a CSS pixel: sharp when the widget is drawn larger, and on paper. */
const RATIO = 2;
/** The closest a widget's map zooms to fit its assets. */
const MAX_ZOOM = 16;
const INK = '#1b1f24';

/** The layers a map widget draws: its own, else the view's visible ones, else one of every asset. */
export function widgetLayers(widget: Widget, layers: readonly ViewMapLayer[]): MapLayer[] {
  const own = mapLayersOf(widget, layers);
  return mapLayers(own.length ? own : layersOf(null)).map((l) => ({ ...l, visible: true }));
}

/** The assets of any of `layers`: null (every asset) when one of them has no filter. */
export function anyOf(layers: readonly MapLayer[]): AssetFilter | null {
  const filters = layers.map((l) => l.config.filter);
  if (filters.some((f) => !f || Object.keys(f).length === 0)) return null;
  return filters.length === 1 ? filters[0]! : { or: filters as AssetFilter[] };
}

/** The widget's extent: `assets` (the box around its layers' assets) with the asset's own box. */
export function widgetPosition(assets: Bbox | null, own: Bbox | null): MapPosition {
  const boxes = [assets, own].filter((b): b is Bbox => !!b);
  if (boxes.length === 0) return { lon: 0, lat: 20, zoom: 1 };
  const box: Bbox = [
    Math.min(...boxes.map((b) => b[0])),
    Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])),
    Math.max(...boxes.map((b) => b[3])),
  ];
  return fitted(box, WIDGET_MAP.width, WIDGET_MAP.height, MAX_ZOOM);
}

/** Asks for the viewport of `shown` at the widget's extent (`assets` around the asset's `shapes`). */
export async function loadWidgetMap(
  api: Api,
  signal: AbortSignal,
  profile: string,
  shown: readonly MapLayer[],
  assets: Bbox | null,
  shapes: Shapes,
): Promise<WidgetMap> {
  const position = widgetPosition(assets, boundsOf(shapes));
  const size = [WIDGET_MAP.width, WIDGET_MAP.height] as const;
  const answers = await askViewports(api, signal, profile, shown, null, position, size);
  return { position, layers: shown.map((l, i) => ({ ...l, answer: answers[i] ?? null })) };
}

/** The box around the assets of `shown`, asked beside the asset itself. */
export function widgetExtent(
  api: Api,
  signal: AbortSignal,
  profile: string,
  shown: readonly MapLayer[],
): Promise<Bbox | null> {
  return readExtent(api, profile, anyOf(shown), signal);
}

/** The asset's shapes as one GeoJSON geometry, for the map's drawing. */
function geometryOf(shapes: Shapes): Geometry {
  return {
    type: 'GeometryCollection',
    geometries: [
      { type: 'Polygon', coordinates: shapes.rings },
      { type: 'MultiLineString', coordinates: shapes.lines },
      { type: 'MultiPoint', coordinates: shapes.points },
    ],
  };
}

/** A ring around the asset, and its label beside it. */
function mark(g: CanvasRenderingContext2D, frame: Frame, at: Position, label: string): void {
  const [x, y] = screenOf(frame)(at[0], at[1]);
  g.beginPath();
  g.arc(x, y, 9, 0, 2 * Math.PI);
  g.lineWidth = 2.5;
  g.strokeStyle = INK;
  g.stroke();
  g.font = 'bold 13px system-ui, sans-serif';
  g.textBaseline = 'middle';
  g.lineWidth = 3;
  g.strokeStyle = 'rgba(255, 255, 255, 0.9)';
  g.strokeText(label, x + 13, y);
  g.fillStyle = INK;
  g.fillText(label, x + 13, y);
}

export function map(widget: Widget, ctx: WidgetContext): HTMLElement {
  const { asset } = ctx;
  const drawn = asset.map;
  if (!drawn) return note('The map could not be read.');
  const shapes = shapesOf(asset.geometry);
  const box = boundsOf(shapes);
  const layer = mapLayerOf(widget, ctx.layers);
  const style = drawn.layers.find((l) => l.config.id === layer?.id)?.style ?? drawn.layers[0]?.style;
  const centre: Position | null = box
    ? (shapes.points[0] ?? [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    : null;
  const said = layer?.styleProperty
    ? `; ${keyLabel(layer.styleProperty, ctx.profile)}: ${formatValue(asset.properties[layer.styleProperty])}`
    : '';
  const where = centre
    ? `${asset.displayName} at ${formatPosition(centre)}${said}.`
    : `${asset.displayName} has no geometry.`;
  const words = `${where} ${mapSummary(drawn.layers, drawn.position.zoom)}`;
  const { width, height } = WIDGET_MAP;
  const canvas = h('canvas', {
    class: 'map-widget-canvas',
    width: width * RATIO,
    height: height * RATIO,
    role: 'img',
    'aria-label': words,
  });
  const g = canvas.getContext('2d');
  if (g) {
    g.setTransform(RATIO, 0, 0, RATIO, 0, 0);
    const frame: Frame = { width, height, position: drawn.position };
    const own = {
      features: [
        {
          id: asset.id,
          displayName: asset.displayName,
          properties: asset.properties,
          geometry: geometryOf(shapes),
        },
      ],
      clusters: [],
      colour: style?.colour ?? (() => '#0b5cad'),
      clusterColour: style?.clusterColour ?? '#0b5cad',
      labelProperty: null,
    };
    drawMap(g, frame, [...drawLayersOf(drawn.layers), own]);
    const label = layer?.labelProperty
      ? formatValue(asset.properties[layer.labelProperty])
      : asset.displayName;
    if (centre) mark(g, frame, centre, label);
  }
  return h('figure', { class: 'map-widget' }, canvas, h('figcaption', null, words));
}
