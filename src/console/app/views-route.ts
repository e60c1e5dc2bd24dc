// The views' places among the console's hash routes (router.ts reads and writes them with these):
//   #/profiles/:profile/views                          the profile's view configurations
//   #/profiles/:profile/views/:view?media=&asset=      one of them, for one media type and asset
// The media type and the asset shown are the route's, so a reload or a bookmark keeps them.

export const MEDIA_TYPES = ['WEB', 'MOBILE', 'PRINTABLE'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** How the console names each media type. */
export const MEDIA_LABELS: Record<MediaType, string> = {
  WEB: 'Web',
  MOBILE: 'Mobile',
  PRINTABLE: 'Printable',
};

export type ViewsRoute =
  | { name: 'views'; profile: string }
  | { name: 'view'; profile: string; view: string; media: MediaType; asset: string | null };

/** The views route of a path's decoded segments and its query, or null when it is not one. */
export function parseViewsRoute(segments: readonly string[], search: string): ViewsRoute | null {
  if (segments[0] !== 'profiles' || segments[2] !== 'views') return null;
  const profile = segments[1]!;
  if (segments.length === 3) return { name: 'views', profile };
  if (segments.length !== 4) return null;
  const params = new URLSearchParams(search);
  const media = (params.get('media') ?? '').toUpperCase();
  return {
    name: 'view',
    profile,
    view: segments[3]!,
    media: (MEDIA_TYPES as readonly string[]).includes(media) ? (media as MediaType) : 'WEB',
    asset: params.get('asset') || null,
  };
}

/** The hash of a views route. */
export function viewsHref(route: ViewsRoute): string {
  const base = `#/profiles/${encodeURIComponent(route.profile)}/views`;
  if (route.name === 'views') return base;
  const params = new URLSearchParams();
  if (route.media !== 'WEB') params.set('media', route.media);
  if (route.asset) params.set('asset', route.asset);
  const query = params.toString();
  return `${base}/${encodeURIComponent(route.view)}${query ? `?${query}` : ''}`;
}
