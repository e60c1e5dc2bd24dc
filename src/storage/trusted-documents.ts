import { type Kysely, sql } from 'kysely';
import { MAX_TRUSTED_DOCUMENTS } from '../config/limits.ts';
import type { Logger } from '../shared/logger.ts';
import type { Tables } from './tables.ts';

/** One trusted document as stored: the manifest's id, name, type and body, and the body's hex SHA-256. */
export interface StoredDocument {
  id: string;
  sha256: string;
  name: string | null;
  type: 'query' | 'mutation' | 'subscription';
  body: string;
}

/** What applying a manifest changed. */
export interface AppliedDocuments {
  /** Documents new to the deployment. */
  added: number;
  /** Documents already applied with the same body. */
  unchanged: number;
  /** Documents no longer in the deployment (only when replacing). */
  removed: number;
}

/** The deployment's trusted documents in the order of their ids, the first `limit` if given. */
export function readTrustedDocuments(db: Kysely<Tables>, limit?: number): Promise<StoredDocument[]> {
  const query = db
    .selectFrom('trusted_documents')
    .select(['id', 'sha256', 'name', 'type', 'body'])
    .orderBy('id');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

/**
 * The trusted documents a gateway loads at start: never more than `maxDocuments`
 * ({@link MAX_TRUSTED_DOCUMENTS}), which every process holds parsed. `apply` keeps a deployment
 * within it; should more be stored (written by other means, or the bound lowered), the first
 * `maxDocuments` by id are loaded, the same in every process, and a warning says how many were
 * left out (their clients are refused where only trusted documents run).
 */
export async function loadTrustedDocuments(
  db: Kysely<Tables>,
  log: Pick<Logger, 'warn'>,
  maxDocuments = MAX_TRUSTED_DOCUMENTS,
): Promise<StoredDocument[]> {
  const documents = await readTrustedDocuments(db, maxDocuments + 1);
  if (documents.length <= maxDocuments) return documents;
  const stored = Number(
    (
      await db
        .selectFrom('trusted_documents')
        .select((e) => e.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  log.warn(
    { stored, loaded: maxDocuments, maxDocuments },
    'more trusted documents are stored than a process loads: those past the bound (by id) are left out; remove the unused ones with `assetql documents apply --replace`',
  );
  return documents.slice(0, maxDocuments);
}

/**
 * Applies `documents` (checked by the caller: src/execution/trusted-documents.ts), all or none: new
 * ids are added, and with `replace` every stored id not among them is removed. An id applied
 * before with another body is refused (an id names one document for good: clients built against it
 * may still send it), and so is a manifest after which the deployment would hold more than
 * `maxDocuments` ({@link MAX_TRUSTED_DOCUMENTS}); either way nothing is written.
 */
export async function applyTrustedDocuments(
  db: Kysely<Tables>,
  documents: readonly StoredDocument[],
  options: { replace?: boolean; maxDocuments?: number } = {},
): Promise<AppliedDocuments> {
  const maxDocuments = options.maxDocuments ?? MAX_TRUSTED_DOCUMENTS;
  return db.transaction().execute(async (tx) => {
    // One apply at a time (other readers go on): the bound and the conflicts below are checked
    // against what is stored, and two applies at once must not each pass them alone.
    await sql`lock table trusted_documents in share row exclusive mode`.execute(tx);
    const stored = new Map(
      (await tx.selectFrom('trusted_documents').select(['id', 'sha256']).forUpdate().execute()).map((r) => [
        r.id,
        r.sha256,
      ]),
    );
    const changed = documents.filter((d) => stored.has(d.id) && stored.get(d.id) !== d.sha256);
    if (changed.length > 0) {
      throw new TrustedDocumentConflict(
        `${changed.length} id(s) already applied with another body, first ${changed[0]!.id}: an id names one document for good`,
      );
    }
    const fresh = documents.filter((d) => !stored.has(d.id));
    const held = options.replace
      ? new Set(documents.map((d) => d.id)).size
      : stored.size + new Set(fresh.map((d) => d.id)).size;
    if (held > maxDocuments) {
      throw new TrustedDocumentLimit(
        `applying this manifest would leave the deployment ${held} trusted documents (${stored.size} stored, ${fresh.length} new); at most ${maxDocuments} are kept: apply with --replace to remove the ones no client sends any more`,
      );
    }
    for (let i = 0; i < fresh.length; i += 500)
      await tx
        .insertInto('trusted_documents')
        .values(fresh.slice(i, i + 500))
        .onConflict((c) => c.column('id').doNothing())
        .execute();
    let removed = 0;
    if (options.replace) {
      const kept = new Set(documents.map((d) => d.id));
      const gone = [...stored.keys()].filter((id) => !kept.has(id));
      for (let i = 0; i < gone.length; i += 500) {
        const r = await tx
          .deleteFrom('trusted_documents')
          .where('id', 'in', gone.slice(i, i + 500))
          .executeTakeFirst();
        removed += Number(r.numDeletedRows);
      }
    }
    return { added: fresh.length, unchanged: documents.length - fresh.length, removed };
  });
}

/** A manifest that would give an applied id another body. */
export class TrustedDocumentConflict extends Error {
  override name = 'TrustedDocumentConflict';
}

/** A manifest after which the deployment would hold more trusted documents than it keeps. */
export class TrustedDocumentLimit extends Error {
  override name = 'TrustedDocumentLimit';
}
