// #/profiles/:profile/views: the profile's view configurations, each with its layouts by media
// type (how many widgets each holds), a link to each, and the version the view is at.
import * as documents from './documents.ts';
import { focus, h, regainFocus } from './dom.ts';
import { DEFAULT_PAGE_SIZE, href, type Route } from './router.ts';
import type { View, ViewContext } from './view.ts';
import { layoutOf } from './view-data.ts';
import type { ViewsAnswer } from './view-loading.ts';
import { MEDIA_LABELS, MEDIA_TYPES, viewsHref } from './views-route.ts';

export class ViewsList implements View {
  readonly #ctx: ViewContext;
  readonly #profile: string;
  readonly #heading = h('h1', { tabindex: -1 }, 'Views');

  constructor(ctx: ViewContext, profile: string) {
    this.#ctx = ctx;
    this.#profile = profile;
    ctx.main.replaceChildren(
      this.#heading,
      h('p', { class: 'lead', 'aria-busy': 'true' }, 'Loading the views…'),
    );
    focus(this.#heading);
    void this.#load();
  }

  update(route: Route): boolean {
    return route.name === 'views' && route.profile === this.#profile;
  }

  close(): void {
    // Its requests stop with the context's signal, which the app aborts.
  }

  async #load(): Promise<void> {
    const ctx = this.#ctx;
    const profile = this.#profile;
    try {
      const [detail, answer] = await Promise.all([
        ctx.data.profile(profile),
        ctx.api.request<ViewsAnswer>(documents.VIEWS, { profile }, ctx.signal),
      ]);
      if (ctx.signal.aborted) return;
      if (!detail) {
        this.#heading.textContent = 'No such profile';
        ctx.main.replaceChildren(
          this.#heading,
          h(
            'p',
            null,
            `There is no profile “${profile}”. `,
            h('a', { href: '#/profiles' }, 'See the profiles.'),
          ),
        );
        regainFocus(this.#heading);
        return;
      }
      const views = answer.assetProfiles?.byId?.viewConfigurations ?? [];
      this.#heading.textContent = `Views of ${detail.title}`;
      const rows = views.map((v) =>
        h(
          'tr',
          null,
          h(
            'th',
            { scope: 'row' },
            h(
              'a',
              { href: viewsHref({ name: 'view', profile, view: v.id, media: 'WEB', asset: null }) },
              v.name || v.id,
            ),
          ),
          h('td', null, h('code', null, v.id)),
          h(
            'td',
            null,
            MEDIA_TYPES.filter((m) => layoutOf(v, m)).flatMap((m, i) => [
              i > 0 ? ', ' : null,
              h(
                'a',
                { href: viewsHref({ name: 'view', profile, view: v.id, media: m, asset: null }) },
                `${MEDIA_LABELS[m]} (${layoutOf(v, m)!.length} widgets)`,
              ),
            ]),
          ),
          h('td', { class: 'num' }, String(v.version)),
        ),
      );
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
          ' / Views',
        ),
        this.#heading,
        views.length === 0
          ? h(
              'p',
              { class: 'lead' },
              'This profile has no view configurations yet (updateAssetProfileViewConfiguration makes one).',
            )
          : h(
              'table',
              { class: 'data', id: 'views' },
              h('caption', { class: 'visually-hidden' }, `View configurations of ${detail.title}`),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  h('th', { scope: 'col' }, 'View'),
                  h('th', { scope: 'col' }, 'Id'),
                  h('th', { scope: 'col' }, 'Layouts'),
                  h('th', { scope: 'col', class: 'num' }, 'Version'),
                ),
              ),
              h('tbody', null, rows),
            ),
      );
      regainFocus(this.#heading);
    } catch (e) {
      ctx.fail(e);
    }
  }
}
