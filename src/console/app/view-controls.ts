// The controls above a view's layout: the media type (links, so that it is part of the address),
// the asset the widgets show, and the layout's actions: edit, save or discard, print the
// printable one, bring back a layout set aside; with the state of the layout in words.
import { h } from './dom.ts';
import { layoutOf, type ViewConfiguration } from './view-data.ts';
import { MEDIA_LABELS, MEDIA_TYPES, type MediaType, type ViewsRoute, viewsHref } from './views-route.ts';

export type ViewRoute = Extract<ViewsRoute, { name: 'view' }>;

export interface ControlsState {
  route: ViewRoute;
  view: ViewConfiguration | null;
  /** The assets to choose from, and the one shown. */
  choices: readonly { id: string; displayName: string }[];
  asset: string | null;
  /** Whether a media type's layout has changes not saved. */
  unsaved(media: MediaType): boolean;
  editing: boolean;
  saving: boolean;
  /** Whether a layout of this media type is set aside, to bring back. */
  aside: boolean;
}

export interface ControlsActions {
  pick(asset: string): void;
  edit(): void;
  stop(): void;
  save(): void;
  restore(): void;
}

export function viewControls(state: ControlsState, actions: ControlsActions): HTMLElement[] {
  const { route, view } = state;
  const media = h(
    'nav',
    { class: 'media-switch', 'aria-label': 'Media type' },
    h(
      'ul',
      null,
      MEDIA_TYPES.map((m) => {
        const none = view && !layoutOf(view, m) ? ' (none)' : '';
        const unsaved = state.unsaved(m) ? ' (unsaved)' : '';
        return h(
          'li',
          null,
          h(
            'a',
            { href: viewsHref({ ...route, media: m }), 'aria-current': m === route.media ? 'page' : null },
            `${MEDIA_LABELS[m]}${none}${unsaved}`,
          ),
        );
      }),
    ),
  );
  const select = h(
    'select',
    { id: 'view-asset', name: 'asset' },
    state.choices.map((c) =>
      h('option', { value: c.id, selected: c.id === state.asset }, `${c.displayName} (${c.id})`),
    ),
  );
  const pick = h(
    'form',
    { class: 'asset-pick' },
    h('label', { for: 'view-asset' }, 'Asset'),
    select,
    h('button', { type: 'submit' }, 'Show'),
  );
  pick.addEventListener('submit', (event) => {
    event.preventDefault();
    if (select.value) actions.pick(select.value);
  });
  return [media, pick, layoutActions(state, actions)];
}

function layoutActions(state: ControlsState, actions: ControlsActions): HTMLElement {
  const button = (label: string, id: string, action: () => void, primary = false, disabled = false) => {
    const b = h('button', { type: 'button', id, class: primary ? 'primary' : null, disabled }, label);
    b.addEventListener('click', action);
    return b;
  };
  const { route, view, editing, saving } = state;
  const dirty = state.unsaved(route.media);
  const words = saving
    ? 'Saving…'
    : dirty
      ? `Unsaved changes to the ${MEDIA_LABELS[route.media].toLowerCase()} layout.`
      : editing
        ? 'No changes yet.'
        : `Version ${view?.version ?? '—'}.`;
  return h(
    'div',
    { class: 'layout-actions' },
    editing
      ? [
          button('Save layout', 'save-layout', actions.save, true, !dirty || saving),
          button(dirty ? 'Discard changes' : 'Stop editing', 'stop-editing', actions.stop, false, saving),
        ]
      : button('Edit layout', 'edit-layout', actions.edit, false, !view || !layoutOf(view, route.media)),
    route.media === 'PRINTABLE' && !editing ? button('Print', 'print-view', () => window.print()) : null,
    state.aside ? button('Bring back my changes', 'restore-layout', actions.restore) : null,
    h('span', { class: 'layout-state', id: 'layout-state', 'aria-live': 'polite' }, words),
  );
}
