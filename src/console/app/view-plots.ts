// A chart widget: an asset's readings over a range (hourly or finer averages with their min–max
// band, one small chart a key), SVG made with DOM calls, sized to its widget, saying in words what
// it shows; and what the widgets share to say things (a key's name, a time, a number, a note).
import type { ProfileDetail } from './data.ts';
import { h, svg } from './dom.ts';
import { linePath, pathOf, scale, ticks, valueRange } from './view-charts.ts';
import { chartSeries, type Series, seriesId, type Widget, type WidgetContext } from './view-data.ts';

export const note = (text: string) => h('p', { class: 'widget-note' }, text);

/** A key's name for people: its property's title, else the key in words (casingPressure → Casing pressure). */
export function keyLabel(key: string, profile?: ProfileDetail): string {
  const title = profile?.properties.find((p) => p.name === key)?.title;
  if (title) return title;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const when = (iso: string | null | undefined): string =>
  iso
    ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso))
    : '';

export const number = (v: number): string =>
  new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(v);

/** The plot's own units: stretched to its box (lines keep their width), labels in HTML beside it. */
const PLOT = { width: 600, height: 100 };

export function chart(widget: Widget, ctx: WidgetContext): HTMLElement {
  const lines = chartSeries(widget);
  if (lines.length === 0) return note('No key is set for this chart.');
  const days = lines[0]!.rangeMs / 86_400_000;
  const period = days >= 1 ? `${number(days)} day${days === 1 ? '' : 's'}` : `${number(days * 24)} hours`;
  const drawn = lines.map((need) => ctx.asset.series.get(seriesId(need)) ?? null);
  // The times once, under the last chart: every line of a widget spans the same range.
  const span = drawn.map((s) => (s?.buckets ?? []).filter((b) => b.avg !== null)).find((b) => b.length > 0);
  return h(
    'div',
    { class: 'charts' },
    lines.map((need, i) => oneChart(drawn[i]!, need.key, period, ctx)),
    span
      ? h(
          'div',
          { class: 'chart-x', 'aria-hidden': 'true' },
          h('span', null, when(span[0]!.start)),
          h('span', null, when(span[span.length - 1]!.start)),
        )
      : null,
  );
}

function oneChart(series: Series | null, key: string, period: string, ctx: WidgetContext): HTMLElement {
  const label = keyLabel(key, ctx.profile);
  const buckets = (series?.buckets ?? []).filter((b) => b.avg !== null);
  const unit = series?.unit ? ` ${series.unit}` : '';
  if (buckets.length === 0)
    return h(
      'figure',
      { class: 'chart' },
      h('figcaption', null, `${label}: no readings in the last ${period}.`),
    );
  const times = buckets.map((b) => Date.parse(b.start));
  const [v0, v1] = valueRange(buckets.flatMap((b) => [b.min ?? b.avg!, b.max ?? b.avg!]));
  const { width, height } = PLOT;
  const x = scale(times[0]!, times[times.length - 1]!, 0, width);
  const y = scale(v0, v1, height, 0);
  const avgs = buckets.map((b) => b.avg!);
  const [low, high, last] = [Math.min(...avgs), Math.max(...avgs), avgs[avgs.length - 1]!];
  const words = `${label} over the last ${period}: ${buckets.length} averages from ${number(low)} to ${number(high)}${unit}, the last ${number(last)}.`;
  const band = [
    ...buckets.map((b, i) => [x(times[i]!), y(b.max ?? b.avg!)] as [number, number]),
    ...buckets.map((b, i) => [x(times[i]!), y(b.min ?? b.avg!)] as [number, number]).reverse(),
  ];
  const yTicks = ticks(v0, v1, 2);
  return h(
    'figure',
    { class: 'chart' },
    h(
      'figcaption',
      null,
      h('span', { class: 'chart-title' }, label),
      ` ${number(last)}${unit}`,
      h('span', { class: 'chart-range' }, ` (${number(low)}–${number(high)})`),
    ),
    h(
      'div',
      { class: 'chart-plot' },
      h(
        'div',
        { class: 'chart-y', 'aria-hidden': 'true' },
        yTicks.map((t) => {
          const tick = h('span', null, number(t));
          tick.style.top = `${(1 - (t - v0) / (v1 - v0)) * 100}%`;
          return tick;
        }),
      ),
      svg(
        'svg',
        { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': words },
        yTicks.map((t) =>
          svg('path', {
            d: pathOf([
              [0, y(t)],
              [width, y(t)],
            ]),
            class: 'grid-line',
          }),
        ),
        svg('path', { d: pathOf(band, true), class: 'band' }),
        svg('path', {
          d: linePath(
            buckets.map((b, i) => ({ t: times[i]!, v: b.avg })),
            x,
            y,
          ),
          class: 'line',
        }),
      ),
    ),
  );
}
