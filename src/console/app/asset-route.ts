// The asset page's place among the console's hash routes (router.ts reads and writes it with these):
//   #/profiles/:profile/assets/:id      one asset: properties, readings, relationships, issues,
//                                        history and a chart of a reading's history

export interface AssetRoute {
  name: 'asset';
  profile: string;
  id: string;
}

/** The asset route of a path's decoded segments, or null when it is not one. */
export function parseAssetRoute(segments: readonly string[]): AssetRoute | null {
  if (segments.length !== 4 || segments[0] !== 'profiles' || segments[2] !== 'assets') return null;
  return { name: 'asset', profile: segments[1]!, id: segments[3]! };
}

/** The hash of an asset's page. */
export function assetHref(route: { profile: string; id: string }): string {
  return `#/profiles/${encodeURIComponent(route.profile)}/assets/${encodeURIComponent(route.id)}`;
}
