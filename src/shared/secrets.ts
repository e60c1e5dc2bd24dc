import { hkdfSync } from 'node:crypto';

/**
 * Derives an independent key for one purpose from the service secret, so that one
 * configured secret serves identity signing, download URLs and more without key reuse.
 */
export function deriveKey(secret: string, purpose: string, bytes = 32): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'assetql', `assetql:${purpose}:v1`, bytes));
}
