// A line chart of a series' buckets, drawn as SVG with the DOM's own calls (no markup parsed, no
// canvas): value and time axes with their grid, the line broken where a bucket had no reading,
// and a dot with its value (a tooltip) on each bucket when there are few enough to tell apart.
import { extent, linear, linePath, timeTicks, valueAxis } from './chart.ts';
import { svg } from './dom.ts';
import { formatTime, tickLabel } from './time-format.ts';

export interface ChartPoint {
  /** The bucket's start and end (ms since the epoch): drawn at the middle of what of it is shown. */
  at: number;
  end: number;
  value: number | null;
}

export interface ChartOptions {
  points: readonly ChartPoint[];
  from: number;
  to: number;
  /** What the value is, for the tooltips: "Average casing pressure". */
  label: string;
  unit: string | null;
  /** The id of the element that names the chart (its caption) and of its description. */
  labelledBy: string;
  describedBy: string;
  locale?: string;
  timeZone?: string;
}

const WIDTH = 720;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 16, bottom: 30, left: 64 };
/** Up to this many buckets, each gets a dot. */
const DOTS_UP_TO = 120;

export function lineChart(options: ChartOptions): SVGSVGElement {
  const { points, from, to, locale, timeZone } = options;
  const values = points.map((p) => p.value);
  const [min, max] = extent(values) ?? [0, 1];
  const axis = valueAxis(min, max, 5);
  const x = linear([from, to], [MARGIN.left, WIDTH - MARGIN.right]);
  const y = linear(axis.domain, [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
  const offset = -new Date(to).getTimezoneOffset() * 60_000;
  const time = timeTicks(from, to, 6, timeZone === 'UTC' ? 0 : offset);
  const unit = options.unit ? ` ${options.unit}` : '';

  const grid = svg(
    'g',
    { class: 'grid', 'aria-hidden': 'true' },
    axis.ticks.map((v) =>
      svg(
        'g',
        null,
        svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(v), y2: y(v) }),
        svg(
          'text',
          { x: MARGIN.left - 6, y: y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' },
          number.format(v),
        ),
      ),
    ),
    time.ticks.map((t) =>
      svg(
        'g',
        null,
        svg('line', { x1: x(t), x2: x(t), y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom, class: 'minor' }),
        svg(
          'text',
          { x: x(t), y: HEIGHT - MARGIN.bottom + 18, 'text-anchor': 'middle' },
          tickLabel(t, time.step, locale, timeZone),
        ),
      ),
    ),
  );
  const plotted = points.map((p) => ({
    x: x((Math.max(p.at, from) + Math.min(p.end, to)) / 2),
    y: p.value === null ? null : y(p.value),
  }));
  const line = svg('path', { class: 'line', d: linePath(plotted), 'aria-hidden': 'true' });
  const dots =
    points.length <= DOTS_UP_TO
      ? svg(
          'g',
          { class: 'dots', 'aria-hidden': 'true' },
          points.flatMap((p, i) =>
            p.value === null
              ? []
              : [
                  svg(
                    'circle',
                    { cx: plotted[i]!.x, cy: plotted[i]!.y, r: 3 },
                    svg(
                      'title',
                      null,
                      `${options.label}, ${formatTime(p.at, locale, timeZone)}: ${number.format(p.value)}${unit}`,
                    ),
                  ),
                ],
          ),
        )
      : null;
  return svg(
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-labelledby': options.labelledBy,
      'aria-describedby': options.describedBy,
      preserveAspectRatio: 'xMidYMid meet',
    },
    svg('rect', {
      class: 'plot',
      x: MARGIN.left,
      y: MARGIN.top,
      width: WIDTH - MARGIN.left - MARGIN.right,
      height: HEIGHT - MARGIN.top - MARGIN.bottom,
    }),
    grid,
    line,
    dots,
  );
}
