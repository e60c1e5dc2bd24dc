import { describe, expect, it } from 'vitest';
import { actorText, changedKeys, changeSummary, keyLabel, memberText } from './changes.ts';
import type { PropertyDefinition } from './format.ts';
import type { ChangeEvent } from './live.ts';

const definitions: PropertyDefinition[] = [
  { name: 'status', title: 'Status', type: 'ENUM', unit: null },
  { name: 'depth', title: 'Total depth', type: 'NUMBER', unit: 'm' },
];

describe('a change in words', () => {
  it('lists the members changed, the asset’s own first, then property by property', () => {
    expect(
      changedKeys(
        { properties: { status: 'drilling', depth: 2000 } },
        { properties: { status: 'producing', depth: 2100, region: 'Alberta' }, isDeleted: true },
      ),
    ).toEqual([
      { path: ['isDeleted'], before: undefined, after: true },
      { path: ['properties', 'depth'], before: 2000, after: 2100 },
      { path: ['properties', 'region'], before: undefined, after: 'Alberta' },
      { path: ['properties', 'status'], before: 'drilling', after: 'producing' },
    ]);
    // A creation has no before, a hard deletion no after.
    expect(changedKeys(null, { geometry: { type: 'Point', coordinates: [1, 2] } })).toEqual([
      { path: ['geometry'], before: undefined, after: { type: 'Point', coordinates: [1, 2] } },
    ]);
    expect(changedKeys({ isDeleted: false }, null)).toEqual([
      { path: ['isDeleted'], before: false, after: undefined },
    ]);
  });

  it('names members by the property’s title and shows values with their units', () => {
    expect(keyLabel(['properties', 'depth'], definitions)).toBe('Total depth');
    expect(keyLabel(['properties', 'other'], definitions)).toBe('other');
    expect(keyLabel(['isDeleted'], definitions)).toBe('Deleted');
    expect(memberText(['properties', 'depth'], 2100.5, definitions, 'en')).toBe('2,100.5 m');
    expect(memberText(['isDeleted'], true, definitions, 'en')).toBe('Yes');
    expect(memberText(['geometry'], { type: 'Point', coordinates: [-113.890371, 52.171169] }, [], 'en')).toBe(
      'Point 52.17117, -113.89037',
    );
    expect(memberText(['geometry'], { type: 'Polygon', coordinates: [] }, [], 'en')).toBe('Polygon');
    expect(memberText(['properties', 'status'], undefined, definitions)).toBe('—');
  });

  it('says who made it and what, in one sentence', () => {
    expect(actorText({ kind: 'USER', name: 'demo' })).toBe('demo');
    expect(actorText({ kind: 'API_KEY', name: 'ops' })).toBe('ops (API key)');
    expect(actorText({ kind: 'SYSTEM', name: 'assetql import' })).toBe('assetql import (assetql)');
    expect(actorText(null)).toBe('outside assetql');
    const change: ChangeEvent = {
      cursor: 'c',
      kind: 'UPDATED',
      entityId: 'W-1',
      version: 3,
      at: '2026-11-29T07:00:00Z',
      actor: { kind: 'USER', name: 'demo' },
      before: { properties: { status: 'drilling', depth: 1 } },
      after: { properties: { status: 'producing', depth: 2 } },
    };
    expect(changeSummary(change, definitions)).toBe('Updated by demo: Total depth, Status.');
    expect(changeSummary({ ...change, kind: 'DELETED' }, definitions)).toBe('Deleted by demo.');
  });
});
