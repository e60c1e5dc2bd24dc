// The arithmetic of the views' small drawings, apart from the DOM: a chart's scales, ticks and
// lines, and a map widget's asset geometry (GeoJSON, WGS 84 longitude/latitude): its shapes, its
// box and where it is in words.

/** `[longitude, latitude]`. */
export type Position = [number, number];

/** A geometry as the views ask for it: each GeoJSON type's coordinates under a name of its own. */
export interface RawGeometry {
  type: string;
  point?: number[] | null;
  points?: number[][] | null;
  line?: number[][] | null;
  lines?: number[][][] | null;
  polygon?: number[][][] | null;
  polygons?: number[][][][] | null;
}

/** A geometry as drawn: points, lines, and polygon rings. */
export interface Shapes {
  points: Position[];
  lines: Position[][];
  rings: Position[][];
}

const position = (c: number[]): Position => [c[0] ?? 0, c[1] ?? 0];

export function shapesOf(g: RawGeometry | null | undefined): Shapes {
  const out: Shapes = { points: [], lines: [], rings: [] };
  if (!g) return out;
  if (g.point) out.points.push(position(g.point));
  for (const p of g.points ?? []) out.points.push(position(p));
  if (g.line) out.lines.push(g.line.map(position));
  for (const l of g.lines ?? []) out.lines.push(l.map(position));
  for (const r of g.polygon ?? []) out.rings.push(r.map(position));
  for (const p of g.polygons ?? []) for (const r of p) out.rings.push(r.map(position));
  return out;
}

export type BBox = [number, number, number, number];

/** The box around every position of `shapes` (and `more`), or null when there are none. */
export function boundsOf(shapes: Shapes, more: readonly Position[] = []): BBox | null {
  const all = [...shapes.points, ...shapes.lines.flat(), ...shapes.rings.flat(), ...more];
  if (all.length === 0) return null;
  const lons = all.map((p) => p[0]);
  const lats = all.map((p) => p[1]);
  return [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)];
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** An SVG path through `positions`, closed for a ring. */
export function pathOf(points: readonly [number, number][], close = false): string {
  if (points.length === 0) return '';
  const [first, ...rest] = points;
  return `M${first![0]} ${first![1]}${rest.map((p) => `L${p[0]} ${p[1]}`).join('')}${close ? 'Z' : ''}`;
}

/** A step of 1, 2 or 5 times a power of ten, near `span / count`. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0) || count < 1) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * power;
}

/** The multiples of a nice step within [lo, hi], about `count` of them. */
export function ticks(lo: number, hi: number, count = 4): number[] {
  const step = niceStep(hi - lo, count);
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(12)));
  return out;
}

/** The range a chart's values are drawn over: their own, a little wider, never empty. */
export function valueRange(values: readonly number[]): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [0, 1];
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (lo === hi) {
    const d = Math.abs(lo) * 0.05 || 1;
    return [lo - d, hi + d];
  }
  const margin = (hi - lo) * 0.05;
  lo -= margin;
  hi += margin;
  return [lo, hi];
}

/** A chart's point: a time in ms and a value, null where a bucket had no reading. */
export interface ChartPoint {
  t: number;
  v: number | null;
}

/** The line through `points` scaled into the box, broken where a value is missing. */
export function linePath(
  points: readonly ChartPoint[],
  x: (t: number) => number,
  y: (v: number) => number,
): string {
  let path = '';
  let drawing = false;
  for (const p of points) {
    if (p.v === null || !Number.isFinite(p.v)) {
      drawing = false;
      continue;
    }
    path += `${drawing ? 'L' : 'M'}${round(x(p.t))} ${round(y(p.v))}`;
    drawing = true;
  }
  return path;
}

/** A linear scale from [d0, d1] onto [r0, r1]. */
export function scale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/** A position in words: "52.512° N, 110.204° W". */
export function formatPosition(p: Position, digits = 3): string {
  const [lon, lat] = p;
  return `${Math.abs(lat).toFixed(digits)}° ${lat < 0 ? 'S' : 'N'}, ${Math.abs(lon).toFixed(digits)}° ${lon < 0 ? 'W' : 'E'}`;
}
