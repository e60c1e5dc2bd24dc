/** A point of a line chart: time (ms) and value. */
export interface Point {
  t: number;
  v: number;
}

/**
 * Largest-Triangle-Three-Buckets (Steinarsson, "Downsampling Time Series for Visual
 * Representation", 2013): keeps the first and last point and, from each of `threshold - 2`
 * equal-count buckets between them, the point forming the largest triangle with the point kept
 * before it and the average of the next bucket. `points` in time order; answers indices into it.
 */
export function lttb(points: readonly Point[], threshold: number): number[] {
  const n = points.length;
  if (threshold >= n || threshold < 3) return points.map((_, i) => i);
  const kept: number[] = [0];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    // The next bucket's average point.
    const nextStart = Math.floor((i + 1) * every) + 1;
    const nextEnd = Math.min(Math.floor((i + 2) * every) + 1, n);
    let avgT = 0;
    let avgV = 0;
    for (let j = nextStart; j < nextEnd; j++) {
      avgT += points[j]!.t;
      avgV += points[j]!.v;
    }
    const count = nextEnd - nextStart;
    avgT /= count;
    avgV /= count;
    // This bucket's point of the largest triangle.
    const start = Math.floor(i * every) + 1;
    const end = Math.floor((i + 1) * every) + 1;
    const pa = points[a]!;
    let best = -1;
    let chosen = start;
    for (let j = start; j < end; j++) {
      const p = points[j]!;
      const area = Math.abs((pa.t - avgT) * (p.v - pa.v) - (pa.t - p.t) * (avgV - pa.v));
      if (area > best) {
        best = area;
        chosen = j;
      }
    }
    kept.push(chosen);
    a = chosen;
  }
  kept.push(n - 1);
  return kept;
}
