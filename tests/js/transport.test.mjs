// Saving (frontend/static/gridalign/grid/transport.js): the pure decisions, and the Saver
// against a real HTTP server (node:http) that plays the API's part — down, 409, then up.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import {
  classifyResponse,
  flushOtherPending,
  PendingStore,
  restoreDecision,
  retryDelay,
  Saver,
} from "../../frontend/static/gridalign/grid/transport.js";

/** The Web Storage interface over a Map (what localStorage offers in the browser). */
class MemoryStorage {
  #m = new Map();
  get length() {
    return this.#m.size;
  }
  key(n) {
    return [...this.#m.keys()][n] ?? null;
  }
  getItem(k) {
    return this.#m.has(k) ? this.#m.get(k) : null;
  }
  setItem(k, v) {
    this.#m.set(k, String(v));
  }
  removeItem(k) {
    this.#m.delete(k);
  }
}

test("retries back off 1, 2, 4 ... seconds, capped at 30", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20].map((n) => retryDelay(n)),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
  );
  assert.equal(retryDelay(3, { base: 10 }), 40);
});

test("answers are classified: only failures that can pass are retried", () => {
  assert.equal(classifyResponse(200), "saved");
  assert.equal(classifyResponse(409), "conflict");
  assert.equal(classifyResponse(400), "invalid");
  assert.equal(classifyResponse(404), "gone");
  assert.equal(classifyResponse(403, { error: "This pair was submitted; a lead can reopen it." }), "refused");
  // no answer, a restarting server, an expired login: keep the edit and try again
  for (const status of [0, 500, 502, 503, 504, 408, 429, 401]) assert.equal(classifyResponse(status), "retry", status);
  assert.equal(classifyResponse(403, { detail: "Authentication credentials were not provided." }), "retry");
});

test("a stored edit found on opening: drop if landed, apply if still based on the server's version, else ask", () => {
  const pending = { version: 3, links: [[0, 0, "S"]] };
  assert.equal(restoreDecision({ pending: null, server: { version: 3, links: [] } }), "drop");
  assert.equal(restoreDecision({ pending, server: { version: 4, links: [[0, 0, "S"]] } }), "drop");
  assert.equal(restoreDecision({ pending, server: { version: 3, links: [] } }), "apply");
  assert.equal(restoreDecision({ pending, server: { version: 5, links: [[1, 1, "P"]] } }), "conflict");
});

test("the pending store keeps one entry per annotation and survives junk", () => {
  const storage = new MemoryStorage();
  const store = new PendingStore(storage);
  store.save("/api/assignments/1/annotation/", { version: 2, baseLinks: [], links: [[0, 1, "P"]] });
  store.save("/api/assignments/2/annotation/", { version: 0, baseLinks: [], links: [] });
  assert.deepEqual(store.load("/api/assignments/1/annotation/").links, [[0, 1, "P"]]);
  assert.equal(store.all().length, 2);
  storage.setItem(PendingStore.keyFor("/broken/"), "{not json");
  storage.setItem("someone-else", "{}");
  assert.equal(store.load("/broken/"), null);
  assert.equal(store.all().length, 2);
  store.clear("/api/assignments/1/annotation/");
  assert.equal(store.load("/api/assignments/1/annotation/"), null);
  const full = new PendingStore({ setItem() { throw new Error("QuotaExceededError"); } });
  assert.equal(full.save("/x/", { version: 0, baseLinks: [], links: [] }), false);
});

// ---- the Saver against a small server with the API's answers ----
let server;
let base;
const api = { version: 0, links: [], down: 0, puts: [] };

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const sent = JSON.parse(body || "{}");
      api.puts.push({ method: req.method, url: req.url, ...sent });
      const reply = (status, data) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(data));
      };
      if (api.down > 0) {
        api.down -= 1;
        return reply(503, { error: "restarting" });
      }
      if (sent.version !== api.version) {
        return reply(409, { error: "stale", current: { version: api.version, links: api.links } });
      }
      api.version += 1;
      api.links = sent.links;
      reply(200, { version: api.version, links: api.links, status: "in_progress" });
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

function reset(state) {
  Object.assign(api, { version: 0, links: [], down: 0, puts: [] }, state);
}

function makeSaver(storage, grid, extra = {}) {
  const states = [];
  const saver = new Saver({
    annotationUrl: `${base}/api/assignments/1/annotation/`,
    submitUrl: `${base}/api/assignments/1/submit/`,
    csrfToken: "t",
    version: api.version,
    links: api.links,
    storage,
    debounceMs: 5,
    retryBaseMs: 10,
    getLinks: () => grid.links,
    getChangeCount: () => grid.count,
    onState: (s) => states.push(s),
    onReplace: (links) => {
      grid.links = links;
      grid.count += 1;
      saver.changed();
    },
    ...extra,
  });
  return { saver, states };
}

const until = async (check, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
};

test("an edit made while the server is down is kept, retried with backoff, and lands", async () => {
  reset({ down: 2 });
  const storage = new MemoryStorage();
  const grid = { links: [[0, 0, "S"]], count: 1 };
  const { saver, states } = makeSaver(storage, grid);
  saver.changed();
  assert.deepEqual(new PendingStore(storage).load(saver.url).links, [[0, 0, "S"]], "stored before any request");
  await until(() => saver.state === "saved");
  assert.deepEqual(api.links, [[0, 0, "S"]]);
  assert.equal(api.puts.length, 3, "two refusals, then the save");
  assert.ok(states.includes("offline"));
  assert.equal(new PendingStore(storage).load(saver.url), null, "cleared once it landed");
  assert.equal(saver.version, 1);
});

test("after a reload, a stored edit based on the current version is applied and saved", async () => {
  reset({ version: 2, links: [] });
  const storage = new MemoryStorage();
  new PendingStore(storage).save(`${base}/api/assignments/1/annotation/`, { version: 2, baseLinks: [], links: [[1, 1, "P"]] });
  const grid = { links: [], count: 0 };
  const { saver } = makeSaver(storage, grid);
  assert.equal(saver.restore({ version: 2, links: [] }), "apply");
  assert.deepEqual(grid.links, [[1, 1, "P"]]);
  await until(() => saver.state === "saved");
  assert.deepEqual(api.links, [[1, 1, "P"]]);
  assert.equal(api.version, 3);
});

test("a 409 with different work on the same cell shows a conflict; nothing is overwritten until the person chooses", async () => {
  // another tab saved version 5: (0,0) possible where we made it sure, and (2,2) of its own
  reset({ version: 5, links: [[0, 0, "P"], [2, 2, "S"]] });
  const storage = new MemoryStorage();
  const grid = { links: [[0, 0, "S"]], count: 1 };
  const conflicts = [];
  const { saver } = makeSaver(storage, grid, { version: 4, links: [] });
  saver.o.onConflict = (c) => conflicts.push(c);
  saver.changed();
  await until(() => saver.state === "conflict");
  assert.deepEqual(api.links, [[0, 0, "P"], [2, 2, "S"]], "theirs untouched");
  assert.equal(conflicts[0].decision.action, "ask");
  assert.deepEqual(conflicts[0].decision.cells, [[0, 0, null, "S", "P"]], "the cell in question");
  assert.equal(api.puts.length, 1, "no second attempt while waiting for the choice");
  await saver.resolveConflict("mine");
  await until(() => saver.state === "saved");
  assert.deepEqual(api.links, [[0, 0, "S"], [2, 2, "S"]], "mine on the contested cell, theirs' other work kept");
  assert.deepEqual(grid.links, api.links, "the grid shows what was saved");
  assert.equal(api.puts.at(-1).version, 5);
});

test("reload theirs puts their links in the grid and saves nothing", async () => {
  reset({ version: 5, links: [[0, 0, "P"]] });
  const grid = { links: [[0, 0, "S"]], count: 1 };
  const { saver } = makeSaver(new MemoryStorage(), grid, { version: 4, links: [] });
  saver.changed();
  await until(() => saver.state === "conflict");
  await saver.resolveConflict("theirs");
  assert.deepEqual(grid.links, [[0, 0, "P"]]);
  assert.equal(saver.state, "saved");
  assert.equal(saver.version, 5);
  assert.equal(api.puts.length, 1);
});

test("a 409 whose edits touch different cells merges both and saves the merge against theirs", async () => {
  reset({ version: 5, links: [[2, 2, "S"]] }); // another tab added (2,2) on top of version 4
  const storage = new MemoryStorage();
  const grid = { links: [[0, 0, "S"]], count: 1 }; // we added (0,0) on top of version 4
  const conflicts = [];
  const { saver, states } = makeSaver(storage, grid, { version: 4, links: [] });
  saver.o.onConflict = (c) => conflicts.push(c);
  saver.changed();
  await until(() => saver.state === "saved" && api.version === 6);
  assert.deepEqual(conflicts, [], "nothing to ask");
  assert.ok(!states.includes("conflict"));
  assert.deepEqual(api.links, [[0, 0, "S"], [2, 2, "S"]], "both edits on the server");
  assert.deepEqual(grid.links, api.links, "the grid shows the merge");
  assert.equal(api.puts.length, 2);
  assert.equal(api.puts.at(-1).version, 5, "saved against their version: the server still refuses stale ones");
  assert.match(saver.message, /Merged with a change made elsewhere/);
  assert.equal(new PendingStore(storage).load(saver.url), null);
});

test("taking theirs on the contested cells keeps my other edits and saves them", async () => {
  reset({ version: 5, links: [[0, 0, "P"]] });
  const grid = { links: [[0, 0, "S"], [3, 3, "S"]], count: 1 };
  const { saver } = makeSaver(new MemoryStorage(), grid, { version: 4, links: [] });
  saver.changed();
  await until(() => saver.state === "conflict");
  await saver.resolveConflict("theirs");
  await until(() => saver.state === "saved" && api.version === 6);
  assert.deepEqual(api.links, [[0, 0, "P"], [3, 3, "S"]]);
  assert.deepEqual(grid.links, api.links);
});

test("after a reload, a stored edit the server moved past is merged when the cells differ", async () => {
  reset({ version: 5, links: [[2, 2, "S"]] });
  const storage = new MemoryStorage();
  const url = `${base}/api/assignments/1/annotation/`;
  new PendingStore(storage).save(url, { version: 4, baseLinks: [], links: [[1, 1, "P"]] });
  const grid = { links: [[2, 2, "S"]], count: 0 };
  const { saver } = makeSaver(storage, grid, { version: 5, links: [[2, 2, "S"]] });
  assert.equal(saver.restore({ version: 5, links: [[2, 2, "S"]] }), "conflict");
  await until(() => saver.state === "saved" && api.version === 6);
  assert.deepEqual(api.links, [[1, 1, "P"], [2, 2, "S"]]);
  assert.deepEqual(grid.links, api.links);
});

test("a submit that meets another tab's edit of other cells merges, saves, and asks to check first", async () => {
  reset({ version: 5, links: [[2, 2, "S"]] });
  const grid = { links: [[0, 1, "S"]], count: 1 };
  const { saver } = makeSaver(new MemoryStorage(), grid, { version: 4, links: [] });
  const first = await saver.submit();
  assert.equal(first.ok, false, "the person has not seen the merge: no submit yet");
  assert.match(first.message, /Merged with a change made elsewhere/);
  await until(() => saver.state === "saved" && api.version === 6);
  assert.deepEqual(api.links, [[0, 1, "S"], [2, 2, "S"]]);
  const second = await saver.submit();
  assert.equal(second.ok, true);
  assert.deepEqual(api.links, [[0, 1, "S"], [2, 2, "S"]]);
});

test("a save whose answer was lost is recognised on the 409 and not sent again", async () => {
  reset({ version: 7, links: [[3, 3, "P"]] }); // our links landed as version 7
  const grid = { links: [[3, 3, "P"]], count: 1 };
  const { saver } = makeSaver(new MemoryStorage(), grid, { version: 6, links: [] });
  saver.changed();
  await until(() => saver.state === "saved");
  assert.equal(api.puts.length, 1);
  assert.equal(saver.version, 7);
});

test("submit goes through, and an unreachable server leaves the edit stored for autosave", async () => {
  reset({ down: 1 });
  const storage = new MemoryStorage();
  const grid = { links: [[0, 1, "S"]], count: 1 };
  const { saver } = makeSaver(storage, grid);
  const first = await saver.submit();
  assert.equal(first.ok, false);
  assert.equal(first.reason, "offline");
  assert.ok(new PendingStore(storage).load(saver.url), "kept in the browser");
  await until(() => saver.state === "saved"); // the retry lands as an autosave
  const second = await saver.submit();
  assert.equal(second.ok, true);
  assert.equal(api.puts.at(-1).url, "/api/assignments/1/submit/");
});

test("edits left on other pairs are sent in the background; conflicts stay stored", async () => {
  reset({ version: 1, links: [] });
  const storage = new MemoryStorage();
  const store = new PendingStore(storage);
  store.save(`${base}/api/assignments/8/annotation/`, { version: 1, baseLinks: [], links: [[0, 0, "S"]] });
  store.save(`${base}/api/assignments/9/annotation/`, { version: 0, baseLinks: [], links: [[1, 1, "S"]] });
  const landed = await flushOtherPending({ storage, exceptUrl: "/none/", csrfToken: "t" });
  assert.deepEqual(landed, [`${base}/api/assignments/8/annotation/`]);
  assert.equal(store.all().length, 1, "the stale one (409, different links) is kept for its page");
});
