import * as operations from '../../console/app/documents.ts';
import type { OperationKind, TrustedDocument } from '../../execution/trusted-documents.ts';

/**
 * The web console's operations as trusted documents the service ships
 * (docs/security.md#trusted-documents), as the explorer's examples are: with
 * `ASSETQL_TRUSTED_DOCUMENTS=require` a visitor can open the console and sign in (and confirm a
 * second factor) before holding the explorer's right, which the console's session then holds.
 * Every operation the console sends as a fixed text (src/console/app/documents.ts) is one; the
 * texts it writes per request (the counts of a page of profiles) need that right.
 */
export function consoleDocuments(): TrustedDocument[] {
  const documents: TrustedDocument[] = [];
  for (const text of Object.values(operations)) {
    if (typeof text !== 'string') continue;
    const head = /^\s*(query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(text);
    if (!head) continue;
    documents.push({
      id: `x-assetql:console-${head[2]}`,
      name: head[2]!,
      type: head[1] as OperationKind,
      body: text,
    });
  }
  return documents;
}
