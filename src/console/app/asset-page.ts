// #/profiles/:profile/assets/:id: one asset — its properties with their definitions and units,
// its latest readings with their times, a chart of a reading's history, the assets it leads to
// and those leading to it (links to their pages), its issues and its change history — kept up
// to date from the change stream while the page is open.
import { SessionEndedError } from './api.ts';
import { ChartSection } from './asset-chart.ts';
import { assetDocument, RELATIONSHIPS } from './asset-documents.ts';
import { HistorySection } from './asset-history.ts';
import type { AssetRoute } from './asset-route.ts';
import {
  type FullDefinition,
  type Issue,
  incomingList,
  issuesList,
  type LinkedAsset,
  outgoingList,
  propertiesTable,
  type Reading,
  readingsTable,
  relatedSection,
} from './asset-sections.ts';
import { changeSummary } from './changes.ts';
import { focus, h, regainFocus } from './dom.ts';
import { ChangeStream, LIVE_TEXT } from './live.ts';
import {
  type Incoming,
  incoming,
  outgoing,
  type ProfileRelationships,
  type RelationshipDefinition,
} from './relations.ts';
import { DEFAULT_PAGE_SIZE, href, type Route } from './router.ts';
import { formatTime } from './time-format.ts';
import type { View, ViewContext } from './view.ts';

interface AssetAnswer {
  id: string;
  profile: string;
  displayName: string;
  secondaryDisplayName: string | null;
  version: number;
  modifiedAt: string | null;
  isDeleted: boolean;
  properties: Record<string, unknown> | null;
  assetProfile: { profile: string; title: string; properties: FullDefinition[] | null } | null;
  latestObservations: Reading[];
  issueSubject: { issues: { edges: { node: Issue }[]; pageInfo: { hasNextPage: boolean } } } | null;
  [related: `r${number}`]: { asset?: LinkedAsset | null; assets?: LinkedAsset[] | null } | null;
}

/** How long the page waits for more changes before it reads the asset again. */
const SETTLE_MS = 300;

export class AssetView implements View {
  readonly #ctx: ViewContext;
  readonly #route: AssetRoute;
  readonly #heading = h('h1', { tabindex: -1 }, 'Asset');
  readonly #crumb = h('span', null, '…');
  readonly #profileLink = h('a', null, '');
  readonly #lead = h('p', { class: 'lead' });
  readonly #state = h('div', { class: 'asset-state' });
  readonly #status = h('p', { class: 'live', id: 'live-status' }, LIVE_TEXT.connecting);
  readonly #properties = h('div', {
    class: 'results',
    role: 'region',
    'aria-label': 'Properties',
    tabindex: 0,
  });
  readonly #readings = h('div', {
    class: 'results',
    role: 'region',
    'aria-label': 'Latest readings',
    tabindex: 0,
  });
  readonly #related = h('div', { id: 'related' });
  readonly #issues = h('div');
  readonly #chart: ChartSection;
  readonly #history: HistorySection;
  readonly #live: ChangeStream;
  #outgoing: RelationshipDefinition[] = [];
  #incoming: Incoming[] = [];
  #titles = new Map<string, string>();
  #definitions: FullDefinition[] = [];
  #pending: { summaries: string[]; timer: ReturnType<typeof setTimeout> | undefined } = {
    summaries: [],
    timer: undefined,
  };

  constructor(ctx: ViewContext, route: AssetRoute) {
    this.#ctx = ctx;
    this.#route = route;
    const asset = { profile: route.profile, id: route.id };
    this.#chart = new ChartSection(ctx, asset);
    this.#history = new HistorySection(ctx, asset);
    this.#live = new ChangeStream({
      api: ctx.api,
      filter: { entities: ['ASSET'], profiles: [route.profile], ids: [route.id] },
      signal: ctx.signal,
      onChange: (change) => this.#changed(changeSummary(change, this.#definitions)),
      onGap: () => this.#changed(null),
      onState: (state) => {
        this.#status.textContent = LIVE_TEXT[state];
      },
      onSessionEnded: () => ctx.fail(new SessionEndedError()),
    });
    ctx.signal.addEventListener('abort', () => clearTimeout(this.#pending.timer), { once: true });
    ctx.main.replaceChildren(
      this.#heading,
      h('p', { class: 'lead', 'aria-busy': 'true' }, 'Loading the asset…'),
    );
    focus(this.#heading);
    void this.#open();
  }

  update(route: Route): boolean {
    return route.name === 'asset' && route.profile === this.#route.profile && route.id === this.#route.id;
  }

  close(): void {
    // The stream and the requests stop with the context's signal, which the app aborts.
  }

  async #open(): Promise<void> {
    const ctx = this.#ctx;
    try {
      const [relations] = await Promise.all([
        ctx.api.request<{ assetProfiles: { all: { edges: { node: ProfileRelationships }[] } } | null }>(
          RELATIONSHIPS,
          {},
          ctx.signal,
        ),
        this.#live.begin(),
      ]);
      if (ctx.signal.aborted) return;
      const profiles = relations.assetProfiles?.all.edges.map((e) => e.node) ?? [];
      this.#titles = new Map(profiles.map((p) => [p.profile, p.title]));
      this.#outgoing = outgoing(
        profiles.find((p) => p.profile === this.#route.profile)?.relationships ?? null,
      );
      this.#incoming = incoming(this.#route.profile, profiles);
      if (!(await this.#read())) return;
      this.#layout();
      regainFocus(this.#heading);
      await this.#history.refresh();
      this.#live.start();
    } catch (e) {
      ctx.fail(e);
    }
  }

  /** Reads the asset and draws what depends on it; false (and says so) when there is no such asset. */
  async #read(): Promise<boolean> {
    const { profile, id } = this.#route;
    const variables: Record<string, unknown> = { profile, id };
    this.#outgoing.forEach((r, i) => {
      variables[`r${i}`] = r.relationship;
    });
    this.#incoming.forEach((r, i) => {
      variables[`ip${i}`] = r.from.profile;
      variables[`if${i}`] = { related: { relationship: r.relationship.relationship, some: { ids: [id] } } };
    });
    const data = await this.#ctx.api.request<
      { assets: { byId: AssetAnswer | null } | null } & Record<
        `i${number}`,
        Parameters<typeof incomingList>[1]
      >
    >(assetDocument(this.#outgoing.length, this.#incoming.length), variables, this.#ctx.signal);
    if (this.#ctx.signal.aborted) return false;
    const asset = data.assets?.byId;
    if (!asset) {
      this.#missing(data.assets === null);
      return false;
    }
    const title = asset.assetProfile?.title ?? profile;
    this.#definitions = asset.assetProfile?.properties ?? [];
    this.#history.definitions = this.#definitions;
    this.#heading.textContent = asset.displayName;
    this.#crumb.textContent = asset.displayName;
    this.#profileLink.textContent = title;
    this.#profileLink.setAttribute('href', href(listOf(profile)));
    this.#lead.replaceChildren(
      asset.secondaryDisplayName ? `${asset.secondaryDisplayName} · ` : '',
      `${title} `,
      h('code', null, asset.id),
      ` · version ${asset.version}`,
      ...(asset.modifiedAt
        ? [' · changed ', h('time', { datetime: asset.modifiedAt }, formatTime(asset.modifiedAt))]
        : []),
    );
    this.#state.replaceChildren(
      asset.isDeleted ? h('p', { class: 'warning', id: 'deleted' }, 'This asset is marked deleted.') : '',
    );
    const now = Date.now();
    keepFocus(this.#properties, () =>
      this.#properties.replaceChildren(propertiesTable(this.#definitions, asset.properties)),
    );
    keepFocus(this.#readings, () =>
      this.#readings.replaceChildren(readingsTable(asset.latestObservations, now)),
    );
    const out = this.#outgoing.map((r, i) => outgoingList(r, asset[`r${i}`], this.#titles));
    const into = this.#incoming.map((r, i) => incomingList(r, data[`i${i}`]));
    keepFocus(this.#related, () => this.#related.replaceChildren(...relatedSection(out, into)));
    const issues = asset.issueSubject?.issues;
    keepFocus(this.#issues, () =>
      this.#issues.replaceChildren(
        issuesList(issues?.edges.map((e) => e.node) ?? [], issues?.pageInfo.hasNextPage ?? false),
      ),
    );
    this.#chart.show(
      asset.latestObservations
        .filter((r) => typeof r.value === 'number')
        .map((r) => ({ property: r.property, unit: r.unit })),
    );
    return true;
  }

  #layout(): void {
    const section = (id: string, title: string, ...body: HTMLElement[]) =>
      h('section', { class: 'panel', 'aria-labelledby': id }, h('h2', { id }, title), ...body);
    this.#ctx.main.replaceChildren(
      h(
        'nav',
        { 'aria-label': 'Breadcrumb', class: 'crumbs' },
        h('a', { href: '#/profiles' }, 'Profiles'),
        ' / ',
        this.#profileLink,
        ' / ',
        this.#crumb,
      ),
      this.#heading,
      this.#lead,
      this.#status,
      this.#state,
      h(
        'div',
        { class: 'asset' },
        section('properties-heading', 'Properties', this.#properties),
        section('readings-heading', 'Latest readings', this.#readings),
        this.#chart.element,
        section('related-heading', 'Related assets', this.#related),
        section('issues-heading', 'Issues', this.#issues),
        this.#history.element,
      ),
    );
  }

  #missing(noProfile: boolean): void {
    const { profile, id } = this.#route;
    this.#heading.textContent = 'No such asset';
    this.#ctx.main.replaceChildren(
      this.#heading,
      h(
        'p',
        null,
        noProfile
          ? `Group ${this.#ctx.session.userGroup} has no profile “${profile}”. `
          : `Profile “${profile}” has no asset “${id}” (any more). `,
        h(
          'a',
          { href: noProfile ? '#/profiles' : href(listOf(profile)) },
          noProfile ? 'See the profiles.' : 'See its assets.',
        ),
      ),
    );
    regainFocus(this.#heading);
  }

  /** A change came (or the log must be read again): once they stop for a moment, all is read again. */
  #changed(summary: string | null): void {
    if (summary) this.#pending.summaries.push(summary);
    clearTimeout(this.#pending.timer);
    this.#pending.timer = setTimeout(() => void this.#refresh(), SETTLE_MS);
  }

  async #refresh(): Promise<void> {
    const summaries = this.#pending.summaries.splice(0);
    try {
      if (!(await this.#read())) return;
      await this.#history.refresh();
      if (summaries.length > 0) this.#ctx.announce(`This asset changed. ${summaries.join(' ')}`);
    } catch (e) {
      this.#ctx.fail(e);
    }
  }
}

/** The assets list of a profile, as it opens. */
function listOf(profile: string): Route {
  return { name: 'assets', profile, query: { search: '', filter: null, size: DEFAULT_PAGE_SIZE } };
}

/** Redraws `container`, giving the keyboard back to the same link (or element with an id) if it was inside. */
function keepFocus(container: HTMLElement, redraw: () => void): void {
  const active = document.activeElement;
  const inside = active instanceof HTMLElement && container.contains(active) && active !== container;
  const link = inside ? active.getAttribute('href') : null;
  const id = inside ? active.id : '';
  redraw();
  if (!inside) return;
  const selector = link ? `a[href="${CSS.escape(link)}"]` : id ? `#${CSS.escape(id)}` : null;
  focus((selector ? container.querySelector<HTMLElement>(selector) : null) ?? container);
}
