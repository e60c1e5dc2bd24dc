// A profile's assets list kept up to date: the profile's asset changes followed (live.ts), and
// the page shown read again once they stop coming for a moment, its changed rows marked, the
// keyboard left where it was, and the change said in the polite live region.
import { SessionEndedError } from './api.ts';
import { focus, h } from './dom.ts';
import { ChangeStream, LIVE_TEXT } from './live.ts';
import type { ViewContext } from './view.ts';

/** How long the list waits for more changes before it reads the page again. */
const SETTLE_MS = 400;

export interface LiveList {
  /** The line that says whether the list is live. */
  status: HTMLElement;
  /** Call before the list is first read: changes from then on are followed. */
  begin(): Promise<void>;
  /** Starts following (after the first page is shown). */
  start(): void;
}

/**
 * Follows the asset changes of `profile`; `region` holds the table (rows with `data-id`; marked
 * `aria-busy` while a page is read), `reload` reads the page shown again.
 */
export function liveList(
  ctx: ViewContext,
  profile: string,
  region: HTMLElement,
  reload: () => Promise<void>,
): LiveList {
  const status = h('p', { class: 'live', id: 'live-status' }, LIVE_TEXT.connecting);
  const changed = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settle = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), SETTLE_MS);
  };
  ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });

  async function refresh(): Promise<void> {
    // A page being read (the reader paging) is left to finish: the list is read after it.
    if (region.getAttribute('aria-busy') === 'true') {
      settle();
      return;
    }
    const ids = [...changed];
    changed.clear();
    const focused = document.activeElement;
    const kept = focused instanceof HTMLElement && region.contains(focused) ? focusKey(focused) : null;
    try {
      await reload();
    } catch (e) {
      ctx.fail(e);
      return;
    }
    if (ctx.signal.aborted) return;
    let shown = 0;
    for (const row of region.querySelectorAll<HTMLTableRowElement>('tr[data-id]')) {
      if (!ids.includes(row.dataset.id ?? '')) continue;
      row.classList.add('changed');
      shown += 1;
    }
    if (kept) focus(region.querySelector<HTMLElement>(kept) ?? region);
    const n = ids.length;
    if (n === 0) return; // read again after a gap in the log: nothing to name
    ctx.announce(
      `${n === 1 ? '1 asset' : `${n} assets`} changed; ${shown === 0 ? 'the list is up to date' : `${shown} on this page, marked`}.`,
    );
  }

  const stream = new ChangeStream({
    api: ctx.api,
    filter: { entities: ['ASSET'], profiles: [profile] },
    signal: ctx.signal,
    onChange: (change) => {
      if (change.entityId) changed.add(change.entityId);
      settle();
    },
    onGap: settle,
    onState: (state) => {
      status.textContent = LIVE_TEXT[state];
    },
    onSessionEnded: () => ctx.fail(new SessionEndedError()),
  });
  return { status, begin: () => stream.begin(), start: () => stream.start() };
}

/** A selector that finds the same control in the table drawn again: a row's link by its address. */
function focusKey(element: HTMLElement): string | null {
  const href = element.getAttribute('href');
  if (href) return `a[href="${CSS.escape(href)}"]`;
  return null;
}
