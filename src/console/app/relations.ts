// An asset's relationships both ways: those of its own profile (the assets it leads to), and
// those of other profiles that lead to its profile (the assets that lead to it), less the ones
// that only mirror one of its own (the wells of a facility, when the well names its facility).

/** A relationship as the console asks for it (`AssetProfileRelationship`). */
export interface RelationshipDefinition {
  relationship: string;
  type: 'ONE' | 'MANY';
  profile: string;
  title: string | null;
  referenceType: string;
  referenceProperty: string | null;
  lookupType: string;
  lookupProperty: string | null;
}

export interface ProfileRelationships {
  profile: string;
  title: string;
  relationships: RelationshipDefinition[] | null;
}

/** A relationship of another profile that leads to this one. */
export interface Incoming {
  from: { profile: string; title: string };
  relationship: RelationshipDefinition;
}

/** Whether `b` (of the profile `a` leads to) matches the same pairs of assets as `a`, turned round. */
export function mirrors(a: RelationshipDefinition, b: RelationshipDefinition): boolean {
  return (
    a.referenceType === b.lookupType &&
    (a.referenceProperty ?? null) === (b.lookupProperty ?? null) &&
    a.lookupType === b.referenceType &&
    (a.lookupProperty ?? null) === (b.referenceProperty ?? null)
  );
}

/** The relationships an asset can follow without parameters (a PARAMETER one needs values it has not). */
export function outgoing(relationships: readonly RelationshipDefinition[] | null): RelationshipDefinition[] {
  return (relationships ?? []).filter((r) => r.referenceType !== 'PARAMETER');
}

/** At most this many "leads here" lists a page: each is a listing the API counts, ten a request. */
export const MAX_INCOMING = 8;

/** The relationships of the group's profiles that lead to `profile` and mirror none of its own. */
export function incoming(profile: string, profiles: readonly ProfileRelationships[]): Incoming[] {
  const own = outgoing(profiles.find((p) => p.profile === profile)?.relationships ?? null);
  const out: Incoming[] = [];
  for (const p of profiles) {
    for (const r of outgoing(p.relationships)) {
      if (r.profile !== profile) continue;
      const mirrored = own.some((o) => o.profile === p.profile && mirrors(o, r));
      if (!mirrored) out.push({ from: { profile: p.profile, title: p.title }, relationship: r });
    }
  }
  return out.slice(0, MAX_INCOMING);
}

/** A relationship's name for a reader: its title, else its name. */
export function relationshipLabel(r: RelationshipDefinition): string {
  return r.title || r.relationship;
}
