import { type Kysely, sql } from 'kysely';
import type { Tables } from '../../storage/tables.ts';

export interface IssueRow {
  user_group: string;
  id: string;
  seq: number;
  display_name: string;
  description: string | null;
  status: string;
  subject_type: string | null;
  subject_reference: string | null;
  created_at: Date;
  created_by: string;
}

export interface IssuePage {
  limit: number;
  /** Only issues older than this `seq`. */
  beforeSeq?: number;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether more exist. */
export function listIssues(db: Kysely<Tables>, group: string, page: IssuePage): Promise<IssueRow[]> {
  let q = db.selectFrom('issues').selectAll().where('user_group', '=', group);
  if (page.beforeSeq !== undefined) q = q.where('seq', '<', page.beforeSeq);
  return q
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
}

export function issuesByIds(db: Kysely<Tables>, group: string, ids: readonly string[]): Promise<IssueRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('issues').selectAll().where('user_group', '=', group).where('id', 'in', ids).execute();
}

export interface SubjectKey {
  type: string;
  reference: string;
}

/**
 * One statement for the newest issues of many subjects at once (a lateral join per
 * subject), so that a page of assets asking for their issues costs one round trip.
 */
export async function issuesBySubjects(
  db: Kysely<Tables>,
  group: string,
  subjects: readonly SubjectKey[],
  page: IssuePage,
): Promise<(IssueRow & { subject_index: number })[]> {
  if (subjects.length === 0) return [];
  // One subject (an asset's issues: the common case) without the arrays, which PostgreSQL plans
  // anew for every run (assets.repository.ts, assetsByKeys).
  if (subjects.length === 1) {
    const [subject] = subjects as [SubjectKey];
    const { rows } = await sql<IssueRow & { subject_index: number }>`
      select i.*, 0 as subject_index from issues i
      where i.user_group = ${group} and i.subject_type = ${subject.type} and i.subject_reference = ${subject.reference}
        and i.seq < ${page.beforeSeq ?? Number.MAX_SAFE_INTEGER}
      order by i.seq desc
      limit ${page.limit + 1}`.execute(db);
    return rows;
  }
  const { rows } = await sql<IssueRow & { subject_index: number }>`
    select i.*, s.ord::int - 1 as subject_index
    from unnest(${subjects.map((s) => s.type)}::text[], ${subjects.map((s) => s.reference)}::text[])
      with ordinality as s(type, reference, ord)
    cross join lateral (
      select * from issues
      where user_group = ${group} and subject_type = s.type and subject_reference = s.reference
        and seq < ${page.beforeSeq ?? Number.MAX_SAFE_INTEGER}
      order by seq desc
      limit ${page.limit + 1}
    ) i
    order by s.ord, i.seq desc`.execute(db);
  return rows;
}

export async function insertIssue(
  db: Kysely<Tables>,
  row: Omit<IssueRow, 'seq' | 'created_at'> & { created_at: Date },
): Promise<IssueRow> {
  return db.insertInto('issues').values(row).returningAll().executeTakeFirstOrThrow();
}
