// #/profiles/:profile/map: the assets of the list (its search and saved filter) on a map, with the
// layers and styling of the profile's view configuration. The server answers each viewport with
// the assets themselves when few, else their counts per grid cell (`Assets.mapViewport`), so a
// profile of 100,000 assets draws as fast as one of a hundred. Each pan or zoom asks again,
// debounced, the request before it aborted; the profile's asset changes ask again too, coalesced
// (map-live.ts).
import { assetHref } from './asset-route.ts';
import type { ProfileDetail } from './data.ts';
import { focus, h, regainFocus } from './dom.ts';
import { currentFilter, filtersOf, type SavedFilter } from './filters.ts';
import { MapCanvas, type MoveKind } from './map-canvas.ts';
import {
  askViewports,
  chosenView,
  layersOf,
  MAP_VIEWS,
  type MapFeature,
  type MapLayer,
  type MapViewConfig,
  mapLayers,
  readExtent,
} from './map-data.ts';
import { drawLayersOf } from './map-draw.ts';
import { type LiveMap, liveMap } from './map-live.ts';
import { assetsInView, layersPanel, mapSummary, viewsPicker } from './map-panels.ts';
import type { Bbox, MapPosition } from './map-projection.ts';
import { type MapQuery, type MapRoute, mapHref } from './map-route.ts';
import { assetsRoute, DEFAULT_PAGE_SIZE, href, type Route } from './router.ts';
import type { View, ViewContext } from './view.ts';

/** How long the map waits after a move before asking: its first viewport, a step (key, button, wheel), a drag. */
const DEBOUNCE_MS: Record<MoveKind, number> = { start: 0, step: 40, drag: 150 };

export class MapView implements View {
  readonly #ctx: ViewContext;
  readonly #heading = h('h1', { tabindex: -1 }, 'Map');
  readonly #profile: string;
  #query: MapQuery;
  #applied: SavedFilter | null = null;
  #views: MapViewConfig[] = [];
  #layers: MapLayer[] = [];
  #canvas: MapCanvas | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #request: AbortController | null = null;
  #draws = 0;
  /** When the last viewport was asked for (`performance.now()`). */
  #asked = Number.NEGATIVE_INFINITY;
  readonly #summary = h('p', { class: 'summary', id: 'map-summary', 'aria-live': 'polite' });
  readonly #selected = h('p', { class: 'map-selected', id: 'map-selected', 'aria-live': 'polite' });
  readonly #list = h('div', { class: 'map-list', id: 'map-list' });
  readonly #panel = h('div', { class: 'side map-side' });
  readonly #live: LiveMap;

  constructor(ctx: ViewContext, route: MapRoute) {
    this.#ctx = ctx;
    this.#profile = route.profile;
    this.#query = route.query;
    this.#live = liveMap(ctx, route.profile, () => this.#ask());
    ctx.main.replaceChildren(
      this.#heading,
      h('p', { class: 'lead', 'aria-busy': 'true' }, 'Loading the map…'),
    );
    focus(this.#heading);
    void this.#open();
  }

  update(route: Route): boolean {
    if (route.name !== 'map' || route.profile !== this.#profile || !this.#canvas) return false;
    const before = this.#query;
    this.#query = route.query;
    if (
      before.search !== route.query.search ||
      before.filter !== route.query.filter ||
      before.view !== route.query.view
    )
      return false;
    // Back or Forward to another place on the same map.
    if (route.query.at) this.#canvas.moveTo(route.query.at);
    return true;
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#request?.abort();
    this.#canvas?.close();
  }

  async #open(): Promise<void> {
    const ctx = this.#ctx;
    try {
      const followed = this.#live.begin();
      const [detail, filters, views] = await Promise.all([
        ctx.data.profile(this.#profile),
        ctx.data.filters(),
        ctx.api.request<{
          assetProfiles: { byId: { viewConfigurations: MapViewConfig[] | null } | null } | null;
        }>(MAP_VIEWS, { profile: this.#profile }, ctx.signal),
      ]);
      if (ctx.signal.aborted) return;
      if (!detail) {
        this.#heading.textContent = 'No such profile';
        ctx.main.replaceChildren(
          this.#heading,
          h(
            'p',
            null,
            `Group ${ctx.session.userGroup} has no profile “${this.#profile}”. `,
            h('a', { href: '#/profiles' }, 'See its profiles.'),
          ),
        );
        regainFocus(this.#heading);
        return;
      }
      this.#applied = filtersOf(filters, this.#profile).find((f) => f.id === this.#query.filter) ?? null;
      this.#views = views.assetProfiles?.byId?.viewConfigurations ?? [];
      const view = chosenView(this.#views, this.#query.view);
      this.#layers = mapLayers(layersOf(view));
      const start = this.#query.at ? { position: this.#query.at, fit: null } : await this.#start(view);
      await followed;
      if (ctx.signal.aborted) return;
      this.#draw(detail, view, start);
      this.#live.start();
    } catch (e) {
      ctx.fail(e);
    }
  }

  /**
   * Where the map starts: the view's centre and zoom, else the box around every asset of the
   * filter (fitted once the map's size is known), else the world.
   */
  async #start(view: MapViewConfig | null): Promise<{ position: MapPosition; fit: Bbox | null }> {
    const map = view?.map;
    if (map?.center && map.center.length >= 2)
      return {
        position: { lon: map.center[0]!, lat: map.center[1]!, zoom: Math.round(map.zoom ?? 5) },
        fit: null,
      };
    const extent = await readExtent(this.#ctx.api, this.#profile, this.#filter, this.#ctx.signal);
    return { position: { lon: 0, lat: 20, zoom: 1 }, fit: extent };
  }

  get #filter() {
    return currentFilter(this.#applied?.filter, this.#query.search);
  }

  #draw(
    detail: ProfileDetail,
    view: MapViewConfig | null,
    start: { position: MapPosition; fit: Bbox | null },
  ): void {
    const ctx = this.#ctx;
    this.#heading.textContent = `${detail.title} on a map`;
    const map = view?.map;
    const canvas = new MapCanvas({
      label: `Map of ${detail.title}`,
      position: start.position,
      fit: start.fit,
      minZoom: map?.minZoom != null ? Math.round(map.minZoom) : undefined,
      maxZoom: map?.maxZoom != null ? Math.round(map.maxZoom) : undefined,
      onMove: (position, kind) => this.#moved(position, kind),
      onSelect: (feature) => this.#select(feature),
    });
    this.#canvas = canvas;
    const button = (label: string, id: string, action: () => void) => {
      const b = h('button', { type: 'button', id }, label);
      b.addEventListener('click', action);
      return b;
    };
    const listRoute = { search: this.#query.search, filter: this.#query.filter };
    ctx.main.replaceChildren(
      h(
        'nav',
        { 'aria-label': 'Breadcrumb', class: 'crumbs' },
        h('a', { href: '#/profiles' }, 'Profiles'),
        ' / ',
        h('a', { href: listHref(this.#profile, listRoute) }, detail.title),
        ' / Map',
      ),
      this.#heading,
      h(
        'p',
        { class: 'lead' },
        describeFilter(this.#applied, this.#query),
        ' ',
        h('a', { href: listHref(this.#profile, listRoute), id: 'list-link' }, 'Show them as a list'),
      ),
      h(
        'div',
        { class: 'browse' },
        h(
          'div',
          { class: 'list map-main' },
          h(
            'div',
            { class: 'toolbar map-tools', role: 'group', 'aria-label': 'Map controls' },
            button('Zoom in', 'zoom-in', () => canvas.zoomTo(canvas.position.zoom + 1)),
            button('Zoom out', 'zoom-out', () => canvas.zoomTo(canvas.position.zoom - 1)),
            button('Back to start', 'map-home', () => canvas.home()),
          ),
          canvas.element,
          h(
            'p',
            { class: 'hint', id: 'map-keys' },
            'Arrow keys pan (with Shift, further), + and − zoom, Home goes back to the start. Drag to pan, scroll or double-click to zoom; a cluster zooms in when clicked.',
          ),
          this.#summary,
          this.#selected,
          this.#list,
          this.#live.status,
        ),
        this.#panel,
      ),
    );
    this.#panel.replaceChildren(
      ...viewsPicker(this.#views, view, (id) =>
        ctx.navigate({ name: 'map', profile: this.#profile, query: { ...this.#query, view: id, at: null } }),
      ),
      layersPanel(this.#layers, (layer, visible) => {
        layer.visible = visible;
        this.#redraw();
        this.#schedule('step');
      }),
    );
    regainFocus(this.#heading);
  }

  #moved(position: MapPosition, kind: MoveKind): void {
    this.#query = { ...this.#query, at: position };
    // The place is the route's, without an entry in the history for every step.
    history.replaceState(history.state, '', mapHref({ profile: this.#profile, query: this.#query }));
    this.#schedule(kind);
  }

  /**
   * Asks after the move's debounce; a single step (a key pressed once, a click) asks at once,
   * and only steps coming faster than the debounce (a key held down) wait for a pause.
   */
  #schedule(kind: MoveKind): void {
    clearTimeout(this.#timer);
    const idle = kind === 'step' && performance.now() - this.#asked > DEBOUNCE_MS.step;
    this.#timer = setTimeout(() => void this.#ask(), idle ? 0 : DEBOUNCE_MS[kind]);
  }

  /**
   * Asks for the viewport of every visible layer, in one request; the one before is aborted. Done
   * when it is drawn, or aborted; a failure is shown, not thrown.
   */
  async #ask(): Promise<void> {
    const canvas = this.#canvas;
    if (!canvas || this.#ctx.signal.aborted) return;
    this.#asked = performance.now();
    const [width, height] = canvas.size;
    if (width === 0 || height === 0) return;
    this.#request?.abort();
    const request = new AbortController();
    this.#request = request;
    const stop = () => request.abort();
    this.#ctx.signal.addEventListener('abort', stop, { once: true });
    const shown = this.#layers.filter((l) => l.visible);
    const position = canvas.position;
    canvas.element.setAttribute('aria-busy', 'true');
    performance.mark('assetql:map-request');
    try {
      const answers = await askViewports(
        this.#ctx.api,
        request.signal,
        this.#profile,
        shown,
        this.#filter,
        position,
        [width, height],
      );
      if (request.signal.aborted || this.#request !== request) return;
      for (const l of this.#layers) l.answer = null;
      shown.forEach((l, i) => {
        l.answer = answers[i] ?? null;
      });
      this.#redraw();
      canvas.element.removeAttribute('aria-busy');
      canvas.element.dataset.draws = String(++this.#draws);
      performance.mark('assetql:map-drawn');
      this.#summary.textContent = mapSummary(shown, position.zoom);
      this.#list.replaceChildren(...assetsInView(this.#profile, shown));
    } catch (e) {
      if (this.#request === request) canvas.element.removeAttribute('aria-busy');
      this.#ctx.fail(e);
    } finally {
      this.#ctx.signal.removeEventListener('abort', stop);
    }
  }

  #redraw(): void {
    this.#canvas?.setLayers(drawLayersOf(this.#layers));
  }

  #select(feature: MapFeature | null): void {
    if (!feature) {
      this.#selected.replaceChildren();
      return;
    }
    this.#selected.replaceChildren(
      'Selected: ',
      h('a', { href: assetHref({ profile: this.#profile, id: feature.id }) }, feature.displayName),
      ` (${feature.id})`,
    );
  }
}

/** The assets list of the same search and filter. */
function listHref(profile: string, query: { search: string; filter: string | null }): string {
  return href(assetsRoute(profile, { ...query, size: DEFAULT_PAGE_SIZE }));
}

function describeFilter(applied: SavedFilter | null, query: MapQuery): string {
  const parts = [
    applied ? `the filter “${applied.displayName}”` : null,
    query.search ? `the search “${query.search}”` : null,
  ].filter(Boolean);
  const missing =
    query.filter && !applied ? ` There is no saved filter “${query.filter}”: every asset is shown.` : '';
  return `${parts.length ? `The assets of ${parts.join(' and ')}.` : 'Every asset of the profile.'}${missing}`;
}
