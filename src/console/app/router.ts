// The console's places, as hash routes: `/console#/profiles/well?search=red`. The hash keeps every
// place on the one page the server serves, so a place can be bookmarked, reloaded, and reached
// with the browser's Back and Forward, and the server needs no route of its own for each.
//
// Built in this slice:
//   #/profiles                          the group's asset profiles
//   #/profiles/:profile?search=&filter=&size=
//                                        a profile's assets: search, saved filter, page size
//   #/profiles/:profile/assets/:id      an asset's page (asset-route.ts)
//   #/profiles/:profile/map?…           the filtered assets on a map, clustered by the server (map-route.ts)
//   #/profiles/:profile/views[/:view?media=&asset=]
//                                        a profile's view configurations; one by media type (views-route.ts)
// Exports and live updates belong to the assets list and the map, not to a route.
import { type AssetRoute, assetHref, parseAssetRoute } from './asset-route.ts';
import { type MapRoute, mapHref, parseMapRoute } from './map-route.ts';
import { parseViewsRoute, type ViewsRoute, viewsHref } from './views-route.ts';

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;

/** What narrows a profile's assets list, as its route keeps it. */
export interface AssetsQuery {
  /** Words every display name must match ('' for none). */
  search: string;
  /** The id of the saved selection filter applied, if any. */
  filter: string | null;
  size: number;
}

export type Route =
  | { name: 'profiles' }
  | { name: 'assets'; profile: string; query: AssetsQuery }
  | ViewsRoute
  | AssetRoute
  | MapRoute
  | { name: 'not-found'; path: string };

/** The route of a location's hash ('' and '#/' are the profiles). */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const [path = '', search = ''] = splitOnce(raw, '?');
  const parts = path.split('/').filter(Boolean);
  let segments: string[];
  try {
    segments = parts.map((p) => decodeURIComponent(p));
  } catch (e) {
    if (e instanceof URIError) return { name: 'not-found', path };
    throw e;
  }
  if (segments.length === 0 || (segments.length === 1 && segments[0] === 'profiles')) {
    return { name: 'profiles' };
  }
  if (segments.length === 2 && segments[0] === 'profiles') {
    const params = new URLSearchParams(search);
    const size = Number(params.get('size'));
    return {
      name: 'assets',
      profile: segments[1]!,
      query: {
        search: normaliseSearch(params.get('search') ?? ''),
        filter: params.get('filter') || null,
        size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
      },
    };
  }
  const views = parseViewsRoute(segments, search);
  if (views) return views;
  const asset = parseAssetRoute(segments);
  if (asset) return asset;
  const map = parseMapRoute(segments, search);
  if (map) return map;
  return { name: 'not-found', path };
}

/** The hash of a route, as links and `location.hash` take it. */
export function href(route: Route): string {
  switch (route.name) {
    case 'profiles':
      return '#/profiles';
    case 'assets': {
      const params = new URLSearchParams();
      if (route.query.search) params.set('search', route.query.search);
      if (route.query.filter) params.set('filter', route.query.filter);
      if (route.query.size !== DEFAULT_PAGE_SIZE) params.set('size', String(route.query.size));
      const query = params.toString();
      return `#/profiles/${encodeURIComponent(route.profile)}${query ? `?${query}` : ''}`;
    }
    case 'views':
    case 'view':
      return viewsHref(route);
    case 'asset':
      return assetHref(route);
    case 'map':
      return mapHref(route);
    case 'not-found':
      return `#${route.path}`;
  }
}

/** The assets route of `profile` with `query`'s parts replaced by `change`. */
export function assetsRoute(profile: string, query: AssetsQuery, change: Partial<AssetsQuery> = {}): Route {
  return { name: 'assets', profile, query: { ...query, ...change } };
}

/** Search words as the API takes them: trimmed, single spaces. */
export function normaliseSearch(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}
