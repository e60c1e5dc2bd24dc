// #/profiles/:profile: a profile's assets, a page at a time, forwards and backwards (keyset cursors,
// docs/schema.md §7), with how many there are, a search of display names, the saved filters of
// the profile applied or saved, and the properties shown chosen by the reader. The search, the
// filter applied and the page size are the route's, so Back and a reload keep them.
import { type AssetRow, assetsTable, columnPicker } from './assets-table.ts';
import { loadColumns, saveColumns } from './columns.ts';
import type { ProfileDetail } from './data.ts';
import * as documents from './documents.ts';
import { focus, h, present, regainFocus } from './dom.ts';
import { exportPanel } from './exports.ts';
import { currentFilter, filtersOf, type SavedFilter, subProfilesInput } from './filters.ts';
import { type FilterToSave, filtersPanel } from './filters-panel.ts';
import { pageText } from './format.ts';
import { type LiveList, liveList } from './list-live.ts';
import { mapHref } from './map-route.ts';
import { type AssetsQuery, assetsRoute, normaliseSearch, PAGE_SIZES, type Route } from './router.ts';
import type { View, ViewContext } from './view.ts';
import { viewsHref } from './views-route.ts';

/** Which page to ask for: forwards from a cursor, or backwards from one. */
type PageRequest = { first: number; after?: string } | { last: number; before: string };

interface Page {
  totalCount: number | null;
  totalCountIsExact: boolean | null;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  edges: ({ node: AssetRow | null } | null)[] | null;
}

export class AssetsView implements View {
  readonly #ctx: ViewContext;
  readonly #heading = h('h1', { tabindex: -1 }, 'Assets');
  #profile: string;
  #query: AssetsQuery;
  #detail: ProfileDetail | null = null;
  #filters: SavedFilter[] = [];
  #columns: string[] = [];
  /** The page shown, how it was asked for, and the 0-based position of its first row. */
  #page: { page: Page; request: PageRequest; start: number } | null = null;
  /** Bumped by each request: an answer to an older one is not drawn. */
  #asked = 0;
  /** Scrolls sideways on a narrow screen, so it takes the keyboard's focus too. */
  readonly #region = h('div', { class: 'results', role: 'region', 'aria-label': 'Assets', tabindex: 0 });
  readonly #summary = h('p', { class: 'summary', id: 'summary', 'aria-live': 'polite' });
  readonly #previous = h('button', { type: 'button', id: 'previous-page', disabled: true }, 'Previous page');
  readonly #next = h('button', { type: 'button', id: 'next-page', disabled: true }, 'Next page');
  readonly #panel = h('div', { class: 'side' });
  /** The profile's asset changes, followed while the page is open (its signal ends them). */
  readonly #live: LiveList;

  constructor(ctx: ViewContext, route: Extract<Route, { name: 'assets' }>) {
    this.#ctx = ctx;
    this.#profile = route.profile;
    this.#query = route.query;
    ctx.main.replaceChildren(
      this.#heading,
      h('p', { class: 'lead', 'aria-busy': 'true' }, 'Loading the profile…'),
    );
    focus(this.#heading);
    this.#previous.addEventListener('click', () => this.#turn('previous'));
    this.#next.addEventListener('click', () => this.#turn('next'));
    this.#live = liveList(ctx, route.profile, this.#region, () =>
      this.#fetch(this.#page?.request ?? { first: this.#query.size }, this.#page?.start ?? 0),
    );
    void this.#open();
  }

  update(route: Route): boolean {
    if (route.name !== 'assets' || route.profile !== this.#profile || !this.#detail) return false;
    this.#query = route.query;
    void this.#refresh();
    return true;
  }

  close(): void {
    // Its requests stop with the context's signal, which the app aborts.
  }

  async #open(): Promise<void> {
    const ctx = this.#ctx;
    try {
      const followed = this.#live.begin();
      const [detail, filters] = await Promise.all([ctx.data.profile(this.#profile), ctx.data.filters()]);
      if (this.#ctx.signal.aborted) return;
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
      this.#detail = detail;
      this.#filters = filtersOf(filters, this.#profile);
      this.#columns = loadColumns(
        ctx.preferences,
        ctx.session.userGroup,
        this.#profile,
        detail.properties,
        detail,
      );
      this.#heading.textContent = detail.title;
      ctx.main.replaceChildren(
        h(
          'nav',
          { 'aria-label': 'Breadcrumb', class: 'crumbs' },
          h('a', { href: '#/profiles' }, 'Profiles'),
          ' / ',
          detail.title,
        ),
        this.#heading,
        h(
          'p',
          { class: 'lead' },
          'Profile ',
          h('code', null, detail.profile),
          ', its assets in order of id; ',
          h('a', { href: viewsHref({ name: 'views', profile: detail.profile }) }, 'its views'),
          '.',
        ),
        h(
          'div',
          { class: 'browse' },
          h(
            'div',
            { class: 'list' },
            this.#toolbar(detail),
            this.#summary,
            this.#region,
            this.#pager(),
            this.#live.status,
            exportPanel(ctx, detail, () => ({
              filter: currentFilter(this.#applied?.filter, this.#query.search),
              columns: this.#columns,
              page: this.#page?.page ?? null,
              filterName: this.#applied?.displayName ?? null,
              search: this.#query.search,
            })),
          ),
          this.#panel,
        ),
      );
      regainFocus(this.#heading);
      this.#drawPanel();
      await followed;
      await this.#fetch({ first: this.#query.size }, 0);
      this.#live.start();
    } catch (e) {
      ctx.fail(e);
    }
  }

  /** A new route of the same profile: the filters read again (one may have been saved), page 1. */
  async #refresh(): Promise<void> {
    try {
      this.#filters = filtersOf(await this.#ctx.data.filters(), this.#profile);
      if (this.#ctx.signal.aborted) return;
      this.#syncToolbar();
      this.#drawPanel();
      await this.#fetch({ first: this.#query.size }, 0);
    } catch (e) {
      this.#ctx.fail(e);
    }
  }

  #toolbar(detail: ProfileDetail): HTMLElement {
    const search = h('input', {
      type: 'search',
      id: 'search',
      name: 'search',
      value: this.#query.search,
      'aria-describedby': 'search-hint',
    });
    const clear = h(
      'button',
      { type: 'button', id: 'clear-search', hidden: !this.#query.search },
      'Clear search',
    );
    clear.addEventListener('click', () => {
      search.value = '';
      this.#go({ search: '' });
      focus(search);
    });
    const form = h(
      'form',
      { role: 'search', class: 'search', 'aria-label': `Search ${detail.title}` },
      h('label', { for: 'search' }, 'Search'),
      search,
      h('button', { type: 'submit' }, 'Search'),
      clear,
      h(
        'p',
        { class: 'hint', id: 'search-hint' },
        'Every word must appear in the display name; case does not matter.',
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#go({ search: normaliseSearch(search.value) });
    });
    const size = h(
      'select',
      { id: 'page-size', name: 'size' },
      PAGE_SIZES.map((n) => h('option', { value: n, selected: n === this.#query.size }, String(n))),
    );
    size.addEventListener('change', () => this.#go({ size: Number(size.value) }));
    const columns = columnPicker(detail, this.#columns, (names) => {
      this.#columns = names;
      saveColumns(this.#ctx.preferences, this.#ctx.session.userGroup, this.#profile, names);
      const shown = this.#page;
      void this.#fetch(shown?.request ?? { first: this.#query.size }, shown?.start ?? 0).catch((e) =>
        this.#ctx.fail(e),
      );
    });
    return h(
      'div',
      { class: 'toolbar' },
      form,
      h('div', { class: 'size' }, h('label', { for: 'page-size' }, 'Rows per page'), size),
      columns,
      h('a', { id: 'map-link', class: 'map-link', href: this.#mapHref() }, 'Show on a map'),
    );
  }

  /** The map of the same search and filter. */
  #mapHref(): string {
    return mapHref({
      profile: this.#profile,
      query: { search: this.#query.search, filter: this.#query.filter },
    });
  }

  /** The toolbar's controls as the route says (after Back, or a saved filter applied). */
  #syncToolbar(): void {
    const search = this.#ctx.main.querySelector<HTMLInputElement>('#search');
    const clear = this.#ctx.main.querySelector<HTMLButtonElement>('#clear-search');
    const size = this.#ctx.main.querySelector<HTMLSelectElement>('#page-size');
    if (search && search.value.trim() !== this.#query.search) search.value = this.#query.search;
    if (clear) clear.hidden = !this.#query.search;
    if (size) size.value = String(this.#query.size);
    const map = this.#ctx.main.querySelector<HTMLAnchorElement>('#map-link');
    if (map) map.href = this.#mapHref();
  }

  #go(change: Partial<AssetsQuery>, announcement?: string): void {
    this.#ctx.navigate(assetsRoute(this.#profile, this.#query, change), announcement);
  }

  #pager(): HTMLElement {
    return h('nav', { class: 'pager', 'aria-label': 'Pages of assets' }, this.#previous, this.#next);
  }

  /** The saved filter the route applies, if it is one of this profile's. */
  get #applied(): SavedFilter | null {
    return this.#filters.find((f) => f.id === this.#query.filter) ?? null;
  }

  /** Draws the filters panel again; a keyboard inside it lands on the filter now applied. */
  #drawPanel(): void {
    const focused = this.#panel.contains(document.activeElement);
    const applied = this.#applied;
    const current: FilterToSave = {
      filter: currentFilter(applied?.filter, this.#query.search),
      subProfiles: subProfilesInput(applied?.subProfiles),
      summary: describeCurrent(applied, this.#query.search),
    };
    this.#panel.replaceChildren(
      filtersPanel({
        api: this.#ctx.api,
        profile: this.#profile,
        filters: this.#filters,
        query: this.#query,
        current,
        saved: (id, name) => {
          this.#ctx.data.forgetFilters();
          this.#go({ filter: id, search: '' }, `Saved the filter “${name}”; it is applied.`);
        },
        fail: (e) => this.#ctx.fail(e),
      }),
    );
    if (focused) focus(this.#panel.querySelector<HTMLElement>('[aria-current="true"]'));
  }

  #turn(direction: 'previous' | 'next'): void {
    const shown = this.#page;
    if (!shown) return;
    const { pageInfo, edges } = shown.page;
    let request: PageRequest;
    if (direction === 'next' && pageInfo.endCursor)
      request = { first: this.#query.size, after: pageInfo.endCursor };
    else if (direction === 'previous' && pageInfo.startCursor)
      request = { last: this.#query.size, before: pageInfo.startCursor };
    else return;
    const start =
      direction === 'next' ? shown.start + (edges?.length ?? 0) : Math.max(0, shown.start - this.#query.size);
    void this.#fetch(request, start)
      .then(() => {
        // The button pressed may be disabled now (the last page): the keyboard goes to the other.
        const pressed = direction === 'next' ? this.#next : this.#previous;
        const other = direction === 'next' ? this.#previous : this.#next;
        if (pressed.disabled) focus(other.disabled ? this.#summary : other);
      })
      .catch((e) => this.#ctx.fail(e));
  }

  async #fetch(request: PageRequest, start: number): Promise<void> {
    const detail = this.#detail!;
    const asked = ++this.#asked;
    const applied = this.#applied;
    this.#region.setAttribute('aria-busy', 'true');
    let data: { assets: { all: Page } | null };
    try {
      data = await this.#ctx.api.request(
        documents.ASSETS,
        {
          profile: this.#profile,
          ...request,
          filter: currentFilter(applied?.filter, this.#query.search),
          only: this.#columns,
        },
        this.#ctx.signal,
      );
    } finally {
      if (asked === this.#asked) this.#region.removeAttribute('aria-busy');
    }
    if (asked !== this.#asked || this.#ctx.signal.aborted) return;
    const page = data.assets?.all;
    if (!page) {
      this.#region.replaceChildren(
        h('p', null, 'This profile is gone. ', h('a', { href: '#/profiles' }, 'See the profiles.')),
      );
      return;
    }
    // Back at the first page, whatever was counted on the way: the API says there is none before.
    const first = 'last' in request && !page.pageInfo.hasPreviousPage ? 0 : start;
    this.#page = { page, request, start: first };
    const rows = (page.edges ?? []).flatMap((e) => (e?.node ? [e.node] : []));
    this.#region.replaceChildren(
      ...present(
        this.#query.filter && !applied
          ? h(
              'p',
              { class: 'warning' },
              `There is no saved filter “${this.#query.filter}” for this profile: every asset is listed.`,
            )
          : null,
      ),
      assetsTable(detail, this.#columns, rows),
    );
    this.#summary.textContent = [
      pageText(first, rows.length, page.totalCount ?? rows.length, page.totalCountIsExact ?? true),
      applied ? `filter “${applied.displayName}”` : null,
      this.#query.search ? `search “${this.#query.search}”` : null,
    ]
      .filter(Boolean)
      .join(' · ');
    this.#previous.disabled = !page.pageInfo.hasPreviousPage;
    this.#next.disabled = !page.pageInfo.hasNextPage;
  }
}

/** What saving now would save, in words. */
function describeCurrent(applied: SavedFilter | null, search: string): string {
  if (applied && search)
    return `Saves the filter “${applied.displayName}” narrowed by the search “${search}”.`;
  if (applied) return `Saves a copy of the filter “${applied.displayName}”.`;
  if (search) return `Saves the search “${search}”.`;
  return 'Search, or apply a saved filter, to have something to save.';
}
