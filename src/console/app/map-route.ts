// The map's place among the console's hash routes (router.ts reads and writes it with these):
//   #/profiles/:profile/map?search=&filter=&view=&at=zoom/lat/lon
// The search and the saved filter are the assets list's (the map shows the same assets), the
// view configuration whose map layers apply, and where the map looks: a reload or a bookmark
// keeps them all. Panning and zooming replace `at` without a new history entry.
import { formatPosition, type MapPosition, parsePosition } from './map-projection.ts';

export interface MapRoute {
  name: 'map';
  profile: string;
  query: MapQuery;
}

export interface MapQuery {
  search: string;
  filter: string | null;
  /** The view configuration whose map applies; null for the first that has one. */
  view: string | null;
  /** Where the map looks; null for the view's own centre and zoom, or all the assets. */
  at: MapPosition | null;
}

/** The map route of a path's decoded segments and its query, or null when it is not one. */
export function parseMapRoute(segments: readonly string[], search: string): MapRoute | null {
  if (segments.length !== 3 || segments[0] !== 'profiles' || segments[2] !== 'map') return null;
  const params = new URLSearchParams(search);
  return {
    name: 'map',
    profile: segments[1]!,
    query: {
      search: (params.get('search') ?? '').trim().replace(/\s+/g, ' '),
      filter: params.get('filter') || null,
      view: params.get('view') || null,
      at: parsePosition(params.get('at')),
    },
  };
}

/** The hash of a map route. */
export function mapHref(route: { profile: string; query: Partial<MapQuery> }): string {
  const params = new URLSearchParams();
  const q = route.query;
  if (q.search) params.set('search', q.search);
  if (q.filter) params.set('filter', q.filter);
  if (q.view) params.set('view', q.view);
  if (q.at) params.set('at', formatPosition(q.at));
  const query = params.toString();
  return `#/profiles/${encodeURIComponent(route.profile)}/map${query ? `?${query}` : ''}`;
}
