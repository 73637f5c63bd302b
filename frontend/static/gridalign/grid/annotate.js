// The annotation page (annotator/annotate.html): loads one assignment from the API, mounts the
// grid, wires the toolbar, the keys, the flag form, saving and submitting, and shows trial
// feedback. Layers: state.js (pure) ← render.js (DOM) ← transport.js (saves) ← this file.
//
// Submitting moves on to the next pair without reloading the page: the next assignment is
// opened through the API (POST …/open/, which records the opening as the page's GET does),
// its grid replaces this one and the address becomes its page (history.pushState), so Back,
// Reload and a bookmark all show the pair the address names. The next pair in the queue is
// read ahead (GET, no side effect) once this one is painted, so it shows as soon as the submit
// is answered; the opening is then recorded beside it, and its answer brings the queue place
// up to date. (Read ahead data can be stale only if the pair was saved elsewhere meanwhile:
// its first save then meets the usual version check.)

import { mountGrid } from "./render.js";
import { AlignmentState, editCount } from "./state.js";
import { flushOtherPending, Saver } from "./transport.js";

const root = document.getElementById("annotate");
const $ = (name) => root.querySelector(`[data-field="${name}"]`);
const act = (name) => root.querySelector(`[data-action="${name}"]`);
const csrfToken = root.querySelector("[name=csrfmiddlewaretoken]")?.value || "";
const SAVE_WORDS = {
  saved: "Saved",
  saving: "Saving…",
  unsaved: "Unsaved changes",
  offline: "Offline: kept in this browser",
  conflict: "Conflict",
};
const STATUS_WORDS = { assigned: "not started", in_progress: "in progress", submitted: "submitted" };
const POSTERIOR_PREF = "gridalign:show-posteriors";

let data = null; // the API's assignment
let state = null;
let grid = null;
let saver = null;
let tool = "sure";
let leaving = false; // our own navigation: the edit is stored, no "unsaved" prompt
let busy = false; // a submit is under way
let feedbackShown = false;

function setMessage(text, isError = false) {
  const el = $("message");
  el.textContent = text || "";
  el.classList.toggle("error", isError);
}

async function getJson(url, method = "GET") {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken;
  const response = await fetch(url, { method, credentials: "same-origin", cache: "no-store", headers });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

function showSaveState(saveState, message) {
  const el = $("save");
  el.dataset.saveState = saveState;
  el.textContent = SAVE_WORDS[saveState] || saveState;
  el.title = message || "";
  if (message || saveState !== "saving") setMessage(message, saveState === "offline" || saveState === "conflict");
  if (saveState !== "conflict") $("conflict").hidden = true;
  if (saveState === "saved" && data.status === "assigned" && saver && saver.version > 0) {
    data.status = "in_progress";
    $("status").textContent = STATUS_WORDS.in_progress;
  }
}

function updateButtons() {
  act("undo").disabled = !state.canUndo || grid.readOnly;
  act("redo").disabled = !state.canRedo || grid.readOnly;
}

function setTool(name) {
  tool = name;
  for (const b of root.querySelectorAll("[data-tool]")) b.setAttribute("aria-pressed", String(b.dataset.tool === name));
}

function setPosteriors(on) {
  const shown = grid.setShowPosteriors(on);
  act("posteriors").checked = shown;
  act("posteriors").disabled = !grid.hasPosteriors;
  try {
    localStorage.setItem(POSTERIOR_PREF, on ? "1" : "0");
  } catch {
    /* a preference only */
  }
}

function mount(readOnly) {
  if (grid) grid.destroy();
  const showPost = (() => {
    try {
      return localStorage.getItem(POSTERIOR_PREF) !== "0";
    } catch {
      return true;
    }
  })();
  grid = mountGrid($("grid"), {
    source: data.pair.source,
    target: data.pair.target,
    state,
    readOnly,
    tool: () => tool,
    posteriors: data.posteriors,
    showPosteriors: showPost,
    sentences: $("sentences"),
  });
  grid.readOnly = readOnly;
  setPosteriors(showPost);
  for (const name of ["undo", "redo", "reset", "clear", "accept-seed", "submit"]) act(name).disabled = readOnly;
  for (const b of root.querySelectorAll("[data-tool]")) b.disabled = readOnly;
  updateButtons();
}

function showConflict({ decision, theirs }) {
  $("conflict").hidden = false;
  $("conflict-text").textContent =
    `Someone saved another version of this pair (version ${theirs.version}, another tab or device). ` +
    `Yours changes ${decision.mine} cell(s), theirs ${decision.theirs}; ${decision.overlap} cell(s) differ on both sides. ` +
    "Nothing has been overwritten. Choose which one to keep.";
  const box = $("conflict-grid");
  mountGrid(box, {
    source: data.pair.source,
    target: data.pair.target,
    links: state.toLinks(),
    readOnly: true,
    overlay: { a: state.toLinks(), b: theirs.links, labels: { a: "yours", b: "theirs" } },
  });
}

function formatScore(x) {
  return x === null || x === undefined ? "—" : x.toFixed(2);
}

function showFeedback(feedback, next) {
  feedbackShown = true;
  const word = feedback.word || {};
  const every = feedback.word_all_links || null;
  $("feedback").hidden = false;
  $("feedback-score").textContent =
    `Word F1 ${formatScore(word.f1)} (sure precision ${formatScore(word.precision_sure)}, sure recall ${formatScore(word.recall_sure)})` +
    (every ? `; counting identical-word links too: F1 ${formatScore(every.f1)}` : "");
  mountGrid($("feedback-grid"), {
    source: data.pair.source,
    target: data.pair.target,
    links: state.toLinks(),
    readOnly: true,
    overlay: { a: state.toLinks(), b: feedback.reference, labels: { a: "you", b: "the reference" } },
  });
  const cont = act("continue");
  cont.href = next || root.dataset.queueUrl;
  cont.firstChild.textContent = next ? "Continue to the next pair " : "Back to the queue ";
  $("feedback").scrollIntoView({ block: "start" });
  cont.focus();
}

function go(url) {
  if (!url) return;
  leaving = true;
  window.location.assign(url);
}

/** Open assignment ``id`` in place of this one (after a submit): its data from the API, its
 * grid here, its page's address in the history. Falls back to loading ``url`` as a page. */
async function moveTo(id, url) {
  delete root.dataset.ready;
  delete root.dataset.painted;
  const opening = getJson(`${root.dataset.apiRoot}${id}/open/`, "POST");
  const early = readAhead && readAhead.id === id ? await readAhead.data.catch(() => null) : null;
  readAhead = null;
  let next = early;
  if (!next) {
    try {
      next = await opening;
    } catch {
      go(url);
      return;
    }
  }
  history.pushState({ assignment: next.id }, "", next.urls.page);
  show(next);
  if (early) {
    opening
      .then((fresh) => {
        if (data.id !== fresh.id) return;
        data.queue = fresh.queue;
        data.urls = fresh.urls;
        showPlace();
      })
      .catch(() => {}); // the pair is shown; only its opening time is not recorded
  }
}

let readAhead = null; // {id, data: Promise} of the next pair in the queue

function readNextAhead() {
  const id = data.queue.next;
  if (!id || data.status === "submitted" || (readAhead && readAhead.id === id)) return;
  readAhead = { id, data: getJson(`${root.dataset.apiRoot}${id}/`) };
  readAhead.data.catch(() => {
    readAhead = null;
  });
}

/** The pair's place in the queue and the Previous / Skip links. */
function showPlace() {
  const { queue, urls } = data;
  $("progress").textContent = `${queue.position} of ${queue.total} · ${queue.submitted} submitted`;
  const prev = act("previous");
  prev.hidden = !urls.previous_page;
  if (urls.previous_page) prev.href = urls.previous_page;
  act("skip").hidden = !urls.next_page;
}

/** Leave for another pair; unsaved edits are already stored and are sent from the next page. */
async function leaveFor(url) {
  if (saver && saver.hasUnsaved() && saver.state !== "conflict") await saver.flush();
  go(url);
}

async function submit({ acceptSeed = false } = {}) {
  if (busy || !saver || grid.readOnly) return;
  if (acceptSeed) {
    const edits = editCount(state.seedLinks(), state.toLinks());
    if (edits > 0 && !window.confirm(`Discard your ${edits} edit(s) and submit the seed alignment?`)) return;
    state.resetToSeed();
  }
  busy = true;
  try {
    const result = await saver.submit();
    if (!result.ok) {
      setMessage(result.message, true);
      return;
    }
    data.status = "submitted";
    $("status").textContent = STATUS_WORDS.submitted;
    if (result.data.feedback) {
      mount(true);
      showFeedback(result.data.feedback, result.data.next_page);
    } else if (result.data.next) {
      await moveTo(result.data.next, result.data.next_page);
    } else {
      go(`${root.dataset.queueUrl}?done=${data.id}`);
    }
  } finally {
    busy = false;
  }
}

async function flag(reason, note) {
  const method = reason ? "POST" : "DELETE";
  const response = await fetch(data.urls.flag, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken },
    body: reason ? JSON.stringify({ reason, note }) : null,
  }).catch(() => null);
  if (!response || !response.ok) {
    setMessage(`The flag was not saved (${response ? response.status : "no connection"}); try again.`, true);
    return;
  }
  showFlag((await response.json()).flag);
}

function showFlag(current) {
  const form = $("flag-form");
  const el = $("flag-current");
  el.hidden = !current;
  if (current) {
    const label = form.reason.querySelector(`option[value="${current.reason}"]`)?.textContent || current.reason;
    el.textContent = `Flagged: ${label}${current.note ? ` — ${current.note}` : ""}`;
    form.reason.value = current.reason;
    form.note.value = current.note || "";
  }
  act("unflag").hidden = !current;
}

// ---- keys: grid keys go to the grid (render.js); these are the page's own ----
function isField(el) {
  return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

document.addEventListener("keydown", (e) => {
  if (!grid || isField(e.target) || e.altKey || e.metaKey) return;
  const onControl = /^(BUTTON|A|SUMMARY)$/.test(e.target.tagName);
  if (e.key === "Enter" && !e.ctrlKey && !e.shiftKey) {
    if (onControl) return; // Enter on a button presses that button
    e.preventDefault();
    if (feedbackShown) act("continue").click();
    else submit();
    return;
  }
  if (onControl && e.key === " ") return; // Space on a button presses that button
  if (e.target !== grid.table && grid.handleKey(e)) return; // the grid had no focus
  if (e.ctrlKey) return;
  const key = e.key.toLowerCase();
  if (key === "a" && !grid.readOnly) submit({ acceptSeed: true });
  else if (key === "1" || key === "2" || key === "3") setTool(["sure", "possible", "erase"][Number(key) - 1]);
  else if (key === "h") setPosteriors(!act("posteriors").checked);
  else return;
  e.preventDefault();
});

root.addEventListener("click", (e) => {
  const t = e.target.closest("[data-tool], [data-action]");
  if (!t || !grid) return;
  if (t.dataset.tool) return setTool(t.dataset.tool);
  const a = t.dataset.action;
  if (a === "undo") state.undo();
  else if (a === "redo") state.redo();
  else if (a === "reset") state.resetToSeed();
  else if (a === "clear") state.clear();
  else if (a === "submit") submit();
  else if (a === "accept-seed") submit({ acceptSeed: true });
  else if (a === "skip") leaveFor(data.urls.next_page || root.dataset.queueUrl);
  else if (a === "previous") {
    e.preventDefault();
    leaveFor(data.urls.previous_page);
  } else if (a === "reload-theirs") saver.resolveConflict("theirs");
  else if (a === "keep-mine") saver.resolveConflict("mine");
  else if (a === "unflag") flag("", "");
  else if (a === "continue") leaving = true;
  else return;
  if (a !== "continue" && a !== "previous") grid.focus();
});

root.addEventListener("change", (e) => {
  if (e.target.dataset.action === "posteriors") setPosteriors(e.target.checked);
});

$("flag-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const form = e.target;
  flag(form.reason.value, form.note.value);
});

window.addEventListener("beforeunload", (e) => {
  if (!leaving && saver && saver.hasUnsaved()) {
    e.preventDefault();
    e.returnValue = "";
  }
});
window.addEventListener("online", () => saver && saver.retryNow());
// Back / Forward between pairs opened in place: show the pair the address names, as a page
// (edits not yet sent are kept in this browser and sent from there)
window.addEventListener("popstate", async () => {
  delete root.dataset.ready;
  if (saver && saver.hasUnsaved() && saver.state !== "conflict") await saver.flush();
  go(window.location.href);
});

async function open() {
  try {
    // the page carries the API's answer (one request fewer); the API is the fallback
    const embedded = document.getElementById("grid-data");
    data = embedded ? JSON.parse(embedded.textContent) : await getJson(root.dataset.apiUrl);
  } catch (err) {
    $("grid").innerHTML = "";
    setMessage(`Could not load the pair (${err.message}). Reload the page to try again.`, true);
    return;
  }
  history.replaceState({ assignment: data.id }, "");
  show(data);
}

/** Show assignment ``next`` (the API's grid data): on opening the page, and after a submit. */
function show(next) {
  data = next;
  performance.mark("ga:data"); // the pair's data is here (benchmarks/grid_browser.py)
  const { pair, seed, annotation, urls } = data;
  if (saver) clearTimeout(saver.timer); // the previous pair's: submitted, nothing left to send
  feedbackShown = false;
  $("feedback").hidden = true;
  $("conflict").hidden = true;
  $("flag-form").reset();
  setMessage("");
  $("title").textContent = `Pair ${pair.external_id}`;
  $("trial").hidden = !pair.is_trial;
  document.title = document.title.replace(/^[^·]*·/, `Pair ${pair.external_id} ·`);
  const seedLinks = seed ? seed.links : [];
  state = new AlignmentState({
    rows: pair.source.length,
    cols: pair.target.length,
    seed: seedLinks,
    links: annotation ? annotation.links : null,
  });
  const submitted = data.status === "submitted";
  mount(submitted);
  $("status").textContent = STATUS_WORDS[data.status] || data.status;
  showPlace();
  showFlag(data.flag);

  const server = { version: annotation ? annotation.version : 0, links: annotation ? annotation.links : seedLinks };
  saver = new Saver({
    annotationUrl: urls.annotation,
    submitUrl: urls.submit,
    csrfToken,
    version: server.version,
    links: server.links,
    getLinks: () => state.toLinks(),
    getChangeCount: () => state.changeCount,
    onState: showSaveState,
    onConflict: showConflict,
    onReplace: (links) => state.replaceLinks(links),
  });
  state.subscribe((change) => {
    if (change.cells.length) saver.changed();
    updateButtons();
  });
  if (submitted) {
    saver.store.clear(urls.annotation); // a submitted pair can take no more saves
    setMessage("This pair is submitted; a lead can reopen it.");
    if (data.feedback) showFeedback(data.feedback, urls.next_page);
  } else {
    const restored = saver.restore(server);
    if (restored === "apply") setMessage("Restored changes kept in this browser; saving them now.");
  }
  flushOtherPending({ exceptUrl: urls.annotation, csrfToken }).catch(() => {});
  if (!submitted) grid.focus();
  root.dataset.ready = "1"; // for tests and benchmarks: the grid is live
  performance.mark("ga:mounted");
  // the frame showing the grid has been painted (a task queued from the frame's callback runs
  // after that frame): the end of "first render" in benchmarks/grid_browser.py
  requestAnimationFrame(() =>
    setTimeout(() => {
      performance.mark("ga:painted");
      root.dataset.painted = "1";
      readNextAhead();
    }, 0),
  );
}

open();
