// The alignment grid's state: pure logic, no DOM, so it runs (and is unit-tested) in Node.
//
// Cells are addressed (i, j), 0-based: i indexes the source tokens (rows), j the target tokens
// (columns). A cell is none, sure ("S") or possible ("P"). Links travel as [[i, j, "S"|"P"], ...]
// sorted by (i, j), the form the server stores (annotator/links.py).
//
// Every edit (one click, one painted rectangle, a reset, a clear) is ONE undo step. Listeners
// get the flat keys (i * cols + j) of the cells whose look changed, so a renderer repaints only
// those. "Touched" tracks which cells the annotator has acted on: a seed link still shows as a
// seed link until it is touched.
//
// Used by annotate.js (editing) and by the adjudication view (lead), overlay or editing mode.

export const SURE = "S";
export const POSSIBLE = "P";
/** Tools for painting: the value a tool writes (erase writes none). */
export const TOOLS = Object.freeze({ sure: 1, possible: 2, erase: 0 });

const VALUE = [null, SURE, POSSIBLE];
const CODE = { S: 1, P: 2 };
const NAME = ["none", "sure", "possible"];
const HISTORY_LIMIT = 500;

/** {i0, i1, j0, j1} (inclusive) spanning two corners given in any order. */
export function rectBetween(a, b) {
  return {
    i0: Math.min(a.i, b.i),
    i1: Math.max(a.i, b.i),
    j0: Math.min(a.j, b.j),
    j1: Math.max(a.j, b.j),
  };
}

/** Links as a Map "i,j" → "S"|"P" (the last of duplicates wins; the server refuses those). */
export function linksToMap(links) {
  const map = new Map();
  for (const [i, j, kind] of links || []) map.set(`${i},${j}`, kind === POSSIBLE ? POSSIBLE : SURE);
  return map;
}

function mapToLinks(map) {
  return [...map.entries()]
    .map(([key, kind]) => {
      const [i, j] = key.split(",").map(Number);
      return [i, j, kind];
    })
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** Sorted, de-duplicated copy of links. */
export function normalizeLinks(links) {
  return mapToLinks(linksToMap(links));
}

/** True when two link lists hold the same cells with the same kinds (order ignored). */
export function linksEqual(a, b) {
  const ma = linksToMap(a);
  const mb = linksToMap(b);
  if (ma.size !== mb.size) return false;
  for (const [key, kind] of ma) if (mb.get(key) !== kind) return false;
  return true;
}

/**
 * What changed from `base` to `links`: {added, removed, changed} where added/removed are links
 * and changed is [[i, j, from, to]] (a sure link turned possible or back).
 */
export function diffLinks(base, links) {
  const before = linksToMap(base);
  const after = linksToMap(links);
  const added = [];
  const removed = [];
  const changed = [];
  for (const [key, kind] of after) {
    const [i, j] = key.split(",").map(Number);
    if (!before.has(key)) added.push([i, j, kind]);
    else if (before.get(key) !== kind) changed.push([i, j, before.get(key), kind]);
  }
  for (const [key, kind] of before) {
    if (!after.has(key)) {
      const [i, j] = key.split(",").map(Number);
      removed.push([i, j, kind]);
    }
  }
  const order = (x, y) => x[0] - y[0] || x[1] - y[1];
  return { added: added.sort(order), removed: removed.sort(order), changed: changed.sort(order) };
}

/** SPEC §1 edits: cells whose aligned/unaligned state differs (sure vs possible ignored). */
export function editCount(base, links) {
  const d = diffLinks(base, links);
  return d.added.length + d.removed.length;
}

/**
 * Three-way merge of link lists on the cells. base: the version both sides started from; mine,
 * theirs: the two edits of it. Per cell (none, "S" or "P"):
 *  - same value on both sides (unchanged, or the same edit made twice) → that value;
 *  - changed on one side only (added, removed, or sure ↔ possible) → that side's value;
 *  - changed on both sides to different values → a conflict: the cell keeps `prefer`'s value
 *    ("mine" | "theirs") when given, else mine's, and is listed in `conflicts`.
 * Returns {links, conflicts: [[i, j, base, mine, theirs]] (null = no link), mineChanged,
 * theirsChanged} (the counts of cells each side changed from base).
 */
export function mergeLinks({ base, mine, theirs, prefer = null }) {
  const baseMap = linksToMap(base);
  const mineMap = linksToMap(mine);
  const theirMap = linksToMap(theirs);
  const merged = new Map();
  const conflicts = [];
  let mineChanged = 0;
  let theirsChanged = 0;
  for (const key of new Set([...baseMap.keys(), ...mineMap.keys(), ...theirMap.keys()])) {
    const b = baseMap.get(key) ?? null;
    const m = mineMap.get(key) ?? null;
    const t = theirMap.get(key) ?? null;
    if (m !== b) mineChanged += 1;
    if (t !== b) theirsChanged += 1;
    let value = m;
    if (m === b) value = t;
    else if (t !== b && t !== m) {
      const [i, j] = key.split(",").map(Number);
      conflicts.push([i, j, b, m, t]);
      value = prefer === "theirs" ? t : m;
    }
    if (value) merged.set(key, value);
  }
  conflicts.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  return { links: mapToLinks(merged), conflicts, mineChanged, theirsChanged };
}

/**
 * What to do when the server answers 409 (someone saved a newer version than the one our edit
 * was based on). Never overwrites silently:
 *  - "adopt":  theirs already equals mine (e.g. our own save landed but its answer was lost);
 *              take their version number, nothing to save.
 *  - "reload": we have no edits since base; take theirs, nothing of ours is lost.
 *  - "rebase": the server's content is still our base (only the number moved); our edits can be
 *              saved on top of their version without losing anything of theirs.
 *  - "merge":  both sides changed, never the same cell differently: `merged` (the three-way
 *              merge, see mergeLinks) holds both; save it on top of their version.
 *  - "ask":    some cells were changed differently on both sides (`cells`, as mergeLinks'
 *              conflicts): the person decides those cells; everything else merges.
 * `mine`/`theirs` count the cells each side changed, `overlap` the cells in conflict.
 */
export function decideConflict({ base, mine, theirs }) {
  const merge = mergeLinks({ base, mine, theirs });
  const summary = {
    mine: merge.mineChanged,
    theirs: merge.theirsChanged,
    overlap: merge.conflicts.length,
    cells: merge.conflicts,
  };
  if (linksEqual(mine, theirs)) return { action: "adopt", ...summary };
  if (summary.mine === 0) return { action: "reload", ...summary };
  if (summary.theirs === 0) return { action: "rebase", ...summary };
  if (summary.overlap === 0) return { action: "merge", merged: merge.links, ...summary };
  return { action: "ask", ...summary };
}

/**
 * The editable alignment of one pair.
 *
 * new AlignmentState({rows, cols, links, seed})
 *   rows, cols: token counts (source, target); links: the current alignment (null → start from
 *   the seed); seed: the seed alignment's links (or []).
 */
export class AlignmentState {
  constructor({ rows, cols, links = null, seed = [] }) {
    if (!(rows >= 0 && cols >= 0)) throw new Error(`bad grid size ${rows}×${cols}`);
    this.rows = rows;
    this.cols = cols;
    this.seedCells = this.#encode(seed || []);
    this.cells = links === null ? this.seedCells.slice() : this.#encode(links);
    this.touched = new Uint8Array(rows * cols);
    this.cursor = { i: 0, j: 0 };
    this.anchor = null; // the other corner of a shift+arrow block selection
    this.undoStack = [];
    this.redoStack = [];
    this.changeCount = 0; // bumps on every edit, undo and redo: lets savers detect new edits
    this.listeners = new Set();
  }

  #encode(links) {
    const cells = new Uint8Array(this.rows * this.cols);
    for (const [i, j, kind] of links) {
      if (!(i >= 0 && i < this.rows && j >= 0 && j < this.cols)) {
        throw new Error(`link [${i}, ${j}] outside the ${this.rows}×${this.cols} grid`);
      }
      cells[i * this.cols + j] = CODE[kind] ?? 1;
    }
    return cells;
  }

  #inside(i, j) {
    return i >= 0 && i < this.rows && j >= 0 && j < this.cols;
  }

  /** Call fn({cells: [flat keys], cursor: bool}) after each change; returns an unsubscribe. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  #emit(cells, cursor = false) {
    for (const fn of this.listeners) fn({ cells, cursor });
  }

  // ---- reading ----

  /** "S", "P" or null. */
  get(i, j) {
    return VALUE[this.cells[i * this.cols + j]];
  }

  /** "none" | "sure" | "possible" (the data-state of a cell). */
  stateName(i, j) {
    return NAME[this.cells[i * this.cols + j]];
  }

  seedAt(i, j) {
    return VALUE[this.seedCells[i * this.cols + j]];
  }

  /** A seed link the annotator has not acted on yet (shown as a seed link). */
  isUntouchedSeed(i, j) {
    const k = i * this.cols + j;
    return this.seedCells[k] !== 0 && !this.touched[k] && this.cells[k] === this.seedCells[k];
  }

  toLinks() {
    const links = [];
    for (let k = 0; k < this.cells.length; k++) {
      if (this.cells[k]) links.push([Math.floor(k / this.cols), k % this.cols, VALUE[this.cells[k]]]);
    }
    return links;
  }

  seedLinks() {
    const links = [];
    for (let k = 0; k < this.seedCells.length; k++) {
      const v = this.seedCells[k];
      if (v) links.push([Math.floor(k / this.cols), k % this.cols, VALUE[v]]);
    }
    return links;
  }

  /** Targets (j) linked to source word i, or sources (i) linked to target word j. */
  linkedTo(side, index) {
    const out = [];
    if (side === "source") {
      for (let j = 0; j < this.cols; j++) if (this.cells[index * this.cols + j]) out.push(j);
    } else {
      for (let i = 0; i < this.rows; i++) if (this.cells[i * this.cols + index]) out.push(i);
    }
    return out;
  }

  diff(base) {
    return diffLinks(base, this.toLinks());
  }

  get canUndo() {
    return this.undoStack.length > 0;
  }

  get canRedo() {
    return this.redoStack.length > 0;
  }

  // ---- editing: each public method is one undo step ----

  /** Apply {k: [value, touched]} as one step; records only real changes. Returns changed keys. */
  #commit(targets) {
    const step = [];
    for (const [k, [value, wanted]] of targets) {
      // Only seed cells carry "touched" (it decides how a seed link looks); elsewhere it would
      // turn edits that change nothing, such as erasing empty cells, into undo steps.
      const touched = this.seedCells[k] ? wanted : 0;
      const before = this.cells[k];
      const touchedBefore = this.touched[k];
      if (before === value && touchedBefore === touched) continue;
      step.push([k, before, value, touchedBefore, touched]);
      this.cells[k] = value;
      this.touched[k] = touched;
    }
    if (step.length === 0) return [];
    this.undoStack.push(step);
    if (this.undoStack.length > HISTORY_LIMIT) this.undoStack.shift();
    this.redoStack = [];
    this.changeCount += 1;
    const keys = step.map((c) => c[0]);
    this.#emit(keys);
    return keys;
  }

  /** Click: none → sure → possible → none. */
  cycle(i, j) {
    if (!this.#inside(i, j)) return [];
    const k = i * this.cols + j;
    return this.#commit(new Map([[k, [(this.cells[k] + 1) % 3, 1]]]));
  }

  /** Set one cell with a tool ("sure" | "possible" | "erase"). */
  setCell(i, j, tool) {
    return this.paint({ i0: i, i1: i, j0: j, j1: j }, tool);
  }

  /** Paint every cell of the rectangle {i0, i1, j0, j1} (inclusive) with a tool: one step. */
  paint(rect, tool) {
    const value = TOOLS[tool];
    if (value === undefined) throw new Error(`unknown tool ${tool}`);
    const i0 = Math.max(0, Math.min(rect.i0, rect.i1));
    const i1 = Math.min(this.rows - 1, Math.max(rect.i0, rect.i1));
    const j0 = Math.max(0, Math.min(rect.j0, rect.j1));
    const j1 = Math.min(this.cols - 1, Math.max(rect.j0, rect.j1));
    const targets = new Map();
    for (let i = i0; i <= i1; i++) {
      for (let j = j0; j <= j1; j++) targets.set(i * this.cols + j, [value, 1]);
    }
    return this.#commit(targets);
  }

  /** Back to the seed alignment, every cell untouched again. */
  resetToSeed() {
    const targets = new Map();
    for (let k = 0; k < this.cells.length; k++) targets.set(k, [this.seedCells[k], 0]);
    return this.#commit(targets);
  }

  /** Remove every link (seed links count as touched: the annotator removed them). */
  clear() {
    const targets = new Map();
    for (let k = 0; k < this.cells.length; k++) {
      if (this.cells[k] || this.seedCells[k]) targets.set(k, [0, 1]);
    }
    return this.#commit(targets);
  }

  /** Replace the whole alignment (e.g. "reload theirs"): one undoable step, cells touched. */
  replaceLinks(links) {
    const next = this.#encode(links);
    const targets = new Map();
    for (let k = 0; k < next.length; k++) {
      if (next[k] !== this.cells[k]) targets.set(k, [next[k], 1]);
    }
    return this.#commit(targets);
  }

  #replay(step, forward) {
    for (const [k, before, after, touchedBefore, touchedAfter] of step) {
      this.cells[k] = forward ? after : before;
      this.touched[k] = forward ? touchedAfter : touchedBefore;
    }
    this.changeCount += 1;
    const keys = step.map((c) => c[0]);
    this.#emit(keys);
    return keys;
  }

  undo() {
    const step = this.undoStack.pop();
    if (!step) return [];
    this.redoStack.push(step);
    return this.#replay(step, false);
  }

  redo() {
    const step = this.redoStack.pop();
    if (!step) return [];
    this.undoStack.push(step);
    return this.#replay(step, true);
  }

  // ---- cursor and block selection (keyboard) ----

  /** Move the cursor to (i, j) (clamped); extend=true keeps/sets the selection's anchor. */
  setCursor(i, j, { extend = false } = {}) {
    const ni = Math.max(0, Math.min(this.rows - 1, i));
    const nj = Math.max(0, Math.min(this.cols - 1, j));
    if (extend && !this.anchor) this.anchor = { ...this.cursor };
    if (!extend) this.anchor = null;
    this.cursor = { i: ni, j: nj };
    this.#emit([], true);
    return this.cursor;
  }

  moveCursor(di, dj, { extend = false } = {}) {
    return this.setCursor(this.cursor.i + di, this.cursor.j + dj, { extend });
  }

  /** The block selection (or the cursor's cell) as {i0, i1, j0, j1}. */
  selection() {
    return rectBetween(this.anchor || this.cursor, this.cursor);
  }

  hasBlockSelection() {
    const r = this.selection();
    return r.i0 !== r.i1 || r.j0 !== r.j1;
  }

  /** Set the selected block (or the cursor's cell) with a tool: one step. */
  applyToSelection(tool) {
    return this.paint(this.selection(), tool);
  }
}
