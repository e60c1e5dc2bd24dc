import { type Kysely, sql } from 'kysely';
import { fail, ok, type Result } from '../../shared/result.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AssetErrorType } from './error-codes.ts';
import type { AssetFilterInput, ProfileLookup } from './filters/types.ts';
import { validateFilter } from './filters/validate.ts';
import { PLAIN_ID, PLAIN_ID_RULE } from './ids.ts';
import type { EffectiveProfile } from './profiles/definition.ts';

/** A saved selection as stored: ids and names as given, predicates as JSON. */
export interface SelectionFilterRow {
  user_group: string;
  id: string;
  display_name: string;
  description: string | null;
  profile: string;
  filter: Record<string, unknown> | null;
  sub_profiles: SubProfile[];
  version: number;
  created_at: Date;
  created_by: string;
  updated_at: Date;
  updated_by: string;
}

/** A related profile the selection reaches, with its own predicate (stored with its target). */
export interface SubProfile {
  relationship: string;
  profile: string;
  filter: Record<string, unknown> | null;
  subProfiles: SubProfile[];
}

export interface SubProfileInput {
  relationship: string;
  filter?: AssetFilterInput | null;
  subProfiles?: SubProfileInput[] | null;
}

export type FilterOutcome = Result<SelectionFilterRow, AssetErrorType>;

const MAX_SUB_DEPTH = 4;

/**
 * Checks sub-profiles against the relationships of `profile`, recursively, and resolves each
 * relationship's target profile so that the stored shape names it.
 */
function resolveSubProfiles(
  profile: EffectiveProfile,
  profiles: ProfileLookup,
  inputs: readonly SubProfileInput[],
  path: string,
  depth = 1,
): Result<SubProfile[], AssetErrorType> {
  if (depth > MAX_SUB_DEPTH) return fail('INVALID_INPUT', `${path}: nested deeper than ${MAX_SUB_DEPTH}.`);
  const out: SubProfile[] = [];
  for (const [i, s] of inputs.entries()) {
    const at = `${path}[${i}]`;
    const r = profile.relationships.find((x) => x.relationship === s.relationship);
    const target = r ? profiles(r.profile) : null;
    if (!r || !target) {
      return fail(
        'INVALID_RELATIONSHIP',
        `${at}.relationship: ${profile.profile} has no relationship ${s.relationship}.`,
      );
    }
    const check = validateFilter(s.filter ?? null, target, profiles);
    if (!check.ok) return fail('INVALID_FILTER', `${at}.${check.message}`);
    const nested = resolveSubProfiles(target, profiles, s.subProfiles ?? [], `${at}.subProfiles`, depth + 1);
    if (!nested.ok) return nested;
    out.push({
      relationship: r.relationship,
      profile: r.profile,
      filter: (s.filter ?? null) as Record<string, unknown> | null,
      subProfiles: nested.value,
    });
  }
  return ok(out);
}

export interface CreateFilter {
  id: string;
  displayName: string;
  description?: string | null;
  profile: string;
  filter?: AssetFilterInput | null;
  subProfiles: SubProfileInput[];
}

/** The longest description of a saved filter, as of an issue (docs/security.md "Strings"). */
export const MAX_FILTER_DESCRIPTION = 20_000;
const DESCRIPTION_TOO_LONG = fail(
  'INVALID_INPUT',
  `description may have at most ${MAX_FILTER_DESCRIPTION} characters.`,
);

/** createAssetFilter: a taken id is DUPLICATE_ID (spec §7.3) and nothing changes. */
export async function createSelectionFilter(
  db: Kysely<Tables>,
  group: string,
  username: string,
  input: CreateFilter,
  profiles: ProfileLookup,
): Promise<FilterOutcome> {
  if (!PLAIN_ID.test(input.id)) return fail('INVALID_INPUT', PLAIN_ID_RULE);
  const name = input.displayName.trim();
  if (!name || name.length > 500) return fail('INVALID_INPUT', 'displayName must have 1 to 500 characters.');
  if ((input.description?.length ?? 0) > MAX_FILTER_DESCRIPTION) return DESCRIPTION_TOO_LONG;
  const profile = profiles(input.profile);
  if (!profile) return fail('NOT_FOUND', `There is no profile ${input.profile}.`);
  const check = validateFilter(input.filter ?? null, profile, profiles);
  if (!check.ok) return fail('INVALID_FILTER', check.message);
  const subs = resolveSubProfiles(profile, profiles, input.subProfiles, 'subProfiles');
  if (!subs.ok) return subs;
  const row = await db
    .insertInto('asset_filters')
    .values({
      user_group: group,
      id: input.id,
      display_name: name,
      description: input.description ?? null,
      profile: input.profile,
      filter: input.filter ? JSON.stringify(input.filter) : null,
      sub_profiles: JSON.stringify(subs.value),
      created_by: username,
      updated_by: username,
    })
    .onConflict((oc) => oc.columns(['user_group', 'id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) return fail('DUPLICATE_ID', `An asset filter ${input.id} already exists.`);
  return ok(row as SelectionFilterRow);
}

export interface UpdateFilter {
  id: string;
  displayName?: string | null;
  description?: string | null;
  filter?: AssetFilterInput | null;
  subProfiles?: SubProfileInput[] | null;
  expectedVersion?: number | null;
}

/** updateAssetFilter: fields given replace the stored ones; a stale expectedVersion is VERSION_CONFLICT. */
export async function updateSelectionFilter(
  db: Kysely<Tables>,
  group: string,
  username: string,
  input: UpdateFilter,
  profiles: ProfileLookup,
): Promise<FilterOutcome> {
  const renamed =
    input.filter === undefined && input.subProfiles === undefined
      ? await rename(db, group, username, input)
      : undefined;
  if (renamed) return renamed;
  return db.transaction().execute(async (trx): Promise<FilterOutcome> => {
    const current = await trx
      .selectFrom('asset_filters')
      .selectAll()
      .where('user_group', '=', group)
      .where('id', '=', input.id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return fail('NOT_FOUND', `There is no asset filter ${input.id}.`);
    if (input.expectedVersion != null && input.expectedVersion !== current.version) {
      return fail(
        'VERSION_CONFLICT',
        `The filter is at version ${current.version}, not ${input.expectedVersion}; reload it.`,
      );
    }
    const profile = profiles(current.profile);
    if (!profile) return fail('NOT_FOUND', `There is no profile ${current.profile}.`);
    const described = nameAndDescription(input);
    if (!described.ok) return described;
    const changes = described.value;
    if (input.filter !== undefined) {
      const check = validateFilter(input.filter, profile, profiles);
      if (!check.ok) return fail('INVALID_FILTER', check.message);
      changes.filter = input.filter ? JSON.stringify(input.filter) : null;
    }
    if (input.subProfiles !== undefined) {
      const subs = resolveSubProfiles(profile, profiles, input.subProfiles ?? [], 'subProfiles');
      if (!subs.ok) return subs;
      changes.sub_profiles = JSON.stringify(subs.value);
    }
    const row = await trx
      .updateTable('asset_filters')
      .set({ ...changes, version: current.version + 1, updated_at: new Date(), updated_by: username })
      .where('user_group', '=', group)
      .where('id', '=', input.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return ok(row as SelectionFilterRow);
  });
}

/**
 * A change of name or description alone, valid, needs nothing of the stored filter (its profile
 * exists while it does: the foreign key cascades), so it is one statement that moves the version
 * only where it is the one expected; which of the two it was not is read only then. Undefined for
 * any other change, or an invalid one, which the transaction above answers as before.
 */
async function rename(
  db: Kysely<Tables>,
  group: string,
  username: string,
  input: UpdateFilter,
): Promise<FilterOutcome | undefined> {
  const described = nameAndDescription(input);
  if (!described.ok) return undefined;
  const expected = input.expectedVersion;
  const row = await db
    .updateTable('asset_filters')
    .set({
      ...described.value,
      version: sql<number>`version + 1`,
      updated_at: new Date(),
      updated_by: username,
    })
    .where('user_group', '=', group)
    .where('id', '=', input.id)
    .$if(expected != null, (q) => q.where('version', '=', expected!))
    .returningAll()
    .executeTakeFirst();
  if (row) return ok(row as SelectionFilterRow);
  // Without an expected version only a missing filter changes nothing (one made since is not the
  // one this asked to change).
  if (expected == null) return fail('NOT_FOUND', `There is no asset filter ${input.id}.`);
  const current = await db
    .selectFrom('asset_filters')
    .select('version')
    .where('user_group', '=', group)
    .where('id', '=', input.id)
    .executeTakeFirst();
  if (!current) return fail('NOT_FOUND', `There is no asset filter ${input.id}.`);
  return fail('VERSION_CONFLICT', `The filter is at version ${current.version}, not ${expected}; reload it.`);
}

/** The columns a new name or description sets, each checked as create checks it. */
function nameAndDescription(input: UpdateFilter): Result<Record<string, unknown>, AssetErrorType> {
  const changes: Record<string, unknown> = {};
  if (input.displayName !== undefined) {
    const name = input.displayName?.trim() ?? '';
    if (!name || name.length > 500)
      return fail('INVALID_INPUT', 'displayName must have 1 to 500 characters.');
    changes.display_name = name;
  }
  if ((input.description?.length ?? 0) > MAX_FILTER_DESCRIPTION) return DESCRIPTION_TOO_LONG;
  if (input.description !== undefined) changes.description = input.description;
  return ok(changes);
}

export async function selectionFiltersOf(
  db: Kysely<Tables>,
  group: string,
  ids?: readonly string[],
): Promise<SelectionFilterRow[]> {
  let q = db.selectFrom('asset_filters').selectAll().where('user_group', '=', group);
  if (ids) {
    if (ids.length === 0) return [];
    q = q.where('id', 'in', ids);
  }
  return (await q.orderBy('id').execute()) as SelectionFilterRow[];
}
