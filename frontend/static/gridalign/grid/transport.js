// Saving an annotation: debounced autosave carrying the version the edit is based on, 409
// handling that never overwrites silently, and a localStorage copy of every unsaved edit that
// is retried with backoff until it lands — also after a reload, and also for a pair the
// annotator has already left (see flushOtherPending).
//
// The decisions (what a response means, how long to wait, what to do with a stored edit when
// the page opens) are pure functions at the top, unit-tested in Node; the Saver below does the
// fetching and timing. The save indicator's states: saved | saving | unsaved | offline | conflict.

import { decideConflict, linksEqual, mergeLinks } from "./state.js";

export const SAVE_STATES = ["saved", "saving", "unsaved", "offline", "conflict"];
const PREFIX = "gridalign:pending:";
export const MERGED_MESSAGE = "Merged with a change made elsewhere (another tab or device).";

/** Wait before retry number `attempt` (1, 2, ...): 1 s, 2 s, 4 s ... capped at 30 s. */
export function retryDelay(attempt, { base = 1000, max = 30000 } = {}) {
  return Math.min(max, base * 2 ** Math.max(0, attempt - 1));
}

/**
 * What a save's answer means. status 0 = no answer (network down, server restarting).
 *  "saved"    2xx
 *  "conflict" 409: someone saved a newer version (body.current)
 *  "invalid"  400: the links were refused (a bug: retrying cannot help)
 *  "refused"  403 because the pair is submitted (it can never land)
 *  "gone"     404: the assignment is no longer ours (withdrawn)
 *  "retry"    network error, 5xx, 408, 429, or 401/403 of an expired login: keep and retry
 */
export function classifyResponse(status, body = null) {
  if (status >= 200 && status < 300) return "saved";
  if (status === 409) return "conflict";
  if (status === 400) return "invalid";
  if (status === 404) return "gone";
  if (status === 403 && body && /submitted/i.test(String(body.error || ""))) return "refused";
  return "retry";
}

/**
 * An edit stored in the browser when the page opens, against the server's annotation
 * ({version, links}; version 0 = never saved):
 *  "drop"     it already landed (the server holds exactly those links)
 *  "apply"    the server is still at the version it was based on: put it back and save it
 *  "conflict" the server moved on to other links meanwhile: ask (never overwrite silently)
 */
export function restoreDecision({ pending, server }) {
  if (!pending) return "drop";
  if (linksEqual(pending.links, server.links)) return "drop";
  if (pending.version === server.version) return "apply";
  return "conflict";
}

/** The unsaved edits of every assignment, in localStorage (any Storage-like object). */
export class PendingStore {
  constructor(storage) {
    this.storage = storage;
  }

  static keyFor(url) {
    return PREFIX + url;
  }

  /** {url, version, baseLinks, links, savedAt} or null (unreadable entries count as none). */
  load(url) {
    try {
      const raw = this.storage.getItem(PendingStore.keyFor(url));
      const entry = raw ? JSON.parse(raw) : null;
      return entry && Array.isArray(entry.links) && Number.isInteger(entry.version) ? entry : null;
    } catch {
      return null;
    }
  }

  /** Returns false when the browser refuses to store it (quota, private mode). */
  save(url, { version, baseLinks, links }) {
    const entry = { url, version, baseLinks, links, savedAt: new Date().toISOString() };
    try {
      this.storage.setItem(PendingStore.keyFor(url), JSON.stringify(entry));
      return true;
    } catch {
      return false;
    }
  }

  clear(url) {
    try {
      this.storage.removeItem(PendingStore.keyFor(url));
    } catch {
      /* nothing stored, nothing to clear */
    }
  }

  /** Every stored entry (for pairs the annotator left with an edit still unsaved). */
  all() {
    const out = [];
    for (let n = 0; n < this.storage.length; n++) {
      const key = this.storage.key(n);
      if (key && key.startsWith(PREFIX)) {
        const entry = this.load(key.slice(PREFIX.length));
        if (entry) out.push(entry);
      }
    }
    return out;
  }
}

async function send(fetchImpl, method, url, body, csrfToken) {
  try {
    const response = await fetchImpl(url, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null; // a proxy's HTML error page: the status says enough
    }
    return { status: response.status, data };
  } catch {
    return { status: 0, data: null };
  }
}

/**
 * One JSON request carrying the CSRF token, as every save of the grid pages makes it:
 * resolves to {status, data} (status 0: no answer; data null: not JSON). Read what the
 * answer means with classifyResponse. The adjudication page's gold saves use it too.
 */
export function sendJson(method, url, body, { csrfToken = "", fetchImpl = (...a) => fetch(...a) } = {}) {
  return send(fetchImpl, method, url, body, csrfToken);
}

/**
 * Keeps one annotation saved.
 *   new Saver({annotationUrl, submitUrl, csrfToken, version, links, getLinks, getChangeCount,
 *              onState(state, message), onConflict({decision, theirs, mine}), onReplace(links)})
 * version/links: what the server holds now (version 0 = never saved). Call changed() after
 * every edit; submit() for Submit; resolveConflict("theirs"|"mine") after a conflict.
 * A 409 whose edits touch different cells is merged (three-way, state.js mergeLinks) and the
 * merge saved against the server's version; only cells changed differently on both sides ask.
 */
export class Saver {
  constructor(options) {
    this.o = { debounceMs: 800, retryBaseMs: 1000, fetchImpl: (...a) => fetch(...a), storage: globalThis.localStorage, ...options };
    this.url = options.annotationUrl;
    this.version = options.version;
    this.baseLinks = options.links;
    this.store = new PendingStore(this.o.storage);
    this.state = "saved";
    this.message = "";
    this.dirty = false;
    this.attempt = 0;
    this.timer = null;
    this.inflight = null;
    this.again = false;
    this.conflict = null;
    this.quiet = false;
    this.notice = ""; // said with the next "saved" (e.g. that a merge happened)
    this.unanswered = []; // links of the saves sent since the last answer that got none
  }

  #setState(state, message = "") {
    this.state = state;
    this.message = message;
    this.o.onState?.(state, message);
  }

  #schedule(ms) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  #persist() {
    this.store.save(this.url, { version: this.version, baseLinks: this.baseLinks, links: this.o.getLinks() });
  }

  hasUnsaved() {
    return this.dirty || Boolean(this.inflight);
  }

  /** After every edit: keep a copy in the browser at once, save to the server after a pause. */
  changed() {
    if (this.quiet) return;
    this.dirty = true;
    this.#persist();
    if (this.state === "conflict") return; // wait for the person's choice
    if (this.state !== "offline") {
      this.#setState("unsaved");
      this.#schedule(this.o.debounceMs);
    }
  }

  /** Put the server's links into the grid without counting it as an edit. */
  #adopt(current) {
    this.notice = "";
    this.version = current.version;
    this.baseLinks = current.links;
    this.quiet = true;
    try {
      this.o.onReplace?.(current.links);
    } finally {
      this.quiet = false;
    }
    this.dirty = false;
    this.store.clear(this.url);
  }

  /**
   * Put merged links into the grid, based on the server's `current`, to be saved against it
   * (the merge is not an edit of the person's: no changed() while it goes in).
   */
  #takeMerge(current, links, notice) {
    this.version = current.version;
    this.baseLinks = current.links;
    this.quiet = true;
    try {
      if (!linksEqual(links, this.o.getLinks())) this.o.onReplace?.(links);
    } finally {
      this.quiet = false;
    }
    this.dirty = true;
    this.notice = notice;
    this.#persist();
    this.#setState("unsaved", notice);
  }

  /** Handle a 409 against what the grid holds now; true when the save should just go again. */
  #onConflict(current) {
    if (this.unanswered.some((sent) => linksEqual(current.links, sent))) {
      // Our own save landed and only its answer was lost (the server died, the connection
      // dropped): it is the base of what the grid holds now, not someone else's work.
      this.baseLinks = current.links;
    }
    this.unanswered = [];
    const mine = this.o.getLinks();
    const decision = decideConflict({ base: this.baseLinks, mine, theirs: current.links });
    if (decision.action === "adopt") {
      this.version = current.version;
      this.baseLinks = current.links;
      this.dirty = false;
      this.store.clear(this.url);
      this.#setState("saved");
      return false; // it is there already: sending it again would only add a revision
    }
    if (decision.action === "rebase") {
      this.version = current.version;
      return true;
    }
    if (decision.action === "merge") {
      this.#takeMerge(current, decision.merged, MERGED_MESSAGE);
      return true;
    }
    if (decision.action === "reload") {
      this.#adopt(current);
      this.#setState("saved", "Updated to the version saved elsewhere.");
      return false;
    }
    this.conflict = { decision, theirs: current, mine, base: this.baseLinks };
    this.#persist();
    this.#setState("conflict", "Someone saved this pair elsewhere (another tab or device).");
    this.o.onConflict?.(this.conflict);
    return false;
  }

  /** Save now (cancelling the debounce). Resolves when this attempt is over. */
  async flush() {
    clearTimeout(this.timer);
    if (this.inflight) {
      this.again = true;
      return this.inflight;
    }
    if (!this.dirty || this.state === "conflict") return;
    this.inflight = this.#flushOnce();
    try {
      await this.inflight;
    } finally {
      this.inflight = null;
    }
    if (this.again) {
      this.again = false;
      if (this.dirty && this.state !== "offline" && this.state !== "conflict") return this.flush();
    }
  }

  async #flushOnce() {
    const links = this.o.getLinks();
    const sentAt = this.o.getChangeCount();
    this.#setState("saving");
    const { status, data } = await send(this.o.fetchImpl, "PUT", this.url, { version: this.version, links }, this.o.csrfToken);
    const kind = classifyResponse(status, data);
    if (status === 0) this.unanswered.push(links); // it may have landed: a 409 will tell
    if (kind === "saved") {
      this.unanswered = [];
      this.attempt = 0;
      this.version = data.version;
      this.baseLinks = data.links ?? links;
      if (this.o.getChangeCount() === sentAt) {
        this.dirty = false;
        this.store.clear(this.url);
        this.#setState("saved", this.notice);
        this.notice = "";
      } else {
        this.#persist(); // newer edits: keep them against the new version
        this.#setState("unsaved");
        this.#schedule(this.o.debounceMs);
      }
    } else if (kind === "conflict") {
      if (this.#onConflict(data.current)) this.#schedule(0);
    } else if (kind === "retry") {
      this.attempt += 1;
      const wait = retryDelay(this.attempt, { base: this.o.retryBaseMs });
      const why = status === 0 ? "No connection" : `Server answered ${status}`;
      this.#setState("offline", `${why}: your changes are kept in this browser; retrying in ${Math.round(wait / 1000)} s.`);
      this.#schedule(wait);
    } else {
      if (kind === "refused") {
        this.dirty = false;
        this.store.clear(this.url);
      }
      this.#setState("unsaved", (data && (data.error + (data.links ? `: ${data.links.join("; ")}` : ""))) || `Save refused (${status}).`);
    }
  }

  /** Retry at once (e.g. the browser says it is online again). */
  retryNow() {
    if (this.dirty && this.state === "offline") this.flush();
  }

  /**
   * The person chose who wins the cells both sides changed differently: "theirs" or "mine".
   * Every other cell merges as usual (mergeLinks), so the choice loses only the other side's
   * value of those cells; when the result is theirs exactly, nothing is saved.
   */
  resolveConflict(choice) {
    const c = this.conflict;
    if (!c) return Promise.resolve();
    this.conflict = null;
    const mine = this.o.getLinks(); // with any edit made while the question was open
    const merge = mergeLinks({ base: c.base, mine, theirs: c.theirs.links, prefer: choice });
    if (linksEqual(merge.links, c.theirs.links)) {
      this.#adopt(c.theirs);
      this.#setState("saved", "Reloaded the other version.");
      return Promise.resolve();
    }
    const who = choice === "theirs" ? "theirs" : "yours";
    const notice = `${MERGED_MESSAGE} Kept ${who} on the ${merge.conflicts.length} cell(s) both changed.`;
    this.#takeMerge(c.theirs, merge.links, notice);
    return this.flush();
  }

  /** Restore an edit left in this browser (see restoreDecision); returns the decision. */
  restore(server) {
    const pending = this.store.load(this.url);
    const decision = restoreDecision({ pending, server });
    if (decision === "drop") {
      this.store.clear(this.url);
    } else if (decision === "apply") {
      this.o.onReplace?.(pending.links); // an edit: changed() stores and saves it
    } else {
      const theirs = { version: server.version, links: server.links };
      this.baseLinks = pending.baseLinks || server.links;
      this.version = server.version;
      this.dirty = true;
      this.quiet = true;
      try {
        this.o.onReplace?.(pending.links); // show mine; then merge or ask
      } finally {
        this.quiet = false;
      }
      if (this.#onConflict(theirs)) this.#schedule(0);
    }
    return decision;
  }

  /**
   * Submit: one request carrying {version, links}. Returns {ok, data} or {ok: false, reason,
   * message}; a dropped connection leaves the edit stored and autosaving.
   */
  async submit() {
    clearTimeout(this.timer);
    if (this.inflight) await this.inflight;
    if (this.state === "conflict") return { ok: false, reason: "conflict", message: "Resolve the conflict first." };
    for (let tries = 0; tries < 3; tries++) {
      const links = this.o.getLinks();
      const sentAt = this.o.getChangeCount();
      this.#setState("saving", "Submitting…");
      const { status, data } = await send(this.o.fetchImpl, "POST", this.o.submitUrl, { version: this.version, links }, this.o.csrfToken);
      const kind = classifyResponse(status, data);
      if (kind === "saved") {
        this.version = data.version;
        this.baseLinks = links;
        this.dirty = this.o.getChangeCount() !== sentAt;
        if (!this.dirty) this.store.clear(this.url);
        this.#setState("saved", "Submitted.");
        return { ok: true, data };
      }
      if (kind === "conflict") {
        const decision = decideConflict({ base: this.baseLinks, mine: links, theirs: data.current.links });
        // Submitting what the person sees must not drop another tab's different work.
        if (decision.action === "adopt" || decision.action === "rebase") {
          this.version = data.current.version;
          continue;
        }
        this.dirty = true;
        if (this.#onConflict(data.current)) {
          // Merged with another tab's work: the person sees the merge before submitting it.
          this.#schedule(0);
          return { ok: false, reason: "conflict", message: `${MERGED_MESSAGE} Check the grid and submit again.` };
        }
        return { ok: false, reason: "conflict", message: this.message };
      }
      if (kind === "retry") {
        this.dirty = true;
        this.#persist();
        this.attempt += 1;
        this.#setState("offline", "Could not reach the server: not submitted. Your changes are kept in this browser and saved when it answers.");
        this.#schedule(retryDelay(this.attempt, { base: this.o.retryBaseMs }));
        return { ok: false, reason: "offline", message: this.message };
      }
      const message = (data && data.error) || `Submit refused (${status}).`;
      this.#setState(this.dirty ? "unsaved" : "saved", message);
      return { ok: false, reason: kind, message };
    }
    return { ok: false, reason: "conflict", message: "The pair keeps changing elsewhere; reload the page." };
  }
}

/**
 * Send the stored edits of OTHER pairs (left while offline) in the background. A conflict is
 * left stored: it is shown when that pair is opened. Returns the urls that landed.
 */
export async function flushOtherPending({ storage = globalThis.localStorage, exceptUrl, csrfToken, fetchImpl = (...a) => fetch(...a) }) {
  const store = new PendingStore(storage);
  const landed = [];
  for (const entry of store.all()) {
    if (entry.url === exceptUrl) continue;
    const { status, data } = await send(fetchImpl, "PUT", entry.url, { version: entry.version, links: entry.links }, csrfToken);
    const kind = classifyResponse(status, data);
    if (kind === "saved" || kind === "refused" || kind === "gone") {
      store.clear(entry.url);
      if (kind === "saved") landed.push(entry.url);
    } else if (kind === "conflict" && linksEqual(data.current.links, entry.links)) {
      store.clear(entry.url); // it had landed; only the answer was lost
    }
  }
  return landed;
}
