// The alignment grid's DOM: draws a pair as a table (source tokens as rows, target tokens as
// columns) and turns mouse and keyboard input into AlignmentState edits (state.js).
//
//   const grid = mountGrid(container, {
//     source, target,            // token arrays (rows, columns)
//     state,                     // an AlignmentState to show and edit; or
//     links,                     //   links to show read-only when no state is given
//     readOnly: false,           // no editing (cursor and hover still work)
//     tool: () => "sure",        // the tool a dragged rectangle paints with (sure|possible|erase)
//     posteriors: null,          // Uint8Array rows*cols (0..255) or the API's {rows, cols, data}
//     showPosteriors: false,     // faint shading by the aligner's link posterior
//     overlay: null,             // {a: links, b: links, labels: {a, b}}: compare two alignments
//     sentences: null,           // an element to hold the pair as two lines of text
//   });
//   grid.setShowPosteriors(bool); grid.setOverlay(overlay|null); grid.handleKey(event) → bool;
//   grid.focus(); grid.destroy(); grid.table (the role="grid" element); grid.state.
//
// Speed: the table is built once as one HTML string; afterwards only the cells a change names
// are touched (the state tells us which), and all input goes through a few delegated listeners
// on the table, never one listener per cell. The table is laid out as rows of fixed-width
// boxes (grid.css), not by the table algorithm, and rows scrolled out of view are neither laid
// out nor painted (content-visibility), so an 80 × 80 pair costs about what its visible part
// does; the first frame is built with the cells on screen, the rest are added right after it. The column under the pointer is one highlight band moved along, not 80 cells.

import { AlignmentState, linksToMap, rectBetween } from "./state.js";

// A cell's shade by its posterior byte (0..255), as one of 16 classes ga-p1 … ga-p16 (grid.css):
// level = the square root of the posterior, so the middling posteriors of links the seed left
// out show, not only the near-certain ones; below 0.05 no shade. Classes, not inline styles:
// 6,400 style attributes cost the first render more than the table itself.
const SHADE = Array.from({ length: 256 }, (_, b) => (b < 13 ? "" : `ga-p${Math.max(1, Math.round(Math.sqrt(b / 255) * 16))}`));

let mounted = 0; // gives each grid's table an id (its cursor cell's id derives from it)
const STATE_WORDS = { none: "no link", sure: "sure link", possible: "possible link" };

function escapeHtml(text) {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}

/** The API's {rows, cols, scale, data: base64} (or a Uint8Array) → Uint8Array, else null. */
export function decodePosteriors(posteriors, rows, cols) {
  if (!posteriors) return null;
  if (posteriors instanceof Uint8Array) return posteriors.length === rows * cols ? posteriors : null;
  if (posteriors.rows !== rows || posteriors.cols !== cols || typeof posteriors.data !== "string") {
    return null; // a matrix of another shape belongs to other tokens: better none than wrong
  }
  const raw = atob(posteriors.data);
  if (raw.length !== rows * cols) return null;
  const bytes = new Uint8Array(raw.length);
  for (let k = 0; k < raw.length; k++) bytes[k] = raw.charCodeAt(k);
  return bytes;
}

/** Overlay kind of every cell (flat key → kind) for two alignments a and b. */
export function overlayKinds(a, b, cols) {
  const ma = linksToMap(a);
  const mb = linksToMap(b);
  const kinds = new Map();
  for (const key of new Set([...ma.keys(), ...mb.keys()])) {
    const [i, j] = key.split(",").map(Number);
    const x = ma.get(key);
    const y = mb.get(key);
    let kind;
    if (x && y) kind = x === y ? (x === "S" ? "both-sure" : "both-possible") : "mismatch";
    else kind = x ? "only-a" : "only-b";
    kinds.set(i * cols + j, kind);
  }
  return kinds;
}

function legendHtml(overlay, editable) {
  const item = (attrs, text) =>
    `<li><span class="ga-sample" ${attrs} aria-hidden="true"></span>${escapeHtml(text)}</li>`;
  const parts = [];
  if (overlay) {
    const a = overlay.labels?.a || "A";
    const b = overlay.labels?.b || "B";
    parts.push(item('data-overlay="both-sure"', `sure in both`));
    parts.push(item('data-overlay="both-possible"', `possible in both`));
    parts.push(item('data-overlay="mismatch"', `sure in one, possible in the other`));
    parts.push(item('data-overlay="only-a"', `only ${a}`));
    parts.push(item('data-overlay="only-b"', `only ${b}`));
  }
  if (editable || !overlay) {
    parts.push(item('data-state="sure"', "sure"));
    parts.push(item('data-state="possible"', "possible"));
    parts.push(item('data-state="sure" data-seed="1"', "seed link, not yet touched"));
  }
  return `<ul class="ga-legend" aria-label="Legend">${parts.join("")}</ul>`;
}

export function mountGrid(container, options) {
  const source = options.source || [];
  const target = options.target || [];
  const rows = source.length;
  const cols = target.length;
  const state = options.state || new AlignmentState({ rows, cols, links: options.links || [] });
  if (state.rows !== rows || state.cols !== cols) {
    throw new Error(`state is ${state.rows}×${state.cols}, tokens are ${rows}×${cols}`);
  }
  const readOnly = Boolean(options.readOnly);
  const toolOf = typeof options.tool === "function" ? options.tool : () => options.tool || "sure";
  const posteriors = decodePosteriors(options.posteriors, rows, cols);
  let overlay = options.overlay || null;
  let kinds = overlay ? overlayKinds(overlay.a, overlay.b, cols) : new Map();

  function overlayWords(kind) {
    const a = overlay.labels?.a || "A";
    const b = overlay.labels?.b || "B";
    return {
      "both-sure": `sure in ${a} and ${b}`,
      "both-possible": `possible in ${a} and ${b}`,
      mismatch: `sure in one of ${a} and ${b}, possible in the other`,
      "only-a": `only in ${a}`,
      "only-b": `only in ${b}`,
    }[kind];
  }

  function label(i, j, k) {
    const name = state.stateName(i, j);
    let text = `${source[i]} – ${target[j]}: ${STATE_WORDS[name]}`;
    if (state.isUntouchedSeed(i, j)) text += " (seed)";
    const kind = kinds.get(k);
    if (kind) text += `; ${overlayWords(kind)}`;
    return text;
  }

  /** The first render writes each cell's attributes into the HTML (no per-cell DOM calls);
   * ``named`` false leaves the (long) aria-label to be set after the first frame. */
  function cellAttributes(i, j, k, named) {
    let out = ` data-state="${state.stateName(i, j)}"`;
    if (state.isUntouchedSeed(i, j)) out += ' data-seed="1"';
    const kind = kinds.get(k);
    if (kind) out += ` data-overlay="${kind}"`;
    return named ? `${out} aria-label="${escapeHtml(label(i, j, k))}"` : out;
  }

  // ---- build once ----
  const html = [];
  // Fixed widths: given here (the row words' column by its longest word, at most 9rem,
  // allowing for wide and bold letters), so the browser never measures 6,400 cells to lay out
  // an 80 × 80 grid.
  const longest = source.reduce((m, t) => Math.max(m, String(t).length), 1);
  const headWidth = `min(9rem, calc(${(longest * 1.35).toFixed(1)}ch + 1.2rem))`;
  html.push('<div class="ga-legend-box"></div><div class="ga-scroll"><div class="ga-colband" hidden></div>');
  html.push(
    `<table class="ga-grid" role="grid" tabindex="0" aria-rowcount="${rows + 1}" aria-colcount="${cols + 1}"` +
      ` style="--ga-head: ${headWidth}; width: calc(${headWidth} + ${cols} * var(--ga-cell))"` +
      ` aria-readonly="${readOnly}" aria-label="Alignment grid: ${rows} source words (rows) × ${cols} target words (columns)">`,
  );
  html.push('<thead><tr role="row"><th class="ga-corner" role="columnheader"></th>');
  for (let j = 0; j < cols; j++) {
    const word = escapeHtml(target[j]);
    html.push(
      `<th class="ga-colhead" role="columnheader" scope="col" data-j="${j}" title="${word}"><span>${word}</span></th>`,
    );
  }
  html.push("</tr></thead><tbody>");
  /** Cells j0 … j1 - 1 of row i as HTML, as the state has them now (``named``: labelled). */
  function cellsHtml(i, j0, j1, named) {
    const out = [];
    for (let j = j0; j < j1; j++) {
      const k = i * cols + j;
      const cls = `${posteriors ? SHADE[posteriors[k]] : ""}${j % 5 === 4 ? " ga-g5" : ""}`.trim();
      const c = cls ? ` class="${cls}"` : "";
      out.push(`<td role="gridcell" data-i="${i}" data-j="${j}"${c}${cellAttributes(i, j, k, named)}></td>`);
    }
    return out.join("");
  }
  /** Rows i0 … i1 - 1 as HTML, with their first j1 cells. */
  function rowsHtml(i0, i1, j1, named) {
    const out = [];
    for (let i = i0; i < i1; i++) {
      const word = escapeHtml(source[i]);
      out.push(
        `<tr role="row" data-i="${i}"${i % 5 === 4 ? ' class="ga-g5"' : ""}><th class="ga-rowhead" role="rowheader" scope="row" data-i="${i}" title="${word}">${word}</th>`,
      );
      out.push(cellsHtml(i, 0, j1, named), "</tr>");
    }
    return out.join("");
  }
  // The first frame needs only the cells on screen (below and right of the grid's corner, in
  // a scroller at most 72vh high and as wide as the grid's box; cells are 1.5rem): those are
  // drawn now, without their labels; the other cells and the labels right after that frame
  // (completeGrid below).
  const cellPx = 1.5 * (parseFloat(getComputedStyle(document.documentElement).fontSize) || 16);
  const box = container.getBoundingClientRect();
  const onScreen = Math.min(window.innerHeight * 0.75, window.innerHeight - Math.max(0, box.top));
  const firstRows = Math.min(rows, Math.max(10, Math.ceil(onScreen / cellPx) + 2));
  const wide = Math.min(box.width || window.innerWidth, window.innerWidth - Math.max(0, box.left));
  const firstCols = Math.min(cols, Math.max(10, Math.ceil(wide / cellPx) + 1));
  const whole = firstRows === rows && firstCols === cols;
  html.push(rowsHtml(0, firstRows, firstCols, whole));
  html.push("</tbody></table></div>");
  container.classList.add("ga-grid-wrap");
  container.innerHTML = html.join("");
  const table = container.querySelector("table");
  const scroller = container.querySelector(".ga-scroll");
  const legendBox = container.querySelector(".ga-legend-box");
  table.id = `ga-grid-${++mounted}`;
  const cellList = new Array(rows * cols); // row-major: [k]; empty for cells not drawn yet
  for (let i = 0; i < firstRows; i++) {
    const cells = table.tBodies[0].rows[i].cells;
    for (let j = 0; j < firstCols; j++) cellList[i * cols + j] = cells[j + 1];
  }
  const colBand = container.querySelector(".ga-colband");
  const colHeads = Array.from(table.tHead.querySelectorAll("th[data-j]"));
  const rowEls = Array.from(table.tBodies[0].rows);
  const rowHeads = rowEls.map((tr) => tr.cells[0]);
  table.classList.toggle("ga-show-post", Boolean(options.showPosteriors && posteriors));
  table.classList.toggle("ga-readonly", readOnly);
  // Overlay without a state of its own (trial feedback): the overlay marks say everything.
  table.classList.toggle("ga-overlay-only", Boolean(overlay && !options.state));

  function paintCell(k) {
    const el = cellList[k];
    if (!el) return; // a row not drawn yet: it is drawn from the state when it is
    const i = (k / cols) | 0;
    const j = k - i * cols;
    const name = state.stateName(i, j);
    if (el.dataset.state !== name) el.dataset.state = name;
    if (state.isUntouchedSeed(i, j)) el.dataset.seed = "1";
    else if (el.dataset.seed) delete el.dataset.seed;
    const kind = kinds.get(k);
    if (kind) el.dataset.overlay = kind;
    else if (el.dataset.overlay) delete el.dataset.overlay;
    el.setAttribute("aria-label", label(i, j, k));
  }

  function paintAll(cellsToo = true) {
    if (cellsToo) for (let k = 0; k < cellList.length; k++) paintCell(k);
    legendBox.innerHTML = legendHtml(overlay, !readOnly);
    table.classList.toggle("ga-has-overlay", Boolean(overlay));
  }

  // ---- cursor and selection (keyboard block and drag preview share the "ga-sel" class) ----
  let shownCursor = -1;
  let scrollToCursor = false; // set by keyboard moves: a clicked cell is on screen already
  let shownSel = null;
  function markRect(rect, on) {
    if (!rect) return;
    for (let i = rect.i0; i <= rect.i1; i++) {
      for (let j = rect.j0; j <= rect.j1; j++) cellList[i * cols + j]?.classList.toggle("ga-sel", on);
    }
  }
  function showSelection(rect) {
    const same =
      shownSel && rect && shownSel.i0 === rect.i0 && shownSel.i1 === rect.i1 && shownSel.j0 === rect.j0 && shownSel.j1 === rect.j1;
    if (same) return;
    markRect(shownSel, false);
    shownSel = rect;
    markRect(rect, true);
  }
  function showCursor() {
    if (!rows || !cols) return;
    const k = state.cursor.i * cols + state.cursor.j;
    if (shownCursor !== k && cellList[k]) {
      if (shownCursor >= 0) {
        cellList[shownCursor].classList.remove("ga-cursor");
        cellList[shownCursor].removeAttribute("id");
      }
      shownCursor = k;
      const el = cellList[k];
      el.setAttribute("aria-label", label(state.cursor.i, state.cursor.j, k)); // always named
      el.classList.add("ga-cursor");
      el.id = `${table.id || "ga"}-cursor`;
      table.setAttribute("aria-activedescendant", el.id);
      if (scrollToCursor && document.activeElement === table) {
        el.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
    }
    showSelection(state.hasBlockSelection() ? state.selection() : null);
  }

  // ---- hover: row, column, both words, and in the sentence lines the linked words ----
  const sentences = options.sentences || null;
  let words = { source: [], target: [] };
  if (sentences) {
    const line = (side, tokens, title) =>
      `<p class="ga-sentence" data-side="${side}"><span class="ga-sentence-label">${title}</span>` +
      tokens.map((t, k) => `<span class="ga-word" data-side="${side}" data-k="${k}">${escapeHtml(t)}</span>`).join(" ") +
      "</p>";
    sentences.innerHTML = line("source", source, "Rows") + line("target", target, "Columns");
    words = {
      source: Array.from(sentences.querySelectorAll('.ga-word[data-side="source"]')),
      target: Array.from(sentences.querySelectorAll('.ga-word[data-side="target"]')),
    };
  }
  let hovered = [];
  let bandAt = -1;
  /** The column highlight: one band over column j (-1: none), placed by its header's box. */
  function showColumn(j) {
    if (j === bandAt) return;
    bandAt = j;
    colBand.hidden = j < 0;
    if (j < 0) return;
    const head = colHeads[j];
    colBand.style.transform = `translateX(${head.offsetLeft}px)`;
    colBand.style.width = `${head.offsetWidth}px`;
    colBand.style.height = `${table.offsetHeight}px`;
  }
  function setHover(marks, column = -1) {
    for (const [el, cls] of hovered) el.classList.remove(cls);
    hovered = marks.filter(([el]) => el);
    for (const [el, cls] of hovered) el.classList.add(cls);
    showColumn(column);
  }
  /** Scroll a long sentence line (not the page) so that a word in it shows. */
  function keepInView(el) {
    const line = el && el.parentElement;
    if (!line || line.scrollHeight <= line.clientHeight) return;
    const top = el.offsetTop;
    if (top < line.scrollTop) line.scrollTop = top;
    else if (top + el.offsetHeight > line.scrollTop + line.clientHeight) {
      line.scrollTop = top + el.offsetHeight - line.clientHeight;
    }
  }
  function hoverCell(i, j) {
    keepInView(words.source[i]);
    keepInView(words.target[j]);
    setHover(
      [
        [rowEls[i], "ga-hover"],
        [rowHeads[i], "ga-hover"],
        [colHeads[j], "ga-hover"],
        [words.source[i], "ga-hover"],
        [words.target[j], "ga-hover"],
      ],
      j,
    );
  }
  function hoverWord(side, k) {
    const other = side === "source" ? "target" : "source";
    const marks = [[words[side][k], "ga-hover"]];
    const linked = state.linkedTo(side, k);
    for (const m of linked) marks.push([words[other][m], "ga-linked"]);
    if (linked.length) keepInView(words[other][linked[0]]);
    if (side === "source") marks.push([rowEls[k], "ga-hover"], [rowHeads[k], "ga-hover"]);
    else marks.push([colHeads[k], "ga-hover"]);
    setHover(marks, side === "source" ? -1 : k);
  }

  function cellOf(node) {
    const td = node && node.closest ? node.closest("td[data-i]") : null;
    return td && table.contains(td) ? { i: Number(td.dataset.i), j: Number(td.dataset.j) } : null;
  }

  // ---- mouse: a click cycles a cell, a drag paints a rectangle with the current tool ----
  let drag = null;
  function onPointerDown(e) {
    if (e.button !== 0) return;
    const cell = cellOf(e.target);
    if (!cell) return;
    table.focus({ preventScroll: true });
    if (readOnly) {
      state.setCursor(cell.i, cell.j);
      return;
    }
    e.preventDefault(); // no text selection while dragging
    drag = { start: cell, end: cell, moved: false };
    table.classList.add("ga-dragging", `ga-tool-${toolOf()}`);
  }
  function onPointerMove(e) {
    const cell = cellOf(e.target);
    if (cell) hoverCell(cell.i, cell.j);
    if (!drag || !cell) return;
    if (cell.i !== drag.end.i || cell.j !== drag.end.j) {
      drag.end = cell;
      drag.moved = drag.moved || cell.i !== drag.start.i || cell.j !== drag.start.j;
      showSelection(rectBetween(drag.start, drag.end));
    }
  }
  function onPointerUp() {
    if (!drag) return;
    const { start, end, moved } = drag;
    drag = null;
    table.className = table.className.replace(/\bga-(dragging|tool-\w+)\b/g, "").trim();
    state.setCursor(end.i, end.j);
    if (moved) state.paint(rectBetween(start, end), toolOf());
    else state.cycle(start.i, start.j);
  }
  function onLeave() {
    if (!drag) setHover([]);
  }
  function onWordOver(e) {
    const w = e.target.closest && e.target.closest(".ga-word");
    if (w) hoverWord(w.dataset.side, Number(w.dataset.k));
  }

  // ---- keyboard ----
  const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const SET_KEYS = { s: "sure", p: "possible", x: "erase", Delete: "erase", Backspace: "erase" };
  /** Handle a grid key (arrows, s/p/x/Delete, space, z/Ctrl+Z, Ctrl+Shift+Z/Ctrl+Y). */
  function handleKey(e) {
    if (e.altKey || e.metaKey) return false;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    let done = true;
    if (ARROWS[e.key] && !e.ctrlKey) {
      const [di, dj] = ARROWS[e.key];
      scrollToCursor = true;
      state.moveCursor(di, dj, { extend: e.shiftKey });
      scrollToCursor = false;
      hoverCell(state.cursor.i, state.cursor.j);
    } else if (readOnly) {
      done = false;
    } else if (e.ctrlKey && ((key === "z" && e.shiftKey) || key === "y")) {
      state.redo();
    } else if (key === "z" && !e.shiftKey) {
      state.undo();
    } else if (e.ctrlKey) {
      done = false;
    } else if (SET_KEYS[key] && !(e.shiftKey && key.length > 1)) {
      state.applyToSelection(SET_KEYS[key]);
    } else if (key === " ") {
      state.cycle(state.cursor.i, state.cursor.j);
    } else {
      done = false;
    }
    if (done) e.preventDefault();
    return done;
  }
  function onKeyDown(e) {
    if (handleKey(e)) e.stopPropagation();
  }

  const unsubscribe = state.subscribe((change) => {
    for (const k of change.cells) paintCell(k);
    showCursor();
  });
  table.addEventListener("pointerdown", onPointerDown);
  table.addEventListener("pointermove", onPointerMove);
  table.addEventListener("pointerleave", onLeave);
  table.addEventListener("keydown", onKeyDown);
  window.addEventListener("pointerup", onPointerUp);
  if (sentences) {
    sentences.addEventListener("pointerover", onWordOver);
    sentences.addEventListener("pointerleave", onLeave);
  }
  paintAll(false); // the cells were drawn with the HTML
  showCursor();

  let destroyed = false;
  /** The cells beyond the first screenful, and the first ones' labels, once it is out. */
  function completeGrid() {
    if (destroyed) return;
    const body = table.tBodies[0];
    for (let i = 0; i < firstRows; i++) {
      for (let j = 0; j < firstCols; j++) cellList[i * cols + j].setAttribute("aria-label", label(i, j, i * cols + j));
      if (firstCols < cols) {
        const tr = rowEls[i];
        tr.insertAdjacentHTML("beforeend", cellsHtml(i, firstCols, cols, true));
        for (let j = firstCols; j < cols; j++) cellList[i * cols + j] = tr.cells[j + 1];
      }
    }
    body.insertAdjacentHTML("beforeend", rowsHtml(firstRows, rows, cols, true));
    for (let i = firstRows; i < rows; i++) {
      const tr = body.rows[i];
      rowEls.push(tr);
      rowHeads.push(tr.cells[0]);
      for (let j = 0; j < cols; j++) cellList[i * cols + j] = tr.cells[j + 1];
    }
    if (shownSel) markRect(shownSel, true);
    showCursor();
  }
  if (!whole) requestAnimationFrame(() => setTimeout(() => setTimeout(completeGrid, 0), 0));

  return {
    table,
    scroller,
    state,
    handleKey,
    focus: () => table.focus({ preventScroll: true }),
    /** Repaint the named cells (flat keys); with no argument, every cell. */
    update(keys) {
      if (keys) for (const k of keys) paintCell(k);
      else paintAll();
    },
    setShowPosteriors(on) {
      table.classList.toggle("ga-show-post", Boolean(on && posteriors));
      return Boolean(on && posteriors);
    },
    hasPosteriors: Boolean(posteriors),
    setOverlay(next) {
      overlay = next || null;
      kinds = overlay ? overlayKinds(overlay.a, overlay.b, cols) : new Map();
      paintAll();
    },
    destroy() {
      destroyed = true;
      unsubscribe();
      window.removeEventListener("pointerup", onPointerUp);
      if (sentences) {
        sentences.removeEventListener("pointerover", onWordOver);
        sentences.innerHTML = "";
      }
      container.innerHTML = "";
    },
  };
}
