import type { PeersResult, ShapeName, SystemName } from '../peers.ts';
import { SHAPES, SYSTEM_LABELS, SYSTEMS } from '../peers.ts';

const COLORS: Record<SystemName, string> = {
  assetql: '#1f6f5c',
  metrics: '#3d9a5f',
  tracing: '#9ccf6b',
  distributed: '#6fb3a0',
  hive: '#e0a526',
  apollo: '#7a5cc4',
  postgraphile: '#2f7fd1',
  bare: '#8a8a8a',
};

const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Grouped bars: one group per shape, one bar per system; n/a bars are left out. */
function panel(
  value: (s: SystemName, q: ShapeName) => number | undefined,
  title: string,
  unit: string,
  top: number,
  log: boolean,
): string {
  const left = 70;
  const width = 900;
  const height = 230;
  const groupW = (width - left - 20) / SHAPES.length;
  const barW = (groupW - 16) / SYSTEMS.length;
  const values = SHAPES.flatMap((q) => SYSTEMS.map((s) => value(s, q) ?? 0)).filter((v) => v > 0);
  const max = Math.max(...values, 1);
  const min = log ? Math.max(Math.min(...values) / 2, 0.01) : 0;
  const scale = (v: number) =>
    log ? (Math.log10(v / min) / Math.log10(max / min)) * height : (v / max) * height;
  const out: string[] = [
    `<text x="${left}" y="${top - 12}" font-size="14" font-weight="bold">${esc(title)}</text>`,
    `<line x1="${left}" y1="${top + height}" x2="${width - 10}" y2="${top + height}" stroke="#333"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + height}" stroke="#333"/>`,
  ];
  const ticks = log
    ? Array.from({ length: 8 }, (_, i) => 10 ** (Math.floor(Math.log10(min)) + i)).filter(
        (t) => t >= min && t <= max,
      )
    : [0, 0.25, 0.5, 0.75, 1].map((k) => k * max);
  for (const t of ticks) {
    const y = top + height - scale(t);
    out.push(
      `<line x1="${left - 4}" y1="${y}" x2="${width - 10}" y2="${y}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y + 4}" font-size="10" text-anchor="end">${t >= 100 ? t.toFixed(0) : t.toPrecision(2)}</text>`,
    );
  }
  out.push(
    `<text x="14" y="${top + height / 2}" font-size="11" transform="rotate(-90 14 ${top + height / 2})" text-anchor="middle">${esc(unit)}</text>`,
  );
  SHAPES.forEach((q, gi) => {
    const gx = left + 8 + gi * groupW;
    SYSTEMS.forEach((s, si) => {
      const v = value(s, q);
      const x = gx + si * barW;
      if (!v || !Number.isFinite(v)) {
        out.push(
          `<text x="${x + barW / 2}" y="${top + height - 3}" font-size="8" text-anchor="middle" fill="#999">n/a</text>`,
        );
        return;
      }
      const h = Math.max(1, scale(v));
      out.push(
        `<rect x="${x}" y="${top + height - h}" width="${barW - 2}" height="${h}" fill="${COLORS[s]}"><title>${esc(`${SYSTEM_LABELS[s]} ${q}: ${v.toFixed(2)} ${unit}`)}</title></rect>`,
      );
    });
    out.push(
      `<text x="${gx + groupW / 2 - 8}" y="${top + height + 16}" font-size="12" text-anchor="middle">${q}</text>`,
    );
  });
  return out.join('\n');
}

/** Throughput and p95 per system and shape, as a self-contained SVG. */
export function peersChart(r: PeersResult): string {
  const legend = SYSTEMS.map(
    (s, i) =>
      `<rect x="${70 + (i % 3) * 280}" y="${612 + Math.floor(i / 3) * 18}" width="12" height="12" fill="${COLORS[s]}"/><text x="${88 + (i % 3) * 280}" y="${622 + Math.floor(i / 3) * 18}" font-size="12">${esc(SYSTEM_LABELS[s])}</text>`,
  ).join('\n');
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="680" viewBox="0 0 900 680" font-family="sans-serif">',
    '<rect width="900" height="680" fill="white"/>',
    panel(
      (s, q) => r.cells[s]?.[q]?.rps,
      `Throughput, ${r.connections} connections (req/s, higher is better; log scale)`,
      'req/s',
      40,
      true,
    ),
    panel(
      (s, q) => r.cells[s]?.[q]?.p95,
      'p95 latency at a fixed rate (ms, lower is better; log scale)',
      'ms',
      330,
      true,
    ),
    legend,
    `<text x="890" y="674" font-size="10" text-anchor="end" fill="#666">${r.wells.toLocaleString('en')} wells, ${r.engine}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
