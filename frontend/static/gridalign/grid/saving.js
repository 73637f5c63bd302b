// The annotation page's saving, wired to the page: a Saver (transport.js) for one assignment,
// its state in the save indicator, and a conflict shown with both versions to compare.

import { mountGrid } from "./render.js";
import { Saver } from "./transport.js";

const SAVE_WORDS = {
  saved: "Saved",
  saving: "Saving…",
  unsaved: "Unsaved changes",
  offline: "Offline: kept in this browser",
  conflict: "Conflict",
};

/**
 * startSaving({root, data, state, csrfToken, setMessage, onFirstSave}) → Saver.
 * ``data``: the API's assignment (urls, annotation, seed, pair); ``onFirstSave``: called when
 * the first save of a pair not started yet has landed (its status becomes "in progress").
 */
export function startSaving({ root, data, state, csrfToken, setMessage, onFirstSave }) {
  const field = (name) => root.querySelector(`[data-field="${name}"]`);
  const { annotation, seed, urls, pair } = data;
  const seedLinks = seed ? seed.links : [];
  let saver = null;
  let lastShown = "";

  function showSaveState(saveState, message) {
    const el = field("save");
    if (lastShown !== saveState) {
      el.dataset.saveState = saveState;
      el.textContent = SAVE_WORDS[saveState] || saveState;
      lastShown = saveState;
    }
    if (el.title !== (message || "")) el.title = message || "";
    if (message || saveState !== "saving") setMessage(message, saveState === "offline" || saveState === "conflict");
    if (saveState !== "conflict" && !field("conflict").hidden) field("conflict").hidden = true;
    if (saveState === "saved" && saver && saver.version > 0) onFirstSave?.();
  }

  const WORD = { S: "sure", P: "possible" };
  const value = (kind) => WORD[kind] || "none";

  /** "“sides” × “parties”: yours sure, theirs possible (was none)", for the first few cells. */
  function describeCells(cells, most = 6) {
    const text = cells
      .slice(0, most)
      .map(([i, j, b, m, t]) => `“${pair.source[i]}” × “${pair.target[j]}” (row ${i + 1}, column ${j + 1}): yours ${value(m)}, theirs ${value(t)}, was ${value(b)}`)
      .join("; ");
    return cells.length > most ? `${text}; and ${cells.length - most} more` : text;
  }

  function showConflict({ decision, theirs }) {
    field("conflict").hidden = false;
    field("conflict-text").textContent =
      `Someone saved another version of this pair (version ${theirs.version}, another tab or device). ` +
      `Yours changes ${decision.mine} cell(s), theirs ${decision.theirs}; ${decision.overlap} cell(s) were changed differently on both sides: ` +
      `${describeCells(decision.cells || [])}. Every other change of both sides is merged. ` +
      "Nothing has been overwritten. Choose which side to keep on these cells.";
    mountGrid(field("conflict-grid"), {
      source: pair.source,
      target: pair.target,
      links: state.toLinks(),
      readOnly: true,
      overlay: { a: state.toLinks(), b: theirs.links, labels: { a: "yours", b: "theirs" } },
    });
  }

  saver = new Saver({
    annotationUrl: urls.annotation,
    submitUrl: urls.submit,
    csrfToken,
    version: annotation ? annotation.version : 0,
    links: annotation ? annotation.links : seedLinks,
    getLinks: () => state.toLinks(),
    getChangeCount: () => state.changeCount,
    onState: showSaveState,
    onConflict: showConflict,
    onReplace: (links) => state.replaceLinks(links),
  });
  return saver;
}
