import { describe, expect, it } from 'vitest';
import { incoming, MAX_INCOMING, mirrors, outgoing, type RelationshipDefinition } from './relations.ts';

const refersTo = (relationship: string, profile: string, property: string): RelationshipDefinition => ({
  relationship,
  type: 'ONE',
  profile,
  title: null,
  referenceType: 'PROPERTY',
  referenceProperty: property,
  lookupType: 'ID',
  lookupProperty: null,
});
const listedBy = (relationship: string, profile: string, property: string): RelationshipDefinition => ({
  relationship,
  type: 'MANY',
  profile,
  title: null,
  referenceType: 'ID',
  referenceProperty: null,
  lookupType: 'PROPERTY',
  lookupProperty: property,
});

describe('relationships both ways', () => {
  it('knows a relationship turned round', () => {
    expect(
      mirrors(refersTo('facility', 'facility', 'facilityId'), listedBy('wells', 'well', 'facilityId')),
    ).toBe(true);
    expect(
      mirrors(listedBy('wells', 'well', 'facilityId'), refersTo('facility', 'facility', 'facilityId')),
    ).toBe(true);
    expect(mirrors(refersTo('facility', 'facility', 'facilityId'), listedBy('wells', 'well', 'siteId'))).toBe(
      false,
    );
  });

  it('lists what leads to a profile, less what mirrors its own, and no parameterised one', () => {
    const profiles = [
      { profile: 'well', title: 'Well', relationships: [refersTo('facility', 'facility', 'facilityId')] },
      {
        profile: 'facility',
        title: 'Facility',
        relationships: [
          listedBy('wells', 'well', 'facilityId'),
          listedBy('inspected', 'well', 'inspectedAt'),
        ],
      },
      { profile: 'pump', title: 'Pump', relationships: [refersTo('well', 'well', 'wellId')] },
      {
        profile: 'report',
        title: 'Report',
        relationships: [{ ...refersTo('byUwi', 'well', 'uwi'), referenceType: 'PARAMETER' }],
      },
    ];
    expect(incoming('well', profiles)).toEqual([
      { from: { profile: 'facility', title: 'Facility' }, relationship: profiles[1]!.relationships[1] },
      { from: { profile: 'pump', title: 'Pump' }, relationship: profiles[2]!.relationships[0] },
    ]);
    expect(outgoing(profiles[3]!.relationships)).toEqual([]);
    expect(outgoing(null)).toEqual([]);
    const many = Array.from({ length: 20 }, (_, i) => ({
      profile: `p${i}`,
      title: `P${i}`,
      relationships: [refersTo('well', 'well', 'wellId')],
    }));
    expect(incoming('well', many)).toHaveLength(MAX_INCOMING);
  });
});
