import DataLoader from 'dataloader';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import {
  type IssuePage,
  type IssueRow,
  issuesByIds,
  issuesBySubjects,
  type SubjectKey,
} from './issues.repository.ts';

export interface IssueLoaders {
  byId: DataLoader<string, IssueRow | null>;
  /** Keyed by subject and page, batched per distinct page so one statement serves a list. */
  bySubject: DataLoader<SubjectKey & IssuePage, IssueRow[], string>;
}

/** Per-request batching; `group` fixes the tenant for every load. */
export function createIssueLoaders(db: Kysely<Tables>, group: string): IssueLoaders {
  return {
    byId: new DataLoader(async (ids) => {
      const rows = await issuesByIds(db, group, ids);
      const map = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => map.get(id) ?? null);
    }),
    bySubject: new DataLoader(
      async (keys) => {
        const out: IssueRow[][] = keys.map(() => []);
        const byPage = new Map<string, number[]>();
        keys.forEach((k, i) => {
          const p = `${k.limit}:${k.beforeSeq ?? ''}`;
          byPage.set(p, [...(byPage.get(p) ?? []), i]);
        });
        await Promise.all(
          [...byPage.values()].map(async (indexes) => {
            const first = keys[indexes[0]!]!;
            const rows = await issuesBySubjects(
              db,
              group,
              indexes.map((i) => keys[i]!),
              first,
            );
            for (const r of rows) out[indexes[r.subject_index]!]!.push(r);
          }),
        );
        return out;
      },
      { cacheKeyFn: (k) => JSON.stringify([k.type, k.reference, k.limit, k.beforeSeq ?? null]) },
    ),
  };
}
