// The asset page's change history (`Asset.history`, docs/events.md): newest first, a page at a
// time, each change with its kind, who made it, when, and each changed member before and after.
// The API pages it forwards only (`first`/`after`): the way back is the cursors of the pages seen.

import { HISTORY } from './asset-documents.ts';
import { actorText, changedKeys, KIND_TEXT, keyLabel, memberText } from './changes.ts';
import { focus, h } from './dom.ts';
import type { PropertyDefinition } from './format.ts';
import type { ChangeEvent } from './live.ts';
import { formatTime } from './time-format.ts';
import type { ViewContext } from './view.ts';

/** Changes a page of the history. */
export const HISTORY_PAGE = 10;

interface HistoryPage {
  edges: { node: ChangeEvent }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export class HistorySection {
  readonly element: HTMLElement;
  readonly #ctx: ViewContext;
  readonly #asset: { profile: string; id: string };
  #definitions: readonly PropertyDefinition[] = [];
  /** The `after` of each page from the newest to the one shown (null: the first). */
  #trail: (string | null)[] = [null];
  #page: HistoryPage | null = null;
  #asked = 0;
  readonly #list = h('div', {
    class: 'history',
    id: 'history',
    role: 'region',
    'aria-label': 'Changes',
    tabindex: 0,
  });
  readonly #summary = h('p', { class: 'summary', id: 'history-summary', 'aria-live': 'polite' });
  readonly #newer = h('button', { type: 'button', id: 'newer-changes', disabled: true }, 'Newer changes');
  readonly #older = h('button', { type: 'button', id: 'older-changes', disabled: true }, 'Older changes');

  constructor(ctx: ViewContext, asset: { profile: string; id: string }) {
    this.#ctx = ctx;
    this.#asset = asset;
    this.#newer.addEventListener('click', () => this.#turn('newer'));
    this.#older.addEventListener('click', () => this.#turn('older'));
    this.element = h(
      'section',
      { class: 'panel wide', 'aria-labelledby': 'history-heading' },
      h('h2', { id: 'history-heading' }, 'History'),
      this.#summary,
      this.#list,
      h('nav', { class: 'pager', 'aria-label': 'Pages of the history' }, this.#newer, this.#older),
    );
  }

  /** The profile's definitions, to name the properties changed. */
  set definitions(definitions: readonly PropertyDefinition[]) {
    this.#definitions = definitions;
  }

  /** Reads the newest page; later, after a change, only if the newest page is the one shown. */
  async refresh(): Promise<void> {
    if (this.#trail.length > 1) return;
    await this.#load(null);
  }

  #turn(direction: 'newer' | 'older'): void {
    const after = direction === 'older' ? (this.#page?.pageInfo.endCursor ?? null) : null;
    if (direction === 'older' && !after) return;
    if (direction === 'newer' && this.#trail.length < 2) return;
    const trail = direction === 'older' ? [...this.#trail, after] : this.#trail.slice(0, -1);
    void this.#load(trail[trail.length - 1] ?? null, trail)
      .then(() => {
        const pressed = direction === 'older' ? this.#older : this.#newer;
        const other = direction === 'older' ? this.#newer : this.#older;
        if (pressed.disabled) focus(other.disabled ? this.#summary : other);
      })
      .catch((e) => this.#ctx.fail(e));
  }

  async #load(after: string | null, trail: (string | null)[] = [null]): Promise<void> {
    const asked = ++this.#asked;
    this.#list.setAttribute('aria-busy', 'true');
    let data: { assets: { byId: { history: HistoryPage } | null } | null };
    try {
      data = await this.#ctx.api.request(
        HISTORY,
        { ...this.#asset, first: HISTORY_PAGE, after },
        this.#ctx.signal,
      );
    } finally {
      if (asked === this.#asked) this.#list.removeAttribute('aria-busy');
    }
    if (asked !== this.#asked || this.#ctx.signal.aborted) return;
    const page = data.assets?.byId?.history ?? {
      edges: [],
      pageInfo: { hasNextPage: false, endCursor: null },
    };
    this.#page = page;
    this.#trail = trail;
    const start = (trail.length - 1) * HISTORY_PAGE;
    const n = page.edges.length;
    this.#summary.textContent =
      n === 0
        ? 'No changes recorded.'
        : `Changes ${start + 1}–${start + n}, newest first${page.pageInfo.hasNextPage ? '' : ' (the oldest is the last)'}`;
    this.#list.replaceChildren(n === 0 ? '' : this.#table(page.edges.map((e) => e.node)));
    this.#newer.disabled = trail.length < 2;
    this.#older.disabled = !page.pageInfo.hasNextPage;
  }

  #table(changes: readonly ChangeEvent[]): HTMLElement {
    return h(
      'table',
      { class: 'data changes' },
      h('caption', { class: 'visually-hidden' }, 'Changes of the asset, newest first'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'When'),
          h('th', { scope: 'col' }, 'Change'),
          h('th', { scope: 'col' }, 'By'),
          h('th', { scope: 'col' }, 'What changed'),
        ),
      ),
      h(
        'tbody',
        null,
        changes.map((c) => this.#row(c)),
      ),
    );
  }

  #row(change: ChangeEvent): HTMLElement {
    const keys = changedKeys(change.before, change.after);
    const definitions = this.#definitions;
    return h(
      'tr',
      { 'data-cursor': change.cursor },
      h('th', { scope: 'row' }, h('time', { datetime: change.at }, formatTime(change.at))),
      h(
        'td',
        null,
        `${KIND_TEXT[change.kind] ?? change.kind}`,
        h('span', { class: 'secondary' }, `version ${change.version}`),
      ),
      h('td', null, actorText(change.actor)),
      h(
        'td',
        null,
        keys.length === 0
          ? '—'
          : h(
              'ul',
              { class: 'changed-keys' },
              keys.map((k) => {
                const label = keyLabel(k.path, definitions);
                const before = memberText(k.path, k.before, definitions);
                const after = memberText(k.path, k.after, definitions);
                return h(
                  'li',
                  null,
                  h('span', { class: 'key' }, label),
                  ': ',
                  k.before === undefined
                    ? h('span', { class: 'after' }, after)
                    : k.after === undefined
                      ? [h('span', { class: 'before' }, before), ' (removed)']
                      : [
                          h('span', { class: 'before' }, before),
                          h('span', { 'aria-hidden': 'true' }, ' → '),
                          h('span', { class: 'visually-hidden' }, ' changed to '),
                          h('span', { class: 'after' }, after),
                        ],
                );
              }),
            ),
      ),
    );
  }
}
