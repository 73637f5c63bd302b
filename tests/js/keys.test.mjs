// Unit tests of the grid pages' one keymap (frontend/static/gridalign/grid/keys.js), and of the
// script direction (script.js) and the trial feedback headline (feedback.js) it sits beside.
import assert from "node:assert/strict";
import { test } from "node:test";

import { feedbackHeadline } from "../../frontend/static/gridalign/grid/feedback.js";
import { commandFor } from "../../frontend/static/gridalign/grid/keys.js";
import { gridDirection, sentenceDirection, tokenDirection } from "../../frontend/static/gridalign/grid/script.js";

const key = (k, mods = {}) => ({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });

test("arrows move, Shift extends, and a right-to-left grid swaps left and right", () => {
  assert.deepEqual(commandFor(key("ArrowDown")), { name: "move", di: 1, dj: 0, extend: false });
  assert.deepEqual(commandFor(key("ArrowLeft", { shiftKey: true })), { name: "move", di: 0, dj: -1, extend: true });
  assert.deepEqual(commandFor(key("ArrowLeft"), { rtl: true }), { name: "move", di: 0, dj: 1, extend: false });
  assert.deepEqual(commandFor(key("ArrowRight"), { rtl: true }).dj, -1);
  assert.equal(commandFor(key("ArrowDown"), { readOnly: true }).name, "move", "a read-only grid moves");
  assert.equal(commandFor(key("ArrowDown"), { inField: true }), null, "a text field keeps its keys");
});

test("Home, End, PageUp, PageDown and Ctrl+Home / Ctrl+End jump", () => {
  assert.deepEqual(commandFor(key("Home")), { name: "move", di: 0, dj: -Infinity, extend: false });
  assert.deepEqual(commandFor(key("End")), { name: "move", di: 0, dj: Infinity, extend: false });
  assert.deepEqual(commandFor(key("PageDown"), { pageRows: 12 }), { name: "move", di: 11, dj: 0, extend: false });
  assert.deepEqual(commandFor(key("PageUp"), { pageRows: 1 }).di, -1);
  assert.deepEqual(commandFor(key("Home", { ctrlKey: true })), { name: "jump", i: 0, j: 0 });
  assert.deepEqual(commandFor(key("End", { ctrlKey: true })), { name: "jump", i: Infinity, j: Infinity });
});

test("editing keys, undo and redo, and nothing of the sort in a read-only grid", () => {
  assert.deepEqual(commandFor(key("s")), { name: "set", tool: "sure" });
  assert.deepEqual(commandFor(key("P", { shiftKey: true })), { name: "set", tool: "possible" });
  assert.deepEqual(commandFor(key("Delete")), { name: "set", tool: "erase" });
  assert.equal(commandFor(key("Delete", { shiftKey: true })), null);
  assert.deepEqual(commandFor(key(" ")), { name: "cycle" });
  assert.deepEqual(commandFor(key("z")), { name: "undo" });
  assert.deepEqual(commandFor(key("z", { ctrlKey: true })), { name: "undo" });
  assert.deepEqual(commandFor(key("Z", { ctrlKey: true, shiftKey: true })), { name: "redo" });
  assert.deepEqual(commandFor(key("y", { ctrlKey: true })), { name: "redo" });
  assert.equal(commandFor(key("c", { ctrlKey: true })), null, "Ctrl+C stays the browser's");
  for (const k of ["s", "x", " ", "z", "a", "1"]) assert.equal(commandFor(key(k), { readOnly: true }), null, k);
  assert.deepEqual(commandFor(key("h"), { readOnly: true }), { name: "posteriors" });
});

test("page keys: Enter submits but presses a focused button, tools, shading, accept the seed", () => {
  assert.deepEqual(commandFor(key("Enter")), { name: "submit" });
  assert.equal(commandFor(key("Enter"), { onControl: true }), null);
  assert.equal(commandFor(key(" "), { onControl: true }), null, "Space presses the button");
  assert.deepEqual(commandFor(key("2")), { name: "tool", tool: "possible" });
  assert.deepEqual(commandFor(key("a")), { name: "accept-seed" });
  assert.deepEqual(commandFor(key("h")), { name: "posteriors" });
  assert.equal(commandFor(key("a", { altKey: true })), null);
  assert.equal(commandFor(key("s", { metaKey: true })), null);
});

test("zoom: Ctrl or Cmd with + − 0, even from a field; a plain 0 or - is no zoom", () => {
  assert.deepEqual(commandFor(key("+", { ctrlKey: true })), { name: "zoom", step: 1 });
  assert.deepEqual(commandFor(key("=", { metaKey: true })), { name: "zoom", step: 1 });
  assert.deepEqual(commandFor(key("-", { ctrlKey: true })), { name: "zoom", step: -1 });
  assert.deepEqual(commandFor(key("0", { ctrlKey: true }), { inField: true }), { name: "zoom", step: 0 });
  assert.equal(commandFor(key("0")), null);
  assert.equal(commandFor(key("-")), null);
});

test("script direction: a token by its first strong letter, a sentence by its majority", () => {
  assert.equal(tokenDirection("مرحبا"), "rtl");
  assert.equal(tokenDirection("שלום"), "rtl");
  assert.equal(tokenDirection("«שלום»"), "rtl", "punctuation first");
  assert.equal(tokenDirection("東京"), "ltr");
  assert.equal(tokenDirection("e\u0301lite"), "ltr");
  assert.equal(tokenDirection("2024"), "");
  assert.equal(tokenDirection("😊"), "");
  assert.equal(sentenceDirection(["ذهب", "الطالب", "إلى", "Google", "2024", "."]), "rtl");
  assert.equal(sentenceDirection(["I", "met", "שלום", "today"]), "ltr");
  // the columns run as the column sentence is written, whatever the rows hold
  assert.equal(gridDirection(["the", "student"]), "ltr");
  assert.equal(gridDirection(["הסטודנט", "הגיע"]), "rtl");
  assert.equal(gridDirection(["I", "book"]), "ltr");
});

test("trial feedback headline: over all links, saying so, when the reference links only identical words", () => {
  const counts = (refLinks) => ({ test_sure: 3, test_links: 3, ref_sure: refLinks, ref_links: refLinks });
  const onlyIdentical = {
    word: { f1: null, precision_sure: 0, recall_sure: null, counts: counts(0) },
    word_all_links: { f1: 0.96, precision_sure: 0.92, recall_sure: 1, counts: counts(12) },
  };
  const h = feedbackHeadline(onlyIdentical);
  assert.equal(h.over, "all");
  assert.match(h.text, /^Word F1 0\.96 over all links \(sure precision 0\.92, sure recall 1\.00\)/);
  assert.match(h.text, /only identical words/);
  assert.doesNotMatch(h.text, /F1 —/);
  const usual = {
    word: { f1: 0.8, precision_sure: 0.75, recall_sure: 0.857, counts: counts(7) },
    word_all_links: { f1: 0.9, precision_sure: 0.88, recall_sure: 0.92, counts: counts(12) },
  };
  const u = feedbackHeadline(usual);
  assert.equal(u.over, "different");
  assert.equal(
    u.text,
    "Word F1 0.80 over links between different words (sure precision 0.75, sure recall 0.86); " +
      "over all links, identical words included: F1 0.90.",
  );
  // an old answer with no all-links figure keeps the paper's figure
  assert.equal(feedbackHeadline({ word: usual.word }).over, "different");
});
