import type { Kysely } from 'kysely';
import { fail, ok, type Result } from '../../shared/result.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AssetErrorType } from './error-codes.ts';
import type { AssetFilterInput, ProfileLookup } from './filters/types.ts';
import { validateFilter } from './filters/validate.ts';
import { PLAIN_ID, type SavedObjectInput, savedObjectProfile } from './ids.ts';
import type { EffectiveProfile } from './profiles/definition.ts';

/** Widgets sit on a 12-column grid, like ThingsBoard's and Grafana's dashboards. */
export const GRID_COLUMNS = 12;
export const MEDIA_TYPES = ['WEB', 'MOBILE', 'PRINTABLE'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export interface Widget {
  id: string;
  layout: { x: number; y: number; w: number; h: number };
  name: string;
  settings: Record<string, unknown>;
  widget: string;
}

export interface ViewRow {
  user_group: string;
  profile: string;
  id: string;
  name: string | null;
  map: Record<string, unknown> | null;
  layouts: Partial<Record<MediaType, Widget[]>>;
  version: number;
  updated_at: Date;
  updated_by: string;
}

/** The view as saved (null once deleted), or why nothing changed. */
export type ViewOutcome = Result<ViewRow | null, AssetErrorType>;

export function viewsOf(db: Kysely<Tables>, group: string, profile: string, id?: string): Promise<ViewRow[]> {
  let q = db
    .selectFrom('asset_views')
    .selectAll()
    .where('user_group', '=', group)
    .where('profile', '=', profile);
  if (id !== undefined) q = q.where('id', '=', id);
  return q.orderBy('id').execute() as Promise<ViewRow[]>;
}

interface MapLayerInput {
  id: string;
  name: string;
  visible?: boolean | null;
  labelProperty?: string | null;
  styleProperty?: string | null;
  styleColors?: Record<string, unknown> | null;
  filter?: AssetFilterInput | null;
}

export interface MapInput {
  center?: number[] | null;
  zoom?: number | null;
  minZoom?: number | null;
  maxZoom?: number | null;
  baseLayer?: string | null;
  layers?: MapLayerInput[] | null;
}

/** Checks a map against the profile; returns the stored shape. */
function checkMap(
  map: MapInput,
  profile: EffectiveProfile,
  profiles: ProfileLookup,
): Result<Record<string, unknown>, AssetErrorType> {
  const c = map.center;
  if (c && (c.length !== 2 || Math.abs(c[0]!) > 180 || Math.abs(c[1]!) > 90)) {
    return fail('INVALID_INPUT', 'map.center must be [longitude, latitude] within range.');
  }
  for (const k of ['zoom', 'minZoom', 'maxZoom'] as const) {
    const z = map[k];
    if (z != null && (z < 0 || z > 24)) return fail('INVALID_INPUT', `map.${k} must be from 0 to 24.`);
  }
  if (map.minZoom != null && map.maxZoom != null && map.minZoom > map.maxZoom) {
    return fail('INVALID_INPUT', 'map.minZoom may not exceed map.maxZoom.');
  }
  const ids = new Set<string>();
  const names = new Set(['id', ...profile.properties.map((p) => p.name)]);
  const layers: Record<string, unknown>[] = [];
  for (const [i, l] of (map.layers ?? []).entries()) {
    if (!PLAIN_ID.test(l.id) || ids.has(l.id))
      return fail('INVALID_INPUT', `map.layers[${i}].id must be unique and plain.`);
    ids.add(l.id);
    for (const k of ['labelProperty', 'styleProperty'] as const) {
      const p = l[k];
      if (p && !names.has(p))
        return fail(
          'UNKNOWN_PROPERTY',
          `map.layers[${i}].${k}: ${p} is not a property of ${profile.profile}.`,
        );
    }
    const check = validateFilter(l.filter ?? null, profile, profiles);
    if (!check.ok) return fail('INVALID_FILTER', `map.layers[${i}].${check.message}`);
    layers.push({
      id: l.id,
      name: l.name,
      visible: l.visible ?? true,
      labelProperty: l.labelProperty ?? null,
      styleProperty: l.styleProperty ?? null,
      styleColors: l.styleColors ?? null,
      filter: l.filter ?? null,
    });
  }
  return ok({
    center: c ?? null,
    zoom: map.zoom ?? null,
    minZoom: map.minZoom ?? null,
    maxZoom: map.maxZoom ?? null,
    baseLayer: map.baseLayer ?? null,
    layers,
  });
}

/** The stored view, locked for the rest of the transaction so edits apply one at a time. */
async function lockView(
  trx: Kysely<Tables>,
  group: string,
  profile: string,
  id: string,
): Promise<ViewRow | undefined> {
  const rows = await trx
    .selectFrom('asset_views')
    .selectAll()
    .where('user_group', '=', group)
    .where('profile', '=', profile)
    .where('id', '=', id)
    .forUpdate()
    .execute();
  return rows[0] as ViewRow | undefined;
}

/** Writes changes to a locked view, bumping its version. */
async function saveView(
  trx: Kysely<Tables>,
  current: ViewRow,
  username: string,
  changes: { name?: string | null; map?: string | null; layouts?: string },
): Promise<ViewRow> {
  const row = await trx
    .updateTable('asset_views')
    .set({ ...changes, version: current.version + 1, updated_at: new Date(), updated_by: username })
    .where('user_group', '=', current.user_group)
    .where('profile', '=', current.profile)
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return row as ViewRow;
}

/** Creates view `id` when it does not exist, otherwise updates it (or deletes it). */
export async function putView(
  db: Kysely<Tables>,
  group: string,
  username: string,
  input: SavedObjectInput & {
    map?: MapInput | null;
    expectedVersion?: number | null;
  },
  profiles: ProfileLookup,
): Promise<ViewOutcome> {
  const owner = savedObjectProfile(profiles, input);
  if (!owner.ok) return owner;
  const profile = owner.value;
  let map: Record<string, unknown> | null | undefined;
  if (input.map) {
    const checked = checkMap(input.map, profile, profiles);
    if (!checked.ok) return checked;
    map = checked.value;
  } else if (input.map === null) {
    map = null;
  }
  return db.transaction().execute(async (trx): Promise<ViewOutcome> => {
    const current = await lockView(trx, group, input.profile, input.id);
    if (input.expectedVersion != null && (current?.version ?? 0) !== input.expectedVersion) {
      return fail(
        'VERSION_CONFLICT',
        `The view is at version ${current?.version ?? 0}, not ${input.expectedVersion}; reload it.`,
      );
    }
    const where = { user_group: group, profile: input.profile, id: input.id };
    if (input.delete) {
      if (!current) return fail('NOT_FOUND', `Profile ${input.profile} has no view ${input.id}.`);
      await trx
        .deleteFrom('asset_views')
        .where('user_group', '=', group)
        .where('profile', '=', input.profile)
        .where('id', '=', input.id)
        .execute();
      return ok(null);
    }
    if (!current) {
      const row = await trx
        .insertInto('asset_views')
        .values({
          ...where,
          name: input.name ?? null,
          map: map ? JSON.stringify(map) : null,
          layouts: '{}',
          updated_by: username,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return ok(row as ViewRow);
    }
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(map !== undefined ? { map: map ? JSON.stringify(map) : null } : {}),
    };
    return ok(await saveView(trx, current, username, changes));
  });
}

export interface WidgetInput {
  id: string;
  layout: { x: number; y: number; w: number; h: number };
  name: string;
  settings?: Record<string, unknown> | null;
  widget: string;
}

/** Checks widgets: unique ids, whole non-negative positions inside the 12-column grid. */
function checkWidgets(widgets: readonly WidgetInput[]): Result<Widget[], AssetErrorType> {
  const ids = new Set<string>();
  const out: Widget[] = [];
  for (const [i, w] of widgets.entries()) {
    const at = `widgets[${i}]`;
    if (!w.id || ids.has(w.id)) return fail('INVALID_LAYOUT', `${at}.id ${w.id} is empty or used twice.`);
    ids.add(w.id);
    const { x, y, w: width, h } = w.layout;
    if (x < 0 || y < 0 || width < 1 || h < 1)
      return fail('INVALID_LAYOUT', `${at}.layout: x and y start at 0, w and h at 1.`);
    if (x + width > GRID_COLUMNS)
      return fail('INVALID_LAYOUT', `${at}.layout: x + w may be at most ${GRID_COLUMNS}.`);
    if (!w.widget.trim() || !w.name.trim())
      return fail('INVALID_LAYOUT', `${at}: widget and name must not be empty.`);
    out.push({
      id: w.id,
      layout: { x, y, w: width, h },
      name: w.name,
      settings: w.settings ?? {},
      widget: w.widget,
    });
  }
  return ok(out);
}

/** Replaces the widgets of one media type of an existing view. */
export async function putLayout(
  db: Kysely<Tables>,
  group: string,
  username: string,
  input: {
    profile: string;
    viewConfiguration: string;
    mediaType: MediaType;
    widgets: WidgetInput[];
    expectedVersion?: number | null;
  },
): Promise<Result<ViewRow, AssetErrorType>> {
  const widgets = checkWidgets(input.widgets);
  if (!widgets.ok) return widgets;
  return db.transaction().execute(async (trx): Promise<Result<ViewRow, AssetErrorType>> => {
    const current = await lockView(trx, group, input.profile, input.viewConfiguration);
    if (!current)
      return fail('NOT_FOUND', `Profile ${input.profile} has no view ${input.viewConfiguration}.`);
    if (input.expectedVersion != null && current.version !== input.expectedVersion) {
      return fail(
        'VERSION_CONFLICT',
        `The view is at version ${current.version}, not ${input.expectedVersion}; reload it.`,
      );
    }
    const layouts = { ...current.layouts, [input.mediaType]: widgets.value };
    return ok(await saveView(trx, current, username, { layouts: JSON.stringify(layouts) }));
  });
}
