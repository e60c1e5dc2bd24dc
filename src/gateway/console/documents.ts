import {
  ASSOCIATE_SOFTWARE_TOKEN,
  CONFIRM_SIGN_IN,
  SESSION_CHECK,
  SIGN_IN,
  SIGN_OUT,
  START,
} from '../../console/app/documents.ts';
import type { OperationKind, TrustedDocument } from '../../execution/trusted-documents.ts';

/**
 * What the web console sends before its session holds the explorer's right: opening, signing in,
 * each challenge, confirming a session ended, signing out. Once signed in (as `EXPLORER`) the
 * console runs its other operations on that right; were they trusted, API keys and apps' sessions
 * could run them too where only their own documents should (docs/security.md#trusted-documents).
 */
const BEFORE_SIGN_IN = [START, SESSION_CHECK, SIGN_IN, CONFIRM_SIGN_IN, ASSOCIATE_SOFTWARE_TOKEN, SIGN_OUT];

/**
 * The web console's operations of {@link BEFORE_SIGN_IN} as trusted documents the service ships,
 * as the explorer's examples are: with `ASSETQL_TRUSTED_DOCUMENTS=require` a visitor can open the
 * console and sign in. Ids `x-assetql:console-<operation name>`.
 */
export function consoleDocuments(): TrustedDocument[] {
  return BEFORE_SIGN_IN.map((text) => {
    const head = /^\s*(query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(text);
    if (!head) throw new Error(`a console operation without a name: ${text.slice(0, 60)}`);
    return { id: `x-assetql:console-${head[2]}`, name: head[2]!, type: head[1] as OperationKind, body: text };
  });
}
