// Every key of the grid pages, in ONE place: which key means which command (a pure function,
// unit-tested in Node), and the one keydown listener that runs it. The pages (annotate.js,
// adjudicate.js) only say what each command does; a command a page does not offer leaves its
// key to the browser.
//
// Commands: {name, ...}
//   move {di, dj, extend}      arrows (Shift: extend the block), Home/End, PageUp/PageDown
//   jump {i, j}                Ctrl+Home / Ctrl+End: the first / last cell
//   set {tool}                 s p x, Delete, Backspace: set the cell or block
//   cycle                      Space: none → sure → possible → none
//   undo, redo                 z or Ctrl+Z; Ctrl+Shift+Z or Ctrl+Y
//   submit                     Enter (not on a button or link: Enter presses those)
//   accept-seed                a
//   tool {tool}                1 2 3: what a drag paints with
//   posteriors                 h: aligner shading on / off
//   zoom {step: 1|-1|0}        Ctrl/Cmd with + − 0 (0: back to the normal size)

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
const SET_KEYS = { s: "sure", p: "possible", x: "erase", Delete: "erase", Backspace: "erase" };
const TOOL_KEYS = { 1: "sure", 2: "possible", 3: "erase" };
const ZOOM_KEYS = { "+": 1, "=": 1, "-": -1, _: -1, 0: 0 };

/**
 * The command a key stands for, or null.
 *   key: {key, ctrlKey, metaKey, shiftKey, altKey} (a KeyboardEvent will do)
 *   where: {inField, onControl, readOnly, rtl, pageRows}
 *     inField: the focus is in a text field or a select (it keeps its keys)
 *     onControl: the focus is on a button, link or summary (Enter and Space press it)
 *     rtl: the grid runs right to left (← moves to the next column)
 *     pageRows: rows one PageUp / PageDown moves (the rows on screen)
 */
export function commandFor(key, where = {}) {
  const { inField = false, onControl = false, readOnly = false, rtl = false, pageRows = 10 } = where;
  const mod = key.ctrlKey || key.metaKey;
  if (key.altKey) return null;
  if (mod && !key.shiftKey && key.key in ZOOM_KEYS) return { name: "zoom", step: ZOOM_KEYS[key.key] };
  if (inField) return null;
  if (key.metaKey) return null;
  const k = key.key.length === 1 ? key.key.toLowerCase() : key.key;
  if (ARROWS[key.key] && !key.ctrlKey) {
    const [di, dj] = ARROWS[key.key];
    return { name: "move", di, dj: rtl ? -dj : dj, extend: key.shiftKey };
  }
  if (key.key === "Home" || key.key === "End") {
    const first = key.key === "Home";
    if (key.ctrlKey) return { name: "jump", i: first ? 0 : Infinity, j: first ? 0 : Infinity };
    return { name: "move", di: 0, dj: first ? -Infinity : Infinity, extend: key.shiftKey };
  }
  if (key.key === "PageUp" || key.key === "PageDown") {
    const rows = Math.max(1, pageRows - 1);
    return { name: "move", di: key.key === "PageUp" ? -rows : rows, dj: 0, extend: key.shiftKey };
  }
  if (key.key === "Enter") {
    if (onControl || key.ctrlKey || key.shiftKey) return null;
    return { name: "submit" };
  }
  if (onControl && key.key === " ") return null;
  if (readOnly) return key.key === "h" && !key.ctrlKey ? { name: "posteriors" } : null;
  if (key.ctrlKey && ((k === "z" && key.shiftKey) || k === "y")) return { name: "redo" };
  if (k === "z" && !key.shiftKey) return { name: "undo" };
  if (key.ctrlKey) return null;
  if (SET_KEYS[k] && !(key.shiftKey && k.length > 1)) return { name: "set", tool: SET_KEYS[k] };
  if (k === " ") return { name: "cycle" };
  if (k === "a") return { name: "accept-seed" };
  if (TOOL_KEYS[k]) return { name: "tool", tool: TOOL_KEYS[k] };
  if (k === "h") return { name: "posteriors" };
  return null;
}

function isField(el) {
  return Boolean(el) && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

/**
 * The one keydown listener of a grid page: ``where()`` gives {readOnly, rtl, pageRows} now,
 * ``actions`` maps a command's name to what it does (return false: not done, the browser
 * keeps the key). Returns a function that removes the listener.
 */
export function bindKeys({ where, actions, target = document }) {
  function onKeyDown(e) {
    if (e.defaultPrevented) return;
    const el = e.target;
    const command = commandFor(e, {
      ...where(),
      inField: isField(el),
      onControl: Boolean(el && /^(BUTTON|A|SUMMARY)$/.test(el.tagName)),
    });
    const run = command && actions[command.name];
    if (!run || run(command) === false) return;
    e.preventDefault();
  }
  target.addEventListener("keydown", onKeyDown);
  return () => target.removeEventListener("keydown", onKeyDown);
}
