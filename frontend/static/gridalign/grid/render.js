// The alignment grid's DOM: draws a pair as a table (source tokens as rows, target tokens as
// columns) and turns pointer input into AlignmentState edits (state.js). Keys are not read
// here: keys.js maps them to commands, and the page calls the grid's methods for them.
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
//     cell: 24,                  // the cell size in CSS pixels (the zoom; viewport.js)
//     fill: false,               // the scroller fills its box (the annotation page's layout)
//     overview: false,           // a small map of the whole grid beside it (overview.js)
//     onView: null,              // called after a zoom or a scroll settles
//   });
//   grid.moveCursor(di, dj, extend); grid.jumpTo(i, j); grid.setCell(px); grid.fitCell() → px;
//   grid.pageRows(); grid.rtl; grid.setShowPosteriors(bool); grid.setOverlay(overlay|null);
//   grid.focus(); grid.destroy(); grid.table (the role="grid" element); grid.state.
//
// The parts, one job each: the HTML (built once as strings), the cell painter (only the cells a
// change names), the cursor and selection, the hover marks, the pointer, and the view (zoom,
// scrolling, the overview). Speed: rows are flex lines of fixed-width cells (grid.css), so
// nothing is measured; rows off screen are skipped by layout and paint (content-visibility);
// the first frame is built with the cells on screen, the rest right after it; input goes
// through a few delegated listeners on the table, never one per cell.

import { gridDirection, sentenceDirection, tokenDirection } from "./script.js";
import { AlignmentState, linksToMap, rectBetween } from "./state.js";
import { clampCell, fitCell, NORMAL_CELL, scrollToCentre, scrollToShow, visibleRegion } from "./viewport.js";
import { mountOverview } from "./overview.js";

// A cell's shade by its posterior byte (0..255), as one of 16 classes ga-p1 … ga-p16 (grid.css):
// level = the square root of the posterior, so the middling posteriors of links the seed left
// out show, not only the near-certain ones; below 0.05 no shade. Classes, not inline styles.
const SHADE = Array.from({ length: 256 }, (_, b) => (b < 13 ? "" : `ga-p${Math.max(1, Math.round(Math.sqrt(b / 255) * 16))}`));

let mounted = 0; // gives each grid's table an id (its cursor cell's id derives from it)
const STATE_WORDS = { none: "no link", sure: "sure link", possible: "possible link" };

function escapeHtml(text) {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}

/** A token as inline HTML: isolated in its own direction (an Arabic word in an English line). */
function tokenHtml(token) {
  const d = tokenDirection(token);
  return `<bdi${d ? ` dir="${d}"` : ""}>${escapeHtml(token)}</bdi>`;
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

function legendHtml(overlay, editable, hasSeed) {
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
    // the seed's mark only where there is a seed (none: no seed yet, or it could not be loaded)
    if (hasSeed) parts.push(item('data-state="sure" data-seed="1"', "seed link, not yet touched"));
  }
  return `<ul class="ga-legend" aria-label="Legend">${parts.join("")}</ul>`;
}

// ---- the model: what every part reads ----

function gridModel(options) {
  const source = options.source || [];
  const target = options.target || [];
  const rows = source.length;
  const cols = target.length;
  const state = options.state || new AlignmentState({ rows, cols, links: options.links || [] });
  if (state.rows !== rows || state.cols !== cols) {
    throw new Error(`state is ${state.rows}×${state.cols}, tokens are ${rows}×${cols}`);
  }
  const overlay = options.overlay || null;
  return {
    source,
    target,
    rows,
    cols,
    state,
    readOnly: Boolean(options.readOnly),
    toolOf: typeof options.tool === "function" ? options.tool : () => options.tool || "sure",
    posteriors: decodePosteriors(options.posteriors, rows, cols),
    overlay,
    kinds: overlay ? overlayKinds(overlay.a, overlay.b, cols) : new Map(),
    dir: gridDirection(target),
    hasSeed: Boolean(state.seedCells?.some((v) => v)),
    setOverlay(next) {
      this.overlay = next || null;
      this.kinds = this.overlay ? overlayKinds(this.overlay.a, this.overlay.b, cols) : new Map();
    },
  };
}

function overlayWords(overlay, kind) {
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

/** What a screen reader says for cell (i, j): both words, then its state. */
function cellLabel(m, i, j, k) {
  let text = `${m.source[i]} – ${m.target[j]}: ${STATE_WORDS[m.state.stateName(i, j)]}`;
  if (m.state.isUntouchedSeed(i, j)) text += " (seed)";
  const kind = m.kinds.get(k);
  if (kind) text += `; ${overlayWords(m.overlay, kind)}`;
  return text;
}

// ---- the HTML, built once as strings ----

function htmlParts(m) {
  /** The first render writes each cell's attributes into the HTML (no per-cell DOM calls);
   * ``named`` false leaves the (long) aria-label to be set after the first frame. */
  function cellAttributes(i, j, k, named) {
    let out = ` data-state="${m.state.stateName(i, j)}"`;
    if (m.state.isUntouchedSeed(i, j)) out += ' data-seed="1"';
    const kind = m.kinds.get(k);
    if (kind) out += ` data-overlay="${kind}"`;
    return named ? `${out} aria-label="${escapeHtml(cellLabel(m, i, j, k))}"` : out;
  }
  /** Cells j0 … j1 - 1 of row i, as the state has them now (``named``: labelled). */
  function cells(i, j0, j1, named) {
    const out = [];
    for (let j = j0; j < j1; j++) {
      const k = i * m.cols + j;
      const cls = `${m.posteriors ? SHADE[m.posteriors[k]] : ""}${j % 5 === 4 ? " ga-g5" : ""}`.trim();
      const c = cls ? ` class="${cls}"` : "";
      out.push(`<td role="gridcell" data-i="${i}" data-j="${j}"${c}${cellAttributes(i, j, k, named)}></td>`);
    }
    return out.join("");
  }
  /** Rows i0 … i1 - 1 with their first j1 cells. */
  function rowsHtml(i0, i1, j1, named) {
    const out = [];
    for (let i = i0; i < i1; i++) {
      const word = escapeHtml(m.source[i]);
      out.push(
        `<tr role="row" data-i="${i}"${i % 5 === 4 ? ' class="ga-g5"' : ""}><th class="ga-rowhead" role="rowheader" scope="row" data-i="${i}" title="${word}">${tokenHtml(m.source[i])}</th>`,
        cells(i, 0, j1, named),
        "</tr>",
      );
    }
    return out.join("");
  }
  /** The row words' column: one sticky box beside the rows (grid.css), aria-hidden (each
   * row keeps its own row header, which assistive technology reads). */
  function rowWords() {
    const out = ['<div class="ga-rowwords" aria-hidden="true">'];
    for (let i = 0; i < m.rows; i++) {
      out.push(`<div class="ga-rowword" data-i="${i}" title="${escapeHtml(m.source[i])}">${tokenHtml(m.source[i])}</div>`);
    }
    out.push("</div>");
    return out.join("");
  }
  function head() {
    const out = ['<thead><tr role="row"><th class="ga-corner" role="columnheader"><span class="sr-only">source \\ target</span></th>'];
    for (let j = 0; j < m.cols; j++) {
      const word = escapeHtml(m.target[j]);
      const d = tokenDirection(m.target[j]);
      out.push(
        `<th class="ga-colhead" role="columnheader" scope="col" data-j="${j}" title="${word}"><span${d ? ` dir="${d}"` : ""}>${word}</span></th>`,
      );
    }
    out.push("</tr></thead>");
    return out.join("");
  }
  return { cells, rows: rowsHtml, head, rowWords };
}

/** Build the table with the cells the first frame shows; the rest come with complete(). */
function buildTable(container, m, options, cell) {
  const html = htmlParts(m);
  // the row words' column by its longest word (at most 10.5em), in the table's font, which
  // grows with the cell (grid.css): the browser never measures 6,400 cells to lay out the grid
  const longest = m.source.reduce((n, t) => Math.max(n, String(t).length), 1);
  const headWidth = `min(10.5em, calc(${(longest * 1.35).toFixed(1)}ch + 1.4em))`;
  const box = container.getBoundingClientRect();
  const onScreen = Math.min(window.innerHeight, window.innerHeight - Math.max(0, box.top));
  const firstRows = Math.min(m.rows, Math.max(10, Math.ceil(onScreen / cell) + 2));
  const wide = Math.min(box.width || window.innerWidth, window.innerWidth - Math.max(0, box.left));
  const firstCols = Math.min(m.cols, Math.max(10, Math.ceil(wide / cell) + 1));
  container.classList.add("ga-grid-wrap");
  container.classList.toggle("ga-fill", Boolean(options.fill));
  container.style.setProperty("--ga-cell", `${cell}px`);
  // the legend above the grid; on the annotation page (fill) beside it, under the overview,
  // where it costs the grid no height
  const legend = '<div class="ga-legend-box"></div>';
  // the overview only when the grid will not fit its box: estimated from the sizes known now
  // (the row words' column is at most 10.5em, the column words' band about 10em, in a font of
  // 0.56 cells), so the first frame is laid out once, not again to show or hide the overview
  const room = { width: (box.width || window.innerWidth) - 150, height: onScreen };
  const overflows = 6 * cell + m.cols * cell > room.width || 6 * cell + m.rows * cell > room.height;
  const aside = options.overview ? `<div class="ga-overview" aria-hidden="true"${overflows ? "" : " hidden"}></div>` : "";
  container.innerHTML =
    `${options.fill ? "" : legend}<div class="ga-body" dir="${m.dir}">` +
    `<div class="ga-scroll" dir="${m.dir}"><div class="ga-colband" hidden></div>` +
    `<table class="ga-grid" role="grid" tabindex="0" aria-rowcount="${m.rows + 1}" aria-colcount="${m.cols + 1}"` +
    ` aria-readonly="${m.readOnly}" aria-label="Alignment grid: ${m.rows} source words (rows) × ${m.cols} target words (columns)">` +
    `${html.head()}<tbody>${html.rows(0, firstRows, firstCols, firstRows === m.rows && firstCols === m.cols)}</tbody></table></div>` +
    `${options.fill ? `<div class="ga-aside" dir="ltr">${aside}${legend}</div>` : aside}</div>`;
  const table = container.querySelector("table");
  table.id = `ga-grid-${++mounted}`;
  // CSSOM, not style attributes in the HTML: a Content-Security-Policy may refuse those
  const scroller = container.querySelector(".ga-scroll");
  table.style.setProperty("--ga-head", headWidth);
  // the row words' column: the body's first box (a DOM insertion: the HTML parser would move a
  // box out of a table), of no height, its words level with the rows that follow it
  table.tBodies[0].insertAdjacentHTML("afterbegin", html.rowWords());
  table.style.width = `calc(var(--ga-head) + ${m.cols} * var(--ga-cell))`;
  table.classList.toggle("ga-show-post", Boolean(options.showPosteriors && m.posteriors));
  table.classList.toggle("ga-readonly", m.readOnly);
  // Overlay without a state of its own (trial feedback): the overlay marks say everything.
  table.classList.toggle("ga-overlay-only", Boolean(m.overlay && !options.state));
  const v = {
    table,
    scroller,
    legendBox: container.querySelector(".ga-legend-box"),
    colBand: container.querySelector(".ga-colband"),
    overviewBox: container.querySelector(".ga-overview"),
    cellList: new Array(m.rows * m.cols), // row-major: [k]; empty for cells not drawn yet
    colHeads: Array.from(table.tHead.querySelectorAll("th[data-j]")),
    rowEls: Array.from(table.tBodies[0].rows),
    complete: null,
    whole: firstRows === m.rows && firstCols === m.cols,
  };
  // the row words shown (the sticky column), which the hover marks
  v.rowWords = table.querySelector(".ga-rowwords");
  v.rowHeads = Array.from(v.rowWords.children);
  for (let i = 0; i < firstRows; i++) {
    const cells = v.rowEls[i].cells;
    for (let j = 0; j < firstCols; j++) v.cellList[i * m.cols + j] = cells[j + 1];
  }
  /** The cells beyond the first screenful, and the first ones' labels. */
  v.complete = () => {
    const body = table.tBodies[0];
    for (let i = 0; i < firstRows; i++) {
      for (let j = 0; j < firstCols; j++) v.cellList[i * m.cols + j].setAttribute("aria-label", cellLabel(m, i, j, i * m.cols + j));
      if (firstCols < m.cols) {
        const tr = v.rowEls[i];
        tr.insertAdjacentHTML("beforeend", html.cells(i, firstCols, m.cols, true));
        for (let j = firstCols; j < m.cols; j++) v.cellList[i * m.cols + j] = tr.cells[j + 1];
      }
    }
    body.insertAdjacentHTML("beforeend", html.rows(firstRows, m.rows, m.cols, true));
    for (let i = firstRows; i < m.rows; i++) {
      const tr = body.rows[i];
      v.rowEls.push(tr);
      for (let j = 0; j < m.cols; j++) v.cellList[i * m.cols + j] = tr.cells[j + 1];
    }
  };
  return v;
}

// ---- the cell painter: only the cells a change names ----

function cellPainter(m, v) {
  function paintCell(k) {
    const el = v.cellList[k];
    if (!el) return; // a row not drawn yet: it is drawn from the state when it is
    const i = (k / m.cols) | 0;
    const j = k - i * m.cols;
    const name = m.state.stateName(i, j);
    if (el.dataset.state !== name) el.dataset.state = name;
    if (m.state.isUntouchedSeed(i, j)) {
      if (!el.dataset.seed) el.dataset.seed = "1";
    } else if (el.dataset.seed) delete el.dataset.seed;
    const kind = m.kinds.get(k);
    if (kind) {
      if (el.dataset.overlay !== kind) el.dataset.overlay = kind;
    } else if (el.dataset.overlay) delete el.dataset.overlay;
    el.setAttribute("aria-label", cellLabel(m, i, j, k));
  }
  function paintAll(cellsToo = true) {
    if (cellsToo) for (let k = 0; k < v.cellList.length; k++) paintCell(k);
    v.legendBox.innerHTML = legendHtml(m.overlay, !m.readOnly, m.hasSeed);
    v.table.classList.toggle("ga-has-overlay", Boolean(m.overlay));
  }
  return { paintCell, paintAll };
}

// ---- the view: cell size, scrolling, what is on screen ----

function gridView(m, v, cellAtStart, container) {
  const { scroller, table } = v;
  const rtl = m.dir === "rtl";
  let cell = cellAtStart;
  let heads = null; // {width, height} of the header bands, measured once per cell size
  const headSizes = () => {
    heads ??= { width: v.rowWords.offsetWidth, height: table.tHead.offsetHeight };
    return heads;
  };
  // Chrome counts an RTL box's scrollLeft from 0 down to negative numbers: "start" is positive
  const getStart = () => Math.abs(scroller.scrollLeft);
  const setStart = (x) => {
    scroller.scrollLeft = rtl ? -x : x;
  };
  const frame = () => ({
    rows: m.rows,
    cols: m.cols,
    cell,
    headWidth: headSizes().width,
    headHeight: headSizes().height,
    width: scroller.clientWidth,
    height: scroller.clientHeight,
  });
  return {
    rtl,
    get cell() {
      return cell;
    },
    region: () => visibleRegion({ ...frame(), scrollStart: getStart(), scrollTop: scroller.scrollTop }),
    /** Scroll (as little as possible) so cell (i, j) shows beside the header bands. */
    showCell(i, j) {
      const f = frame();
      const x = scrollToShow({ start: f.headWidth + j * cell, size: cell, scroll: getStart(), view: f.width, pad: f.headWidth });
      const y = scrollToShow({ start: f.headHeight + i * cell, size: cell, scroll: scroller.scrollTop, view: f.height, pad: f.headHeight });
      if (x !== getStart()) setStart(x);
      if (y !== scroller.scrollTop) scroller.scrollTop = y;
    },
    centreOn(i, j) {
      const to = scrollToCentre({ i, j, ...frame() });
      setStart(to.start);
      scroller.scrollTop = to.top;
    },
    /** The cell size ``px`` (clamped), keeping the cell at the view's centre in the centre. */
    setCell(px) {
      const next = clampCell(px);
      if (next === cell) return cell;
      const r = this.region();
      const centre = { i: (r.i0 + r.i1) / 2, j: (r.j0 + r.j1) / 2 };
      cell = next;
      container.style.setProperty("--ga-cell", `${cell}px`);
      heads = null;
      this.centreOn(Math.floor(centre.i), Math.floor(centre.j));
      return cell;
    },
    /** The cell size at which the whole grid fits the scroller's box (headers grow with it). */
    fit() {
      const box = scroller.parentElement; // .ga-body: the room the scroller may take
      const side = box.querySelector(".ga-aside") || (v.overviewBox && !v.overviewBox.hidden ? v.overviewBox : null);
      const overview = side ? side.offsetWidth + 10 : 0;
      const size = {
        rows: m.rows,
        cols: m.cols,
        width: box.clientWidth - overview - 2,
        height: Math.max(scroller.clientHeight, parseFloat(getComputedStyle(scroller).maxHeight) || 0) - 2,
      };
      const at = (c) => ({ ...size, headWidth: (headSizes().width * c) / cell, headHeight: (headSizes().height * c) / cell });
      const first = fitCell(at(cell));
      return fitCell(at(first));
    },
    pageRows: () => Math.max(1, Math.floor((scroller.clientHeight - headSizes().height) / cell)),
    overflows: () => table.offsetWidth > scroller.clientWidth + 1 || table.offsetHeight > scroller.clientHeight + 1,
  };
}

// ---- cursor and selection (keyboard block and drag preview share the "ga-sel" class) ----

function cursorMarks(m, v, view) {
  let shownCursor = -1;
  let shownSel = null;
  function markRect(rect, on) {
    if (!rect) return;
    for (let i = rect.i0; i <= rect.i1; i++) {
      for (let j = rect.j0; j <= rect.j1; j++) v.cellList[i * m.cols + j]?.classList.toggle("ga-sel", on);
    }
  }
  function showSelection(rect) {
    const same =
      shownSel && rect && shownSel.i0 === rect.i0 && shownSel.i1 === rect.i1 && shownSel.j0 === rect.j0 && shownSel.j1 === rect.j1;
    if (same || (!shownSel && !rect)) return;
    markRect(shownSel, false);
    shownSel = rect;
    markRect(rect, true);
  }
  /** Mark the state's cursor (and scroll it into view when ``scroll``). */
  function show(scroll = false) {
    if (!m.rows || !m.cols) return;
    const { i, j } = m.state.cursor;
    const k = i * m.cols + j;
    if (shownCursor !== k && v.cellList[k]) {
      if (shownCursor >= 0) {
        v.cellList[shownCursor].classList.remove("ga-cursor");
        v.cellList[shownCursor].removeAttribute("id");
      }
      shownCursor = k;
      const el = v.cellList[k];
      el.setAttribute("aria-label", cellLabel(m, i, j, k)); // always named
      el.classList.add("ga-cursor");
      el.id = `${v.table.id}-cursor`;
      v.table.setAttribute("aria-activedescendant", el.id);
    }
    if (scroll) view.showCell(i, j);
    showSelection(m.state.hasBlockSelection() ? m.state.selection() : null);
  }
  return { show, showSelection, redraw: () => shownSel && markRect(shownSel, true) };
}

// ---- hover: row, column, both words, and in the sentence lines the linked words ----

function hoverMarks(m, v, sentences) {
  let words = { source: [], target: [] };
  if (sentences) {
    const line = (side, tokens, title) =>
      `<p class="ga-sentence" data-side="${side}" dir="${sentenceDirection(tokens)}"><span class="ga-sentence-label" dir="ltr">${title}</span>` +
      tokens.map((t, k) => `<span class="ga-word" data-side="${side}" data-k="${k}" title="${escapeHtml(t)}">${tokenHtml(t)}</span>`).join(" ") +
      "</p>";
    sentences.innerHTML = line("source", m.source, "Rows") + line("target", m.target, "Columns");
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
    v.colBand.hidden = j < 0;
    if (j < 0) return;
    const head = v.colHeads[j].getBoundingClientRect();
    const box = v.scroller.getBoundingClientRect();
    const x = head.left - box.left - v.scroller.clientLeft + v.scroller.scrollLeft;
    v.colBand.style.transform = `translateX(${x}px)`;
    v.colBand.style.width = `${head.width}px`;
    v.colBand.style.height = `${v.table.offsetHeight}px`;
  }
  function setHover(marks, column = -1) {
    for (const [el, cls] of hovered) el.classList.remove(cls);
    hovered = marks.filter(([el]) => el);
    for (const [el, cls] of hovered) el.classList.add(cls);
    showColumn(column);
  }
  /** Scroll a long sentence line (not the page) so that a word in it shows: down its lines,
   * or sideways where a short window keeps it to one line (either direction of writing). */
  function keepInView(el) {
    const line = el && el.parentElement;
    if (!line) return;
    const wraps = line.scrollHeight > line.clientHeight;
    const runs = line.scrollWidth > line.clientWidth;
    if (!wraps && !runs) return;
    const r = el.getBoundingClientRect();
    const box = line.getBoundingClientRect();
    if (wraps) {
      if (r.top < box.top) line.scrollTop += r.top - box.top;
      else if (r.bottom > box.top + line.clientHeight) line.scrollTop += r.bottom - box.top - line.clientHeight;
    }
    if (runs) {
      const label = line.firstElementChild.getBoundingClientRect().width; // sticks at the start
      const start = line.dir === "rtl" ? box.right - label : box.left + label;
      if (line.dir === "rtl" ? r.right > start : r.left < start) line.scrollLeft += line.dir === "rtl" ? r.right - start : r.left - start;
      else if (r.right > box.left + line.clientWidth) line.scrollLeft += r.right - box.left - line.clientWidth;
      else if (r.left < box.left) line.scrollLeft += r.left - box.left;
    }
  }
  function cell(i, j) {
    keepInView(words.source[i]);
    keepInView(words.target[j]);
    setHover(
      [
        [v.rowEls[i], "ga-hover"],
        [v.rowHeads[i], "ga-hover"],
        [v.colHeads[j], "ga-hover"],
        [words.source[i], "ga-hover"],
        [words.target[j], "ga-hover"],
      ],
      j,
    );
  }
  function word(side, k) {
    const other = side === "source" ? "target" : "source";
    const marks = [[words[side][k], "ga-hover"]];
    const linked = m.state.linkedTo(side, k);
    for (const n of linked) marks.push([words[other][n], "ga-linked"]);
    if (linked.length) keepInView(words[other][linked[0]]);
    if (side === "source") marks.push([v.rowEls[k], "ga-hover"], [v.rowHeads[k], "ga-hover"]);
    else marks.push([v.colHeads[k], "ga-hover"]);
    setHover(marks, side === "source" ? -1 : k);
  }
  function onWordOver(e) {
    const w = e.target.closest && e.target.closest(".ga-word");
    if (w) word(w.dataset.side, Number(w.dataset.k));
  }
  return { cell, clear: () => setHover([]), onWordOver };
}

// ---- pointer: a click cycles a cell, a drag paints a rectangle with the current tool ----

function pointerInput(m, v, cursor, hover) {
  let drag = null;
  function cellOf(node) {
    const td = node && node.closest ? node.closest("td[data-i]") : null;
    return td && v.table.contains(td) ? { i: Number(td.dataset.i), j: Number(td.dataset.j) } : null;
  }
  function onDown(e) {
    if (e.button !== 0) return;
    const cell = cellOf(e.target);
    if (!cell) return;
    if (document.activeElement !== v.table) v.table.focus({ preventScroll: true });
    if (m.readOnly) {
      m.state.setCursor(cell.i, cell.j);
      return;
    }
    e.preventDefault(); // no text selection while dragging
    drag = { start: cell, end: cell, moved: false, tool: null };
  }
  function onMove(e) {
    const cell = cellOf(e.target);
    if (cell) hover.cell(cell.i, cell.j);
    if (!drag || !cell) return;
    if (cell.i !== drag.end.i || cell.j !== drag.end.j) {
      drag.end = cell;
      if (!drag.moved) {
        // the drag's look (the tool's tint) only once it is a drag: a click restyles nothing
        drag.moved = true;
        drag.tool = m.toolOf();
        v.table.classList.add("ga-dragging", `ga-tool-${drag.tool}`);
      }
      cursor.showSelection(rectBetween(drag.start, drag.end));
    }
  }
  function onUp() {
    if (!drag) return;
    const { start, end, moved, tool } = drag;
    drag = null;
    if (moved) v.table.classList.remove("ga-dragging", `ga-tool-${tool}`);
    m.state.setCursor(end.i, end.j);
    if (moved) m.state.paint(rectBetween(start, end), tool);
    else m.state.cycle(start.i, start.j);
  }
  function onLeave() {
    if (!drag) hover.clear();
  }
  return { onDown, onMove, onUp, onLeave };
}

// ---- the grid: the parts put together ----

export function mountGrid(container, options) {
  const m = gridModel(options);
  const cellAtStart = clampCell(options.cell || NORMAL_CELL);
  const v = buildTable(container, m, options, cellAtStart);
  const painter = cellPainter(m, v);
  const view = gridView(m, v, cellAtStart, container);
  const cursor = cursorMarks(m, v, view);
  const sentences = options.sentences || null;
  const hover = hoverMarks(m, v, sentences);
  const pointer = pointerInput(m, v, cursor, hover);
  const onView = typeof options.onView === "function" ? options.onView : null;
  const overview = v.overviewBox
    ? mountOverview(v.overviewBox, {
        rows: m.rows,
        cols: m.cols,
        state: m.state,
        rtl: view.rtl,
        onJump: (i, j) => {
          view.centreOn(i, j);
          m.state.setCursor(i, j);
        },
      })
    : null;
  let destroyed = false;

  // the overview's frame follows the scroller, at most once a frame
  let regionQueued = false;
  function showRegion() {
    if (regionQueued || destroyed) return;
    regionQueued = true;
    requestAnimationFrame(() => {
      regionQueued = false;
      if (destroyed) return;
      if (overview) overview.showRegion(view.region());
      onView?.();
    });
  }
  function showOverviewIfNeeded() {
    if (!overview) return;
    const need = view.overflows();
    if (v.overviewBox.hidden === need) v.overviewBox.hidden = !need;
    showRegion();
  }

  let scrollNext = false; // set by keyboard moves: a clicked cell is on screen already
  const unsubscribe = m.state.subscribe((change) => {
    for (const k of change.cells) painter.paintCell(k);
    if (overview && change.cells.length) overview.paint(change.cells);
    cursor.show(scrollNext);
  });
  v.table.addEventListener("pointerdown", pointer.onDown);
  v.table.addEventListener("pointermove", pointer.onMove);
  v.table.addEventListener("pointerleave", pointer.onLeave);
  window.addEventListener("pointerup", pointer.onUp);
  v.scroller.addEventListener("scroll", showRegion, { passive: true });
  if (sentences) {
    sentences.addEventListener("pointerover", hover.onWordOver);
    sentences.addEventListener("pointerleave", pointer.onLeave);
  }
  const resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => showOverviewIfNeeded()) : null;
  resize?.observe(v.scroller);
  painter.paintAll(false); // the cells were drawn with the HTML
  cursor.show();
  // the overview's frame and the check of the estimate come after the first layout: the
  // ResizeObserver's first call (a read of the sizes then forces no second layout)
  if (!resize) showOverviewIfNeeded();
  if (!v.whole) {
    requestAnimationFrame(() =>
      setTimeout(
        () =>
          setTimeout(() => {
            if (destroyed) return;
            v.complete();
            cursor.redraw();
            cursor.show();
          }, 0),
        0,
      ),
    );
  }

  /** Move the cursor as the keys do (±Infinity: to the edge), scrolling it into view. */
  function moveCursor(di, dj, extend = false) {
    const { i, j } = m.state.cursor;
    const to = (x, d, n) => (d === Infinity ? n - 1 : d === -Infinity ? 0 : x + d);
    scrollNext = true;
    try {
      m.state.setCursor(to(i, di, m.rows), to(j, dj, m.cols), { extend });
    } finally {
      scrollNext = false;
    }
    hover.cell(m.state.cursor.i, m.state.cursor.j);
  }

  return {
    table: v.table,
    scroller: v.scroller,
    state: m.state,
    readOnly: m.readOnly,
    rtl: view.rtl,
    moveCursor,
    jumpTo: (i, j) => moveCursor(Math.min(i, m.rows - 1) - m.state.cursor.i, Math.min(j, m.cols - 1) - m.state.cursor.j),
    pageRows: () => view.pageRows(),
    get cell() {
      return view.cell;
    },
    /** Zoom: the cell size in CSS pixels (clamped); returns the size set. */
    setCell(px) {
      const cell = view.setCell(px);
      showOverviewIfNeeded();
      return cell;
    },
    /** The cell size at which the whole pair fits the window. */
    fitCell: () => view.fit(),
    focus: () => v.table.focus({ preventScroll: true }),
    /** Repaint the named cells (flat keys); with no argument, every cell. */
    update(keys) {
      if (keys) for (const k of keys) painter.paintCell(k);
      else painter.paintAll();
      overview?.paint(keys);
    },
    setShowPosteriors(on) {
      v.table.classList.toggle("ga-show-post", Boolean(on && m.posteriors));
      return Boolean(on && m.posteriors);
    },
    hasPosteriors: Boolean(m.posteriors),
    setOverlay(next) {
      m.setOverlay(next);
      painter.paintAll();
    },
    destroy() {
      destroyed = true;
      unsubscribe();
      resize?.disconnect();
      window.removeEventListener("pointerup", pointer.onUp);
      if (sentences) {
        sentences.removeEventListener("pointerover", hover.onWordOver);
        sentences.removeEventListener("pointerleave", pointer.onLeave);
        sentences.innerHTML = "";
      }
      container.innerHTML = "";
    },
  };
}
