/**
 * The bounding box of a GeoJSON geometry (RFC 7946 §5): `[minLon, minLat, maxLon, maxLat]`,
 * or the geometry's own `bbox` when it carries one. Null for an empty geometry.
 */
export function bboxOf(geometry: Record<string, unknown>): number[] | null {
  if (Array.isArray(geometry.bbox) && geometry.bbox.length >= 4) return geometry.bbox as number[];
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      box[0] = Math.min(box[0]!, c[0]);
      box[1] = Math.min(box[1]!, c[1]);
      box[2] = Math.max(box[2]!, c[0]);
      box[3] = Math.max(box[3]!, c[1]);
      return;
    }
    for (const x of c) visit(x);
  };
  if (geometry.type === 'GeometryCollection' && Array.isArray(geometry.geometries)) {
    for (const g of geometry.geometries as Record<string, unknown>[]) visit(bboxCorners(bboxOf(g)));
  } else {
    visit(geometry.coordinates);
  }
  return Number.isFinite(box[0]) ? box : null;
}

function bboxCorners(b: number[] | null) {
  return b
    ? [
        [b[0], b[1]],
        [b[2], b[3]],
      ]
    : [];
}
