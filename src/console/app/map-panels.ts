// Beside the map: the view configuration whose map applies (when the profile has several), its
// layers shown or hidden with the legend of their colours; below it, the line that says what the
// map shows now and the assets in view as links.
import { assetHref } from './asset-route.ts';
import { h, present, svg } from './dom.ts';
import type { MapLayer, MapViewConfig } from './map-data.ts';
import { compact } from './map-draw.ts';

/** A choice of the view configurations that have a map, when there is more than one. */
export function viewsPicker(
  views: readonly MapViewConfig[],
  chosen: MapViewConfig | null,
  choose: (id: string) => void,
): HTMLElement[] {
  const withMap = views.filter((v) => v.map);
  if (withMap.length < 2) return [];
  const select = h(
    'select',
    { id: 'map-view', name: 'view' },
    withMap.map((v) => h('option', { value: v.id, selected: v.id === chosen?.id }, v.name || v.id)),
  );
  select.addEventListener('change', () => choose(select.value));
  return [h('div', { class: 'map-view-choice' }, h('label', { for: 'map-view' }, 'Map view'), select)];
}

/** A swatch of a colour: SVG's `fill` is an attribute, which the page's CSP allows. */
function swatch(colour: string): SVGSVGElement {
  return svg(
    'svg',
    { class: 'swatch', width: 14, height: 14, viewBox: '0 0 14 14', 'aria-hidden': 'true' },
    svg('rect', { x: 0.5, y: 0.5, width: 13, height: 13, rx: 3, fill: colour, stroke: '#1b1f24' }),
  );
}

/** The layers, each with a checkbox and the legend of its colours. */
export function layersPanel(
  layers: readonly MapLayer[],
  toggle: (layer: MapLayer, visible: boolean) => void,
): HTMLElement {
  return h(
    'fieldset',
    { class: 'map-layers' },
    h('legend', null, 'Layers'),
    layers.map((layer, i) => {
      const id = `map-layer-${i}`;
      const box = h('input', {
        type: 'checkbox',
        id,
        name: 'layer',
        value: layer.config.id,
        checked: layer.visible,
      });
      box.addEventListener('change', () => toggle(layer, box.checked));
      const { styleProperty, labelProperty } = layer.config;
      return h(
        'div',
        { class: 'map-layer' },
        h('div', { class: 'check' }, box, h('label', { for: id }, layer.config.name)),
        h(
          'ul',
          { class: 'legend', 'aria-label': `Colours of ${layer.config.name}` },
          layer.style.legend.map(([value, colour]) =>
            h(
              'li',
              null,
              swatch(colour),
              ' ',
              value === 'default' ? (styleProperty ? 'any other' : 'assets') : value,
            ),
          ),
          h('li', null, swatch(layer.style.clusterColour), ' a cluster, its count inside'),
        ),
        styleProperty || labelProperty
          ? h(
              'p',
              { class: 'hint' },
              [
                styleProperty ? `Coloured by ${styleProperty}` : null,
                labelProperty ? `labelled by ${labelProperty}` : null,
              ]
                .filter(Boolean)
                .join(', '),
              '.',
            )
          : null,
      );
    }),
  );
}

/** What the map shows now, layer by layer. */
export function mapSummary(shown: readonly MapLayer[], zoom: number): string {
  if (shown.length === 0) return 'No layer is shown.';
  const parts = shown.map((l) => {
    const a = l.answer;
    if (!a) return `${l.config.name}: not loaded`;
    const assets = `${a.count.toLocaleString('en')} ${a.count === 1 ? 'asset' : 'assets'}`;
    return a.clustered
      ? `${l.config.name}: ${assets} in ${a.clusters.length} clusters (largest ${compact(Math.max(...a.clusters.map((c) => c.count)))})`
      : `${l.config.name}: ${assets}`;
  });
  return `In view at zoom ${zoom}: ${parts.join(' · ')}.`;
}

/** The most assets listed under the map. */
const LISTED = 100;

/** The assets in view as links to their pages, when the map shows them one by one. */
export function assetsInView(profile: string, shown: readonly MapLayer[]): (Node | string)[] {
  const features = shown.flatMap((l) => l.answer?.features ?? []);
  const clustered = shown.some((l) => l.answer?.clustered);
  if (clustered || features.length === 0)
    return [
      h(
        'p',
        null,
        clustered ? 'Too many assets in view to list: zoom in, or click a cluster.' : 'No asset in view.',
      ),
    ];
  const unique = [...new Map(features.map((f) => [f.id, f])).values()];
  return present(
    h('h2', null, 'Assets in view'),
    h(
      'ul',
      { class: 'map-assets' },
      unique
        .slice(0, LISTED)
        .map((f) => h('li', null, h('a', { href: assetHref({ profile, id: f.id }) }, f.displayName))),
    ),
    unique.length > LISTED ? h('p', null, `And ${unique.length - LISTED} more: zoom in to list them.`) : null,
  );
}
