// The adjudication page's controller: both annotations overlaid on one grid (the grid's own
// render.js in overlay mode, state.js for the gold being written), a starting point
// (intersection, union, A, B), and "Save as gold" through PUT /api/projects/{p}/pairs/{q}/gold/.
// The page embeds its data as JSON (#adjudication-data); nothing is fetched but the save.
// Keys are the grid's (keys.js) on the focused grid; requests go through transport.js.

import { bindKeys } from "./grid/keys.js";
import { mountGrid } from "./grid/render.js";
import { AlignmentState, diffLinks } from "./grid/state.js";
import { classifyResponse, sendJson } from "./grid/transport.js";

const root = document.getElementById("adjudicate");
const data = JSON.parse(document.getElementById("adjudication-data").textContent);
const apiUrl = root.dataset.apiUrl;
const $ = (sel) => root.querySelector(sel);
const status = $("#adj-status");
const { pair, a, b, combined } = data;
let goldVersion = data.gold ? data.gold.version : 0;

const labels = {
  a: a ? `A (${a.annotator})` : "A",
  b: b ? `B (${b.annotator})` : "B",
};
const who = [a, b]
  .map((s, k) => (s ? `${k ? labels.b : labels.a}: ${s.status_label.toLowerCase()}${s.flag ? `, flagged: ${s.flag.toLowerCase()}` : ""}` : null))
  .filter(Boolean)
  .join(" · ");
$("#adj-who").textContent = who || "This pair has no doubly annotated assignments.";

// Start from the current gold whenever there is one (imported, single or adjudicated: it is
// what a save replaces), else from where A and B agree.
const startFrom = data.gold ? "gold" : "intersection";
const startLinks = (name) => (name === "gold" ? data.gold.links : combined[name]);
const state = new AlignmentState({
  rows: pair.source.length,
  cols: pair.target.length,
  links: startLinks(startFrom),
  seed: [],
});
const tool = () => root.querySelector('input[name="tool"]:checked')?.value || "sure";
const grid = mountGrid($("#adj-grid"), {
  source: pair.source,
  target: pair.target,
  state,
  tool,
  overlay: { a: a ? a.links : [], b: b ? b.links : [], labels },
  sentences: $("#adj-sentences"),
});

function showCounts() {
  const c = combined.counts;
  $("#adj-counts").textContent =
    `A and B: ${c.both_sure} both sure, ${c.both_possible} both possible, ${c.mismatch} sure/possible, ` +
    `${c.only_a} only A, ${c.only_b} only B · gold: ${state.toLinks().length} links`;
}
state.subscribe(() => {
  showCounts();
  status.textContent = "Not saved";
  status.dataset.state = "unsaved";
});
showCounts();

const goldButton = root.querySelector('[data-start="gold"]');
if (data.gold) goldButton.hidden = false;
for (const button of root.querySelectorAll("[data-start]")) {
  button.setAttribute("aria-pressed", String(button.dataset.start === startFrom));
  button.addEventListener("click", () => {
    state.replaceLinks(startLinks(button.dataset.start)); // one undoable step
    for (const other of root.querySelectorAll("[data-start]")) {
      other.setAttribute("aria-pressed", String(other === button));
    }
    grid.focus();
  });
}
bindKeys({
  target: grid.table,
  where: () => ({ rtl: grid.rtl, pageRows: grid.pageRows() }),
  actions: {
    move: ({ di, dj, extend }) => grid.moveCursor(di, dj, extend),
    jump: ({ i, j }) => grid.jumpTo(i, j),
    set: ({ tool: name }) => state.applyToSelection(name),
    cycle: () => state.cycle(state.cursor.i, state.cursor.j),
    undo: () => state.undo(),
    redo: () => state.redo(),
    tool: ({ tool: name }) => {
      root.querySelector(`input[name="tool"][value="${name}"]`).checked = true;
    },
  },
});
$('[data-do="undo"]').addEventListener("click", () => state.undo());
$('[data-do="redo"]').addEventListener("click", () => state.redo());

function renderHistory(history) {
  const list = $("#adj-history");
  list.replaceChildren(
    ...history.map((r) => {
      const li = document.createElement("li");
      const when = window.gridalignWhen ? window.gridalignWhen.format(r.created_at) : r.created_at;
      const n = Array.isArray(r.links) ? r.links.length : r.links;
      li.textContent = `v${r.version} · ${r.origin} · ${r.author || "import"} · ${when} · ${n} links`;
      if (r.note) {
        const note = document.createElement("q");
        note.textContent = r.note;
        li.append(" ", note);
      }
      return li;
    }),
  );
  if (!history.length) list.innerHTML = "<li class='note'>No gold yet.</li>";
}
renderHistory(data.history);

// Replacing gold by different links asks first, saying what changes (fewer links in words):
// earlier versions stay in the history and the pair's page restores them.
function confirmReplacement(links) {
  if (!data.gold) return true;
  const d = diffLinks(data.gold.links, links);
  if (!d.added.length && !d.removed.length && !d.changed.length) return true;
  const before = data.gold.links.length;
  const lines = [
    `This replaces gold v${data.gold.version} (${before} links) with ${links.length} links: ` +
      `${d.added.length} added, ${d.removed.length} removed, ${d.changed.length} sure/possible changed.`,
  ];
  if (links.length < before) lines.push(`The new gold has ${before - links.length} FEWER links.`);
  lines.push("The current version stays in the history and can be restored.", "Replace it?");
  return window.confirm(lines.join("\n"));
}

// Gold made before every assigned annotator has submitted, or with no link at all, counts as
// gold in exports and agreement like any other: each asks first, naming what is missing.
function confirmGaps(links) {
  const waiting = data.not_submitted || [];
  if (waiting.length) {
    const total = waiting.length + [a, b].filter((s) => s && s.status === "submitted").length;
    const names = waiting.map((w) => `${w.annotator} (${w.status.toLowerCase()})`).join(", ");
    const question =
      `${total - waiting.length} of ${total} annotators have submitted this pair; ` +
      `not yet: ${names}.\nSave gold without their work?`;
    if (!window.confirm(question)) return "Not saved: waiting for the annotators' work.";
  }
  if (!links.length) {
    const question =
      "The gold has no links: the pair will count as gold with nothing aligned " +
      "(in exports and agreement).\nSave empty gold?";
    if (!window.confirm(question)) return "Not saved: the gold has no links.";
  }
  return null;
}

$("#adj-save").addEventListener("submit", async (event) => {
  event.preventDefault();
  const nextUrl = event.submitter && event.submitter.dataset.nextUrl;
  const refused = confirmGaps(state.toLinks());
  if (refused) {
    status.textContent = refused;
    status.dataset.state = "unsaved";
    return;
  }
  if (!confirmReplacement(state.toLinks())) {
    status.textContent = "Not saved: the current gold is kept.";
    status.dataset.state = "unsaved";
    return;
  }
  status.textContent = "Saving…";
  status.dataset.state = "saving";
  const csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
  const body = { version: goldVersion, links: state.toLinks(), note: $("#adj-note").value };
  const { status: code, data: answer } = await sendJson("PUT", apiUrl, body, { csrfToken: csrf });
  const kind = classifyResponse(code, answer);
  if (code === 0) {
    status.textContent = "Not saved: the server could not be reached. Try again.";
    status.dataset.state = "offline";
  } else if (kind === "saved") {
    goldVersion = answer.version;
    data.gold = answer;
    goldButton.hidden = false;
    status.textContent = `Saved as gold v${answer.version}`;
    status.dataset.state = "saved";
    if (nextUrl) {
      window.location.assign(nextUrl);
      return;
    }
    const fresh = await sendJson("GET", apiUrl, undefined, { csrfToken: csrf });
    if (fresh.status === 200 && fresh.data) renderHistory(fresh.data.history.slice().reverse());
  } else if (kind === "conflict") {
    const current = answer && answer.current;
    status.textContent =
      `Not saved: someone saved gold v${current?.version} meanwhile. ` +
      `"Current gold" loads it; save again to replace it.`;
    status.dataset.state = "conflict";
    if (current) {
      data.gold = current;
      goldVersion = current.version;
      goldButton.hidden = false;
    }
  } else {
    const b = answer || {};
    const detail = b.links ? b.links.join("; ") : b.error || b.detail || `the server answered ${code}`;
    status.textContent = `Not saved: ${detail}`;
    status.dataset.state = "error";
  }
});
