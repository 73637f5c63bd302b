// The annotation page (annotator/annotate.html): opens one assignment, mounts its grid and puts
// the parts together. Each part has one job:
//   render.js   the grid (cells, cursor, hover, pointer, zoom, overview)   state.js  the pure state
//   keys.js     every key → a command (this file says what each does)    toolbar.js the controls
//   saving.js   autosave, the save indicator and conflicts (transport.js)  feedback.js trial feedback
//   viewport.js zoom and viewport maths, remembered view settings
//
// The page carries the assignment's data but its seed and posteriors, which do not change
// between aligner runs: they come from the seed endpoint (urls.seed), which the browser keeps
// and revalidates (ETag → 304), so a pair opened again costs the server no matrix. The grid is
// drawn once the seed is here; without it the pair opens editable, saying why (withSeed).
//
// Submitting moves on to the next pair without reloading the page: the next assignment is
// opened through the API (POST …/open/, which records the opening as the page's GET does),
// its grid replaces this one and the address becomes its page (history.pushState), so Back,
// Reload and a bookmark all show the pair the address names. The next pair in the queue is
// read ahead (GET, no side effect) once this one is painted, so it shows as soon as the submit
// is answered; the opening is then recorded beside it, and its answer brings the queue place
// up to date. (Read ahead data can be stale only if the pair was saved elsewhere meanwhile:
// its first save then meets the usual version check.)

import { showFeedback } from "./feedback.js";
import { bindKeys } from "./keys.js";
import { mountGrid } from "./render.js";
import { startSaving } from "./saving.js";
import { AlignmentState, editCount } from "./state.js";
import { Toolbar } from "./toolbar.js";
import { flushOtherPending } from "./transport.js";
import { zoomStep } from "./viewport.js";

const root = document.getElementById("annotate");
const $ = (name) => root.querySelector(`[data-field="${name}"]`);
const act = (name) => root.querySelector(`[data-action="${name}"]`);
const csrfToken = root.querySelector("[name=csrfmiddlewaretoken]")?.value || "";
const STATUS_WORDS = { assigned: "not started", in_progress: "in progress", submitted: "submitted" };
const toolbar = new Toolbar(root, root.dataset.user);

let data = null; // the API's assignment
let state = null;
let grid = null;
let saver = null;
let leaving = false; // our own navigation: the edit is stored, no "unsaved" prompt
let busy = false; // a submit is under way
let feedbackShown = false;
let readAhead = null; // {id, data: Promise} of the next pair in the queue

function setMessage(text, isError = false) {
  const el = $("message");
  if (el.textContent !== (text || "")) el.textContent = text || "";
  el.classList.toggle("error", isError);
}

async function getJson(url, method = "GET") {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken;
  const response = await fetch(url, { method, credentials: "same-origin", cache: "no-store", headers });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

function setPosteriors(on) {
  toolbar.showPosteriors(grid.setShowPosteriors(on), grid.hasPosteriors, on);
}

function zoom(cell) {
  toolbar.showZoom(grid.setCell(cell));
}

function mount(readOnly) {
  if (grid) grid.destroy();
  grid = mountGrid($("grid"), {
    source: data.pair.source,
    target: data.pair.target,
    state,
    readOnly,
    tool: () => toolbar.tool,
    posteriors: data.posteriors,
    showPosteriors: toolbar.posteriorsWanted,
    sentences: $("sentences"),
    cell: toolbar.view.cell,
    fill: true,
    overview: true,
  });
  setPosteriors(toolbar.posteriorsWanted);
  toolbar.showZoom(grid.cell);
  toolbar.setEditable(!readOnly);
  if (data.seedError) for (const name of ["reset", "accept-seed"]) act(name).disabled = true;
  toolbar.showUndo(state, readOnly);
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
  if (busy || !saver || grid.readOnly || (acceptSeed && data.seedError)) return;
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
      feedback(result.data.feedback, result.data.next_page);
    } else if (result.data.next) {
      await moveTo(result.data.next, result.data.next_page);
    } else {
      go(`${root.dataset.queueUrl}?done=${data.id}`);
    }
  } finally {
    busy = false;
  }
}

function feedback(result, next) {
  feedbackShown = true;
  root.classList.add("feedback-open"); // the overlay shows the pair: it takes the grid's room
  showFeedback({ box: $("feedback"), pair: data.pair, links: state.toLinks(), feedback: result, next, queueUrl: root.dataset.queueUrl });
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

// ---- what each key's command does (keys.js decides which key is which command) ----
bindKeys({
  where: () => ({ readOnly: !grid || grid.readOnly, rtl: Boolean(grid && grid.rtl), pageRows: grid ? grid.pageRows() : 10 }),
  actions: {
    move: ({ di, dj, extend }) => grid && grid.moveCursor(di, dj, extend),
    jump: ({ i, j }) => grid && grid.jumpTo(i, j),
    set: ({ tool }) => state && state.applyToSelection(tool),
    cycle: () => state && state.cycle(state.cursor.i, state.cursor.j),
    undo: () => state && state.undo(),
    redo: () => state && state.redo(),
    submit: () => {
      if (!grid) return false;
      if (feedbackShown) act("continue").click();
      else submit();
    },
    "accept-seed": () => grid && submit({ acceptSeed: true }),
    tool: ({ tool }) => toolbar.setTool(tool),
    posteriors: () => grid && setPosteriors(!act("posteriors").checked),
    zoom: ({ step }) => grid && zoom(zoomStep(grid.cell, step)),
  },
});

// ---- what each control does ----
const CLICKS = {
  undo: () => state.undo(),
  redo: () => state.redo(),
  reset: () => state.resetToSeed(),
  clear: () => state.clear(),
  submit: () => submit(),
  "accept-seed": () => submit({ acceptSeed: true }),
  skip: () => leaveFor(data.urls.next_page || root.dataset.queueUrl),
  "reload-theirs": () => saver.resolveConflict("theirs"),
  "keep-mine": () => saver.resolveConflict("mine"),
  unflag: () => flag("", ""),
  "zoom-in": () => zoom(zoomStep(grid.cell, 1)),
  "zoom-out": () => zoom(zoomStep(grid.cell, -1)),
  "zoom-reset": () => zoom(zoomStep(grid.cell, 0)),
  "zoom-fit": () => zoom(grid.fitCell()),
  keys: () => toolbar.setKeysOpen(!toolbar.view.keysOpen),
};

root.addEventListener("click", (e) => {
  const t = e.target.closest("[data-tool], [data-action]");
  if (!t || !grid) return;
  if (t.dataset.tool) {
    toolbar.setTool(t.dataset.tool);
    grid.focus();
    return;
  }
  const a = t.dataset.action;
  if (a === "previous") {
    e.preventDefault();
    leaveFor(data.urls.previous_page);
    return;
  }
  if (a === "continue") {
    leaving = true;
    return;
  }
  if (!CLICKS[a]) return;
  CLICKS[a]();
  if (a !== "keys") grid.focus();
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
  let page;
  try {
    // the page carries the API's answer but the seed (one request fewer); the API is the fallback
    const embedded = document.getElementById("grid-data");
    page = embedded ? JSON.parse(embedded.textContent) : await getJson(root.dataset.apiUrl);
  } catch (err) {
    $("grid").innerHTML = "";
    setMessage(`Could not load the pair (${err.message}). Reload the page to try again.`, true);
    return;
  }
  history.replaceState({ assignment: page.id }, "");
  // While the seed is on its way (a revalidation, usually answered 304 from the browser's
  // cache) the grid area says so; the grid is drawn once, with its seed marks and shading.
  $("grid").querySelector(".note")?.replaceChildren("Loading the aligner's seed…");
  show(await withSeed(page));
}

const SEED_TIMEOUT_MS = 20000;

/** ``next`` with its ``seed`` and ``posteriors``: its own when it carries them (the API's
 * answer, after a submit), else from ``urls.seed`` (the page's), which the browser keeps and
 * revalidates (ETag, Cache-Control: no-cache → 304). Never fails: when the seed cannot be
 * had, ``seedError`` says why and the pair opens without seed marks or shading. */
async function withSeed(next) {
  if ("seed" in next) return next;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), SEED_TIMEOUT_MS);
  try {
    const response = await fetch(next.urls.seed, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      signal: abort.signal,
    });
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    const { seed, posteriors } = await response.json();
    return { ...next, seed, posteriors, seedError: null };
  } catch (err) {
    const why = err.name === "AbortError" ? "no answer" : err.message || "no connection";
    return { ...next, seed: null, posteriors: null, seedError: why };
  } finally {
    clearTimeout(timer);
  }
}

/** Say that the seed is missing and what that means for this pair (a line of its own, which
 * the save indicator's messages do not replace), or hide the line when the seed is here. */
function showSeedError() {
  const el = $("seed-error");
  el.hidden = !data.seedError;
  if (!data.seedError) return;
  const start = data.annotation ? "your saved alignment is shown" : "you start from no links";
  el.textContent =
    `The aligner's seed could not be loaded (${data.seedError}): no seed marks or shading, and ` +
    `no Reset to seed; ${start} and can edit it. Reload the page to try again.`;
}

/** Show assignment ``next`` (the API's grid data): on opening the page, and after a submit. */
function show(next) {
  data = next;
  performance.mark("ga:data"); // the pair's data is here (benchmarks/grid_browser.py)
  const { pair, seed, annotation, urls } = data;
  if (saver) clearTimeout(saver.timer); // the previous pair's: submitted, nothing left to send
  feedbackShown = false;
  root.classList.remove("feedback-open");
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

  saver = startSaving({
    root,
    data,
    state,
    csrfToken,
    setMessage,
    onFirstSave: () => {
      if (data.status !== "assigned") return;
      data.status = "in_progress";
      $("status").textContent = STATUS_WORDS.in_progress;
    },
  });
  state.subscribe((change) => {
    if (change.cells.length) saver.changed();
    toolbar.showUndo(state, grid.readOnly);
  });
  if (submitted) {
    saver.store.clear(urls.annotation); // a submitted pair can take no more saves
    setMessage("This pair is submitted; a lead can reopen it.");
    if (data.feedback) feedback(data.feedback, urls.next_page);
  } else {
    const server = { version: annotation ? annotation.version : 0, links: annotation ? annotation.links : seedLinks };
    const restored = saver.restore(server);
    if (restored === "apply") setMessage("Restored changes kept in this browser; saving them now.");
  }
  showSeedError();
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

/** The project's seed job was unfinished when the page was made (annotate.html's
 * ``.seed-pending``: the demo right after ``make run``, a new project's first seeding). When it
 * succeeds, the pair on screen takes its seed in place if nobody has touched it yet (read from
 * the API: the job has given every unstarted assignment its seed); a pair with work of its own
 * keeps it, as the server does, and the note says so. A failed job's box stays, saying why. */
function awaitSeedJob() {
  const pending = root.querySelector(".seed-pending");
  if (!pending) return;
  const note = pending.querySelector(".note");
  const untouched = () => data && data.status === "assigned" && !data.annotation && !saver.hasUnsaved();
  pending.addEventListener("gridalign:job-finished", async (event) => {
    if (event.detail.status !== "succeeded") return;
    event.target.hidden = true; // the job's box: done, its line below says what it meant here
    if (!untouched()) {
      note.textContent =
        "The aligner has finished. This pair keeps the links you marked; your next pairs start " +
        "from the aligner's links.";
      return;
    }
    const id = data.id;
    let fresh;
    try {
      fresh = await withSeed(await getJson(`${root.dataset.apiRoot}${id}/`));
    } catch {
      note.textContent = "The aligner has finished. Reload the pair to start from its links.";
      return;
    }
    if (data.id !== id || !untouched()) return; // edited, or moved on, while it was read
    show(fresh);
    note.textContent = fresh.seed
      ? "The aligner has finished: this pair now starts from its links."
      : "The aligner has finished but has no links for this pair.";
  });
}

awaitSeedJob();
open();
