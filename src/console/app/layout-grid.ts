// A view's widgets on the API's 12-column grid (docs/schema.md §8): column x and row y from 0,
// width w and height h from 1, x + w ≤ 12. What dragging, resizing and the arrow keys do to a
// layout, as pure functions: the editor (layout-editor.ts) only measures the grid and draws.

export const GRID_COLUMNS = 12;
/** The tallest a widget may be made here, in rows (the API sets no bound; a page does). */
export const MAX_HEIGHT = 40;

/** A place on the grid. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Anything placed on the grid by id: a widget. */
export interface Placed {
  id: string;
  layout: Rect;
}

/** The size of the grid's cells on screen, in CSS pixels. */
export interface GridMetrics {
  columnWidth: number;
  rowHeight: number;
  /** The gap between two columns and between two rows. */
  gap: number;
}

const whole = (n: number, low: number, high: number): number =>
  Math.min(high, Math.max(low, Math.round(Number.isFinite(n) ? n : low)));

/** `rect` made valid: whole numbers, inside the grid, keeping its size where it can (it moves in). */
export function clampRect(rect: Rect): Rect {
  const w = whole(rect.w, 1, GRID_COLUMNS);
  const h = whole(rect.h, 1, MAX_HEIGHT);
  return { x: whole(rect.x, 0, GRID_COLUMNS - w), y: whole(rect.y, 0, Number.MAX_SAFE_INTEGER), w, h };
}

/** `rect` moved by whole cells (it stops at the grid's edges). */
export function moved(rect: Rect, dx: number, dy: number): Rect {
  return clampRect({ ...rect, x: rect.x + dx, y: rect.y + dy });
}

/** `rect` resized by whole cells from its top-left corner, which stays (the size stops at the edges). */
export function resized(rect: Rect, dw: number, dh: number): Rect {
  const start = clampRect(rect);
  return {
    ...start,
    w: whole(start.w + dw, 1, GRID_COLUMNS - start.x),
    h: whole(start.h + dh, 1, MAX_HEIGHT),
  };
}

/** Whole cells a pointer moved by: to the nearest, one cell being a column or row with its gap. */
export function cellsMoved(
  dxPixels: number,
  dyPixels: number,
  metrics: GridMetrics,
): { dx: number; dy: number } {
  const across = metrics.columnWidth + metrics.gap;
  const down = metrics.rowHeight + metrics.gap;
  const dx = across > 0 ? Math.round(dxPixels / across) : 0;
  const dy = down > 0 ? Math.round(dyPixels / down) : 0;
  // -0 reads badly in a message and compares unequal in tests' eyes.
  return { dx: dx || 0, dy: dy || 0 };
}

/** Where a drag that started at `start` has taken the widget: moved by its title, resized by its corner. */
export function dragged(
  start: Rect,
  mode: 'move' | 'resize',
  dxPixels: number,
  dyPixels: number,
  metrics: GridMetrics,
): Rect {
  const { dx, dy } = cellsMoved(dxPixels, dyPixels, metrics);
  return mode === 'move' ? moved(start, dx, dy) : resized(start, dx, dy);
}

/** Whether two places share a cell. */
export function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** Top to bottom, then left to right: the order a page is read in (and the keyboard goes). */
export function readingOrder<T extends Placed>(widgets: readonly T[]): T[] {
  return [...widgets].sort((a, b) => a.layout.y - b.layout.y || a.layout.x - b.layout.x);
}

/**
 * `widgets` with widget `id` at `rect`: it takes that place, and every widget it would cover goes
 * down below it, then any those cover, and so on; the others stay where they are. Given the
 * layout as it was when a drag started, each step of the drag is placed afresh, so a widget
 * pushed aside comes back when the dragged one moves on. The order of `widgets` is kept.
 */
export function place<T extends Placed>(widgets: readonly T[], id: string, rect: Rect): T[] {
  const target = clampRect(rect);
  const settled: Rect[] = [];
  const at = new Map<string, Rect>();
  if (widgets.some((w) => w.id === id)) {
    settled.push(target);
    at.set(id, target);
  }
  for (const w of readingOrder(widgets.filter((w) => w.id !== id))) {
    const r = clampRect(w.layout);
    for (;;) {
      const below = settled.filter((s) => overlaps(s, r)).map((s) => s.y + s.h);
      if (below.length === 0) break;
      r.y = Math.max(...below);
    }
    settled.push(r);
    at.set(w.id, r);
  }
  return widgets.map((w) => ({ ...w, layout: at.get(w.id)! }));
}

/** How many rows the widgets take (0 for none). */
export function rowsUsed(widgets: readonly Placed[]): number {
  return widgets.reduce((rows, w) => Math.max(rows, w.layout.y + w.layout.h), 0);
}

const sameRect = (a: Rect, b: Rect): boolean => a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;

/** Whether two layouts place the same widgets in the same places, whatever their order. */
export function sameLayout(a: readonly Placed[], b: readonly Placed[]): boolean {
  if (a.length !== b.length) return false;
  const places = new Map(a.map((w) => [w.id, w.layout]));
  return b.every((w) => {
    const other = places.get(w.id);
    return other !== undefined && sameRect(other, w.layout);
  });
}

/** What `after` did to the widgets of `before`: moved, resized, added, removed, by id. */
export function changes(
  before: readonly Placed[],
  after: readonly Placed[],
): { id: string; change: 'moved' | 'resized' | 'moved and resized' | 'added' | 'removed' }[] {
  const old = new Map(before.map((w) => [w.id, w.layout]));
  const out: ReturnType<typeof changes> = [];
  for (const w of after) {
    const was = old.get(w.id);
    if (!was) {
      out.push({ id: w.id, change: 'added' });
      continue;
    }
    const move = was.x !== w.layout.x || was.y !== w.layout.y;
    const size = was.w !== w.layout.w || was.h !== w.layout.h;
    if (move || size)
      out.push({ id: w.id, change: move && size ? 'moved and resized' : move ? 'moved' : 'resized' });
  }
  const now = new Set(after.map((w) => w.id));
  for (const w of before) if (!now.has(w.id)) out.push({ id: w.id, change: 'removed' });
  return out;
}

/** A place in words, counted from 1 as people count: "column 1, row 3, 8 columns by 6 rows". */
export function describeRect(rect: Rect): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `column ${rect.x + 1}, row ${rect.y + 1}, ${plural(rect.w, 'column')} by ${plural(rect.h, 'row')}`;
}
