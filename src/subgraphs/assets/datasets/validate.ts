import { ok } from '../../../shared/result.ts';
import {
  type IncomingAsset,
  invalidRow,
  MAX_ID_LENGTH,
  type PreparedProfile,
  type ValidationResult,
  validateAsset,
} from '../import/validate.ts';
import type { DatasetRow, ObservationRow } from './rows.ts';

/**
 * How the columns of one up dataset become properties: mapped columns are renamed, the others
 * keep their names. Build once per import.
 */
export interface DatasetColumns {
  dataset: string;
  /** column → property, for mapped columns */
  renames: Map<string, string>;
}

export function datasetColumns(prepared: PreparedProfile, dataset: string): DatasetColumns {
  return {
    dataset,
    renames: new Map(
      prepared.profile.propertyMaps.filter((m) => m.dataset === dataset).map((m) => [m.column, m.property]),
    ),
  };
}

/**
 * Checks one row of an up dataset: each column, renamed by the property maps, must be a
 * property of the profile and hold a value of its type (required properties are checked on
 * the merge). The row keeps the dataset's column names.
 */
export function validateDatasetRow(
  prepared: PreparedProfile,
  columns: DatasetColumns,
  asset: IncomingAsset,
  options: { source?: 'text' | 'json' } = {},
): ValidationResult<DatasetRow> {
  const properties: Record<string, unknown> = {};
  const columnOf = new Map<string, string>();
  const errors: string[] = [];
  for (const [column, value] of Object.entries(asset.properties)) {
    const property = columns.renames.get(column) ?? column;
    const other = columnOf.get(property);
    if (other !== undefined) {
      errors.push(`columns ${other} and ${column} both fill ${property}`);
      continue;
    }
    columnOf.set(property, column);
    properties[property] = value;
  }
  const checked = validateAsset(prepared, { ...asset, properties }, { ...options, partial: true });
  if (!checked.ok || errors.length > 0) {
    // Name the column the file has, with the property it fills when they differ.
    const named = (checked.ok ? [] : (checked.details ?? [checked.message])).map((e) => {
      const m = /^([^:]+): /.exec(e);
      const column = m ? columnOf.get(m[1]!) : undefined;
      return column && column !== m![1] ? `${column} (${m![1]})${e.slice(m![1]!.length)}` : e;
    });
    return invalidRow([...errors, ...named]);
  }
  const values: Record<string, unknown> = {};
  for (const [property, value] of Object.entries(checked.value.properties))
    values[columnOf.get(property) ?? property] = value;
  return ok({ id: checked.value.id, values, geometry: checked.value.geometry });
}

/** The column (CSV) or property (NDJSON, GeoJSON) that says when a state row was observed. */
export const OBSERVED_AT = 'observedAt';

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Checks one observation: an id, an `observedAt` date-time with an offset, and at least one
 * value. Keys are free (telemetry need not be a profile property). From text (CSV) a number
 * or `true`/`false` becomes one; an empty cell is absent.
 */
export function validateObservation(
  asset: IncomingAsset,
  options: { source?: 'text' | 'json' } = {},
): ValidationResult<ObservationRow> {
  const errors: string[] = asset.errors ? [...asset.errors] : [];
  const text = options.source === 'text';
  let id = '';
  if (typeof asset.id !== 'string' || asset.id.trim() === '') errors.push('id: missing');
  else if (asset.id.length > MAX_ID_LENGTH) errors.push(`id: longer than ${MAX_ID_LENGTH} characters`);
  else id = asset.id;
  if (asset.geometry !== undefined && asset.geometry !== null && asset.geometry !== '')
    errors.push('geometry: an observation has none');
  const at = asset.properties[OBSERVED_AT];
  let observedAt = '';
  if (typeof at !== 'string' || !DATE_TIME.test(at.trim()) || Number.isNaN(Date.parse(at.trim())))
    errors.push(
      `${OBSERVED_AT}: ${at === undefined || at === '' ? 'missing' : 'not an ISO 8601 date-time with an offset'}`,
    );
  else observedAt = at.trim();
  const values: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(asset.properties)) {
    if (key === OBSERVED_AT || raw === undefined || raw === null || (text && raw === '')) continue;
    if (!KEY.test(key)) {
      errors.push(`${key}: not a valid key`);
      continue;
    }
    let value = raw;
    if (text && typeof raw === 'string') {
      const s = raw.trim();
      value =
        NUMBER.test(s) && Number.isFinite(Number(s))
          ? Number(s)
          : s === 'true'
            ? true
            : s === 'false'
              ? false
              : raw;
    }
    if (JSON.stringify(value).includes('\\u0000')) {
      errors.push(`${key}: contains a NUL character`);
      continue;
    }
    values[key] = value;
  }
  if (Object.keys(values).length === 0 && errors.length === 0) errors.push('no values');
  if (errors.length > 0) return invalidRow(errors);
  return ok({ id, observedAt, values });
}
