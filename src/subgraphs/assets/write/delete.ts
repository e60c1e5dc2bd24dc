import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../storage/database.ts';
import type { Tables } from '../../../storage/tables.ts';
import { MANUAL_DATASET } from '../datasets/plan.ts';
import { type Exec, kyselyExec } from '../exec.ts';
import { forgetReadings } from '../telemetry/store.ts';
import { lockLookupNames } from './lookup-keys.ts';

/**
 * Deletes assets of one profile by id, in one transaction (the caller's, when `database.db`
 * is one): soft by default (`is_deleted` set and `modified_at = now()`, for those not already
 * deleted), or removes the rows with `hard`. Returns how many rows changed.
 */
export async function deleteAssets(
  database: Pick<Database, 'db'>,
  group: string,
  profile: string,
  ids: readonly string[],
  options: {
    hard?: boolean;
    /** The profile's deleted property: a soft delete also sets it, so the flag survives recomputation. */
    isDeletedProperty?: string | null;
  } = {},
): Promise<{ deleted: number }> {
  if (ids.length === 0) return { deleted: 0 };
  // Inside a caller's transaction, join it; otherwise make one.
  const inTransaction = <T>(fn: (trx: Kysely<Tables>) => Promise<T>) =>
    database.db.isTransaction ? fn(database.db) : database.db.transaction().execute(fn);
  return inTransaction(async (trx) => {
    const lookupNames = await lockLookupNames(kyselyExec(trx), group, profile);
    let deleted = 0;
    for (let i = 0; i < ids.length; i += 10_000) {
      const slice = ids.slice(i, i + 10_000);
      if (options.hard) await forgetAssets(kyselyExec(trx), group, profile, slice);
      else if (options.isDeletedProperty) {
        // A merged asset keeps the flag in its manual layer, which wins over imported values
        // unless declared lower; assets without dataset rows hold it in their properties.
        await trx.executeQuery(
          sql`insert into asset_dataset_rows as r (user_group, profile, dataset, asset_id, values)
            select ${group}, ${profile}, ${MANUAL_DATASET}, d.asset_id, jsonb_build_object(${options.isDeletedProperty}::text, true)
            from (select distinct asset_id from asset_dataset_rows
                  where user_group = ${group} and profile = ${profile} and asset_id = any(${slice}::text[])) d
            on conflict (user_group, profile, dataset, asset_id) do update
            set values = r.values || excluded.values, modified_at = now()`.compile(trx),
        );
      }
      const result = options.hard
        ? await trx
            .deleteFrom('assets')
            .where('user_group', '=', group)
            .where('profile', '=', profile)
            .where('id', '=', sql<string>`any(${slice}::text[])`)
            .executeTakeFirst()
        : await trx
            .updateTable('assets')
            .set({
              is_deleted: true,
              modified_at: sql<Date>`now()`,
              ...(options.isDeletedProperty
                ? {
                    properties:
                      sql`jsonb_set(properties, array[${options.isDeletedProperty}::text], 'true'::jsonb)` as never,
                    // The flag's new value, when relationships find assets by it (./lookup-keys.ts).
                    lookup: sql`case when ${options.isDeletedProperty}::text = any(${lookupNames}::text[])
                      then coalesce(lookup, '{}'::jsonb) || jsonb_build_object(${options.isDeletedProperty}::text, true)
                      else lookup end` as never,
                  }
                : {}),
            })
            .where('user_group', '=', group)
            .where('profile', '=', profile)
            .where('id', '=', sql<string>`any(${slice}::text[])`)
            .where('is_deleted', '=', false)
            .executeTakeFirst();
      deleted += Number('numDeletedRows' in result ? result.numDeletedRows : result.numUpdatedRows);
    }
    return { deleted };
  });
}

/**
 * A hard delete's share: the assets' dataset rows and observations go too, and the counters
 * drop by what was removed.
 */
async function forgetAssets(exec: Exec, group: string, profile: string, ids: readonly string[]) {
  await exec(
    `with gone as (
       delete from asset_dataset_rows where user_group = $1 and profile = $2 and asset_id = any($3::text[])
       returning dataset),
     per as (select dataset, count(*) as n from gone group by dataset)
     update asset_dataset_stats t set row_count = t.row_count - per.n
     from per where t.user_group = $1 and t.profile = $2 and t.dataset = per.dataset`,
    [group, profile, ids],
  );
  await forgetReadings(
    exec,
    `select id, dataset from observation_series where user_group = $1 and profile = $2 and asset_id = any($3::text[])`,
    [group, profile, ids],
  );
}
