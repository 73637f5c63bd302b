/* Small SVG charts for the agreement dashboard: lines over categories, grouped bars, and
 * scatter plots with fitted lines. No dependencies, nothing fetched.
 *
 * Charts are drawn at the container's width in CSS pixels with fixed-size text (13 px), so
 * they stay readable when the page is zoomed: a zoomed page gets a narrower chart with
 * larger text, not a shrunken picture. `mount(el, draw)` redraws when the width changes.
 * Legends are HTML lists under the chart, so they wrap instead of overflowing.
 */

const SVG = "http://www.w3.org/2000/svg";
export const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];
const FONT = 13;
const HEIGHT = 300;
const MARGIN = { top: 14, right: 16, bottom: 52, left: 58 };

/* -- pure helpers (no DOM) ------------------------------------------------------------------ */

/** Round tick values covering [lo, hi], about `count` of them, at 1/2/5 × 10^k steps. */
export function niceTicks(lo, hi, count = 5, { integer = false } = {}) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [0, 1];
  if (hi === lo) {
    const pad = lo === 0 || integer ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const raw = (hi - lo) / Math.max(1, count);
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  let step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw) || 10 * power;
  if (integer) step = Math.max(1, Math.round(step)); // counts (tokens): no 20.5
  const first = Math.floor(lo / step + 1e-9) * step;
  const ticks = [];
  for (let v = first; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toFixed(12)));
  if (ticks[ticks.length - 1] < hi - 1e-12) ticks.push(Number((ticks[ticks.length - 1] + step).toFixed(12)));
  return ticks;
}

/** A linear map from [d0, d1] to [r0, r1]. */
export function scale(d0, d1, r0, r1) {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

/** Text of a tick: up to 3 significant decimals, no trailing zeros. */
export function tickText(v) {
  return String(Number(v.toFixed(3)));
}

/* -- drawing ------------------------------------------------------------------------------- */

function node(name, attrs = {}, parent = null, text = null) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== null) el.textContent = text;
  if (parent) parent.appendChild(el);
  return el;
}

function frame(el, label) {
  const width = Math.max(260, Math.floor(el.clientWidth || 600));
  const svg = node("svg", {
    width,
    height: HEIGHT,
    viewBox: `0 0 ${width} ${HEIGHT}`,
    role: "img",
    "aria-label": label,
    class: "chart-svg",
    "font-size": FONT,
  });
  const inner = {
    x0: MARGIN.left,
    x1: width - MARGIN.right,
    y0: HEIGHT - MARGIN.bottom,
    y1: MARGIN.top,
  };
  return { svg, width, inner };
}

function yAxis(svg, inner, ticks, y, label) {
  for (const t of ticks) {
    node("line", { x1: inner.x0, x2: inner.x1, y1: y(t), y2: y(t), class: t === 0 ? "zero" : "grid" }, svg);
    node("text", { x: inner.x0 - 6, y: y(t) + 4, "text-anchor": "end", class: "tick" }, svg, tickText(t));
  }
  const mid = (inner.y0 + inner.y1) / 2;
  node("text", { x: 14, y: mid, transform: `rotate(-90 14 ${mid})`, "text-anchor": "middle", class: "axis-label" }, svg, label);
}

function xLabel(svg, inner, label) {
  node("text", { x: (inner.x0 + inner.x1) / 2, y: HEIGHT - 8, "text-anchor": "middle", class: "axis-label" }, svg, label);
}

function legend(items) {
  const ul = document.createElement("ul");
  ul.className = "chart-legend";
  for (const item of items) {
    const li = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch" + (item.dash ? " swatch--dashed" : "");
    swatch.style.borderColor = item.color;
    if (!item.dash) swatch.style.background = item.color;
    li.append(swatch, document.createTextNode(item.name));
    ul.appendChild(li);
  }
  return ul;
}

function place(el, svg, items) {
  el.querySelectorAll(".chart-svg, .chart-legend, .chart-empty").forEach((n) => n.remove());
  const caption = el.querySelector("figcaption");
  el.insertBefore(svg, caption ? caption.nextSibling : el.firstChild);
  if (items) el.appendChild(legend(items));
}

export function empty(el, message) {
  el.querySelectorAll(".chart-svg, .chart-legend, .chart-empty").forEach((n) => n.remove());
  const p = document.createElement("p");
  p.className = "chart-empty note";
  p.textContent = message;
  el.appendChild(p);
}

/** Lines over categories. series: [{name, values (null = gap), color, dash, titles}]. */
export function lineChart(el, { categories, series, xTitle, yTitle, label }) {
  const { svg, inner } = frame(el, label);
  const values = series.flatMap((s) => s.values).filter((v) => v !== null && v !== undefined);
  const ticks = niceTicks(Math.min(0, ...values), Math.max(1, ...values));
  const y = scale(ticks[0], ticks[ticks.length - 1], inner.y0, inner.y1);
  yAxis(svg, inner, ticks, y, yTitle);
  const band = (inner.x1 - inner.x0) / Math.max(1, categories.length);
  const x = (k) => inner.x0 + band * (k + 0.5);
  const every = Math.max(1, Math.ceil(categories.length / Math.max(1, Math.floor((inner.x1 - inner.x0) / 56))));
  categories.forEach((c, k) => {
    if (k % every === 0) node("text", { x: x(k), y: inner.y0 + 18, "text-anchor": "middle", class: "tick" }, svg, c);
  });
  xLabel(svg, inner, xTitle);
  for (const s of series) {
    let path = "";
    let pen = false;
    s.values.forEach((v, k) => {
      if (v === null || v === undefined) { pen = false; return; }
      path += `${pen ? "L" : "M"}${x(k).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    node("path", { d: path, fill: "none", stroke: s.color, "stroke-width": 2.5, "stroke-dasharray": s.dash ? "6 4" : "none", class: "series" }, svg);
    s.values.forEach((v, k) => {
      if (v === null || v === undefined) return;
      const dot = node("circle", { cx: x(k), cy: y(v), r: 4, fill: s.color, class: "point" }, svg);
      node("title", {}, dot, `${s.name}, ${categories[k]}: ${tickText(v)}${s.titles ? " — " + s.titles[k] : ""}`);
    });
  }
  place(el, svg, series);
}

/** Grouped bars. categories: labels; series: [{name, values (0..1 or null), color}]. */
export function barChart(el, { categories, series, yTitle, label, percent = true }) {
  const { svg, inner } = frame(el, label);
  const k = percent ? 100 : 1;
  const ticks = niceTicks(0, k);
  const y = scale(0, ticks[ticks.length - 1], inner.y0, inner.y1);
  yAxis(svg, inner, ticks, y, yTitle);
  const band = (inner.x1 - inner.x0) / Math.max(1, categories.length);
  const bar = Math.min(48, (band * 0.8) / Math.max(1, series.length));
  categories.forEach((c, i) => {
    const left = inner.x0 + band * i + (band - bar * series.length) / 2;
    series.forEach((s, j) => {
      const v = s.values[i];
      if (v === null || v === undefined) return;
      const top = y(v * k);
      const rect = node("rect", { x: left + j * bar, y: top, width: bar - 2, height: inner.y0 - top, fill: s.color, class: "chart-bar" }, svg);
      node("title", {}, rect, `${c}, ${s.name}: ${(v * k).toFixed(1)}`);
      if (bar >= 28) node("text", { x: left + j * bar + (bar - 2) / 2, y: top - 4, "text-anchor": "middle", class: "bar-value" }, svg, (v * k).toFixed(1));
    });
    node("text", { x: inner.x0 + band * (i + 0.5), y: inner.y0 + 18, "text-anchor": "middle", class: "tick" }, svg, c);
  });
  place(el, svg, series);
}

/** Scatter with fitted lines. series: [{name, points: [[x, y]], color, line: {intercept,
 * slope}}]. integerX: x is a count (ticks on whole numbers, one unit of room on each side);
 * yScale: multiply y (points and lines) by this for display (100: a rate shown in percent). */
export function scatterChart(el, { series, xTitle, yTitle, label, integerX = false, yScale = 1 }) {
  const { svg, inner } = frame(el, label);
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1] * yScale));
  const pad = integerX ? 1 : 0;
  const xt = niceTicks(Math.min(...xs) - pad, Math.max(...xs) + pad, 5, { integer: integerX });
  const yt = niceTicks(0, Math.max(...ys, 0.01 * yScale));
  const x = scale(xt[0], xt[xt.length - 1], inner.x0, inner.x1);
  const y = scale(yt[0], yt[yt.length - 1], inner.y0, inner.y1);
  yAxis(svg, inner, yt, y, yTitle);
  for (const t of xt) node("text", { x: x(t), y: inner.y0 + 18, "text-anchor": "middle", class: "tick" }, svg, tickText(t));
  xLabel(svg, inner, xTitle);
  for (const s of series) {
    const g = node("g", { fill: s.color, "fill-opacity": 0.7, stroke: "#fff", class: "points" }, svg);
    for (const [px, py] of s.points) {
      const dot = node("circle", { cx: x(px).toFixed(1), cy: y(py * yScale).toFixed(1), r: 4.5 }, g);
      node("title", {}, dot, `${s.name}: L = ${px}, ${tickText(py * yScale)}`);
    }
  }
  for (const s of series) {
    if (!s.line || !s.points.length) continue;
    const lo = Math.min(...s.points.map((p) => p[0]));
    const hi = Math.max(...s.points.map((p) => p[0]));
    const at = (l) => yScale * Math.min(1, Math.max(0, s.line.intercept + s.line.slope * l));
    const path = node("path", { d: `M${x(lo)},${y(at(lo))}L${x(hi)},${y(at(hi))}`, stroke: s.color, "stroke-width": 3, fill: "none", class: "fit" }, svg);
    node("title", {}, path, `${s.name}: p(L) = ${s.line.intercept.toPrecision(3)} + ${s.line.slope.toPrecision(3)}·L`);
  }
  place(el, svg, series);
}

/** Draw now and again whenever the element's width changes. */
export function mount(el, draw) {
  let width = -1;
  const redraw = () => {
    const w = Math.floor(el.clientWidth);
    if (w === width) return;
    width = w;
    draw(el);
  };
  redraw();
  if (typeof ResizeObserver !== "undefined") new ResizeObserver(redraw).observe(el);
}
