/** One row of an up dataset: values keyed by the dataset's column names. */
export interface DatasetRow {
  id: string;
  values: Record<string, unknown>;
  /** Replaces the asset's geometry when given; undefined or null keeps it. */
  geometry?: Record<string, unknown> | null;
}

/** One observation of a state dataset. */
export interface ObservationRow {
  id: string;
  /** ISO 8601 with an offset. */
  observedAt: string;
  values: Record<string, unknown>;
}

/** The counters behind `UpDataset` and `StateUpdateDataset`, for profiles of one group. */
export interface DatasetStats {
  profile: string;
  dataset: string;
  row_count: number;
  observation_count: number;
  columns: string[];
  modified_at: Date | null;
  latest_observation_at: Date | null;
}
