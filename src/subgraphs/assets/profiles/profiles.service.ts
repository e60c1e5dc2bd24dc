import { type Kysely, sql, type Transaction } from 'kysely';
import { fail, ok, type Result } from '../../../shared/result.ts';
import type { Tables } from '../../../storage/tables.ts';
import { profilesWithExtensions } from '../assets.repository.ts';
import type { AssetErrorType } from '../error-codes.ts';
import { kyselyExec } from '../exec.ts';
import { refreshLookups } from '../lookup.ts';
import { followProfileChange, refreshDerived } from '../write/profile-change.ts';
import { DatasetWriteError } from '../write/types.ts';
import {
  type EffectiveProfile,
  type ExtensionDocument,
  effectiveProfile,
  type ProfileDocument,
} from './definition.ts';
import { upsertProfile } from './store.ts';
import { extensionOf, type ProfileProblem, validateEffective } from './validate.ts';

type Db = Kysely<Tables> | Transaction<Tables>;

/** A profile as `assetql profiles apply` reads it: the document plus its id and title. */
export interface ProfileInput extends ProfileDocument {
  profile: string;
  title: string;
}

/** The profiles a change applied, or why nothing changed. */
export type ProfileOutcome = Result<string[], AssetErrorType>;

/**
 * A change of one profile: the profile as the change left it, with the version the change gave
 * it (what the next write's `ifVersion` takes), or why nothing changed. Its lookup names are
 * those read before the change (names only grow; filters read them from a fresh load).
 */
export type ProfileWrite = Result<EffectiveProfile, AssetErrorType>;

const DOCUMENT_KEYS = [
  'displayNameProperty',
  'displayNameTemplate',
  'secondaryDisplayNameProperty',
  'isDeletedProperty',
  'forceAssetStateUpdates',
  'properties',
  'relationships',
  'propertyMaps',
  'upDatasets',
  'stateUpdateDatasets',
  'viewConfigurations',
  'assetConversionConfigurations',
] as const;

function documentOf(input: ProfileInput | ProfileDocument): ProfileDocument {
  const source = input as unknown as Record<string, unknown>;
  const doc: Record<string, unknown> = {};
  for (const k of DOCUMENT_KEYS) if (source[k] !== undefined) doc[k] = source[k];
  return doc as unknown as ProfileDocument;
}

async function loadAll(db: Db, group: string): Promise<Map<string, EffectiveProfile>> {
  const names = await db
    .selectFrom('asset_profiles')
    .select('profile')
    .where('user_group', '=', group)
    .execute();
  const rows = await profilesWithExtensions(
    db as Kysely<Tables>,
    group,
    names.map((n) => n.profile),
  );
  return new Map(rows.map((r) => [r.profile, effectiveProfile(r, r.extensions)]));
}

/**
 * Creates or replaces profiles as one change: every profile is validated against the others
 * (old and new), and either all land or none. Assets' display names, deleted flags and lookup
 * keys follow.
 */
export async function applyProfiles(
  db: Kysely<Tables>,
  group: string,
  owner: string,
  inputs: ProfileInput[],
): Promise<ProfileOutcome> {
  return refusingBadMerges(async () =>
    db.transaction().execute(async (trx) => {
      const existing = await loadAll(trx, group);
      const next = new Map(existing);
      for (const input of inputs) {
        const old = existing.get(input.profile);
        next.set(
          input.profile,
          effectiveProfile(
            {
              user_group: group,
              profile: input.profile,
              title: input.title,
              owner_username: old?.ownerUsername ?? owner,
              definition: documentOf(input) as unknown as Record<string, unknown>,
            },
            old ? old.extensions.map((e) => ({ extension: e, definition: extensionDefinition(old, e) })) : [],
          ),
        );
      }
      const problem = validateSet(
        next,
        inputs.map((i) => i.profile),
      );
      if (problem) return problem;
      for (const input of inputs) {
        await upsertProfile(trx, group, owner, {
          profile: input.profile,
          title: input.title,
          document: documentOf(input),
        });
        await followProfileChange(
          kyselyExec(trx),
          group,
          existing.get(input.profile),
          next.get(input.profile)!,
        );
        await refreshDerived(trx, next.get(input.profile)!);
      }
      await refreshLookups(kyselyExec(trx), group);
      return ok(inputs.map((i) => i.profile));
    }),
  );
}

/**
 * A profile change that would leave merged assets without a required property (a removed
 * dataset was their only source) is refused like any other invalid change.
 */
async function refusingBadMerges<T>(
  change: () => Promise<Result<T, AssetErrorType>>,
): Promise<Result<T, AssetErrorType>> {
  try {
    return await change();
  } catch (e) {
    if (!(e instanceof DatasetWriteError)) throw e;
    return fail('INVALID_DATASET', `The change would break merged assets: ${e.message}.`);
  }
}

/** Re-checks the changed profiles and every profile whose relationships point at them. */
function validateSet(all: Map<string, EffectiveProfile>, changed: string[]): ProfileProblem | null {
  const touched = new Set(changed);
  for (const p of all.values())
    if (p.relationships.some((r) => touched.has(r.profile))) touched.add(p.profile);
  for (const name of touched) {
    const p = all.get(name);
    if (!p) continue;
    const problem = validateEffective(p, (n) => all.get(n) ?? null);
    if (problem) return problem;
  }
  return null;
}

function extensionDefinition(p: EffectiveProfile, extension: string): Record<string, unknown> {
  const pick = <T extends { extension: string | null }>(list: T[]) =>
    list.filter((x) => x.extension === extension).map(({ extension: _e, ...rest }) => rest);
  return {
    properties: pick(p.properties),
    relationships: pick(p.relationships),
    propertyMaps: pick(p.propertyMaps),
  };
}

export interface ProfileUpdate {
  profile: string;
  title?: string | null;
  displayNameProperty?: string | null;
  displayNameTemplate?: string | null;
  secondaryDisplayNameProperty?: string | null;
  isDeletedProperty?: string | null;
  forceAssetStateUpdates?: boolean | null;
  /** Only if the profile is at this version. */
  ifVersion?: number | null;
}

/**
 * `updateAssetProfile`: fields given replace the stored ones; null clears a nullable one. The
 * profile row is locked before anything is read, so that the version checked, the document
 * changed and the version answered are one and the same, whatever writes at the same time.
 */
export async function updateProfile(
  db: Kysely<Tables>,
  group: string,
  u: ProfileUpdate,
): Promise<ProfileWrite> {
  return db.transaction().execute(async (trx) => {
    const version = await lockProfile(trx, group, u.profile);
    if (version === null) return fail('NOT_FOUND', `There is no profile ${u.profile}.`);
    if (u.ifVersion != null && version !== u.ifVersion)
      return fail('VERSION_CONFLICT', `The profile is at version ${version}, not ${u.ifVersion}; reload it.`);
    const all = await loadAll(trx, group);
    const p = all.get(u.profile);
    if (!p) return fail('NOT_FOUND', `There is no profile ${u.profile}.`);
    if (u.title === null || u.displayNameProperty === null)
      return fail('INVALID_INPUT', 'title and displayNameProperty cannot be cleared.');
    const document: ProfileDocument = { ...p.document };
    for (const k of [
      'displayNameProperty',
      'displayNameTemplate',
      'secondaryDisplayNameProperty',
      'isDeletedProperty',
      'forceAssetStateUpdates',
    ] as const) {
      if (u[k] !== undefined) (document as unknown as Record<string, unknown>)[k] = u[k];
    }
    const updated: EffectiveProfile = { ...p, title: u.title ?? p.title, document };
    all.set(u.profile, updated);
    const problem = validateEffective(updated, (n) => all.get(n) ?? null);
    if (problem) return problem;
    const written = await trx
      .updateTable('asset_profiles')
      .set({
        title: updated.title,
        definition: JSON.stringify(document),
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('user_group', '=', group)
      .where('profile', '=', u.profile)
      .returning('version')
      .executeTakeFirstOrThrow();
    await refreshDerived(trx, updated);
    return ok({ ...updated, version: written.version });
  });
}

/**
 * Locks profile `profile` for the rest of the transaction (a writer of it or of its extensions
 * waits for the others) and answers its version; null when there is no such profile. The lock
 * is the one its update takes anyway (`for no key update`): asset writers, which hold the row
 * `for share` while they write the profile's assets, are waited for as before, and writes of
 * rows whose foreign key references it (views, filters, extensions) are not held up.
 */
async function lockProfile(trx: Db, group: string, profile: string): Promise<number | null> {
  const row = await trx
    .selectFrom('asset_profiles')
    .select('version')
    .where('user_group', '=', group)
    .where('profile', '=', profile)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row?.version ?? null;
}

/** Adds or replaces a named layer of definitions; the result must still validate. */
export async function putExtension(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  extension: string,
  input: ExtensionDocument,
): Promise<ProfileWrite> {
  if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(extension)) {
    return fail('INVALID_INPUT', `Extension name ${extension} is not valid.`);
  }
  return refusingBadMerges(() =>
    db.transaction().execute(async (trx): Promise<ProfileWrite> => {
      if ((await lockProfile(trx, group, profile)) === null)
        return fail('NOT_FOUND', `There is no profile ${profile}.`);
      const all = await loadAll(trx, group);
      const p = all.get(profile);
      if (!p) return fail('NOT_FOUND', `There is no profile ${profile}.`);
      const ext = extensionOf(input);
      const next = withExtensions(p, extension, ext);
      all.set(profile, next);
      const problem = validateSet(all, [profile]);
      if (problem) return problem;
      await trx
        .insertInto('asset_profile_extensions')
        .values({ user_group: group, profile, extension, definition: JSON.stringify(ext) })
        .onConflict((oc) =>
          oc
            .columns(['user_group', 'profile', 'extension'])
            .doUpdateSet((eb) => ({ definition: eb.ref('excluded.definition'), updated_at: sql`now()` })),
        )
        .execute();
      const version = await touch(trx, group, profile);
      await followProfileChange(kyselyExec(trx), group, p, next);
      await refreshDerived(trx, next);
      await refreshLookups(kyselyExec(trx), group);
      return ok({ ...next, version });
    }),
  );
}

export async function removeExtension(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  extension: string,
): Promise<ProfileWrite> {
  return refusingBadMerges(() =>
    db.transaction().execute(async (trx): Promise<ProfileWrite> => {
      if ((await lockProfile(trx, group, profile)) === null)
        return fail('NOT_FOUND', `There is no profile ${profile}.`);
      const all = await loadAll(trx, group);
      const p = all.get(profile);
      if (!p) return fail('NOT_FOUND', `There is no profile ${profile}.`);
      if (!p.extensions.includes(extension))
        return fail('NOT_FOUND', `Profile ${profile} has no extension ${extension}.`);
      const next = withExtensions(p, extension, null);
      all.set(profile, next);
      // Removing definitions may break this profile's display settings or another's relationship.
      const problem = validateSet(all, [profile]);
      if (problem) return problem;
      await trx
        .deleteFrom('asset_profile_extensions')
        .where('user_group', '=', group)
        .where('profile', '=', profile)
        .where('extension', '=', extension)
        .execute();
      const version = await touch(trx, group, profile);
      await followProfileChange(kyselyExec(trx), group, p, next);
      await refreshDerived(trx, next);
      // No refreshLookups: lookup names only grow, and removing definitions adds none.
      return ok({ ...next, version });
    }),
  );
}

/**
 * The profile with extension `name` replaced by `layer` (added when new), or removed when
 * `layer` is null; the other layers stay as they are.
 */
function withExtensions(
  p: EffectiveProfile,
  name: string,
  layer: ExtensionDocument | null,
): EffectiveProfile {
  const layers = p.extensions
    .filter((e) => e !== name)
    .map((e) => ({ extension: e, definition: extensionDefinition(p, e) }));
  if (layer) layers.push({ extension: name, definition: layer as unknown as Record<string, unknown> });
  return effectiveProfile(
    {
      user_group: p.userGroup,
      profile: p.profile,
      title: p.title,
      owner_username: p.ownerUsername,
      definition: p.document as unknown as Record<string, unknown>,
      lookup_names: p.lookupNames,
      version: p.version,
    },
    layers,
  );
}

/** Counts a change of the profile's extensions as a write of the profile; its new version. */
async function touch(trx: Db, group: string, profile: string): Promise<number> {
  const { version } = await trx
    .updateTable('asset_profiles')
    .set({ version: sql`version + 1`, updated_at: sql`now()` })
    .where('user_group', '=', group)
    .where('profile', '=', profile)
    .returning('version')
    .executeTakeFirstOrThrow();
  return version;
}

/** The stored document of a profile, as `profiles apply` takes it (without extensions). */
export async function getProfileDocument(db: Kysely<Tables>, group: string, profile: string) {
  const row = await db
    .selectFrom('asset_profiles')
    .select(['profile', 'title', 'definition', 'version'])
    .where('user_group', '=', group)
    .where('profile', '=', profile)
    .executeTakeFirst();
  if (!row) return null;
  const extensions = await db
    .selectFrom('asset_profile_extensions')
    .select(['extension', 'definition'])
    .where('user_group', '=', group)
    .where('profile', '=', profile)
    .orderBy('extension')
    .execute();
  return { profile: row.profile, title: row.title, ...row.definition, version: row.version, extensions };
}
