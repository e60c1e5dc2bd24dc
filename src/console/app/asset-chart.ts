// The asset page's chart: one reading's history (`Asset.observationSeries`, docs/telemetry.md)
// over a period ending now, in buckets of the resolution chosen, each bucket's aggregate chosen
// (average, lowest, highest…), laid out on the reader's days. Drawn as SVG, with the same numbers
// as a table for whoever cannot see the line.
import { AGGREGATES, type Aggregate, seriesDocument } from './asset-documents.ts';
import { defaultResolution, extent, PERIODS, resolutionsFor } from './chart.ts';
import { lineChart } from './chart-svg.ts';
import { h } from './dom.ts';
import { formatValue } from './format.ts';
import { formatTime, readerTimeZone } from './time-format.ts';
import type { ViewContext } from './view.ts';

/** A reading the chart can show: a key of the asset's latest observations holding a number. */
export interface ChartKey {
  property: string;
  unit: string | null;
}

export const AGGREGATE_TEXT: Record<Aggregate, string> = {
  AVG: 'Average',
  MIN: 'Lowest',
  MAX: 'Highest',
  SUM: 'Sum',
  COUNT: 'Number of readings',
  STDDEV: 'Standard deviation',
  FIRST: 'First reading',
  LAST: 'Last reading',
};

interface Bucket {
  start: string;
  end: string;
  count: number;
  value: number | null;
}

interface Series {
  unit: string | null;
  resolution: string;
  timezone: string;
  buckets: Bucket[];
}

export class ChartSection {
  readonly element: HTMLElement;
  readonly #ctx: ViewContext;
  readonly #asset: { profile: string; id: string };
  #keys: ChartKey[] = [];
  #asked = 0;
  readonly #property = h('select', { id: 'chart-property', name: 'property' });
  readonly #period = h(
    'select',
    { id: 'chart-period', name: 'period' },
    PERIODS.map((p) => h('option', { value: p.value, selected: p.value === '7d' }, p.label)),
  );
  readonly #resolution = h('select', { id: 'chart-resolution', name: 'resolution' });
  readonly #aggregate = h(
    'select',
    { id: 'chart-aggregate', name: 'aggregate' },
    AGGREGATES.map((a) => h('option', { value: a }, AGGREGATE_TEXT[a])),
  );
  readonly #figure = h('figure', { class: 'chart-figure', id: 'chart' });
  readonly #controls: HTMLElement;

  constructor(ctx: ViewContext, asset: { profile: string; id: string }) {
    this.#ctx = ctx;
    this.#asset = asset;
    this.#fillResolutions();
    this.#controls = h(
      'form',
      { class: 'chart-controls', 'aria-label': 'What the chart shows' },
      field('chart-property', 'Reading', this.#property),
      field('chart-period', 'Period', this.#period),
      field('chart-resolution', 'Resolution', this.#resolution),
      field('chart-aggregate', 'Each bucket’s', this.#aggregate),
    );
    this.#controls.addEventListener('submit', (event) => event.preventDefault());
    this.#period.addEventListener('change', () => {
      this.#fillResolutions();
      void this.#draw();
    });
    for (const select of [this.#property, this.#resolution, this.#aggregate])
      select.addEventListener('change', () => void this.#draw());
    this.element = h(
      'section',
      { class: 'panel wide', 'aria-labelledby': 'chart-heading' },
      h('h2', { id: 'chart-heading' }, 'Readings over time'),
      this.#controls,
      this.#figure,
    );
  }

  /** The readings there are to chart (after each read of the asset); the one chosen stays if it can. */
  show(keys: ChartKey[]): void {
    const same = keys.map((k) => k.property).join('\n') === this.#keys.map((k) => k.property).join('\n');
    this.#keys = keys;
    if (keys.length === 0) {
      this.#controls.hidden = true;
      this.#figure.replaceChildren(h('p', { class: 'hint' }, 'The asset has no numeric readings to chart.'));
      return;
    }
    this.#controls.hidden = false;
    if (same && this.#figure.querySelector('svg, table')) return;
    const chosen = this.#property.value;
    this.#property.replaceChildren(
      ...keys.map((k) => h('option', { value: k.property, selected: k.property === chosen }, k.property)),
    );
    void this.#draw();
  }

  /** The resolutions that fit the period, keeping the one chosen where it still fits. */
  #fillResolutions(): void {
    const period = PERIODS.find((p) => p.value === this.#period.value) ?? PERIODS[1];
    const fits = resolutionsFor(period.ms);
    const chosen = fits.find((r) => r.value === this.#resolution.value) ?? defaultResolution(period.ms);
    this.#resolution.replaceChildren(
      ...fits.map((r) => h('option', { value: r.value, selected: r.value === chosen.value }, r.label)),
    );
  }

  async #draw(): Promise<void> {
    const key = this.#keys.find((k) => k.property === this.#property.value) ?? this.#keys[0];
    if (!key) return;
    const period = PERIODS.find((p) => p.value === this.#period.value) ?? PERIODS[1];
    const aggregate = (AGGREGATES as readonly string[]).includes(this.#aggregate.value)
      ? (this.#aggregate.value as Aggregate)
      : 'AVG';
    const resolution = this.#resolution.value;
    const to = Date.now();
    const from = to - period.ms;
    const timezone = readerTimeZone();
    const asked = ++this.#asked;
    this.#figure.setAttribute('aria-busy', 'true');
    let series: Series | null | undefined;
    try {
      const data = await this.#ctx.api.request<{
        assets: { byId: { observationSeries: Series | null } | null } | null;
      }>(
        seriesDocument(aggregate),
        {
          ...this.#asset,
          property: key.property,
          from: new Date(from).toISOString(),
          to: new Date(to).toISOString(),
          resolution,
          aggregates: [aggregate],
          timezone,
        },
        this.#ctx.signal,
      );
      series = data.assets?.byId?.observationSeries;
    } catch (e) {
      if (asked === this.#asked) this.#figure.removeAttribute('aria-busy');
      this.#ctx.fail(e);
      return;
    }
    if (asked !== this.#asked || this.#ctx.signal.aborted) return;
    this.#figure.removeAttribute('aria-busy');
    const buckets = series?.buckets ?? [];
    const unit = aggregate === 'COUNT' ? null : (series?.unit ?? key.unit);
    const what = `${AGGREGATE_TEXT[aggregate]} of ${key.property}`;
    const resolutionText = this.#resolution.selectedOptions[0]?.textContent ?? resolution;
    const caption = h(
      'figcaption',
      { id: 'chart-caption' },
      `${what}${unit ? ` (${unit})` : ''}, per ${resolutionText}, ${period.label.toLowerCase()}`,
    );
    const values = buckets.map((b) => b.value);
    const range = extent(values);
    const filled = values.filter((v) => v !== null).length;
    const f = (v: number) => formatValue(v, { name: key.property, title: null, type: 'NUMBER', unit });
    const description = h(
      'p',
      { id: 'chart-description', class: 'hint' },
      range
        ? `${buckets.length} buckets, ${filled} with readings; lowest ${f(range[0])}, highest ${f(range[1])}. Times in ${series?.timezone ?? timezone}.`
        : 'No readings in this period.',
    );
    this.#figure.replaceChildren(
      caption,
      ...(range
        ? [
            lineChart({
              points: buckets.map((b) => ({
                at: Date.parse(b.start),
                end: Date.parse(b.end),
                value: b.value,
              })),
              from,
              to,
              label: what,
              unit,
              labelledBy: 'chart-caption',
              describedBy: 'chart-description',
              timeZone: timezone,
            }),
          ]
        : []),
      description,
      range ? dataTable(buckets, what, f) : '',
    );
  }
}

function field(id: string, label: string, control: HTMLElement): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

/** The chart's numbers, one row a bucket, behind a disclosure. */
function dataTable(buckets: readonly Bucket[], what: string, f: (v: number) => string): HTMLElement {
  return h(
    'details',
    { class: 'chart-data' },
    h('summary', null, 'The chart’s numbers'),
    h(
      'div',
      { class: 'results', role: 'region', 'aria-label': 'The chart’s numbers', tabindex: 0 },
      h(
        'table',
        { class: 'data' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'From'),
            h('th', { scope: 'col', class: 'num' }, 'Readings'),
            h('th', { scope: 'col', class: 'num' }, what),
          ),
        ),
        h(
          'tbody',
          null,
          buckets.map((b) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, h('time', { datetime: b.start }, formatTime(b.start))),
              h('td', { class: 'num' }, String(b.count)),
              h('td', { class: 'num' }, b.value === null ? '—' : f(b.value)),
            ),
          ),
        ),
      ),
    ),
  );
}
