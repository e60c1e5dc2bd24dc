// What the views page shows when a save finds the layout changed by someone else meanwhile: what
// they changed, that the reader's own changes are kept, and the two ways on: overwrite theirs with
// the reader's, or load theirs (the reader's set aside, to bring back).
import { h } from './dom.ts';
import { changes } from './layout-grid.ts';
import type { Widget } from './view-data.ts';

export interface ConflictOptions {
  /** The media type's name, as the page says it ("Web"). */
  media: string;
  /** The layout as the reader read it, before their changes. */
  base: readonly Widget[];
  /** The layout stored now, or null when it was removed. */
  theirs: readonly Widget[] | null;
  version: number;
  overwrite(): void;
  loadTheirs(): void;
}

/** Their change in words: "Map moved; Details resized". */
export function describeChanges(base: readonly Widget[], theirs: readonly Widget[] | null): string {
  if (!theirs) return 'they removed this layout.';
  const names = new Map([...base, ...theirs].map((w) => [w.id, w.name]));
  const list = changes(base, theirs).map((c) => `${names.get(c.id) ?? c.id} ${c.change}`);
  return list.length > 0 ? `${list.join('; ')}.` : 'the widgets’ names or settings.';
}

export function conflictPanel(options: ConflictOptions): HTMLElement {
  const overwrite = h(
    'button',
    { type: 'button', class: 'primary', id: 'overwrite-layout' },
    'Overwrite with my layout',
  );
  const load = h('button', { type: 'button', id: 'load-their-layout' }, 'Load their layout');
  overwrite.addEventListener('click', () => options.overwrite());
  load.addEventListener('click', () => options.loadTheirs());
  return h(
    'section',
    { class: 'conflict', id: 'layout-conflict', 'aria-labelledby': 'conflict-title' },
    h('h2', { id: 'conflict-title', tabindex: -1 }, 'Someone else changed this layout'),
    h(
      'p',
      null,
      `While you edited, someone saved the ${options.media} layout of this view (it is now at version ${options.version}). `,
      'Your changes are not saved, and nothing of them is lost: they are still shown below.',
    ),
    h('p', { id: 'conflict-changes' }, 'What they changed: ', describeChanges(options.base, options.theirs)),
    h('div', { class: 'actions' }, overwrite, load),
    h('p', { class: 'hint' }, 'Loading theirs sets your layout aside: “Bring back my changes” restores it.'),
  );
}
