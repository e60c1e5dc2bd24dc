import type { AssetsContext } from '../context.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { stateDatasetsOf, upLayersOf } from './plan.ts';

export interface UpDatasetView {
  dataset: string;
  title: string | null;
  priority: number;
  columns: string[];
  rowCount: number;
  modifiedAt: Date | null;
}

export interface StateDatasetView {
  dataset: string;
  title: string | null;
  columns: string[];
  observationCount: number;
  latestObservationAt: Date | null;
}

/**
 * `AssetProfile.upDatasets` (in merge order, the manual layer included) and
 * `stateUpdateDatasets`: declarations from the profile document, counters kept at write time.
 */
export async function datasetViews(
  ctx: AssetsContext,
  p: EffectiveProfile,
): Promise<{ up: UpDatasetView[]; state: StateDatasetView[] }> {
  const stats = new Map((await ctx.loaders.datasetStats.load(p.profile)).map((s) => [s.dataset, s]));
  return {
    up: upLayersOf(p).map((l) => {
      const s = stats.get(l.dataset);
      return {
        dataset: l.dataset,
        title: l.title,
        priority: l.priority,
        columns: s?.columns ?? [],
        rowCount: s?.row_count ?? 0,
        modifiedAt: s?.modified_at ?? null,
      };
    }),
    state: stateDatasetsOf(p).map((d) => {
      const s = stats.get(d.dataset);
      return {
        dataset: d.dataset,
        title: d.title ?? null,
        columns: s?.columns ?? [],
        observationCount: s?.observation_count ?? 0,
        latestObservationAt: s?.latest_observation_at ?? null,
      };
    }),
  };
}
