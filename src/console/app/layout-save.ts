// Saving one media type's layout with `updateAssetProfileViewLayout`, sent with the version the
// layout was read at (`ifVersion`), so that nobody's change is overwritten unseen. A refusal for a
// newer version is looked into: when only another part of the view changed (another media type's
// layout, its name, its map), this layout is still as it was read and the save is sent again at
// the new version; when this layout itself changed, it is a conflict, for the reader to settle.
import { type Api, payloadError } from './api.ts';
import type { SessionInfo } from './auth.ts';
import * as documents from './documents.ts';
import { layoutOf, type ViewConfiguration, type Widget, widgetsInput } from './view-data.ts';
import type { MediaType } from './views-route.ts';

export type SaveOutcome =
  | { kind: 'saved'; view: ViewConfiguration }
  /** Someone saved this layout meanwhile: `current` is the view now, `theirs` its layout (null if removed). */
  | { kind: 'conflict'; current: ViewConfiguration; theirs: Widget[] | null }
  /** The API refused the layout, or the view is gone: its words. */
  | { kind: 'refused'; message: string };

export interface SaveRequest {
  profile: string;
  view: string;
  media: MediaType;
  /** The layout to save. */
  widgets: readonly Widget[];
  /** The layout as it was read, before the reader's changes. */
  base: readonly Widget[];
  /** The view's version when `base` was read. */
  version: number;
}

interface Payload {
  errors: { type: string; message: string }[];
  viewConfiguration: ViewConfiguration | null;
}

/** Whether two layouts hold the same widgets, settings and names included, whatever their order. */
export function sameWidgets(a: readonly Widget[], b: readonly Widget[]): boolean {
  const key = (widgets: readonly Widget[]) =>
    JSON.stringify(widgetsInput([...widgets].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))));
  return key(a) === key(b);
}

/** Saves `request.widgets`; how many times it tries again after changes elsewhere in the view. */
export async function saveLayout(
  api: Api,
  request: SaveRequest,
  signal?: AbortSignal,
  retries = 3,
): Promise<SaveOutcome> {
  let version = request.version;
  for (let attempt = 0; ; attempt++) {
    const data = await api.request<{ updateAssetProfileViewLayout: Payload }>(
      documents.SAVE_LAYOUT,
      {
        input: {
          profile: request.profile,
          viewConfiguration: request.view,
          mediaType: request.media,
          widgets: widgetsInput(request.widgets),
          ifVersion: version,
        },
      },
      signal,
    );
    const result = data.updateAssetProfileViewLayout;
    if (result.errors.length === 0 && result.viewConfiguration)
      return { kind: 'saved', view: result.viewConfiguration };
    if (!result.errors.some((e) => e.type === 'VERSION_CONFLICT')) {
      return { kind: 'refused', message: payloadError(result.errors) ?? 'The layout was not saved.' };
    }
    const now = await api.request<{
      assetProfiles: { byId: { viewConfiguration: ViewConfiguration | null } | null } | null;
    }>(documents.VIEW, { profile: request.profile, view: request.view }, signal);
    const current = now.assetProfiles?.byId?.viewConfiguration;
    if (!current) return { kind: 'refused', message: 'This view no longer exists: someone deleted it.' };
    const theirs = layoutOf(current, request.media);
    if (theirs && sameWidgets(theirs, request.base) && attempt < retries) {
      version = current.version;
      continue;
    }
    return { kind: 'conflict', current, theirs };
  }
}

/**
 * Layouts changed and not saved, by profile, view and media type: kept in memory while the
 * console runs (never in storage), so that leaving the page and coming back finds them; dropped
 * when another user or group opens a view.
 */
const unsaved = { owner: '', drafts: new Map<string, Widget[]>() };

export function draftsOf(session: SessionInfo): Map<string, Widget[]> {
  const owner = JSON.stringify([session.username, session.userGroup]);
  if (unsaved.owner !== owner) {
    unsaved.owner = owner;
    unsaved.drafts.clear();
  }
  return unsaved.drafts;
}
