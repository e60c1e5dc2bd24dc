// The saved selection filters of a profile, each a link that applies it, and the form that saves
// the current filter (the applied one and the search together) as a new one.
import { type Api, payloadError } from './api.ts';
import * as documents from './documents.ts';
import { busy, field, focus, h, say } from './dom.ts';
import { type AssetFilter, filterId, type SavedFilter, type SubProfileInput } from './filters.ts';
import { type AssetsQuery, assetsRoute, href } from './router.ts';

/** The longest description a saved filter keeps (the API's bound). */
const MAX_DESCRIPTION = 20_000;
/** How many ids a save tries when the name's id is taken: `name`, `name-2`, … */
const MAX_ATTEMPTS = 20;

export interface FilterToSave {
  filter: AssetFilter | null;
  subProfiles: SubProfileInput[];
  /** What the filter is made of, in words: the applied filter's name, the search. */
  summary: string;
}

export interface FiltersPanelOptions {
  api: Api;
  profile: string;
  /** The filters of this profile. */
  filters: SavedFilter[];
  query: AssetsQuery;
  /** What "Save" would save. */
  current: FilterToSave;
  /** After a save: the new filter's id and name. */
  saved(id: string, displayName: string): void;
  fail(error: unknown): void;
}

/** The panel: its filters as links (the applied one marked current), then the save form. */
export function filtersPanel(options: FiltersPanelOptions): HTMLElement {
  const { profile, query } = options;
  const link = (filter: SavedFilter | null) =>
    h(
      'a',
      {
        href: href(assetsRoute(profile, query, { filter: filter?.id ?? null })),
        'aria-current': (filter?.id ?? null) === query.filter ? 'true' : false,
      },
      filter?.displayName ?? 'No saved filter',
    );
  return h(
    'aside',
    { class: 'filters', 'aria-labelledby': 'filters-title' },
    h('h2', { id: 'filters-title' }, 'Saved filters'),
    h(
      'ul',
      { class: 'filter-list', id: 'saved-filters' },
      h('li', null, link(null)),
      options.filters.map((f) =>
        h('li', null, link(f), f.description ? h('p', { class: 'hint' }, f.description) : null),
      ),
    ),
    options.filters.length === 0
      ? h('p', { class: 'hint' }, 'No filters are saved for this profile yet.')
      : null,
    saveForm(options),
  );
}

function saveForm(options: FiltersPanelOptions): HTMLFormElement {
  const error = h('p', { class: 'error', role: 'alert' });
  const name = h('input', { id: 'filter-name', name: 'name', required: true, maxlength: 500 });
  const form = h(
    'form',
    { class: 'stack save-filter', 'aria-labelledby': 'save-filter-title' },
    h('h3', { id: 'save-filter-title' }, 'Save the current filter'),
    h('p', { class: 'hint', id: 'save-filter-what' }, options.current.summary),
    h('label', { for: 'filter-name' }, 'Filter name'),
    name,
    h('label', { for: 'filter-description' }, 'Description (optional)'),
    h('textarea', { id: 'filter-description', name: 'description', rows: 2, maxlength: MAX_DESCRIPTION }),
    error,
    h('button', { type: 'submit' }, 'Save filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    say(error, '');
    if (!options.current.filter) {
      say(error, 'There is nothing to save yet: search, or apply a saved filter, first.');
      return;
    }
    const displayName = field(form, 'name');
    const description = field(form, 'description');
    void busy(form, () => save(options, displayName, description || null))
      .then((outcome) => {
        if ('refused' in outcome) {
          say(error, outcome.refused);
          focus(name);
        } else options.saved(outcome.id, displayName);
      })
      .catch(options.fail);
  });
  return form;
}

/** Saves under the name's id, or the next free one of `name-2`, `name-3`, … */
async function save(
  options: FiltersPanelOptions,
  displayName: string,
  description: string | null,
): Promise<{ id: string } | { refused: string }> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const id = filterId(displayName, attempt);
    const data = await options.api.request<{
      createAssetFilter: {
        errors: { type: string; message: string }[];
        assetFilter: { id: string } | null;
      } | null;
    }>(documents.CREATE_FILTER, {
      input: {
        id,
        displayName,
        description,
        profile: options.profile,
        filter: options.current.filter,
        subProfiles: options.current.subProfiles,
      },
    });
    const result = data.createAssetFilter;
    if (result?.errors.some((e) => e.type === 'DUPLICATE_ID')) continue;
    const refusal = payloadError(result?.errors);
    if (refusal !== null) return { refused: refusal };
    if (result?.assetFilter) return { id: result.assetFilter.id };
    return { refused: 'The filter was not saved. Try again.' };
  }
  return { refused: 'Every id made from this name is taken: choose another name.' };
}
