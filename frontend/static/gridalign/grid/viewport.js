// The grid's size and what of it is on screen: pure maths (no DOM), unit-tested in Node.
// Sizes are CSS pixels; rows and columns 0-based; "start" is the side a line of the grid starts
// from (the left, or the right in a right-to-left grid), so scroll offsets here are always
// distances from the start (render.js turns Chrome's negative scrollLeft of an RTL box into one).

/** Cell sizes the zoom buttons and Ctrl/Cmd + − step through; 24 px (1.5rem) is the normal size. */
export const ZOOM_STEPS = Object.freeze([10, 12, 14, 16, 20, 24, 28, 32, 40]);
export const NORMAL_CELL = 24;
/** "Fit to window" may go below the smallest step (a 150 × 150 pair on a laptop), not below this. */
export const MIN_CELL = 6;
export const MAX_CELL = ZOOM_STEPS[ZOOM_STEPS.length - 1];

/** A cell size made valid: a number within [MIN_CELL, MAX_CELL], whole pixels. */
export function clampCell(cell) {
  const n = Math.round(Number(cell));
  return Number.isFinite(n) ? Math.min(MAX_CELL, Math.max(MIN_CELL, n)) : NORMAL_CELL;
}

/** The next zoom step from ``cell``: step 1 bigger, -1 smaller, 0 the normal size. */
export function zoomStep(cell, step) {
  if (step === 0) return NORMAL_CELL;
  const c = clampCell(cell);
  if (step > 0) return ZOOM_STEPS.find((s) => s > c) ?? MAX_CELL;
  return [...ZOOM_STEPS].reverse().find((s) => s < c) ?? Math.min(c, ZOOM_STEPS[0]);
}

/** The zoom as a percentage of the normal size (what the control shows). */
export function zoomPercent(cell) {
  return Math.round((clampCell(cell) / NORMAL_CELL) * 100);
}

/**
 * "Fit to window": the largest whole cell size at which every row and column fits a view of
 * ``width`` × ``height`` that also holds the row words' column (``headWidth``) and the column
 * words' band (``headHeight``); at most the normal size (fitting never zooms a small pair in).
 */
export function fitCell({ rows, cols, width, height, headWidth, headHeight }) {
  if (!rows || !cols) return NORMAL_CELL;
  const across = (width - headWidth) / cols;
  const down = (height - headHeight) / rows;
  return clampCell(Math.min(NORMAL_CELL, Math.floor(Math.min(across, down))));
}

/**
 * The scroll offset along one axis that shows the span [start, start + size) of the content
 * in a view of ``view`` pixels scrolled to ``scroll``, whose first ``pad`` pixels are covered
 * by a sticky header band; unchanged (the same number) when the span is already shown.
 */
export function scrollToShow({ start, size, scroll, view, pad = 0 }) {
  const first = scroll + pad; // the first content pixel not under the band
  const last = scroll + view; // one past the last one shown
  if (start < first) return Math.max(0, start - pad);
  if (start + size > last) return Math.min(start - pad, start + size - view);
  return scroll;
}

/**
 * The cells a view shows (rows i0 … i1, columns j0 … j1, inclusive, fractions allowed) when
 * scrolled to (scrollStart, scrollTop): the body starts after the header bands.
 */
export function visibleRegion({ rows, cols, cell, headWidth, headHeight, scrollStart, scrollTop, width, height }) {
  const j0 = Math.min(cols, Math.max(0, scrollStart / cell));
  const i0 = Math.min(rows, Math.max(0, scrollTop / cell));
  const j1 = Math.min(cols, (scrollStart + width - headWidth) / cell);
  const i1 = Math.min(rows, (scrollTop + height - headHeight) / cell);
  return { i0, i1: Math.max(i0, i1), j0, j1: Math.max(j0, j1) };
}

/** The scroll offsets that put cell (i, j) in the middle of the body's view (clamped at 0). */
export function scrollToCentre({ i, j, cell, headWidth, headHeight, width, height }) {
  return {
    start: Math.max(0, Math.round((j + 0.5) * cell - (width - headWidth) / 2)),
    top: Math.max(0, Math.round((i + 0.5) * cell - (height - headHeight) / 2)),
  };
}

/**
 * The overview (a small map of the whole grid): pixels per cell so that a rows × cols map
 * fits a ``box`` × ``box`` square, at most ``max`` per cell.
 */
export function overviewScale({ rows, cols, box, max = 4 }) {
  if (!rows || !cols) return max;
  return Math.min(max, box / Math.max(rows, cols));
}

/** The cell under a point (x, y) of the overview (from its start corner), clamped to the grid. */
export function overviewCell({ x, y, scale, rows, cols }) {
  return {
    i: Math.max(0, Math.min(rows - 1, Math.floor(y / scale))),
    j: Math.max(0, Math.min(cols - 1, Math.floor(x / scale))),
  };
}

// ---- the view's settings, remembered per user in the browser ----

const VIEW_PREFIX = "gridalign:view:";

/** {cell, keysOpen} stored for ``user`` (a username), or the defaults for a window ``width`` wide. */
export function loadView(storage, user, { width = 1400 } = {}) {
  const defaults = { cell: NORMAL_CELL, keysOpen: width >= 1280 };
  try {
    const saved = JSON.parse(storage.getItem(VIEW_PREFIX + user) || "null");
    if (!saved || typeof saved !== "object") return defaults;
    return {
      cell: saved.cell === undefined ? defaults.cell : clampCell(saved.cell),
      keysOpen: typeof saved.keysOpen === "boolean" ? saved.keysOpen : defaults.keysOpen,
    };
  } catch {
    return defaults; // no storage, or something unreadable: the defaults
  }
}

/** Store {cell, keysOpen} for ``user``; false when the browser refuses (private mode, quota). */
export function saveView(storage, user, view) {
  try {
    storage.setItem(VIEW_PREFIX + user, JSON.stringify({ cell: clampCell(view.cell), keysOpen: Boolean(view.keysOpen) }));
    return true;
  } catch {
    return false;
  }
}
