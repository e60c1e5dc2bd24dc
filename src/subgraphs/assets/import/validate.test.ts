import { describe, expect, it } from 'vitest';
import { type EffectiveProfile, effectiveProfile, type ProfileDocument } from '../profiles/definition.ts';
import { type IncomingAsset, prepareProfile, validateAsset } from './validate.ts';

const document: ProfileDocument = {
  displayNameProperty: 'name',
  isDeletedProperty: 'gone',
  properties: [
    { name: 'name', type: 'STRING', required: true },
    { name: 'count', type: 'INTEGER' },
    { name: 'depth', type: 'NUMBER' },
    { name: 'gone', type: 'BOOLEAN', default: false },
    { name: 'spud', type: 'DATE' },
    { name: 'seen', type: 'DATE_TIME' },
    { name: 'status', type: 'ENUM', enumValues: ['on', 'off'] },
    { name: 'extra', type: 'JSON' },
    { name: 'kind', type: 'STRING', required: true, default: 'well' },
  ],
};

const profile: EffectiveProfile = effectiveProfile(
  { user_group: 'g', profile: 'well', title: 'Well', owner_username: 'o', definition: { ...document } },
  [
    {
      extension: 'ext',
      definition: { properties: [{ name: 'note', type: 'STRING' }] },
    },
  ],
);

const csv = (properties: Record<string, string>, rest: Partial<IncomingAsset> = {}) =>
  validateAsset(
    profile,
    { id: 'A-1', properties: { name: 'Alpha', ...properties }, ...rest },
    { source: 'text' },
  );
const json = (properties: Record<string, unknown>, rest: Partial<IncomingAsset> = {}) =>
  validateAsset(profile, { id: 'A-1', properties: { name: 'Alpha', ...properties }, ...rest });

function value(r: ReturnType<typeof validateAsset>, name: string) {
  if (!r.ok) throw new Error(r.message);
  return r.value.properties[name];
}
function errors(r: ReturnType<typeof validateAsset>) {
  if (r.ok) throw new Error('expected errors');
  return r.details ?? [r.message];
}

describe('validateAsset', () => {
  it('returns a row ready for the table', () => {
    const r = csv(
      { depth: '12.5', note: 'from the extension' },
      { geometry: '{"type":"Point","coordinates":[1,2]}' },
    );
    expect(r).toEqual({
      ok: true,
      value: {
        id: 'A-1',
        properties: { name: 'Alpha', depth: 12.5, note: 'from the extension' },
        geometry: { type: 'Point', coordinates: [1, 2] },
        display_name: 'Alpha',
        is_deleted: false,
      },
    });
  });

  it('accepts a prepared profile', () => {
    expect(validateAsset(prepareProfile(profile), { id: 'x', properties: { name: 'n' } }).ok).toBe(true);
  });

  describe('id', () => {
    it.each([
      [undefined, 'id: missing'],
      ['', 'id: missing'],
      ['   ', 'id: missing'],
      [42, 'id: missing'],
      ['x'.repeat(257), 'id: longer than 256 characters'],
      ['a\0b', 'id: contains a NUL character'],
    ])('refuses %j', (id, message) => {
      expect(errors(validateAsset(profile, { id, properties: { name: 'n' } }))).toContain(message);
    });
    it('takes 256 characters', () => {
      expect(validateAsset(profile, { id: 'x'.repeat(256), properties: { name: 'n' } }).ok).toBe(true);
    });
  });

  describe('NUMBER', () => {
    it.each([
      ['12', 12],
      ['-1.5', -1.5],
      ['+3', 3],
      ['.5', 0.5],
      ['1e3', 1000],
      [' 7 ', 7],
    ])('parses %j', (s, n) => expect(value(csv({ depth: s }), 'depth')).toBe(n));
    it.each(['abc', '0x10', '1,000', 'Infinity', 'NaN', '1e999', '12m', '--1'])('refuses %j', (s) => {
      expect(errors(csv({ depth: s }))[0]).toMatch(/^depth: .* is (not a number|out of range)$/);
    });
    it('takes JSON numbers and refuses other JSON types', () => {
      expect(value(json({ depth: 3.25 }), 'depth')).toBe(3.25);
      expect(errors(json({ depth: true }))).toEqual(['depth: true is not a number']);
    });
  });

  describe('INTEGER', () => {
    it('parses strictly', () => {
      expect(value(csv({ count: '-42' }), 'count')).toBe(-42);
      expect(value(json({ count: 7 }), 'count')).toBe(7);
      expect(errors(csv({ count: '4.0' }))).toEqual(['count: "4.0" is not an integer']);
      expect(errors(csv({ count: '4e2' }))).toEqual(['count: "4e2" is not an integer']);
      expect(errors(json({ count: 1.5 }))).toEqual(['count: 1.5 is not an integer']);
      expect(errors(csv({ count: '9007199254740993' }))).toEqual([
        'count: "9007199254740993" is out of range',
      ]);
    });
  });

  describe('BOOLEAN', () => {
    it.each([
      ['true', true],
      ['TRUE', true],
      ['1', true],
      ['yes', true],
      ['false', false],
      ['0', false],
      ['No', false],
    ])('parses %j', (s, b) => expect(value(csv({ gone: s }), 'gone')).toBe(b));
    it('refuses others', () => {
      expect(errors(csv({ gone: 'maybe' }))).toEqual([
        'gone: "maybe" is not a boolean (true/false, 1/0, yes/no)',
      ]);
      expect(errors(json({ gone: 2 }))[0]).toMatch(/^gone: 2 is not a boolean/);
    });
    it('takes JSON booleans', () => expect(value(json({ gone: true }), 'gone')).toBe(true));
  });

  describe('DATE', () => {
    it('takes YYYY-MM-DD', () => {
      expect(value(csv({ spud: '2024-02-29' }), 'spud')).toBe('2024-02-29');
    });
    it.each(['2023-02-29', '2024-13-01', '2024-00-10', '2024-1-5', '05/01/2024', '2024-01-01T00:00:00Z'])(
      'refuses %j',
      (s) =>
        expect(errors(csv({ spud: s }))).toEqual([`spud: ${JSON.stringify(s)} is not a date (YYYY-MM-DD)`]),
    );
  });

  describe('DATE_TIME', () => {
    it.each(['2024-05-01T10:20:30Z', '2024-05-01T10:20:30.123+02:00', '2024-05-01T10:20-0700'])(
      'takes %j',
      (s) => expect(value(csv({ seen: s }), 'seen')).toBe(s),
    );
    it.each(['2024-05-01T10:20:30', '2024-05-01 10:20:30Z', '2024-05-01', '2024-05-01T25:00:00Z', 'now'])(
      'refuses %j (no offset, or not ISO 8601)',
      (s) =>
        expect(errors(csv({ seen: s }))).toEqual([
          `seen: ${JSON.stringify(s)} is not an ISO 8601 date-time with an offset`,
        ]),
    );
  });

  describe('ENUM', () => {
    it('takes a listed value and refuses others', () => {
      expect(value(csv({ status: 'on' }), 'status')).toBe('on');
      expect(errors(csv({ status: 'ON' }))).toEqual(['status: "ON" is not one of on, off']);
    });
  });

  describe('JSON', () => {
    it('parses CSV text and keeps JSON values', () => {
      expect(value(csv({ extra: '{"a":[1,2]}' }), 'extra')).toEqual({ a: [1, 2] });
      expect(value(csv({ extra: '"text"' }), 'extra')).toBe('text');
      expect(value(json({ extra: { b: true } }), 'extra')).toEqual({ b: true });
      expect(value(json({ extra: '{"kept":"as a string"}' }), 'extra')).toBe('{"kept":"as a string"}');
      expect(errors(csv({ extra: '{oops' }))).toEqual(['extra: not valid JSON']);
    });
  });

  describe('STRING', () => {
    it('keeps text as is', () => {
      expect(value(csv({ note: '  spaced  ' }), 'note')).toBe('  spaced  ');
      expect(value(json({ note: 12 }), 'note')).toBe('12');
      expect(errors(json({ note: { a: 1 } }))).toEqual(['note: expected a string']);
    });
  });

  it('treats an empty CSV cell (and JSON null) as absent', () => {
    const r = csv({ depth: '', note: '', status: '' });
    expect(r.ok && r.value.properties).toEqual({ name: 'Alpha' });
    const j = json({ depth: null, note: '' });
    expect(j.ok && j.value.properties).toEqual({ name: 'Alpha', note: '' });
  });

  it('names unknown properties', () => {
    expect(errors(csv({ colour: 'red', size: '3' }))).toEqual(['unknown properties: colour, size']);
    expect(errors(csv({ colour: 'red' }))).toEqual(['unknown property: colour']);
    // An empty unknown cell is absent, not an error.
    expect(csv({ colour: '' }).ok).toBe(true);
  });

  it('requires required properties unless a default supplies them', () => {
    const r = validateAsset(profile, { id: 'x', properties: {} }, { source: 'text' });
    expect(errors(r)).toEqual(['name: required']);
  });

  it('reports every problem of a row at once', () => {
    expect(
      errors(
        validateAsset(profile, {
          id: '',
          properties: { depth: 'x', colour: 'red' },
          errors: ['from the reader'],
        }),
      ),
    ).toEqual([
      'from the reader',
      'id: missing',
      'depth: "x" is not a number',
      'unknown property: colour',
      'name: required',
    ]);
  });

  it('computes the display name with the template, and the id when it is empty', () => {
    const templated = effectiveProfile(
      {
        user_group: 'g',
        profile: 'f',
        title: 'F',
        owner_username: 'o',
        definition: {
          displayNameProperty: 'name',
          displayNameTemplate: '{name} ({kind|"facility"})',
          properties: [
            { name: 'name', type: 'STRING' },
            { name: 'kind', type: 'STRING' },
          ],
        },
      },
      [],
    );
    const a = validateAsset(templated, { id: 'F-1', properties: { name: 'Plant', kind: 'gas' } });
    expect(a.ok && a.value.display_name).toBe('Plant (gas)');
    const b = validateAsset(templated, { id: 'F-2', properties: { name: 'Plant' } });
    expect(b.ok && b.value.display_name).toBe('Plant (facility)');
    const c = validateAsset(profile, { id: 'W-9', properties: { name: '  ' } });
    expect(c.ok && c.value.display_name).toBe('W-9');
  });

  it('sets is_deleted from the isDeletedProperty, defaults included', () => {
    const gone = csv({ gone: 'yes' });
    expect(gone.ok && gone.value.is_deleted).toBe(true);
    const kept = csv({});
    expect(kept.ok && kept.value.is_deleted).toBe(false);
    expect(kept.ok && kept.value.properties).toEqual({ name: 'Alpha' }); // defaults are not stored
    const withDefaultTrue = effectiveProfile(
      {
        user_group: 'g',
        profile: 'p',
        title: 'P',
        owner_username: 'o',
        definition: {
          displayNameProperty: 'name',
          isDeletedProperty: 'retired',
          properties: [{ name: 'retired', type: 'BOOLEAN', default: true }],
        },
      },
      [],
    );
    const r = validateAsset(withDefaultTrue, { id: 'x', properties: {} });
    expect(r.ok && r.value.is_deleted).toBe(true);
  });

  describe('geometry', () => {
    it('is undefined when absent', () => {
      const r = csv({});
      expect(r.ok && r.value.geometry).toBeUndefined();
    });
    it('parses GeoJSON text and refuses bad JSON', () => {
      expect(errors(csv({}, { geometry: '{"type":' }))).toEqual(['geometry: not valid JSON']);
    });
    it('reports geometry problems', () => {
      expect(errors(json({}, { geometry: { type: 'Point', coordinates: [10, 95] } }))).toEqual([
        'geometry.coordinates: latitude 95 is outside [-90, 90]',
      ]);
    });
  });
});
