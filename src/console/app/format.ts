// How values read in the console: numbers in the reader's locale with their unit, counts as the
// API bounds them (`totalCount` stops at 10,000 and says so).

/** A profile's property, as the console asks for it (`AssetPropertyDefinition`). */
export interface PropertyDefinition {
  name: string;
  title: string | null;
  type: string;
  unit: string | null;
  description?: string | null;
}

/** What an empty value shows. */
export const EMPTY = '—';

/** A property value as text: numbers with their unit, booleans as Yes/No, JSON as JSON. */
export function formatValue(value: unknown, definition?: PropertyDefinition, locale?: string): string {
  if (value === null || value === undefined || value === '') return EMPTY;
  if (typeof value === 'number') {
    const text = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 }).format(value);
    return definition?.unit ? `${text} ${definition.unit}` : text;
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Whether a property's values line up on the right (numbers do). */
export function numeric(definition: PropertyDefinition): boolean {
  return definition.type === 'NUMBER' || definition.type === 'INTEGER';
}

/** A column's heading: the property's title (else its name), with its unit. */
export function columnLabel(definition: PropertyDefinition): string {
  const title = definition.title || definition.name;
  return definition.unit ? `${title} (${definition.unit})` : title;
}

/** How many assets a listing holds: `totalCount` is exact up to 10,000. */
export function countText(total: number, exact: boolean, locale?: string): string {
  const n = new Intl.NumberFormat(locale).format(total);
  if (!exact) return `More than ${n} assets`;
  return total === 1 ? '1 asset' : `${n} assets`;
}

/** Which rows a page shows, 1-based: "Showing 11–20 of 24 assets". */
export function pageText(
  start: number,
  rows: number,
  total: number,
  exact: boolean,
  locale?: string,
): string {
  if (rows === 0)
    return total === 0 ? 'No assets match.' : `${countText(total, exact, locale)}; none on this page.`;
  const f = new Intl.NumberFormat(locale);
  const of = exact ? countText(total, exact, locale) : `more than ${f.format(total)} assets`;
  return `Showing ${f.format(start + 1)}–${f.format(start + rows)} of ${of}`;
}
