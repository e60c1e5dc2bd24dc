// Which properties the assets table shows: a few by default, then what the reader chose, kept in
// the browser per group and profile (a preference, nothing of the data).
import type { PropertyDefinition } from './format.ts';

/** How many properties a profile shows before the reader chooses. */
export const DEFAULT_COLUMNS = 3;

/** Where the console keeps preferences: `localStorage`, or anything as small in the tests. */
export interface Preferences {
  read(key: string): string | null;
  write(key: string, value: string): void;
}

/** The profile's display fields, which the table shows in its first column, not as properties. */
export interface DisplayFields {
  displayNameProperty: string;
  secondaryDisplayNameProperty: string | null;
}

/** The first few properties that are not already the asset's display name or its second line. */
export function defaultColumns(properties: readonly PropertyDefinition[], display: DisplayFields): string[] {
  return properties
    .map((p) => p.name)
    .filter((n) => n !== display.displayNameProperty && n !== display.secondaryDisplayNameProperty)
    .slice(0, DEFAULT_COLUMNS);
}

const key = (group: string, profile: string) => `assetql.console.v1.columns.${group}.${profile}`;

/**
 * The columns to show: the reader's choice of the properties the profile still has, in the
 * profile's order, or the defaults when there is none.
 */
export function loadColumns(
  preferences: Preferences,
  group: string,
  profile: string,
  properties: readonly PropertyDefinition[],
  display: DisplayFields,
): string[] {
  const stored = parseNames(preferences.read(key(group, profile)));
  if (!stored) return defaultColumns(properties, display);
  return properties.map((p) => p.name).filter((n) => stored.includes(n));
}

export function saveColumns(preferences: Preferences, group: string, profile: string, names: string[]): void {
  preferences.write(key(group, profile), JSON.stringify(names));
}

function parseNames(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;
  } catch (e) {
    if (e instanceof SyntaxError) return null;
    throw e;
  }
}

/** The browser's `localStorage`; a browser that refuses it (storage off, full) keeps nothing. */
export function browserPreferences(storage: Storage): Preferences {
  return {
    read(k) {
      try {
        return storage.getItem(k);
      } catch (e) {
        if (e instanceof DOMException) return null;
        throw e;
      }
    },
    write(k, value) {
      try {
        storage.setItem(k, value);
      } catch (e) {
        if (!(e instanceof DOMException)) throw e;
      }
    },
  };
}
