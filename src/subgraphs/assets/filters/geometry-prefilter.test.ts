import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boxAround } from './compile-geometry.ts';

const R = 6371008.8;
const rad = (d: number) => (d * Math.PI) / 180;
function haversine(lon1: number, lat1: number, lon2: number, lat2: number) {
  const h =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(Math.min(1, h)));
}

describe('boxAround (the index prefilter of `near`)', () => {
  it('holds every point within the distance', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: 1, max: 2_000_000, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (lon, lat, meters, plon, plat, t) => {
          const box = boxAround(lon, lat, meters);
          if (!box) return;
          // A point somewhere between the centre and a random point, often within range.
          const qlon = lon + (plon - lon) * t * t * t;
          const qlat = lat + (plat - lat) * t * t * t;
          if (haversine(lon, lat, qlon, qlat) > meters) return;
          const [minLon, minLat, maxLon, maxLat] = box;
          expect(qlon).toBeGreaterThanOrEqual(minLon);
          expect(qlon).toBeLessThanOrEqual(maxLon);
          expect(qlat).toBeGreaterThanOrEqual(minLat);
          expect(qlat).toBeLessThanOrEqual(maxLat);
        },
      ),
      { numRuns: 20_000, seed: 42 },
    );
  });

  it('gives up near the poles and across the antimeridian rather than cut', () => {
    expect(boxAround(0, 88.9, 100_000)).toBeNull();
    expect(boxAround(179.9, 0, 50_000)).toBeNull();
    expect(boxAround(-113.8, 52.3, 10_000)).not.toBeNull();
  });
});
