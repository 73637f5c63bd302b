// The overview: a small map of the whole grid (one canvas pixel per cell, scaled up) with the
// part the scroller shows framed; pressing or dragging on it moves the view there. Only the
// cells a change names are redrawn. A pointer aid: from the keyboard, Home / End, PageUp /
// PageDown and Ctrl+Home / Ctrl+End jump as far (keys.js).

import { overviewCell, overviewScale } from "./viewport.js";

const INK = { 1: "#1d3d7a", 2: "#b35c00" }; // sure, possible (grid.css's --ga-sure, --ga-possible)

/**
 * mountOverview(box, {rows, cols, state, rtl, size, onJump(i, j)}) → {paint(keys), showRegion(r),
 * destroy()}; ``size``: the map's longer side in CSS pixels.
 */
export function mountOverview(box, { rows, cols, state, rtl = false, size = 128, onJump }) {
  const scale = overviewScale({ rows, cols, box: size });
  box.innerHTML =
    '<p class="ga-overview-label">Overview</p><div class="ga-overview-map">' +
    '<canvas class="ga-overview-canvas"></canvas><div class="ga-overview-region"></div></div>';
  const map = box.querySelector(".ga-overview-map");
  const canvas = box.querySelector("canvas");
  const region = box.querySelector(".ga-overview-region");
  canvas.width = cols;
  canvas.height = rows;
  map.style.width = `${cols * scale}px`;
  map.style.height = `${rows * scale}px`;
  const ctx = canvas.getContext("2d");
  const x = (j) => (rtl ? cols - 1 - j : j);

  function paintKey(k) {
    const i = (k / cols) | 0;
    const j = k - i * cols;
    const v = state.cells[k];
    ctx.clearRect(x(j), i, 1, 1);
    if (v) {
      ctx.fillStyle = INK[v];
      ctx.fillRect(x(j), i, 1, 1);
    }
  }
  function paint(keys) {
    if (keys) for (const k of keys) paintKey(k);
    else {
      ctx.clearRect(0, 0, cols, rows);
      for (let k = 0; k < rows * cols; k++) if (state.cells[k]) paintKey(k);
    }
  }

  /** Frame the cells {i0, i1, j0, j1} (fractions; i1, j1 exclusive) the scroller shows. */
  function showRegion({ i0, i1, j0, j1 }) {
    const left = rtl ? cols - j1 : j0;
    region.style.transform = `translate(${left * scale}px, ${i0 * scale}px)`;
    region.style.width = `${Math.max(2, (j1 - j0) * scale)}px`;
    region.style.height = `${Math.max(2, (i1 - i0) * scale)}px`;
  }

  let pressed = false;
  function jumpAt(e) {
    const rect = map.getBoundingClientRect();
    const at = overviewCell({ x: e.clientX - rect.left, y: e.clientY - rect.top, scale, rows, cols });
    onJump?.(at.i, rtl ? cols - 1 - at.j : at.j);
  }
  function onDown(e) {
    if (e.button !== 0) return;
    e.preventDefault();
    pressed = true;
    map.setPointerCapture?.(e.pointerId);
    jumpAt(e);
  }
  function onMove(e) {
    if (pressed) jumpAt(e);
  }
  function onUp() {
    pressed = false;
  }
  map.addEventListener("pointerdown", onDown);
  map.addEventListener("pointermove", onMove);
  map.addEventListener("pointerup", onUp);
  map.addEventListener("pointercancel", onUp);
  paint();

  return {
    paint,
    showRegion,
    destroy() {
      box.innerHTML = "";
    },
  };
}
