import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatOf, ImportFileError, type ReadItem, readAssets } from './readers.ts';

/** The text as a byte stream cut into pieces of `size` bytes (across characters, too). */
function bytes(text: string, size = 1 << 16) {
  const all = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < all.length; i += size) chunks.push(all.subarray(i, i + size));
  return Readable.from(chunks, { objectMode: false });
}

async function read(text: string, format: 'csv' | 'geojson' | 'ndjson', size?: number) {
  const out: ReadItem[] = [];
  for await (const item of readAssets(bytes(text, size), format, {
    propertyNames: new Set(['name', 'depth']),
  }))
    out.push(item);
  return out;
}

describe('formatOf', () => {
  it('prefers --format, else the extension', () => {
    expect(formatOf('a.txt', 'csv')).toBe('csv');
    expect(formatOf('a.CSV')).toBe('csv');
    expect(formatOf('a.geojson')).toBe('geojson');
    expect(formatOf('a.json')).toBe('geojson');
    expect(formatOf('a.ndjson')).toBe('ndjson');
    expect(formatOf('a.jsonl')).toBe('ndjson');
    expect(() => formatOf('a.txt')).toThrow(ImportFileError);
    expect(() => formatOf('a.csv', 'xml')).toThrow(/unknown format/);
  });
});

describe('CSV', () => {
  it('reads the header, properties and where each record starts', async () => {
    const items = await read(
      '\ufeffid,name,depth\nW-1,"two\nlines",12\n\nW-2,plain,\n"W-3","a ""quoted"" name",3\n',
      'csv',
    );
    expect(items).toEqual([
      { line: 2, asset: { id: 'W-1', properties: { name: 'two\nlines', depth: '12' }, geometry: undefined } },
      { line: 5, asset: { id: 'W-2', properties: { name: 'plain', depth: '' }, geometry: undefined } },
      {
        line: 6,
        asset: { id: 'W-3', properties: { name: 'a "quoted" name', depth: '3' }, geometry: undefined },
      },
    ]);
  });

  it('makes a point of longitude and latitude, or keeps GeoJSON text', async () => {
    const items = await read('id,longitude,latitude\nA,-113.5,53.25\nB,,\nC,x,1\nD,1,\n', 'csv');
    expect(items.map((i) => [i.asset.geometry, i.asset.errors])).toEqual([
      [{ type: 'Point', coordinates: [-113.5, 53.25] }, undefined],
      [undefined, undefined],
      [undefined, ['longitude: "x" is not a number']],
      [undefined, ['longitude and latitude: give both or neither']],
    ]);
    const g = await read('id,geometry\nA,"{""type"":""Point"",""coordinates"":[1,2]}"\n', 'csv');
    expect(g[0]!.asset.geometry).toBe('{"type":"Point","coordinates":[1,2]}');
  });

  it('reports a record with the wrong number of columns', async () => {
    const items = await read('id,name\nA,x,extra\nB\n', 'csv');
    expect(items.map((i) => i.asset.errors)).toEqual([
      ['expected 2 columns, found 3'],
      ['expected 2 columns, found 1'],
    ]);
  });

  it('refuses a file without an id column, or with a broken quote', async () => {
    await expect(read('name\nx\n', 'csv')).rejects.toThrow('CSV: the header has no "id" column');
    await expect(read('id,name\nA,"open\n', 'csv')).rejects.toThrow(ImportFileError);
    await expect(read('', 'csv')).rejects.toThrow(/empty/);
    await expect(read('id,id\n', 'csv')).rejects.toThrow(/twice/);
  });
});

describe('GeoJSON', () => {
  const collection = `{
  "type": "FeatureCollection",
  "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:OGC:1.3:CRS84" } },
  "na\\u006de": "brackets ] } in [ a { string",
  "features": [
    { "type": "Feature", "id": "W-1", "geometry": { "type": "Point", "coordinates": [-113.5, 53.1] },
      "properties": { "name": "Ålberta \\"quoted\\" ]}", "depth": 1200 } },
    {
      "type": "Feature", "id": 7, "geometry": null, "properties": { "id": 7, "name": "seven" }
    },
    { "type": "Feature", "geometry": null, "properties": { "id": "P-1" } },
    { "type": "Feature", "id": "F-2", "properties": { "id": "other" } },
    { "type": "Feature", "id": "broken", "properties": { ] },
    { "type": "Polygon" }
  ],
  "bbox": [-120, 49, -101, 60]
}`;
  const expected = [
    {
      line: 6,
      feature: 1,
      asset: {
        id: 'W-1',
        properties: { name: 'Ålberta "quoted" ]}', depth: 1200 },
        geometry: { type: 'Point', coordinates: [-113.5, 53.1] },
      },
    },
    { line: 8, feature: 2, asset: { id: '7', properties: { name: 'seven' }, geometry: undefined } },
    { line: 11, feature: 3, asset: { id: 'P-1', properties: {}, geometry: undefined } },
    { line: 12, feature: 4, asset: { id: 'F-2', properties: { id: 'other' }, geometry: undefined } },
  ];

  it('streams the features, whatever the chunk size', async () => {
    for (const size of [1, 2, 3, 7, 64, 1 << 16]) {
      const items = await read(collection, 'geojson', size);
      expect(items.slice(0, 4)).toEqual(expected);
      expect(items[4]).toMatchObject({ line: 13, feature: 5, asset: { id: undefined } });
      expect(items[4]!.asset.errors![0]).toMatch(/^not valid JSON/);
      expect(items[5]).toMatchObject({
        line: 14,
        feature: 6,
        asset: { errors: ['type "Polygon": expected "Feature"'] },
      });
    }
  });

  it('reads an empty collection', async () => {
    expect(await read('{"type":"FeatureCollection","features":[]}', 'geojson')).toEqual([]);
  });

  it('refuses what is not a FeatureCollection', async () => {
    await expect(read('{"type":"Feature","geometry":null,"properties":{}}', 'geojson')).rejects.toThrow(
      'GeoJSON: expected a FeatureCollection',
    );
    await expect(
      read('{"type":"FeatureCollection","features":[{"type":"Feature"', 'geojson'),
    ).rejects.toThrow(/ends in the middle/);
    await expect(read('{"type":"FeatureCollection" "features":[]}', 'geojson')).rejects.toThrow(
      /not valid JSON/,
    );
  });
});

describe('NDJSON', () => {
  it('reads one object per line, with line numbers', async () => {
    const items = await read(
      [
        '{"id":"A","properties":{"name":"a"},"geometry":{"type":"Point","coordinates":[1,2]}}',
        '',
        '{"id":2,"properties":{"name":"b"}}',
        '{"id":"C", "properties": ',
        '[1]',
        '{"id":"D","props":{}}',
        '{"type":"Feature","id":"E","geometry":null,"properties":{"name":"e"}}',
      ].join('\r\n'),
      'ndjson',
    );
    expect(items.map((i) => i.line)).toEqual([1, 3, 4, 5, 6, 7]);
    expect(items[0]!.asset).toEqual({
      id: 'A',
      properties: { name: 'a' },
      geometry: { type: 'Point', coordinates: [1, 2] },
    });
    expect(items[1]!.asset).toEqual({ id: '2', properties: { name: 'b' }, geometry: undefined });
    expect(items[2]!.asset.errors![0]).toMatch(/^not valid JSON/);
    expect(items[3]!.asset.errors).toEqual(['expected an object { id, properties, geometry }']);
    expect(items[4]!.asset.errors).toEqual(['unknown field: props']);
    expect(items[5]!.asset).toEqual({ id: 'E', properties: { name: 'e' }, geometry: undefined });
  });
});
