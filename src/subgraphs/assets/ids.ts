import { fail, ok, type Result } from '../../shared/result.ts';
import type { ProfileLookup } from './filters/types.ts';
import type { EffectiveProfile } from './profiles/definition.ts';

/** Ids users choose for saved objects (filters, views, conversions): plain, at most 128. */
export const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const PLAIN_ID_RULE = 'id must be 1 to 128 letters, digits, ".", "_" or "-".';

/** What every saved object's create-update-or-delete input names: where it is kept, and how. */
export interface SavedObjectInput {
  profile: string;
  id: string;
  name?: string | null;
  delete?: boolean | null;
}

/**
 * The profile a saved object (view, conversion) is kept under: NOT_FOUND when the group has no
 * such profile, INVALID_INPUT when the object's id is not plain.
 */
export function savedObjectProfile(
  profiles: ProfileLookup,
  input: { profile: string; id: string },
): Result<EffectiveProfile, 'NOT_FOUND' | 'INVALID_INPUT'> {
  const profile = profiles(input.profile);
  if (!profile) return fail('NOT_FOUND', `There is no profile ${input.profile}.`);
  if (!PLAIN_ID.test(input.id)) return fail('INVALID_INPUT', PLAIN_ID_RULE);
  return ok(profile);
}
