// What the views read besides the view itself: the asset its widgets show, with what they need
// of it (view-data.ts writes the query), and for a map widget the profile's assets around it.
import type { Api } from './api.ts';
import { shapesOf } from './view-charts.ts';
import {
  type AssetData,
  assetQuery,
  type MapLayer,
  mapLayerOf,
  type Neighbour,
  neighboursQuery,
  type Relationship,
  readAsset,
  type ViewConfiguration,
  type Widget,
  widgetKind,
} from './view-data.ts';

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
  const data = await api.request<{ assets: { byId: Record<string, unknown> | null } | null }>(
    query,
    variables,
    signal,
  );
  const raw = data.assets?.byId;
  if (!raw) return null;
  const asset = readAsset(raw, plan);
  const map = widgets.find((w) => widgetKind(w.widget) === 'map');
  const centre = shapesOf(asset.geometry).points[0];
  if (map && centre) {
    const near = neighboursQuery(profile, centre, mapLayerOf(map, layers));
    const around = await api.request<{ assets: { all: { edges: { node: Neighbour }[] } } | null }>(
      near.query,
      near.variables,
      signal,
    );
    asset.neighbours = around.assets?.all.edges.map((e) => e.node) ?? [];
  }
  return asset;
}
