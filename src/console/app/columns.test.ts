import { describe, expect, it } from 'vitest';
import { defaultColumns, loadColumns, type Preferences, saveColumns } from './columns.ts';
import { columnLabel, countText, EMPTY, formatValue, type PropertyDefinition, pageText } from './format.ts';

const prop = (name: string, type = 'STRING', unit: string | null = null): PropertyDefinition => ({
  name,
  title: name.toUpperCase(),
  type,
  unit,
});
const WELL = [prop('name'), prop('uwi'), prop('status'), prop('facilityId'), prop('depth', 'NUMBER', 'm')];
const DISPLAY = { displayNameProperty: 'name', secondaryDisplayNameProperty: 'uwi' };

function memory(): Preferences & { kept: Map<string, string> } {
  const kept = new Map<string, string>();
  return { kept, read: (k) => kept.get(k) ?? null, write: (k, v) => void kept.set(k, v) };
}

describe('the columns of the assets table', () => {
  it('shows the first three properties that are not the display name or its second line', () => {
    expect(defaultColumns(WELL, DISPLAY)).toEqual(['status', 'facilityId', 'depth']);
  });

  it("keeps the reader's choice per group and profile, of the properties the profile still has", () => {
    const prefs = memory();
    expect(loadColumns(prefs, 'demo', 'well', WELL, DISPLAY)).toEqual(['status', 'facilityId', 'depth']);
    saveColumns(prefs, 'demo', 'well', ['depth', 'gone', 'name']);
    expect(loadColumns(prefs, 'demo', 'well', WELL, DISPLAY)).toEqual(['name', 'depth']);
    expect(loadColumns(prefs, 'east', 'well', WELL, DISPLAY)).toEqual(['status', 'facilityId', 'depth']);
    saveColumns(prefs, 'demo', 'well', []);
    expect(loadColumns(prefs, 'demo', 'well', WELL, DISPLAY)).toEqual([]);
    prefs.kept.set('assetql.console.v1.columns.demo.well', '{not json');
    expect(loadColumns(prefs, 'demo', 'well', WELL, DISPLAY)).toEqual(['status', 'facilityId', 'depth']);
  });
});

describe('values and counts as the console shows them', () => {
  it('writes values by their type, numbers with their unit', () => {
    expect(formatValue(2252.5, prop('depth', 'NUMBER', 'm'), 'en')).toBe('2,252.5 m');
    expect(formatValue(3, prop('n', 'INTEGER'), 'en')).toBe('3');
    expect(formatValue(true)).toBe('Yes');
    expect(formatValue(false)).toBe('No');
    expect(formatValue('producing')).toBe('producing');
    expect(formatValue({ a: [1] })).toBe('{"a":[1]}');
    for (const empty of [null, undefined, '']) expect(formatValue(empty)).toBe(EMPTY);
    expect(columnLabel(prop('depth', 'NUMBER', 'm'))).toBe('DEPTH (m)');
    expect(columnLabel({ name: 'x', title: null, type: 'STRING', unit: null })).toBe('x');
  });

  it('counts as the API does: exactly up to 10,000', () => {
    expect(countText(1, true, 'en')).toBe('1 asset');
    expect(countText(24, true, 'en')).toBe('24 assets');
    expect(countText(10_000, false, 'en')).toBe('More than 10,000 assets');
    expect(pageText(10, 10, 24, true, 'en')).toBe('Showing 11–20 of 24 assets');
    expect(pageText(0, 100, 10_000, false, 'en')).toBe('Showing 1–100 of more than 10,000 assets');
    expect(pageText(0, 0, 0, true, 'en')).toBe('No assets match.');
  });
});
