import type { RelationshipDefinition } from '../subgraphs/assets/profiles/definition.ts';

/**
 * The two relationship shapes the demo profiles use, in the words of docs/assets.md: an asset
 * that names its parent's id in one of its properties (`ONE`), and the parent that lists the
 * assets naming it (`MANY`).
 */
export const refersTo = (
  relationship: string,
  profile: string,
  referenceProperty: string,
): RelationshipDefinition => ({
  relationship,
  type: 'ONE',
  profile,
  referenceProperty,
  referenceType: 'PROPERTY',
  lookupType: 'ID',
});

export const listedBy = (
  relationship: string,
  profile: string,
  lookupProperty: string,
): RelationshipDefinition => ({
  relationship,
  type: 'MANY',
  profile,
  referenceType: 'ID',
  lookupProperty,
  lookupType: 'PROPERTY',
});
