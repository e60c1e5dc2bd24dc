// A page of a profile's assets as a table: the display name (with its second line) as each row's
// header, the id, then the properties the reader chose; and the chooser of those properties.
import { assetHref } from './asset-route.ts';
import type { ProfileDetail } from './data.ts';
import { h } from './dom.ts';
import { columnLabel, formatValue, numeric, type PropertyDefinition } from './format.ts';

/** One asset as the list asks for it. */
export interface AssetRow {
  id: string;
  displayName: string;
  secondaryDisplayName: string | null;
  properties: Record<string, unknown> | null;
}

function definitions(profile: ProfileDetail, columns: readonly string[]): PropertyDefinition[] {
  return columns
    .map((name) => profile.properties.find((p) => p.name === name))
    .filter((p): p is PropertyDefinition => p !== undefined);
}

/** The table of `rows`, with a column for each of `columns` (property names). */
export function assetsTable(profile: ProfileDetail, columns: readonly string[], rows: readonly AssetRow[]) {
  const shown = definitions(profile, columns);
  const body = rows.map((asset) =>
    h(
      'tr',
      { 'data-id': asset.id },
      h(
        'th',
        { scope: 'row' },
        h(
          'a',
          { class: 'name', href: assetHref({ profile: profile.profile, id: asset.id }) },
          asset.displayName,
        ),
        asset.secondaryDisplayName ? h('span', { class: 'secondary' }, asset.secondaryDisplayName) : null,
      ),
      h('td', null, h('code', null, asset.id)),
      shown.map((p) =>
        h('td', { class: numeric(p) ? 'num' : null }, formatValue(asset.properties?.[p.name], p)),
      ),
    ),
  );
  return h(
    'table',
    { class: 'data', id: 'assets' },
    h('caption', { class: 'visually-hidden' }, `Assets of profile ${profile.title}`),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'Display name'),
        h('th', { scope: 'col' }, 'Id'),
        shown.map((p) =>
          h(
            'th',
            { scope: 'col', class: numeric(p) ? 'num' : null, title: p.description ?? null },
            columnLabel(p),
          ),
        ),
      ),
    ),
    h(
      'tbody',
      null,
      body.length > 0
        ? body
        : h('tr', null, h('td', { colspan: 2 + shown.length, class: 'empty' }, 'No assets match.')),
    ),
  );
}

/**
 * A disclosure of checkboxes, one a property of the profile, checked for those shown; `changed`
 * gets the names checked, in the profile's order, after each change.
 */
export function columnPicker(
  profile: ProfileDetail,
  columns: readonly string[],
  changed: (names: string[]) => void,
): HTMLDetailsElement {
  const boxes = profile.properties.map((p) => {
    const id = `column-${p.name}`;
    const box = h('input', { type: 'checkbox', id, value: p.name, checked: columns.includes(p.name) });
    box.addEventListener('change', () => changed(boxes.filter((b) => b.box.checked).map((b) => b.box.value)));
    return { box, row: h('div', { class: 'check' }, box, h('label', { for: id }, columnLabel(p))) };
  });
  return h(
    'details',
    { class: 'columns' },
    h('summary', null, 'Columns'),
    h(
      'fieldset',
      null,
      h('legend', null, 'Properties shown'),
      boxes.map((b) => b.row),
    ),
  );
}
