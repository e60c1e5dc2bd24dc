import { useInputLimits as useSharedInputLimits } from '../../shared/input-limits.ts';
import type { Plugin } from '../http.ts';

/**
 * Refuses an operation with a string argument longer than `maxStringLength` (or holding U+0000)
 * before it is planned, with HTTP 400 (docs/security.md). Every subgraph runs the same check
 * (src/shared/input-limits.ts), so that it holds for a subgraph reached without the gateway too.
 */
export function useInputLimits(maxStringLength: number): Plugin {
  return useSharedInputLimits(maxStringLength) as Plugin;
}
