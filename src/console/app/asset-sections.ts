// What the asset page shows of one read of the asset: its properties with their definitions, its
// latest readings with their times, its relationships both ways as links, and its issues.
import { RELATED_SHOWN } from './asset-documents.ts';
import { assetHref } from './asset-route.ts';
import { h } from './dom.ts';
import { EMPTY, formatValue, type PropertyDefinition } from './format.ts';
import { type Incoming, type RelationshipDefinition, relationshipLabel } from './relations.ts';
import { formatTime, timeAgo } from './time-format.ts';

/** A property's definition as the asset page asks for it. */
export interface FullDefinition extends PropertyDefinition {
  required: boolean;
  enumValues: string[] | null;
  extension: string | null;
}

export interface LinkedAsset {
  id: string;
  profile: string;
  displayName: string;
  secondaryDisplayName: string | null;
}

export interface Reading {
  property: string;
  value: unknown;
  at: string | null;
  unit: string | null;
}

export interface Issue {
  id: string;
  displayName: string;
  description: string | null;
  status: string;
  createdAt: string;
  audit: { createdBy: { userId: string } } | null;
}

/** The assets one relationship reaches (or, turned round, the assets that reach this one). */
export interface RelatedList {
  label: string;
  /** The profile the assets are of, by its title. */
  profileTitle: string;
  assets: LinkedAsset[];
  /** How many there are in all, when more than those listed; `exact` false past 10,000. */
  total: { count: number; exact: boolean } | null;
}

const TYPE_TEXT: Record<string, string> = {
  STRING: 'Text',
  NUMBER: 'Number',
  INTEGER: 'Whole number',
  BOOLEAN: 'Yes or no',
  DATE: 'Date',
  DATE_TIME: 'Date and time',
  ENUM: 'One of a list',
  JSON: 'JSON',
};

/** A property's definition in words: "Number in m; required; from extension x." */
export function definitionText(d: FullDefinition): string {
  const parts = [`${TYPE_TEXT[d.type] ?? d.type}${d.unit ? ` in ${d.unit}` : ''}`];
  if (d.type === 'ENUM' && d.enumValues?.length) parts[0] = `One of ${d.enumValues.join(', ')}`;
  if (d.required) parts.push('required');
  if (d.extension) parts.push(`from extension ${d.extension}`);
  return `${parts.join('; ')}.`;
}

export function propertiesTable(
  definitions: readonly FullDefinition[],
  values: Record<string, unknown> | null,
): HTMLElement {
  const known = new Set(definitions.map((d) => d.name));
  const others = Object.keys(values ?? {}).filter((k) => !known.has(k));
  return h(
    'table',
    { class: 'data', id: 'properties' },
    h('caption', { class: 'visually-hidden' }, 'Properties'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'Property'),
        h('th', { scope: 'col' }, 'Value'),
        h('th', { scope: 'col' }, 'Definition'),
      ),
    ),
    h(
      'tbody',
      null,
      definitions.map((d) =>
        h(
          'tr',
          { 'data-property': d.name },
          h('th', { scope: 'row' }, d.title || d.name, h('code', { class: 'secondary' }, d.name)),
          h('td', null, formatValue(values?.[d.name], d)),
          h(
            'td',
            null,
            d.description ? h('span', { class: 'description' }, d.description) : null,
            h('span', { class: 'secondary' }, definitionText(d)),
          ),
        ),
      ),
      others.map((k) =>
        h(
          'tr',
          { 'data-property': k },
          h('th', { scope: 'row' }, h('code', null, k)),
          h('td', null, formatValue(values?.[k])),
          h('td', null, h('span', { class: 'secondary' }, 'Not defined by the profile.')),
        ),
      ),
    ),
  );
}

export function readingsTable(readings: readonly Reading[], now: number): HTMLElement {
  if (readings.length === 0) return h('p', { class: 'hint' }, 'No readings recorded.');
  return h(
    'table',
    { class: 'data', id: 'readings' },
    h('caption', { class: 'visually-hidden' }, 'Latest readings'),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'Reading'),
        h('th', { scope: 'col', class: 'num' }, 'Value'),
        h('th', { scope: 'col' }, 'Observed'),
      ),
    ),
    h(
      'tbody',
      null,
      readings.map((r) =>
        h(
          'tr',
          { 'data-reading': r.property },
          h('th', { scope: 'row' }, r.property),
          h(
            'td',
            { class: 'num' },
            formatValue(r.value, { name: r.property, title: null, type: 'NUMBER', unit: r.unit }),
          ),
          h(
            'td',
            null,
            r.at
              ? [
                  h('time', { datetime: r.at }, formatTime(r.at)),
                  h('span', { class: 'secondary' }, timeAgo(r.at, now)),
                ]
              : EMPTY,
          ),
        ),
      ),
    ),
  );
}

/** One relationship's list of links, under its heading. */
function relatedList(list: RelatedList, index: number, way: 'out' | 'in'): HTMLElement {
  const id = `related-${way}-${index}`;
  const more =
    list.total && list.total.count > list.assets.length
      ? `The first ${list.assets.length} of ${list.total.exact ? '' : 'more than '}${list.total.count}.`
      : null;
  return h(
    'div',
    { class: 'related' },
    h('h3', { id }, list.label, h('span', { class: 'secondary' }, ` ${list.profileTitle}`)),
    list.assets.length === 0
      ? h('p', { class: 'hint' }, 'None.')
      : h(
          'ul',
          { 'aria-labelledby': id },
          list.assets.map((a) =>
            h(
              'li',
              null,
              h('a', { href: assetHref(a) }, a.displayName),
              a.secondaryDisplayName
                ? h('span', { class: 'secondary-inline' }, ` ${a.secondaryDisplayName}`)
                : null,
              ' ',
              h('code', null, a.id),
            ),
          ),
        ),
    more ? h('p', { class: 'hint' }, more) : null,
  );
}

export function relatedSection(
  outgoing: readonly RelatedList[],
  incoming: readonly RelatedList[],
): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (outgoing.length === 0 && incoming.length === 0)
    return [h('p', { class: 'hint' }, 'Its profile has no relationships, and none leads to it.')];
  out.push(...outgoing.map((l, i) => relatedList(l, i, 'out')));
  if (incoming.length > 0) {
    out.push(h('h3', { class: 'subhead' }, 'Leading here'));
    out.push(...incoming.map((l, i) => relatedList(l, i, 'in')));
  }
  return out;
}

/** The assets an outgoing relationship reached, as the asset query answered. */
export function outgoingList(
  r: RelationshipDefinition,
  answer: { asset?: LinkedAsset | null; assets?: LinkedAsset[] | null } | null | undefined,
  titles: ReadonlyMap<string, string>,
): RelatedList {
  const all = answer?.assets ?? (answer?.asset ? [answer.asset] : []);
  return {
    label: relationshipLabel(r),
    profileTitle: titles.get(r.profile) ?? r.profile,
    assets: all.slice(0, RELATED_SHOWN),
    total: all.length > RELATED_SHOWN ? { count: all.length, exact: true } : null,
  };
}

/** The assets an incoming relationship reaches this one from. */
export function incomingList(
  r: Incoming,
  answer:
    | {
        all: {
          totalCount: number | null;
          totalCountIsExact: boolean | null;
          edges: ({ node: LinkedAsset | null } | null)[] | null;
        };
      }
    | null
    | undefined,
): RelatedList {
  const assets = (answer?.all.edges ?? []).flatMap((e) => (e?.node ? [e.node] : []));
  const count = answer?.all.totalCount ?? assets.length;
  return {
    label: `${r.from.title} by “${relationshipLabel(r.relationship)}”`,
    profileTitle: r.from.title,
    assets,
    total: count > assets.length ? { count, exact: answer?.all.totalCountIsExact ?? true } : null,
  };
}

const STATUS_TEXT: Record<string, string> = {
  OPEN: 'Open',
  IN_PROGRESS: 'In progress',
  RESOLVED: 'Resolved',
  CLOSED: 'Closed',
};

export function issuesList(issues: readonly Issue[], more: boolean): HTMLElement {
  if (issues.length === 0) return h('p', { class: 'hint' }, 'No issues about this asset.');
  return h(
    'div',
    null,
    h(
      'ul',
      { class: 'issues', id: 'issues' },
      issues.map((i) =>
        h(
          'li',
          null,
          h('span', { class: `badge status-${i.status.toLowerCase()}` }, STATUS_TEXT[i.status] ?? i.status),
          ' ',
          h('strong', null, i.displayName),
          h(
            'span',
            { class: 'secondary' },
            'Opened ',
            h('time', { datetime: i.createdAt }, formatTime(i.createdAt)),
            i.audit ? ` by ${i.audit.createdBy.userId}` : '',
          ),
          i.description ? h('p', null, i.description) : null,
        ),
      ),
    ),
    more ? h('p', { class: 'hint' }, `The newest ${issues.length} are listed.`) : null,
  );
}
