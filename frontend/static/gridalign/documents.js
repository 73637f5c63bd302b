// The document review screen (issue 33): beads of two documents side by side, decided with one
// key each; every decision, merge and split is sent to the documents API at once and the page
// redraws from what it answers, so what is shown is what is saved. A decision's answer is its
// bead and the counts (?answer=bead): the row and the counts are redrawn, not the whole table.
// The page reads the review a page of beads at a time (config.pageSize; ?offset=&limit=): a
// long document pair's state is never fetched whole, and a browser lays a table out whole.
// Moving past a page's edge reads the next page; merges, splits and the like answer the page
// shown.
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("review-config").textContent);
  const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
  const body = document.querySelector("[data-testid=beads] tbody");
  const counts = document.querySelector("[data-testid=review-counts]");
  const errorBox = document.querySelector("[data-testid=review-error]");
  const pager = document.querySelector("[data-testid=review-pager]");
  const pageSize = config.pageSize || 200;
  let state = null; // one page: its beads, the sentences they hold, the counts
  let current = 0; // the current bead's place in the whole list
  let order = "";
  let first = 0; // the place of the page's first bead
  let loading = false;

  // the query of a request that answers the review state: the page shown, in its order
  function pageQuery(offset) {
    const params = new URLSearchParams({ offset: String(offset), limit: String(pageSize) });
    if (order) params.set("order", order);
    return params.toString();
  }

  function total() {
    return state ? state.page.total : 0;
  }

  function beadAt(k) {
    return state.beads[k - first];
  }

  async function call(method, path, payload) {
    const query = path.includes("?") ? "" : `?${pageQuery(first)}`;
    const response = await fetch(config.stateUrl + path + query, {
      method,
      credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
    return data;
  }

  function showError(message) {
    errorBox.textContent = message || "";
    errorBox.hidden = !message;
  }

  async function act(method, path, payload, after) {
    try {
      const data = await call(method, path, payload);
      showError("");
      // the upload's "uploaded and aligned" note is about the page as it was: the lead's
      // first action makes it stale
      for (const note of document.querySelectorAll(".messages")) note.remove();
      if (after) after(data);
      else render(data);
    } catch (err) {
      showError(err.message);
    }
  }

  function cell(indices, side) {
    const sentences = state.sentences[side];
    const td = document.createElement("td");
    td.className = side;
    if (!indices.length) td.classList.add("empty");
    for (const k of indices) {
      const span = document.createElement("span");
      span.className = "sent";
      const idx = document.createElement("span");
      idx.className = "idx";
      idx.textContent = String(k + 1);
      span.append(idx, document.createTextNode(sentences[String(k)]));
      td.append(span);
    }
    return td;
  }

  function decisionCell(bead) {
    const td = document.createElement("td");
    if (bead.pair) {
      td.textContent = "sent";
      return td;
    }
    const label = document.createElement("span");
    label.className = "badge";
    label.textContent = bead.decision;
    td.append(label, " ");
    for (const [decision, text] of [["accepted", "Accept"], ["rejected", "Reject"]]) {
      if (decision === "accepted" && bead.null) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button small";
      button.textContent = text;
      button.setAttribute("aria-label", `${text} bead ${bead.position + 1}`);
      button.addEventListener("click", () => decide(bead, decision));
      td.append(button, " ");
    }
    return td;
  }

  function showCounts() {
    const c = state.counts;
    const n = total();
    const shown = n > pageSize ? ` · showing ${first + 1}–${first + state.beads.length}` : "";
    const unpaired = state.unaligned_counts;
    counts.textContent = `${n} beads${shown} · ${c.accepted} accepted · ${c.rejected} rejected · ${c.pending} pending · ${c.sent} sent · unpaired sentences: ${unpaired.source} source, ${unpaired.target} target`;
  }

  function row(bead, k) {
    const tr = document.createElement("tr");
    tr.dataset.bead = String(bead.id);
    tr.tabIndex = -1;
    tr.className = `decision-${bead.decision}` + (bead.null ? " null" : "") + (bead.pair ? " is-sent" : "");
    const num = document.createElement("td");
    num.textContent = String(k + 1);
    const conf = document.createElement("td");
    conf.className = "num";
    conf.textContent = (bead.confidence === null ? "by hand" : bead.confidence.toFixed(2)) +
      (bead.predicted === null ? "" : ` / ${bead.predicted.toFixed(2)}`);
    tr.append(num, cell(bead.source, "source"), cell(bead.target, "target"), conf, decisionCell(bead));
    tr.addEventListener("click", () => select(k, false));
    return tr;
  }

  // a page of the state: drawn, with the current bead kept where it still is
  function render(data, focus) {
    state = data;
    order = data.order;
    first = data.page.offset;
    document.querySelector("#order select").value = data.order;
    if (current < first || current >= first + data.beads.length) current = first;
    draw();
    select(current, Boolean(focus));
  }

  // the page that holds bead k, read and drawn
  function load(k, focus) {
    loading = true;
    current = k;
    return call("GET", `?${pageQuery(Math.floor(k / pageSize) * pageSize)}`)
      .finally(() => { loading = false; })
      .then((data) => render(data, focus))
      .catch((err) => showError(err.message));
  }

  function draw() {
    body.replaceChildren(...state.beads.map((bead, i) => row(bead, first + i)));
    const n = total();
    pager.hidden = n <= pageSize;
    pager.querySelector("[data-field=range]").textContent =
      `beads ${first + 1}–${first + state.beads.length} of ${n}`;
    pager.querySelector("[data-action=previous]").disabled = first === 0;
    pager.querySelector("[data-action=next]").disabled = first + pageSize >= n;
    showCounts();
  }

  // one bead's answer: its row and the counts redrawn, the rest of the table left as it is
  function update(answer) {
    const i = state.beads.findIndex((b) => b.id === answer.bead.id);
    state.counts = answer.counts;
    if (i < 0) {
      showCounts();
      return;
    }
    state.beads[i] = { ...state.beads[i], ...answer.bead };
    // the row element stays (its focus, its place as the current row); its cells are new
    const tr = body.children[i];
    const fresh = row(state.beads[i], first + i);
    tr.className = fresh.className + (first + i === current ? " current" : "");
    tr.replaceChildren(...fresh.children);
    showCounts();
  }

  function select(k, focus) {
    if (!state || loading || k < 0 || k >= total()) return;
    if (k < first || k >= first + state.beads.length) {
      load(k, focus);
      return;
    }
    body.querySelectorAll("tr.current").forEach((tr) => {
      tr.classList.remove("current");
      tr.removeAttribute("aria-current");
    });
    current = k;
    const tr = body.children[k - first];
    tr.classList.add("current");
    tr.setAttribute("aria-current", "true");
    if (focus) {
      tr.focus({ preventScroll: true });
      reveal(tr);
    }
  }

  // scrolled into view below the sticky toolbar, not under it
  function reveal(tr) {
    tr.scrollIntoView({ block: "nearest" });
    const bar = document.querySelector(".review-toolbar").getBoundingClientRect();
    const top = tr.getBoundingClientRect().top;
    if (top < bar.bottom) window.scrollBy(0, top - bar.bottom - 8);
  }

  function decide(bead, decision) {
    act("POST", "decide/?answer=bead", { bead: bead.id, decision }, update);
  }

  function lastIndex(bead, side) {
    const indices = bead[side];
    return indices.length ? indices[indices.length - 1] : null;
  }

  function merge(side) {
    const k = lastIndex(beadAt(current), side);
    if (k !== null) act("POST", "merge/", { side, index: k });
  }

  function split(side) {
    const k = lastIndex(beadAt(current), side);
    if (k === null) return;
    const text = state.sentences[side][String(k)];
    const word = window.prompt(`Split ${side} sentence ${k + 1} before which words?\n\n${text}`);
    if (!word) return;
    const offset = text.indexOf(word, 1);
    if (offset <= 0) return showError(`"${word}" is not inside the sentence (after its start)`);
    act("POST", "split/", { side, index: k, offset });
  }

  function numbers(text, count) {
    const found = String(text || "").split(/[\s,]+/).filter(Boolean).map(Number);
    return found.every((n) => Number.isInteger(n) && n >= 1 && n <= count) ? found.map((n) => n - 1) : null;
  }

  function pairByHand() {
    const bead = beadAt(current);
    const side = bead.source.length ? "target" : "source";
    const have = bead.source.length ? "source" : "target";
    const count = state.sentence_counts[side];
    const answer = window.prompt(`Pair ${have} sentence(s) ${bead[have].map((k) => k + 1).join(", ")} with which ${side} sentence number(s)? (1 to ${count})`);
    if (answer === null) return;
    const other = numbers(answer, count);
    if (!other || !other.length) return showError(`give ${side} sentence numbers from 1 to ${count}`);
    act("POST", "pair/", { [have]: bead[have], [side]: other });
  }

  const KEYS = {
    ArrowDown: () => select(current + 1, true), j: () => select(current + 1, true),
    ArrowUp: () => select(current - 1, true), k: () => select(current - 1, true),
    a: () => decide(beadAt(current), "accepted"),
    r: () => decide(beadAt(current), "rejected"),
    u: () => decide(beadAt(current), "pending"),
    m: () => merge("source"), M: () => merge("target"), p: () => pairByHand(),
    s: () => split("source"), S: () => split("target"),
  };

  document.addEventListener("keydown", (event) => {
    if (!state || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select")) return;
    const handler = KEYS[event.key];
    if (!handler || !state.beads.length) return;
    event.preventDefault();
    if (loading) return; // a page is on its way: the key would act on the one it replaces
    handler();
  });

  pager.querySelector("[data-action=previous]").addEventListener("click", () => select(first - pageSize, true));
  pager.querySelector("[data-action=next]").addEventListener("click", () => select(first + pageSize, true));

  document.getElementById("accept-above").addEventListener("submit", (event) => {
    event.preventDefault();
    const threshold = Number(new FormData(event.target).get("threshold"));
    act("POST", "accept-above/", { threshold });
  });

  document.getElementById("send").addEventListener("submit", (event) => {
    event.preventDefault();
    const subcorpus = String(new FormData(event.target).get("subcorpus"));
    runJob("send/", { subcorpus }, document.querySelector("#send button"), "send-result", "sending", (result) => {
      const tail = result.too_long ? ` (${result.too_long} too long, left out)` : "";
      load(current);
      return `${plural(result.pairs, "pair")} sent to annotation${tail}`;
    });
  });

  document.querySelector("#order select").addEventListener("change", (event) => {
    order = event.target.value;
    load(0);
  });

  function plural(n, noun) {
    return `${n} ${noun}${n === 1 ? "" : "s"}`;
  }

  function learnt(result) {
    if (!result) return "";
    if (!result.trained) {
      const need = result.needed_per_kind;
      return `needs ${need} accepted and ${need} rejected beads (has ${result.accepted} and ${result.decisions - result.accepted})`;
    }
    return `learnt from ${result.decisions} decisions; ${plural(result.predicted, "pending bead")} scored`;
  }

  // An action that answers a job (sending, learning: a long pair's take a while): its button
  // held down and its progress in its note until the job ends, then the note says what
  // ``done(result)`` returns.
  function runJob(path, payload, button, noteId, doing, done) {
    const note = document.querySelector(`[data-testid=${noteId}]`);
    button.disabled = true;
    act("POST", path, payload, (job) => {
      follow(job, note, doing).then((result) => {
        note.textContent = done(result);
      }).catch((err) => {
        note.textContent = "";
        showError(err.message);
      }).finally(() => { button.disabled = false; });
    }).finally(() => { if (!note.textContent.startsWith(doing)) button.disabled = false; });
  }

  async function follow(job, note, doing) {
    while (!job.finished) {
      note.textContent = `${doing}… ${job.progress}%`;
      await new Promise((done) => setTimeout(done, 1000));
      const response = await fetch(job.url, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      job = await response.json();
    }
    if (job.status !== "succeeded") throw new Error(job.reason || `${doing} failed`);
    return job.result;
  }

  const learnButton = document.getElementById("learn");
  learnButton.addEventListener("click", () => {
    runJob("learn/", undefined, learnButton, "learn-result", "learning", (result) => {
      if (result.trained) {
        order = "likeliest";
        load(0);
      }
      return learnt(result);
    });
  });

  load(0);
})();
