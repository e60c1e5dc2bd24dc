// What each widget of a view shows of one asset, drawn from what the API answers (view-data.ts):
// a KPI (latest readings, with alarm limits as a meter), a property table, a chart of readings
// (view-plots.ts) and a map (view-map.ts), a status grid and a list or table of related assets (each a link to its
// page), issues, text. A widget the console does not know says so.
import { assetHref } from './asset-route.ts';
import { h } from './dom.ts';
import { columnLabel, EMPTY, formatValue, numeric, type PropertyDefinition } from './format.ts';
import {
  listSetting,
  type Reading,
  type RelatedAsset,
  type Relationship,
  statusProperty,
  textSetting,
  type Widget,
  type WidgetContext,
  widgetKind,
} from './view-data.ts';
import { map } from './view-map.ts';
import { chart, keyLabel, note, number, when } from './view-plots.ts';

/** The content of `widget` for the asset of `ctx`. */
export function widgetBody(widget: Widget, ctx: WidgetContext): HTMLElement {
  switch (widgetKind(widget.widget)) {
    case 'kpi':
      return kpi(widget, ctx);
    case 'properties':
      return propertyTable(widget, ctx);
    case 'chart':
      return chart(widget, ctx);
    case 'map':
      return map(widget, ctx);
    case 'status':
      return statusGrid(widget, ctx);
    case 'related':
      return related(widget, ctx);
    case 'issues':
      return issues(ctx);
    case 'text':
      return h('p', null, textSetting(widget.settings, 'text') ?? '');
    case 'unknown':
      return note(`The console does not draw “${widget.widget}” widgets.`);
  }
}

const reading = (readings: readonly Reading[], key: string) => readings.find((r) => r.property === key);

function kpi(widget: Widget, ctx: WidgetContext): HTMLElement {
  const s = widget.settings;
  const keys = [
    ...new Set([...listSetting(s, 'keys'), ...listSetting(s, 'key'), ...listSetting(s, 'property')]),
  ];
  if (keys.length === 0) return note('No key is set for this widget.');
  const { asset, profile } = ctx;
  const unitProperty = textSetting(s, 'unitProperty');
  const limit = (name: string | null) => {
    const v = name ? asset.properties[name] : undefined;
    return typeof v === 'number' ? v : null;
  };
  const low = limit(textSetting(s, 'lowProperty'));
  const high = limit(textSetting(s, 'highProperty'));
  return h(
    'dl',
    { class: 'kpi' },
    keys.map((key) => {
      const r = reading(asset.latestObservations, key);
      const definition = profile.properties.find((p) => p.name === key);
      const value = r ? r.value : asset.properties[key];
      const unit =
        r?.unit ??
        (unitProperty ? (asset.properties[unitProperty] as string | undefined) : null) ??
        definition?.unit;
      const shown = typeof value === 'number' ? number(value) : formatValue(value, undefined);
      const gauge =
        typeof value === 'number' && (low !== null || high !== null)
          ? limits(value, low, high, unit ?? '')
          : null;
      return h(
        'div',
        { class: 'kpi-item' },
        h('dt', null, keyLabel(key, profile)),
        h(
          'dd',
          null,
          h('span', { class: 'kpi-value' }, shown),
          unit && shown !== EMPTY ? h('span', { class: 'kpi-unit' }, ` ${unit}`) : null,
          r?.at ? h('span', { class: 'kpi-time' }, `at ${when(r.at)}`) : null,
          gauge,
        ),
      );
    }),
  );
}

/** A reading against its alarm limits: a meter, and the words for it. */
function limits(value: number, low: number | null, high: number | null, unit: string): HTMLElement {
  const lo = low ?? Math.min(value, high ?? value) - 1;
  const hi = high ?? Math.max(value, lo) + 1;
  const span = hi - lo || 1;
  const state =
    high !== null && value > high
      ? 'above the high alarm'
      : low !== null && value < low
        ? 'below the low alarm'
        : 'within the alarm limits';
  const words = `Alarm limits ${low !== null ? number(low) : '—'} to ${high !== null ? number(high) : '—'} ${unit}: ${state}.`;
  return h(
    'span',
    { class: 'kpi-limits' },
    h('meter', {
      min: lo - span * 0.25,
      max: hi + span * 0.25,
      low: lo,
      high: hi,
      optimum: (lo + hi) / 2,
      value,
      'aria-label': words,
    }),
    h('span', { class: state === 'within the alarm limits' ? 'kpi-ok' : 'kpi-alarm' }, words),
  );
}

function propertyTable(widget: Widget, ctx: WidgetContext): HTMLElement {
  const names = listSetting(widget.settings, 'properties');
  const definitions: PropertyDefinition[] = names.length
    ? names.map(
        (name) =>
          ctx.profile.properties.find((p) => p.name === name) ?? {
            name,
            title: null,
            type: 'STRING',
            unit: null,
          },
      )
    : ctx.profile.properties;
  return h(
    'table',
    { class: 'props' },
    h(
      'tbody',
      null,
      definitions.map((p) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, columnLabel(p)),
          h('td', { class: numeric(p) ? 'num' : null }, formatValue(ctx.asset.properties[p.name], p)),
        ),
      ),
    ),
  );
}

function relatedOf(
  widget: Widget,
  ctx: WidgetContext,
): { rel: Relationship | null; assets: RelatedAsset[] | null; name: string } {
  const name = textSetting(widget.settings, 'relationship') ?? '';
  return {
    name,
    rel: ctx.relationships.find((r) => r.relationship === name) ?? null,
    assets: ctx.asset.related.get(name) ?? null,
  };
}

function relatedMissing(name: string): HTMLElement {
  return note(
    name ? `The profile has no relationship “${name}”.` : 'No relationship is set for this widget.',
  );
}

function related(widget: Widget, ctx: WidgetContext): HTMLElement {
  const { name, rel, assets } = relatedOf(widget, ctx);
  if (!assets) return relatedMissing(name);
  const what = rel?.title ?? keyLabel(name);
  if (assets.length === 0) return note(`No ${what.toLowerCase()}.`);
  const columns = listSetting(widget.settings, 'columns').filter((c) => c !== 'name');
  const keys = listSetting(widget.settings, 'observation');
  const latest = (a: RelatedAsset, key: string) => {
    const r = reading(a.latestObservations, key);
    if (!r) return EMPTY;
    return `${typeof r.value === 'number' ? number(r.value) : formatValue(r.value)}${r.unit ? ` ${r.unit}` : ''}`;
  };
  if (widget.widget === 'related-list')
    return h(
      'ul',
      { class: 'related-list' },
      assets.map((a) =>
        h(
          'li',
          null,
          h('a', { class: 'name', href: assetHref(a) }, a.displayName),
          keys.map((k) => h('span', { class: 'reading' }, ` · ${keyLabel(k)} ${latest(a, k)}`)),
        ),
      ),
    );
  return h(
    'table',
    { class: 'data related' },
    h('caption', { class: 'visually-hidden' }, `${what} of ${ctx.asset.displayName}`),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'Name'),
        columns.map((c) => h('th', { scope: 'col' }, keyLabel(c))),
        keys.map((k) => h('th', { scope: 'col' }, `Latest ${keyLabel(k).toLowerCase()}`)),
      ),
    ),
    h(
      'tbody',
      null,
      assets.map((a) =>
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, h('a', { href: assetHref(a) }, a.displayName)),
          columns.map((c) => h('td', null, formatValue(a.properties?.[c]))),
          keys.map((k) => h('td', { class: 'num' }, latest(a, k))),
        ),
      ),
    ),
  );
}

function statusGrid(widget: Widget, ctx: WidgetContext): HTMLElement {
  const { name, rel, assets } = relatedOf(widget, ctx);
  if (!assets) return relatedMissing(name);
  if (assets.length === 0) return note(`No ${(rel?.title ?? keyLabel(name)).toLowerCase()}.`);
  const property = statusProperty(widget);
  return h(
    'ul',
    { class: 'status-grid' },
    assets.map((a) => {
      const status = formatValue(a.properties?.[property]);
      return h(
        'li',
        { 'data-status': status.toLowerCase().replace(/[^a-z0-9]+/g, '-') },
        h('a', { class: 'name', href: assetHref(a) }, a.displayName),
        h('span', { class: 'status-value' }, status),
      );
    }),
  );
}

function issues(ctx: WidgetContext): HTMLElement {
  const list = ctx.asset.issues ?? [];
  if (list.length === 0) return note('No issues about this asset.');
  return h(
    'ul',
    { class: 'issue-list' },
    list.map((i) =>
      h(
        'li',
        null,
        h(
          'span',
          { class: 'issue-status', 'data-status': i.status.toLowerCase() },
          i.status.replace('_', ' ').toLowerCase(),
        ),
        ' ',
        h('span', { class: 'name' }, i.displayName),
        h('span', { class: 'kpi-time' }, ` opened ${when(i.createdAt)}`),
      ),
    ),
  );
}
