// What the views read besides the view itself: the asset its widgets show, with what they need
// of it (view-data.ts writes the query), and for a map widget the viewport around it
// (view-map.ts).
import type { Api } from './api.ts';
import { shapesOf } from './view-charts.ts';
import {
  type AssetData,
  assetQuery,
  type MapLayer,
  type Relationship,
  readAsset,
  type ViewConfiguration,
  type Widget,
  widgetKind,
} from './view-data.ts';
import { loadWidgetMap, widgetExtent, widgetLayers } from './view-map.ts';

/** The answer to `documents.VIEWS`. */
export interface ViewsAnswer {
  assetProfiles: {
    byId: { relationships: Relationship[] | null; viewConfigurations: ViewConfiguration[] | null } | null;
  } | null;
}

/** Asset `id` of `profile` as `widgets` show it, or null when the profile has no such asset. */
export async function loadAsset(
  api: Api,
  signal: AbortSignal,
  profile: string,
  id: string,
  widgets: readonly Widget[],
  layers: readonly MapLayer[],
): Promise<AssetData | null> {
  const { query, variables, plan } = assetQuery(profile, id, widgets, new Date());
  const map = widgets.find((w) => widgetKind(w.widget) === 'map');
  const shown = map ? widgetLayers(map, layers) : [];
  // Where the map widget's assets are is asked beside the asset: its extent needs both.
  const [data, extent] = await Promise.all([
    api.request<{ assets: { byId: Record<string, unknown> | null } | null }>(query, variables, signal),
    map ? widgetExtent(api, signal, profile, shown) : null,
  ]);
  const raw = data.assets?.byId;
  if (!raw) return null;
  const asset = readAsset(raw, plan);
  if (map) asset.map = await loadWidgetMap(api, signal, profile, shown, extent, shapesOf(asset.geometry));
  return asset;
}
