// #/profiles: the group's asset profiles, each with how many properties and assets it has.
import * as documents from './documents.ts';
import { focus, h, present, regainFocus } from './dom.ts';
import { countText } from './format.ts';
import { type AssetsQuery, DEFAULT_PAGE_SIZE, href, type Route } from './router.ts';
import type { View, ViewContext } from './view.ts';

interface Count {
  totalCount: number | null;
  totalCountIsExact: boolean | null;
}

export class ProfilesView implements View {
  readonly #ctx: ViewContext;

  constructor(ctx: ViewContext) {
    this.#ctx = ctx;
    const heading = h('h1', { tabindex: -1 }, 'Asset profiles');
    ctx.main.replaceChildren(
      heading,
      h('p', { class: 'lead', 'aria-busy': 'true' }, 'Loading the profiles…'),
    );
    focus(heading);
    void this.#load(heading);
  }

  update(route: Route): boolean {
    return route.name === 'profiles';
  }

  close(): void {
    // Its requests stop with the context's signal, which the app aborts.
  }

  async #load(heading: HTMLElement): Promise<void> {
    const ctx = this.#ctx;
    try {
      const profiles = await ctx.data.profiles();
      if (this.#ctx.signal.aborted) return;
      const counts = new Map<string, HTMLElement>();
      const rows = profiles.map((p) => {
        const cell = h('td', { class: 'num', 'data-profile': p.profile }, 'counting…');
        counts.set(p.profile, cell);
        return h(
          'tr',
          null,
          h(
            'th',
            { scope: 'row' },
            h('a', { href: href({ name: 'assets', profile: p.profile, query: defaults() }) }, p.title),
          ),
          h('td', null, h('code', null, p.profile)),
          h('td', { class: 'num' }, String(p.properties?.length ?? 0)),
          cell,
        );
      });
      const group = ctx.session.userGroup;
      ctx.main.replaceChildren(
        heading,
        h(
          'p',
          { class: 'lead' },
          profiles.length === 0
            ? ['Group ', h('strong', null, group), ' has no asset profiles yet.']
            : ['The asset profiles of group ', h('strong', null, group), '. Open one to browse its assets.'],
        ),
        ...present(
          profiles.length > 0 &&
            h(
              'table',
              { class: 'data', id: 'profiles' },
              h('caption', { class: 'visually-hidden' }, `Asset profiles of group ${group}`),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, 'Profile'),
                  h('th', { scope: 'col' }, 'Id'),
                  h('th', { scope: 'col', class: 'num' }, 'Properties'),
                  h('th', { scope: 'col', class: 'num' }, 'Assets'),
                ),
              ),
              h('tbody', null, rows),
            ),
        ),
      );
      regainFocus(heading);
      await this.#count(counts);
    } catch (e) {
      ctx.fail(e);
    }
  }

  /** Each profile's count of assets, ten profiles a request (the API counts at most ten listings in one). */
  async #count(cells: Map<string, HTMLElement>): Promise<void> {
    const profiles = [...cells.keys()];
    for (let i = 0; i < profiles.length; i += documents.MAX_COUNTS) {
      const batch = profiles.slice(i, i + documents.MAX_COUNTS);
      const variables = Object.fromEntries(batch.map((p, j) => [`p${j}`, p]));
      const data = await this.#ctx.api.request<Record<string, { all: Count } | null>>(
        documents.countsDocument(batch.length),
        variables,
        this.#ctx.signal,
      );
      batch.forEach((p, j) => {
        const count = data[`c${j}`]?.all;
        const cell = cells.get(p)!;
        cell.textContent =
          count?.totalCount === null || count?.totalCount === undefined
            ? '—'
            : countText(count.totalCount, count.totalCountIsExact ?? true).replace(/ assets?$/, '');
      });
    }
  }
}

function defaults(): AssetsQuery {
  return { search: '', filter: null, size: DEFAULT_PAGE_SIZE };
}
