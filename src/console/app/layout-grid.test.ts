import { describe, expect, it } from 'vitest';
import {
  cellsMoved,
  changes,
  clampRect,
  describeRect,
  dragged,
  GRID_COLUMNS,
  MAX_HEIGHT,
  moved,
  overlaps,
  place,
  type Rect,
  readingOrder,
  resized,
  rowsUsed,
  sameLayout,
} from './layout-grid.ts';

const at = (x: number, y: number, w: number, h: number): Rect => ({ x, y, w, h });
const metrics = { columnWidth: 60, rowHeight: 40, gap: 12 };

/** The demo's WEB layout of the well view: a map, details beside it, a chart and a table below. */
const web = [
  { id: 'map', layout: at(0, 0, 8, 6) },
  { id: 'details', layout: at(8, 0, 4, 6) },
  { id: 'scada', layout: at(0, 6, 8, 4) },
  { id: 'equipment', layout: at(8, 6, 4, 4) },
  { id: 'issues', layout: at(0, 10, 12, 3) },
];

/** Every rule the API checks (x, y ≥ 0; w, h ≥ 1; x + w ≤ 12; whole numbers). */
function valid(r: Rect): boolean {
  return (
    [r.x, r.y, r.w, r.h].every(Number.isInteger) &&
    r.x >= 0 &&
    r.y >= 0 &&
    r.w >= 1 &&
    r.h >= 1 &&
    r.x + r.w <= GRID_COLUMNS
  );
}

describe('the layout grid', () => {
  it('keeps a place inside the grid, moving it in rather than shrinking it', () => {
    expect(clampRect(at(10, 2, 4, 3))).toEqual(at(8, 2, 4, 3));
    expect(clampRect(at(-3, -1, 20, 0))).toEqual(at(0, 0, 12, 1));
    expect(clampRect(at(1.4, 2.6, 3.5, 100))).toEqual(at(1, 3, 4, MAX_HEIGHT));
    expect(clampRect(at(Number.NaN, 1, 2, 2))).toEqual(at(0, 1, 2, 2));
  });

  it('moves and resizes by whole cells, stopping at the edges', () => {
    expect(moved(at(2, 2, 4, 2), 1, -1)).toEqual(at(3, 1, 4, 2));
    expect(moved(at(8, 0, 4, 2), 1, -1)).toEqual(at(8, 0, 4, 2));
    expect(resized(at(8, 0, 3, 2), 5, 1)).toEqual(at(8, 0, 4, 3));
    expect(resized(at(0, 0, 1, 1), -2, -2)).toEqual(at(0, 0, 1, 1));
  });

  it('turns a pointer’s pixels into cells, to the nearest', () => {
    // One column and its gap is 72 px across; one row and its gap 52 px down.
    expect(cellsMoved(72, 52, metrics)).toEqual({ dx: 1, dy: 1 });
    expect(cellsMoved(35, 25, metrics)).toEqual({ dx: 0, dy: 0 });
    expect(cellsMoved(37, 27, metrics)).toEqual({ dx: 1, dy: 1 });
    expect(cellsMoved(-150, -110, metrics)).toEqual({ dx: -2, dy: -2 });
    expect(cellsMoved(-10, 10, metrics)).toEqual({ dx: 0, dy: 0 });
    expect(Object.is(cellsMoved(-10, -10, metrics).dx, -0)).toBe(false);
    expect(cellsMoved(500, 500, { columnWidth: 0, rowHeight: 0, gap: 0 })).toEqual({ dx: 0, dy: 0 });
  });

  it('drags by the title to move and by the corner to resize', () => {
    expect(dragged(at(0, 0, 8, 6), 'move', 2 * 72, 3 * 52, metrics)).toEqual(at(2, 3, 8, 6));
    expect(dragged(at(0, 0, 8, 6), 'move', 10 * 72, 0, metrics)).toEqual(at(4, 0, 8, 6));
    expect(dragged(at(0, 0, 8, 6), 'resize', -3 * 72, 2 * 52, metrics)).toEqual(at(0, 0, 5, 8));
    expect(dragged(at(6, 0, 4, 2), 'resize', 9 * 72, 0, metrics)).toEqual(at(6, 0, 6, 2));
  });

  it('tells overlapping places from touching ones', () => {
    expect(overlaps(at(0, 0, 8, 6), at(8, 0, 4, 6))).toBe(false);
    expect(overlaps(at(0, 0, 8, 6), at(0, 6, 8, 4))).toBe(false);
    expect(overlaps(at(0, 0, 8, 6), at(7, 5, 2, 2))).toBe(true);
  });

  it('pushes what a placed widget covers down below it, and only that', () => {
    // The details go to the top left, over the map: the map goes below them, and what the map
    // then covers goes below the map in turn.
    const after = place(web, 'details', at(0, 0, 4, 6));
    expect(after.map((w) => w.id)).toEqual(web.map((w) => w.id));
    const where = Object.fromEntries(after.map((w) => [w.id, w.layout]));
    expect(where.details).toEqual(at(0, 0, 4, 6));
    expect(where.map).toEqual(at(0, 6, 8, 6));
    expect(where.scada).toEqual(at(0, 12, 8, 4));
    expect(where.equipment).toEqual(at(8, 6, 4, 4));
    expect(where.issues).toEqual(at(0, 16, 12, 3));
    for (const a of after) {
      expect(valid(a.layout)).toBe(true);
      for (const b of after) if (a !== b) expect(overlaps(a.layout, b.layout)).toBe(false);
    }
  });

  it('leaves the rest alone when the new place is free, and keeps gaps', () => {
    const after = place(web, 'issues', at(0, 20, 6, 2));
    expect(after.find((w) => w.id === 'issues')!.layout).toEqual(at(0, 20, 6, 2));
    expect(after.filter((w) => w.id !== 'issues')).toEqual(web.filter((w) => w.id !== 'issues'));
  });

  it('places each step of a drag from where the drag started, so a pushed widget comes back', () => {
    const over = place(web, 'details', at(0, 6, 4, 6));
    expect(over.find((w) => w.id === 'scada')!.layout.y).toBeGreaterThan(6);
    const back = place(web, 'details', at(8, 0, 4, 6));
    expect(back).toEqual(web);
  });

  it('keeps any placement valid and without overlaps, whatever the moves', () => {
    let random = 7;
    const next = () => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random / 2147483648;
    };
    let layout = web;
    for (let i = 0; i < 300; i++) {
      const w = layout[Math.floor(next() * layout.length)]!;
      const target =
        next() < 0.5
          ? moved(w.layout, Math.round(next() * 8 - 4), Math.round(next() * 8 - 4))
          : resized(w.layout, Math.round(next() * 6 - 3), Math.round(next() * 6 - 3));
      layout = place(layout, w.id, target);
      for (const a of layout) {
        expect(valid(a.layout)).toBe(true);
        for (const b of layout) if (a !== b) expect(overlaps(a.layout, b.layout)).toBe(false);
      }
    }
  });

  it('reads top to bottom, then left to right', () => {
    const shuffled = [web[4]!, web[1]!, web[3]!, web[0]!, web[2]!];
    expect(readingOrder(shuffled).map((w) => w.id)).toEqual([
      'map',
      'details',
      'scada',
      'equipment',
      'issues',
    ]);
    expect(rowsUsed(web)).toBe(13);
    expect(rowsUsed([])).toBe(0);
  });

  it('compares layouts and says what changed', () => {
    expect(sameLayout(web, [...web].reverse())).toBe(true);
    const after = place(web, 'map', at(0, 0, 6, 6));
    expect(sameLayout(web, after)).toBe(false);
    expect(changes(web, after)).toEqual([{ id: 'map', change: 'resized' }]);
    const other = [...place(web, 'issues', at(2, 13, 4, 2)).slice(1), { id: 'new', layout: at(0, 20, 1, 1) }];
    expect(changes(web, other)).toEqual([
      { id: 'issues', change: 'moved and resized' },
      { id: 'new', change: 'added' },
      { id: 'map', change: 'removed' },
    ]);
    expect(describeRect(at(0, 2, 1, 6))).toBe('column 1, row 3, 1 column by 6 rows');
  });
});
