import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerOf, extentOf, layerFilter, layerStyle, viewportsDocument } from './map-data.ts';
import {
  fitted,
  formatPosition,
  graticuleStep,
  moved,
  parsePosition,
  project,
  ticks,
  unproject,
  viewportBbox,
  zoomedAt,
} from './map-projection.ts';
import { mapHref, parseMapRoute } from './map-route.ts';

describe('the map’s projection', () => {
  it('projects and unprojects as Web Mercator does', () => {
    expect(project(0, 0, 0)).toEqual([128, 128]);
    expect(project(-180, 85.0511287798066, 1)[0]).toBe(0);
    expect(project(-180, 85.0511287798066, 1)[1]).toBeCloseTo(0, 6);
    fc.assert(
      fc.property(
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: -85, max: 85, noNaN: true }),
        fc.integer({ min: 0, max: 22 }),
        (lon, lat, zoom) => {
          const [x, y] = project(lon, lat, zoom);
          const [lon2, lat2] = unproject(x, y, zoom);
          expect(lon2).toBeCloseTo(lon, 7);
          expect(lat2).toBeCloseTo(lat, 7);
        },
      ),
    );
  });

  it('gives the viewport the API takes, within its ranges', () => {
    const [w, s, e, n] = viewportBbox({ lon: -110.5, lat: 52.5, zoom: 5 }, 1024, 512);
    // 1,024 pixels at zoom 5 are 1024 / (256 · 32) of 360°.
    expect(e - w).toBeCloseTo(45, 6);
    expect(n).toBeGreaterThan(52.5);
    expect(s).toBeLessThan(52.5);
    expect(viewportBbox({ lon: 170, lat: 80, zoom: 0 }, 2000, 2000)).toEqual([
      -180, -85.0511287798066, 180, 85.0511287798066,
    ]);
  });

  it('pans by pixels, and zooms keeping the point under the mouse', () => {
    const p = { lon: 10, lat: 50, zoom: 8 };
    const q = moved(p, 100, 0);
    expect(q.lon).toBeGreaterThan(10);
    expect(q.lat).toBeCloseTo(50, 9);
    const [x0, y0] = project(p.lon, p.lat, 8);
    const under = unproject(x0 + 200, y0 - 50, 8);
    const z = zoomedAt(p, 9, 200, -50);
    const [x1, y1] = project(z.lon, z.lat, 9);
    const still = unproject(x1 + 200, y1 - 50, 9);
    expect(still[0]).toBeCloseTo(under[0], 9);
    expect(still[1]).toBeCloseTo(under[1], 9);
    expect(zoomedAt(p, 40).zoom).toBe(22);
  });

  it('fits a box, and draws a graticule about every 100 pixels', () => {
    const f = fitted([-120, 49, -110, 55], 800, 600);
    const [w, s, e, n] = viewportBbox(f, 800, 600);
    expect(w).toBeLessThan(-120);
    expect(e).toBeGreaterThan(-110);
    expect(s).toBeLessThan(49);
    expect(n).toBeGreaterThan(55);
    expect(f.zoom).toBe(6);
    expect(graticuleStep(0)).toBe(90);
    expect(graticuleStep(5)).toBe(5);
    expect(ticks(-12, 11, 5)).toEqual([-10, -5, 0, 5, 10]);
  });

  it('keeps a position in the address', () => {
    const p = { lon: -110.5, lat: 52.5, zoom: 5 };
    expect(formatPosition(p)).toBe('5/52.50/-110.50');
    expect(parsePosition('5/52.50/-110.50')).toEqual(p);
    for (const bad of ['', '23/0/0', '5/95/0', '5/0/181', '5/a/0', '5/0'])
      expect(parsePosition(bad)).toBeNull();
    const route = parseMapRoute(
      ['profiles', 'well', 'map'],
      'search=red  well&filter=f&at=5%2F52.50%2F-110.50',
    );
    expect(route).toEqual({
      name: 'map',
      profile: 'well',
      query: { search: 'red well', filter: 'f', view: null, at: p },
    });
    expect(mapHref(route!)).toBe('#/profiles/well/map?search=red+well&filter=f&at=5%2F52.50%2F-110.50');
    expect(parseMapRoute(['profiles', 'well'], '')).toBeNull();
  });
});

describe('the map’s data', () => {
  it('asks every layer in one document, and reads the geometry back to GeoJSON', () => {
    const doc = viewportsDocument(2);
    expect(doc).toContain('l0: mapViewport(bbox: $bbox, zoom: $zoom, filter: $f0, limit: $limit)');
    expect(doc).toContain('properties(only: $p1)');
    const answer = answerOf({
      count: 1,
      clustered: false,
      clusters: [],
      features: [
        {
          id: 'a',
          displayName: 'A',
          properties: null,
          geometry: {
            type: 'LineString',
            c2: [
              [0, 0],
              [1, 1],
            ],
          },
        },
      ],
    });
    expect(answer.features[0]!.geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [0, 0],
        [1, 1],
      ],
    });
    expect(
      extentOf({
        count: 2,
        clusters: [{ bbox: [0, 1, 2, 3] }],
        features: [{ geometry: { bbox: [-1, 2, 1, 5] } }],
      }),
    ).toEqual([-1, 1, 2, 5]);
    expect(extentOf({ count: 0, clusters: [], features: [] })).toBeNull();
  });

  it('joins a layer’s filter to the list’s, and colours by the style property', () => {
    expect(layerFilter(null, null)).toBeNull();
    expect(layerFilter({ search: 'x' }, {})).toEqual({ search: 'x' });
    expect(layerFilter({ search: 'x' }, { isDeleted: false })).toEqual({
      and: [{ search: 'x' }, { isDeleted: false }],
    });
    const style = layerStyle(
      {
        id: 'l',
        name: 'L',
        visible: true,
        labelProperty: null,
        styleProperty: 'status',
        styleColors: { producing: '#2e7d32', default: '#9e9e9e', bad: 'red' },
        filter: null,
      },
      0,
    );
    expect(style.colour({ status: 'producing' })).toBe('#2e7d32');
    expect(style.colour({ status: 'other' })).toBe('#9e9e9e');
    expect(style.colour({})).toBe('#9e9e9e');
    // Only #rrggbb colours are taken.
    expect(style.legend).toEqual([
      ['producing', '#2e7d32'],
      ['default', '#9e9e9e'],
    ]);
  });
});
