// #/profiles/:profile/views/:view: a view configuration's layout of one media type (WEB, MOBILE,
// PRINTABLE), its widgets placed by their x/y/w/h and drawn from one asset's data; the layout
// edited by drag and resize (or the keyboard) and saved with `updateAssetProfileViewLayout` at the
// version it was read (layout-save.ts). A save refused for a newer version shows what changed and
// lets the reader overwrite it or load it; their own layout is never dropped. PRINTABLE prints.
import { ApiError } from './api.ts';
import { assetHref } from './asset-route.ts';
import type { ProfileDetail } from './data.ts';
import * as documents from './documents.ts';
import { focus, h, regainFocus } from './dom.ts';
import { conflictPanel } from './layout-conflict.ts';
import { KEYS_HINT, LayoutEditor } from './layout-editor.ts';
import { sameLayout } from './layout-grid.ts';
import { draftsOf, saveLayout } from './layout-save.ts';
import { DEFAULT_PAGE_SIZE, href, type Route } from './router.ts';
import type { View, ViewContext } from './view.ts';
import { type ViewRoute, viewControls } from './view-controls.ts';
import {
  type AssetData,
  layoutOf,
  type Relationship,
  type ViewConfiguration,
  type Widget,
} from './view-data.ts';
import { loadAsset, type ViewsAnswer } from './view-loading.ts';
import { widgetBody } from './view-widgets.ts';
import { MEDIA_LABELS, type MediaType, viewsHref } from './views-route.ts';

export class ViewPage implements View {
  readonly #ctx: ViewContext;
  #route: ViewRoute;
  readonly #heading = h('h1', { tabindex: -1 }, 'View');
  #detail: ProfileDetail | null = null;
  #relationships: Relationship[] = [];
  #view: ViewConfiguration | null = null;
  #choices: { id: string; displayName: string }[] = [];
  #asset: AssetData | null = null;
  #assetNote = 'Loading the asset…';
  #asked = 0;
  #editing = false;
  #saving = false;
  readonly #drafts: Map<string, Widget[]>;
  /** The reader's layout set aside by "Load their layout", for "Bring back my changes". */
  #aside: { media: MediaType; widgets: Widget[] } | null = null;
  readonly #editor: LayoutEditor;
  readonly #controls = h('div', { class: 'view-controls' });
  readonly #conflict = h('div', { class: 'conflict-slot' });
  readonly #subject = h('p', { class: 'view-subject' });
  readonly #frame = h('div', { class: 'view-frame' });
  readonly #unload = (event: BeforeUnloadEvent) => {
    if (this.#drafts.size > 0) event.preventDefault();
  };

  constructor(ctx: ViewContext, route: ViewRoute) {
    this.#ctx = ctx;
    this.#route = route;
    this.#drafts = draftsOf(ctx.session);
    this.#editor = new LayoutEditor({
      body: (w) => this.#body(w),
      changed: (widgets) => this.#changed(widgets),
      announce: (text) => ctx.announce(text),
    });
    ctx.main.replaceChildren(
      this.#heading,
      h('p', { class: 'lead', 'aria-busy': 'true' }, 'Loading the view…'),
    );
    focus(this.#heading);
    window.addEventListener('beforeunload', this.#unload);
    void this.#open();
  }

  update(route: Route): boolean {
    const now = this.#route;
    if (route.name !== 'view' || route.profile !== now.profile || route.view !== now.view || !this.#view)
      return false;
    this.#route = route;
    if (route.media !== now.media) {
      this.#editing = this.#drafts.has(this.#key(route.media));
      this.#conflict.replaceChildren();
    }
    this.#draw();
    if (route.asset !== now.asset || route.media !== now.media) void this.#loadAsset();
    return true;
  }

  close(): void {
    window.removeEventListener('beforeunload', this.#unload);
    this.#editor.close();
  }

  #key(media: MediaType): string {
    return JSON.stringify([this.#route.profile, this.#route.view, media]);
  }

  /** The layout stored for the route's media type (null: the view has none). */
  get #stored(): Widget[] | null {
    return this.#view ? layoutOf(this.#view, this.#route.media) : null;
  }

  get #draft(): Widget[] | undefined {
    return this.#drafts.get(this.#key(this.#route.media));
  }

  async #open(): Promise<void> {
    const ctx = this.#ctx;
    const { profile, view } = this.#route;
    try {
      const [detail, answer] = await Promise.all([
        ctx.data.profile(profile),
        ctx.api.request<ViewsAnswer>(documents.VIEWS, { profile }, ctx.signal),
      ]);
      if (ctx.signal.aborted) return;
      const found = answer.assetProfiles?.byId?.viewConfigurations?.find((v) => v.id === view) ?? null;
      if (!detail || !found) {
        this.#heading.textContent = detail ? 'No such view' : 'No such profile';
        const back = detail
          ? h('a', { href: viewsHref({ name: 'views', profile }) }, `See the views of ${detail.title}.`)
          : h('a', { href: '#/profiles' }, 'See the profiles.');
        const what = detail
          ? `Profile ${detail.title} has no view “${view}”. `
          : `There is no profile “${profile}”. `;
        ctx.main.replaceChildren(this.#heading, h('p', null, what, back));
        regainFocus(this.#heading);
        return;
      }
      this.#detail = detail;
      this.#relationships = answer.assetProfiles?.byId?.relationships ?? [];
      this.#view = found;
      this.#editing = this.#draft !== undefined;
      this.#heading.textContent = found.name || found.id;
      ctx.main.replaceChildren(
        h(
          'nav',
          { 'aria-label': 'Breadcrumb', class: 'crumbs' },
          h('a', { href: '#/profiles' }, 'Profiles'),
          ' / ',
          h(
            'a',
            {
              href: href({
                name: 'assets',
                profile,
                query: { search: '', filter: null, size: DEFAULT_PAGE_SIZE },
              }),
            },
            detail.title,
          ),
          ' / ',
          h('a', { href: viewsHref({ name: 'views', profile }) }, 'Views'),
        ),
        this.#heading,
        this.#subject,
        this.#controls,
        this.#conflict,
        h(
          'p',
          { class: 'hint layout-hint', id: KEYS_HINT },
          'Drag a widget by its title bar to move it, or by its corner to resize it. With the keyboard: on “Move”, ',
          'the arrow keys move the widget a cell; on “Resize” (or Shift with “Move”), they change its size.',
        ),
        this.#frame,
      );
      regainFocus(this.#heading);
      this.#draw();
      const choices = await ctx.api.request<{
        assets: { all: { edges: { node: { id: string; displayName: string } }[] } } | null;
      }>(documents.VIEW_ASSETS, { profile }, ctx.signal);
      this.#choices = choices.assets?.all.edges.map((e) => e.node) ?? [];
      await this.#loadAsset();
    } catch (e) {
      ctx.fail(e);
    }
  }

  /** The asset of the route (or the profile's first), read for the widgets shown. */
  async #loadAsset(): Promise<void> {
    const ctx = this.#ctx;
    const id = this.#route.asset ?? this.#choices[0]?.id ?? null;
    const asked = ++this.#asked;
    const widgets = this.#draft ?? this.#stored ?? [];
    if (!id) {
      this.#asset = null;
      this.#assetNote = 'This profile has no assets to show in the view.';
      this.#draw();
      return;
    }
    try {
      const layers = this.#view?.map?.layers ?? [];
      const asset = await loadAsset(ctx.api, ctx.signal, this.#route.profile, id, widgets, layers);
      if (asked !== this.#asked || ctx.signal.aborted) return;
      this.#asset = asset;
      this.#assetNote = asset ? '' : `There is no asset “${id}” in this profile.`;
      if (asset && !this.#choices.some((c) => c.id === id))
        this.#choices.unshift({ id, displayName: asset.displayName });
      this.#draw();
    } catch (e) {
      ctx.fail(e);
    }
  }

  /** The controls, the subject line and the grid, as the state now is. */
  #draw(): void {
    const media = MEDIA_LABELS[this.#route.media];
    const asset = this.#asset;
    this.#subject.replaceChildren(
      ...(asset
        ? [
            h('a', { href: assetHref({ profile: this.#route.profile, id: asset.id }) }, asset.displayName),
            `${asset.secondaryDisplayName ? ` · ${asset.secondaryDisplayName}` : ''} · ${asset.id} · `,
          ]
        : []),
      `${media} layout`,
    );
    this.#drawControls();
    this.#frame.setAttribute('data-media', this.#route.media);
    const widgets = this.#draft ?? this.#stored;
    if (!widgets) {
      this.#frame.replaceChildren(
        h('p', { class: 'widget-note' }, `This view has no ${media.toLowerCase()} layout.`),
      );
      return;
    }
    // Drawn again (the asset arrived, a save came back): a control that had the focus keeps it in
    // its new frame, or a keyboard user editing while the asset loads would lose their place.
    const active = document.activeElement;
    const label =
      active instanceof HTMLElement && this.#frame.contains(active)
        ? active.getAttribute('aria-label')
        : null;
    this.#editor.show(widgets, this.#editing);
    this.#frame.replaceChildren(this.#editor.element);
    if (label) this.#frame.querySelector<HTMLElement>(`[aria-label="${CSS.escape(label)}"]`)?.focus();
  }

  #body(widget: Widget): Node {
    if (!this.#asset || !this.#detail) return h('p', { class: 'widget-note' }, this.#assetNote);
    try {
      return widgetBody(widget, {
        profile: this.#detail,
        relationships: this.#relationships,
        layers: this.#view?.map?.layers ?? [],
        asset: this.#asset,
      });
    } catch (e) {
      // A widget whose settings the console misreads must not take the others down with it.
      console.error(e);
      return h('p', { class: 'widget-note' }, 'This widget could not be drawn.');
    }
  }

  #drawControls(): void {
    this.#controls.replaceChildren(
      ...viewControls(
        {
          route: this.#route,
          view: this.#view,
          choices: this.#choices,
          asset: this.#asset?.id ?? null,
          unsaved: (m) => this.#drafts.has(this.#key(m)),
          editing: this.#editing,
          saving: this.#saving,
          aside: this.#aside?.media === this.#route.media,
        },
        {
          pick: (asset) => this.#ctx.navigate({ ...this.#route, asset }),
          edit: () => this.#edit(),
          stop: () => this.#stop(),
          save: () => void this.#save(),
          restore: () => this.#restore(),
        },
      ),
    );
  }

  #edit(): void {
    this.#editing = true;
    this.#draw();
    this.#ctx.announce(`Editing the ${MEDIA_LABELS[this.#route.media].toLowerCase()} layout.`);
    focus(this.#frame.querySelector<HTMLElement>('button.move'));
  }

  #stop(): void {
    const dirty = this.#drafts.delete(this.#key(this.#route.media));
    this.#editing = false;
    this.#conflict.replaceChildren();
    this.#draw();
    this.#ctx.announce(dirty ? 'Discarded the changes to the layout.' : 'Stopped editing.');
    focus(this.#controls.querySelector<HTMLElement>('#edit-layout'));
  }

  #changed(widgets: Widget[]): void {
    const key = this.#key(this.#route.media);
    const stored = this.#stored;
    if (stored && sameLayout(widgets, stored)) this.#drafts.delete(key);
    else this.#drafts.set(key, widgets);
    this.#drawControls();
  }

  async #save(): Promise<void> {
    const view = this.#view;
    const widgets = this.#draft;
    if (!view || !widgets || this.#saving) return;
    const { profile, media } = this.#route;
    const base = this.#stored ?? [];
    this.#saving = true;
    this.#drawControls();
    let outcome: Awaited<ReturnType<typeof saveLayout>>;
    try {
      outcome = await saveLayout(
        this.#ctx.api,
        { profile, view: view.id, media, widgets, base, version: view.version },
        this.#ctx.signal,
      );
    } catch (e) {
      this.#saving = false;
      this.#drawControls();
      this.#ctx.fail(e);
      return;
    }
    this.#saving = false;
    if (this.#ctx.signal.aborted) return;
    if (outcome.kind === 'refused') {
      this.#drawControls();
      this.#ctx.fail(new ApiError(outcome.message));
      return;
    }
    if (outcome.kind === 'conflict') {
      // From here on the layout stored now is the one the reader's is compared with and saved over.
      this.#view = outcome.current;
      this.#showConflict(base, outcome.theirs);
      return;
    }
    this.#view = outcome.view;
    this.#drafts.delete(this.#key(media));
    this.#editing = false;
    this.#conflict.replaceChildren();
    this.#draw();
    this.#ctx.announce(
      `Saved the ${MEDIA_LABELS[media].toLowerCase()} layout; the view is at version ${outcome.view.version}.`,
    );
    focus(this.#controls.querySelector<HTMLElement>('#edit-layout'));
  }

  #showConflict(base: Widget[], theirs: Widget[] | null): void {
    const media = this.#route.media;
    const panel = conflictPanel({
      media: MEDIA_LABELS[media].toLowerCase(),
      base,
      theirs,
      version: this.#view!.version,
      overwrite: () => void this.#save(),
      loadTheirs: () => {
        const mine = this.#drafts.get(this.#key(media));
        if (mine) this.#aside = { media, widgets: mine };
        this.#drafts.delete(this.#key(media));
        this.#editing = false;
        this.#conflict.replaceChildren();
        this.#draw();
        this.#ctx.announce(
          'Loaded their layout. Your changes are set aside: “Bring back my changes” restores them.',
        );
        focus(this.#controls.querySelector<HTMLElement>('#restore-layout'));
      },
    });
    this.#conflict.replaceChildren(panel);
    this.#drawControls();
    focus(panel.querySelector<HTMLElement>('#conflict-title'));
  }

  #restore(): void {
    const aside = this.#aside;
    if (!aside) return;
    this.#aside = null;
    this.#drafts.set(this.#key(aside.media), aside.widgets);
    this.#editing = true;
    this.#draw();
    this.#ctx.announce('Your changes are back, not saved yet.');
    focus(this.#controls.querySelector<HTMLElement>('#save-layout'));
  }
}
