// Unit tests of the grid's pure view maths (frontend/static/gridalign/grid/viewport.js): zoom
// steps, fit to window, keeping a cell in view beside the sticky headers, the visible region
// and the overview, and the view settings remembered per user.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  clampCell,
  fitCell,
  loadView,
  MAX_CELL,
  MIN_CELL,
  NORMAL_CELL,
  overviewCell,
  overviewScale,
  saveView,
  scrollToCentre,
  scrollToShow,
  visibleRegion,
  ZOOM_STEPS,
  zoomPercent,
  zoomStep,
} from "../../frontend/static/gridalign/grid/viewport.js";

function memoryStorage() {
  const data = new Map();
  return {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => data.set(k, String(v)),
    removeItem: (k) => data.delete(k),
    data,
  };
}

test("zoom steps up and down through the steps, clamped at both ends; 0 is the normal size", () => {
  assert.equal(NORMAL_CELL, 24);
  assert.equal(zoomStep(24, 1), 28);
  assert.equal(zoomStep(24, -1), 20);
  assert.equal(zoomStep(40, 1), 40, "no bigger than the largest step");
  assert.equal(zoomStep(10, -1), 10, "no smaller than the smallest step");
  assert.equal(zoomStep(33, 0), 24);
  // from a fitted size between steps, the next step each way
  assert.equal(zoomStep(7, 1), 10);
  assert.equal(zoomStep(7, -1), 7, "below the steps (fit): stays");
  assert.equal(zoomStep(22, 1), 24);
  assert.equal(zoomStep(22, -1), 20);
  let c = 24;
  const seen = [c];
  for (let n = 0; n < 12; n++) seen.push((c = zoomStep(c, 1)));
  assert.deepEqual([...new Set(seen)], ZOOM_STEPS.filter((s) => s >= 24));
});

test("a cell size is clamped to whole pixels in [MIN_CELL, MAX_CELL]; junk is the normal size", () => {
  assert.equal(clampCell(2), MIN_CELL);
  assert.equal(clampCell(100), MAX_CELL);
  assert.equal(clampCell(17.4), 17);
  assert.equal(clampCell("abc"), NORMAL_CELL);
  assert.equal(zoomPercent(24), 100);
  assert.equal(zoomPercent(12), 50);
});

test("fit to window: the largest cell at which rows, columns and both header bands fit", () => {
  const frame = { width: 1000, height: 600, headWidth: 100, headHeight: 100 };
  // 150 × 150: (1000-100)/150 = 6, (600-100)/150 = 3.33 → at least MIN_CELL
  assert.equal(fitCell({ rows: 150, cols: 150, ...frame }), MIN_CELL);
  // 50 × 40: across 900/40 = 22.5, down 500/50 = 10 → 10
  assert.equal(fitCell({ rows: 50, cols: 40, ...frame }), 10);
  const cell = fitCell({ rows: 50, cols: 40, ...frame });
  assert.ok(100 + 40 * cell <= 1000 && 100 + 50 * cell <= 600, "it does fit");
  assert.ok(100 + 50 * (cell + 1) > 600, "one pixel more would not");
  // a small pair is never blown up beyond the normal size
  assert.equal(fitCell({ rows: 5, cols: 5, ...frame }), NORMAL_CELL);
  assert.equal(fitCell({ rows: 0, cols: 0, ...frame }), NORMAL_CELL);
});

test("keeping a span in view: no scroll when shown, the least scroll otherwise, never under the band", () => {
  const view = { view: 500, pad: 100 };
  assert.equal(scrollToShow({ start: 300, size: 24, scroll: 0, ...view }), 0, "already shown");
  // below the view: its end at the view's end
  assert.equal(scrollToShow({ start: 600, size: 24, scroll: 0, ...view }), 124);
  // above, hidden by the sticky band: its start just after the band
  assert.equal(scrollToShow({ start: 150, size: 24, scroll: 100, ...view }), 50);
  // at the very start: back to 0
  assert.equal(scrollToShow({ start: 100, size: 24, scroll: 400, ...view }), 0);
  // a span larger than the view shows its start
  assert.equal(scrollToShow({ start: 1000, size: 900, scroll: 0, ...view }), 900);
  // property: whatever the start, the span ends up inside [scroll + pad, scroll + view)
  for (let start = 100; start < 5000; start += 37) {
    for (const scroll of [0, 250, 2000, 4800]) {
      const s = scrollToShow({ start, size: 24, scroll, ...view });
      assert.ok(start >= s + 100 && start + 24 <= s + 500, `start ${start} from ${scroll}: ${s}`);
    }
  }
});

test("the visible region and centring a cell are inverse of each other", () => {
  const f = { rows: 150, cols: 150, cell: 24, headWidth: 96, headHeight: 120, width: 900, height: 520 };
  const r0 = visibleRegion({ ...f, scrollStart: 0, scrollTop: 0 });
  assert.deepEqual(r0, { i0: 0, i1: 400 / 24, j0: 0, j1: 804 / 24 });
  const to = scrollToCentre({ ...f, i: 100, j: 70 });
  const r = visibleRegion({ ...f, scrollStart: to.start, scrollTop: to.top });
  assert.ok(Math.abs((r.i0 + r.i1) / 2 - 100.5) < 0.1, JSON.stringify(r));
  assert.ok(Math.abs((r.j0 + r.j1) / 2 - 70.5) < 0.1, JSON.stringify(r));
  // near the start it cannot centre: it stops at 0
  assert.deepEqual(scrollToCentre({ ...f, i: 1, j: 1 }), { start: 0, top: 0 });
  // the region never passes the grid's end
  const end = visibleRegion({ ...f, scrollStart: 99999, scrollTop: 99999 });
  assert.equal(end.i1, 150);
  assert.equal(end.j1, 150);
});

test("the overview: a scale that fits the box, and the cell under a point, clamped", () => {
  assert.equal(overviewScale({ rows: 150, cols: 150, box: 120 }), 0.8);
  assert.equal(overviewScale({ rows: 10, cols: 8, box: 120 }), 4, "small pairs: at most 4 px a cell");
  assert.equal(overviewScale({ rows: 50, cols: 200, box: 100 }), 0.5, "the longer side decides");
  assert.deepEqual(overviewCell({ x: 40, y: 80, scale: 0.8, rows: 150, cols: 150 }), { i: 100, j: 50 });
  assert.deepEqual(overviewCell({ x: -5, y: 500, scale: 0.8, rows: 150, cols: 150 }), { i: 149, j: 0 });
});

test("view settings are remembered per user, defaults by window width, junk ignored", () => {
  const storage = memoryStorage();
  assert.deepEqual(loadView(storage, "ann", { width: 1400 }), { cell: 24, keysOpen: true });
  assert.deepEqual(loadView(storage, "ann", { width: 1024 }), { cell: 24, keysOpen: false });
  assert.ok(saveView(storage, "ann", { cell: 14, keysOpen: false }));
  assert.deepEqual(loadView(storage, "ann", { width: 1400 }), { cell: 14, keysOpen: false });
  assert.deepEqual(loadView(storage, "bob", { width: 1400 }), { cell: 24, keysOpen: true }, "per user");
  storage.setItem("gridalign:view:eve", "{not json");
  assert.deepEqual(loadView(storage, "eve", { width: 1400 }), { cell: 24, keysOpen: true });
  storage.setItem("gridalign:view:eve", JSON.stringify({ cell: 999 }));
  assert.equal(loadView(storage, "eve").cell, MAX_CELL);
  const refusing = { getItem: () => null, setItem: () => { throw new Error("quota"); } };
  assert.equal(saveView(refusing, "ann", { cell: 20, keysOpen: true }), false);
});
