// The annotation page's toolbar (annotate.html): the drag tool, undo / redo, the aligner
// shading, the zoom control and the Keys panel's toggle. It shows what it is told and says
// what was pressed; the page (annotate.js) decides what that does. The view settings (cell
// size, Keys panel open) are remembered per user (viewport.js's loadView / saveView).

import { loadView, saveView, zoomPercent } from "./viewport.js";

const POSTERIOR_PREF = "gridalign:show-posteriors";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused: nothing is remembered
  }
}

export class Toolbar {
  /** ``root``: the page's element; ``user``: whose settings to remember. */
  constructor(root, user) {
    this.root = root;
    this.user = user || "anonymous";
    this.tool = "sure";
    this.view = loadView(storage(), this.user, { width: window.innerWidth });
    this.setKeysOpen(this.view.keysOpen, { remember: false });
  }

  act(name) {
    return this.root.querySelector(`[data-action="${name}"]`);
  }

  setTool(name) {
    this.tool = name;
    for (const b of this.root.querySelectorAll("[data-tool]")) b.setAttribute("aria-pressed", String(b.dataset.tool === name));
  }

  /** Editing controls on or off (a submitted pair is shown read only). */
  setEditable(editable) {
    for (const name of ["undo", "redo", "reset", "clear", "accept-seed", "submit"]) this.act(name).disabled = !editable;
    for (const b of this.root.querySelectorAll("[data-tool]")) b.disabled = !editable;
  }

  showUndo(state, readOnly) {
    const undo = !state.canUndo || readOnly;
    const redo = !state.canRedo || readOnly;
    if (this.act("undo").disabled !== undo) this.act("undo").disabled = undo;
    if (this.act("redo").disabled !== redo) this.act("redo").disabled = redo;
  }

  /** The shading preference (on unless turned off). */
  get posteriorsWanted() {
    try {
      return storage()?.getItem(POSTERIOR_PREF) !== "0";
    } catch {
      return true;
    }
  }

  showPosteriors(shown, available, wanted) {
    this.act("posteriors").checked = shown;
    this.act("posteriors").disabled = !available;
    try {
      storage()?.setItem(POSTERIOR_PREF, wanted ? "1" : "0");
    } catch {
      /* a preference only */
    }
  }

  /** Show the cell size ``cell`` in the zoom control and remember it. */
  showZoom(cell) {
    const out = this.root.querySelector('[data-field="zoom"]');
    out.textContent = `${zoomPercent(cell)}%`;
    this.view.cell = cell;
    saveView(storage(), this.user, this.view);
  }

  setKeysOpen(open, { remember = true } = {}) {
    this.view.keysOpen = open;
    const toggle = this.act("keys");
    toggle.setAttribute("aria-expanded", String(open));
    this.root.querySelector('[data-field="side"]').hidden = !open;
    this.root.classList.toggle("keys-closed", !open);
    if (remember) saveView(storage(), this.user, this.view);
  }
}
