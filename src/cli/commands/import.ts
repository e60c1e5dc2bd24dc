import { statSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { systemClock } from '../../shared/clock.ts';
import type { Database } from '../../storage/database.ts';
import { profilesWithExtensions } from '../../subgraphs/assets/assets.repository.ts';
import { datasetKind } from '../../subgraphs/assets/datasets/plan.ts';
import {
  datasetColumns,
  OBSERVED_AT,
  validateDatasetRow,
  validateObservation,
} from '../../subgraphs/assets/datasets/validate.ts';
import {
  formatOf,
  IMPORT_FORMATS,
  ImportFileError,
  type ReadItem,
  readAssets,
} from '../../subgraphs/assets/import/readers.ts';
import {
  prepareProfile,
  type ValidationResult,
  validateAsset,
} from '../../subgraphs/assets/import/validate.ts';
import { effectiveProfile } from '../../subgraphs/assets/profiles/definition.ts';
import { TELEMETRY_LIMITS } from '../../subgraphs/assets/telemetry/record.ts';
import { TelemetryRetention } from '../../subgraphs/assets/telemetry/retention.ts';
import { writeUpDataset } from '../../subgraphs/assets/write/datasets.ts';
import { type ReadingBounds, writeObservations } from '../../subgraphs/assets/write/observations.ts';
import { DatasetWriteError } from '../../subgraphs/assets/write/types.ts';
import { upsertAssets } from '../../subgraphs/assets/write/upsert.ts';
import { withDatabase } from '../database.ts';
import { progress, round } from '../progress.ts';

/**
 * The times readings of `group` may take, as `recordObservations` allows them: within the
 * group's retention (readings older would be pruned at once), at most a day ahead.
 */
async function readingBounds(database: Database, group: string, defaultDays: number): Promise<ReadingBounds> {
  const days = await new TelemetryRetention(database.db, defaultDays, systemClock).daysOf(group);
  const now = Date.now();
  return {
    oldest: new Date(now - days * 86_400_000),
    newest: new Date(now + TELEMETRY_LIMITS.futureMs),
  };
}

/** Registers `assetql import` and `assetql demo generate`. */
export function importCommands(cli: Command): void {
  cli
    .command('import <file>')
    .description(
      'import assets of one profile from a CSV, GeoJSON or NDJSON file in one transaction: every row ' +
        'is validated as it is read; if any is bad, a JSON line per bad row is printed, nothing is ' +
        'written and the exit code is 1; otherwise all rows are upserted and a JSON summary is printed',
    )
    .requiredOption('--profile <profile>', 'the profile every row belongs to')
    .requiredOption('--group <group>', 'the group (tenant) to import into')
    .addOption(
      new Option('--format <format>', 'the file format (default: from the extension)').choices(
        IMPORT_FORMATS,
      ),
    )
    .option(
      '--dataset <dataset>',
      "a dataset declared by the profile: an up dataset's rows replace the assets' rows in it and the " +
        'assets are re-merged; a state dataset\'s rows are observations (an "observedAt" column)',
    )
    .addHelpText(
      'after',
      `
Formats:
  csv      header row; an "id" column, a column per property, and optionally "geometry"
           (GeoJSON text) or "longitude" and "latitude" (a point). An empty cell is absent.
  geojson  a FeatureCollection (.geojson, .json); feature.id or properties.id is the id.
  ndjson   one {"id", "properties", "geometry"} object per line (.ndjson, .jsonl).
An existing asset's properties are replaced; its geometry is kept when the row has none.
On a profile that declares up datasets, rows without --dataset are its "manual" layer.
With an up dataset, columns are renamed by the profile's property maps; with a state dataset,
each row is { id, observedAt, values... } and other columns are free keys (docs/assets.md).

The summary (JSON on stdout, exit code 0), besides profile, group, dataset and format:
  rows        rows read from the file: all valid, all written
  inserted    rows that created something: a new asset (with a state dataset, an observation
              at a time the asset had none)
  updated     rows that met an existing one: the asset, or its row in the up dataset, replaced
              (with a state dataset, the observation at that time, its values replaced)
  unchanged   of "updated", the assets that already held exactly the row's values and were
              left as they were, modified_at kept; only for a profile without up datasets
  method      "copy" (PostgreSQL COPY) or "insert" (PGlite)
  seconds, rowsPerSecond
With any bad row, one JSON line per bad row ({"line", "id", "errors"}, and "feature" for
GeoJSON) on stdout, nothing is written and the exit code is 1.`,
    )
    .action(
      async (file: string, o: { profile: string; group: string; format?: string; dataset?: string }) => {
        try {
          await importFile(file, o);
        } catch (e) {
          if (!(e instanceof ImportFileError) && !(e instanceof DatasetWriteError)) throw e;
          process.stderr.write(`assetql import: ${e.message}\n`);
          process.exitCode = 1;
        }
      },
    );
}

async function importFile(
  file: string,
  o: { profile: string; group: string; format?: string; dataset?: string },
): Promise<void> {
  const format = formatOf(file, o.format);
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    throw new ImportFileError(`cannot read ${file}: ${(e as Error).message}`);
  }
  await withDatabase(async (database, _secret, config) => {
    const started = performance.now();
    const [row] = await profilesWithExtensions(database.db, o.group, [o.profile]);
    if (!row) throw new ImportFileError(`group "${o.group}" has no profile "${o.profile}"`);
    const profile = prepareProfile(effectiveProfile(row, row.extensions));
    const kind = o.dataset === undefined ? 'assets' : datasetKind(profile.profile, o.dataset);
    if (kind === null) throw new ImportFileError(`profile "${o.profile}" declares no dataset "${o.dataset}"`);
    const columns = o.dataset === undefined ? undefined : datasetColumns(profile, o.dataset);
    // Columns named geometry, longitude or latitude are plain values unless they hold a geometry.
    const names =
      kind === 'state'
        ? new Set(['geometry', 'longitude', 'latitude'])
        : new Set([...profile.definitions.keys(), ...(columns?.renames.keys() ?? [])]);
    const read = (onBytes?: (n: number) => void) =>
      readAssets(file, format, { propertyNames: names, onBytes });
    const source = format === 'csv' ? 'text' : 'json';
    const partial = (profile.profile.document.upDatasets ?? []).length > 0;
    const validate = (item: ReadItem): ValidationResult<unknown> =>
      kind === 'state'
        ? validateObservation(item.asset, { source })
        : kind === 'up'
          ? validateDatasetRow(profile, columns!, item.asset, { source })
          : validateAsset(profile, item.asset, { source, partial });
    // The same asset twice is an error; for observations, the same asset at the same time.
    const keyOf = (item: ReadItem): string | undefined => {
      const id = item.asset.id;
      if (typeof id !== 'string' || id === '') return undefined;
      if (kind !== 'state') return id;
      const at = Date.parse(String(item.asset.properties[OBSERVED_AT]));
      return Number.isNaN(at) ? undefined : `${id}\u0000${at}`;
    };

    // One pass: each row is validated as it is read and streamed into the one transaction.
    // A bad row is reported (with every other bad row: the file is read to its end), no more
    // rows are sent, and the transaction is rolled back. Only ids are kept in memory.
    const bar = progress('importing', size, 'bytes');
    const pending: string[] = [];
    const report = (line: string) => (bar.active ? pending.push(line) : process.stdout.write(line));
    const seen = new Map<string, number>();
    let rows = 0;
    let bad = 0;
    async function* valid<T>(): AsyncGenerator<T> {
      for await (const item of read(bar.update)) {
        rows++;
        const r = validate(item);
        const errors = check(r, keyOf(item), item.line, kind === 'state', seen);
        if (errors) {
          bad++;
          report(
            `${JSON.stringify({
              line: item.line,
              ...(item.feature !== undefined ? { feature: item.feature } : {}),
              id: typeof item.asset.id === 'string' ? item.asset.id : null,
              errors,
            })}\n`,
          );
        } else if (bad === 0) yield (r as { value: T }).value;
      }
      if (bad > 0) throw new InvalidRows();
    }
    let result: {
      rows: number;
      inserted: number;
      updated: number;
      unchanged?: number;
      method: 'copy' | 'insert';
    };
    try {
      result =
        kind === 'state'
          ? await writeObservations(database, o.group, profile.profile, o.dataset!, valid(), {
              bounds: await readingBounds(database, o.group, config.observationRetentionDays),
            })
          : kind === 'up'
            ? await writeUpDataset(database, o.group, profile.profile, o.dataset!, valid(), {})
            : await upsertAssets(database, o.group, o.profile, valid(), {
                profile: profile.profile,
                idsChecked: true,
              });
    } catch (e) {
      if (!(e instanceof InvalidRows)) throw e;
      process.stderr.write(
        `assetql import: ${bad} of ${rows} ${rows === 1 ? 'row is' : 'rows are'} invalid; nothing was written\n`,
      );
      process.exitCode = 1;
      return;
    } finally {
      bar.stop();
      for (const line of pending) process.stdout.write(line);
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `${JSON.stringify(
        {
          profile: o.profile,
          group: o.group,
          dataset: o.dataset ?? null,
          ...(kind === 'state' ? { observations: true } : {}),
          format,
          rows: result.rows,
          inserted: result.inserted,
          updated: result.updated,
          ...(result.unchanged !== undefined ? { unchanged: result.unchanged } : {}),
          method: result.method,
          seconds: round(seconds),
          rowsPerSecond: Math.round(result.rows / Math.max(seconds, 1e-3)),
        },
        null,
        2,
      )}\n`,
    );
  });
}

/** Some rows are invalid (each reported): the transaction is rolled back. */
class InvalidRows extends Error {
  override name = 'InvalidRows';
}

function check(
  r: ValidationResult<unknown>,
  key: string | undefined,
  line: number,
  observation: boolean,
  seen: Map<string, number>,
): string[] | undefined {
  const errors = r.ok ? [] : [...(r.details ?? [r.message])];
  if (key !== undefined) {
    const first = seen.get(key);
    if (first !== undefined)
      errors.push(`${observation ? 'id and observedAt' : 'id'}: also on line ${first}`);
    else seen.set(key, line);
  }
  return errors.length > 0 ? errors : undefined;
}
