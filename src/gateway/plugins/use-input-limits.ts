import { type InputLimits, useInputLimits as useSharedInputLimits } from '../../shared/input-limits.ts';
import type { Plugin } from '../http.ts';

/**
 * Refuses an operation with a string argument longer than `maxStringLength` (or holding U+0000),
 * or a list longer than `maxListLength`, before it is planned, with HTTP 400 (docs/security.md).
 * Every subgraph runs the same check (src/shared/input-limits.ts), so that it holds for a subgraph
 * reached without the gateway too.
 */
export function useInputLimits(limits: InputLimits): Plugin {
  return useSharedInputLimits(limits) as Plugin;
}
