// Unit tests of the grid's pure state (frontend/static/gridalign/grid/state.js): node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  AlignmentState,
  decideConflict,
  mergeLinks,
  diffLinks,
  editCount,
  linksEqual,
  normalizeLinks,
} from "../../frontend/static/gridalign/grid/state.js";

const grid = (opts = {}) => new AlignmentState({ rows: 4, cols: 5, ...opts });

test("a click cycles none → sure → possible → none", () => {
  const s = grid({ links: [] });
  const seen = [s.stateName(1, 2)];
  for (let n = 0; n < 3; n++) {
    s.cycle(1, 2);
    seen.push(s.stateName(1, 2));
  }
  assert.deepEqual(seen, ["none", "sure", "possible", "none"]);
  assert.deepEqual(s.toLinks(), []);
});

test("links convert to and from [[i, j, kind]] sorted by (i, j)", () => {
  const links = [
    [2, 0, "P"],
    [0, 4, "S"],
    [0, 1, "S"],
  ];
  const s = grid({ links });
  assert.deepEqual(s.toLinks(), [
    [0, 1, "S"],
    [0, 4, "S"],
    [2, 0, "P"],
  ]);
  assert.equal(s.get(2, 0), "P");
  assert.equal(s.get(3, 3), null);
  assert.throws(() => grid({ links: [[4, 0, "S"]] }), /outside the 4×5 grid/);
});

test("painting a rectangle with a tool sets every cell in it, whatever the corners' order", () => {
  const s = grid({ links: [[0, 0, "S"]] });
  s.paint({ i0: 2, i1: 1, j0: 3, j1: 1 }, "possible");
  const expected = [[0, 0, "S"]];
  for (let i = 1; i <= 2; i++) for (let j = 1; j <= 3; j++) expected.push([i, j, "P"]);
  assert.deepEqual(s.toLinks(), expected);
  s.paint({ i0: 0, i1: 3, j0: 0, j1: 1 }, "erase");
  assert.ok(s.toLinks().every(([, j]) => j >= 2));
  s.paint({ i0: 2, i1: 2, j0: 2, j1: 4 }, "sure");
  assert.deepEqual(
    s.toLinks().filter(([i]) => i === 2),
    [
      [2, 2, "S"],
      [2, 3, "S"],
      [2, 4, "S"],
    ],
  );
  assert.throws(() => s.paint({ i0: 0, i1: 0, j0: 0, j1: 0 }, "maybe"), /unknown tool/);
});

test("painting clips to the grid", () => {
  const s = grid({ links: [] });
  s.paint({ i0: -3, i1: 10, j0: 4, j1: 40 }, "sure");
  assert.deepEqual(s.toLinks(), [
    [0, 4, "S"],
    [1, 4, "S"],
    [2, 4, "S"],
    [3, 4, "S"],
  ]);
});

test("undo and redo step over whole blocks, not cells", () => {
  const s = grid({ links: [] });
  s.paint({ i0: 0, i1: 1, j0: 0, j1: 1 }, "sure"); // step 1: 4 cells
  s.cycle(3, 4); // step 2
  s.paint({ i0: 1, i1: 2, j0: 1, j1: 2 }, "possible"); // step 3 overlaps step 1
  const after3 = s.toLinks();
  s.undo();
  assert.deepEqual(s.toLinks(), [
    [0, 0, "S"],
    [0, 1, "S"],
    [1, 0, "S"],
    [1, 1, "S"],
    [3, 4, "S"],
  ]);
  s.undo();
  s.undo();
  assert.deepEqual(s.toLinks(), []);
  assert.equal(s.canUndo, false);
  assert.deepEqual(s.undo(), [], "undo with nothing to undo does nothing");
  s.redo();
  s.redo();
  s.redo();
  assert.deepEqual(s.toLinks(), after3);
  assert.equal(s.canRedo, false);
});

test("a new edit after undo drops the redo branch", () => {
  const s = grid({ links: [] });
  s.cycle(0, 0);
  s.cycle(1, 1);
  s.undo();
  s.cycle(2, 2);
  assert.equal(s.canRedo, false);
  assert.deepEqual(s.toLinks(), [
    [0, 0, "S"],
    [2, 2, "S"],
  ]);
});

test("an edit that changes nothing is not an undo step", () => {
  const s = grid({ links: [] });
  s.paint({ i0: 0, i1: 1, j0: 0, j1: 0 }, "erase");
  assert.equal(s.canUndo, false);
  s.cycle(0, 0);
  s.setCell(0, 0, "sure");
  s.undo();
  assert.deepEqual(s.toLinks(), [], "the one real step was the cycle");
});

test("seed links show as seed until touched; reset to seed untouches them", () => {
  const seed = [
    [0, 0, "S"],
    [1, 1, "P"],
  ];
  const s = grid({ seed }); // links: null → start from the seed
  assert.deepEqual(s.toLinks(), seed);
  assert.ok(s.isUntouchedSeed(0, 0) && s.isUntouchedSeed(1, 1));
  assert.ok(!s.isUntouchedSeed(2, 2));
  s.setCell(0, 0, "sure"); // confirmed: same value, but touched
  assert.equal(s.get(0, 0), "S");
  assert.ok(!s.isUntouchedSeed(0, 0));
  s.undo(); // undo restores the untouched look too
  assert.ok(s.isUntouchedSeed(0, 0));
  s.cycle(1, 1); // P → none
  s.clear();
  assert.deepEqual(s.toLinks(), []);
  s.resetToSeed();
  assert.deepEqual(s.toLinks(), seed);
  assert.ok(s.isUntouchedSeed(0, 0) && s.isUntouchedSeed(1, 1));
  s.undo(); // undo the reset: back to cleared
  assert.deepEqual(s.toLinks(), []);
  assert.deepEqual(s.seedLinks(), seed, "the seed itself never changes");
});

test("a saved annotation that differs from the seed starts from the saved links", () => {
  const s = grid({ seed: [[0, 0, "S"]], links: [[3, 3, "P"]] });
  assert.deepEqual(s.toLinks(), [[3, 3, "P"]]);
  assert.ok(!s.isUntouchedSeed(0, 0));
});

test("listeners receive exactly the flat keys of the cells that changed", () => {
  const s = grid({ seed: [[0, 0, "S"]] });
  const events = [];
  s.subscribe((e) => events.push(e));
  s.paint({ i0: 0, i1: 0, j0: 0, j1: 2 }, "sure"); // (0,0): seed, already sure, becomes touched
  s.cycle(3, 4);
  s.undo();
  assert.deepEqual(
    events.map((e) => [...e.cells].sort((a, b) => a - b)),
    [[0, 1, 2], [3 * 5 + 4], [3 * 5 + 4]],
  );
});

test("the cursor is clamped; shift+arrows grow a block that s/p/x fill in one step", () => {
  const s = grid({ links: [] });
  s.moveCursor(-1, -1);
  assert.deepEqual(s.cursor, { i: 0, j: 0 });
  s.moveCursor(1, 1);
  s.moveCursor(1, 0, { extend: true });
  s.moveCursor(0, 2, { extend: true });
  assert.deepEqual(s.selection(), { i0: 1, i1: 2, j0: 1, j1: 3 });
  assert.ok(s.hasBlockSelection());
  s.applyToSelection("sure");
  assert.equal(s.toLinks().length, 6);
  s.undo();
  assert.equal(s.toLinks().length, 0, "the whole block is one undo step");
  s.moveCursor(0, 1); // a plain move drops the selection
  assert.ok(!s.hasBlockSelection());
  assert.deepEqual(s.selection(), { i0: 2, i1: 2, j0: 4, j1: 4 });
  s.applyToSelection("possible");
  assert.deepEqual(s.toLinks(), [[2, 4, "P"]]);
});

test("diff against a base and SPEC edit counts ignore nothing but S/P for edits", () => {
  const base = [
    [0, 0, "S"],
    [1, 1, "S"],
    [2, 2, "P"],
  ];
  const now = [
    [0, 0, "S"],
    [1, 1, "P"],
    [3, 3, "S"],
  ];
  assert.deepEqual(diffLinks(base, now), {
    added: [[3, 3, "S"]],
    removed: [[2, 2, "P"]],
    changed: [[1, 1, "S", "P"]],
  });
  assert.equal(editCount(base, now), 2); // (2,2) removed, (3,3) added; S→P is not an edit
  const s = grid({ links: base });
  s.cycle(3, 3);
  assert.deepEqual(s.diff(base).added, [[3, 3, "S"]]);
  assert.ok(linksEqual(normalizeLinks([[1, 1, "S"], [0, 0, "S"], [2, 2, "P"]]), base));
  assert.ok(!linksEqual(base, now));
});

test("linkedTo lists the words linked to a word", () => {
  const s = grid({
    links: [
      [1, 0, "S"],
      [1, 3, "P"],
      [2, 3, "S"],
    ],
  });
  assert.deepEqual(s.linkedTo("source", 1), [0, 3]);
  assert.deepEqual(s.linkedTo("target", 3), [1, 2]);
  assert.deepEqual(s.linkedTo("target", 4), []);
});

test("replacing the links (reload theirs) is one undoable step", () => {
  const s = grid({ links: [[0, 0, "S"]] });
  s.replaceLinks([[1, 1, "P"]]);
  assert.deepEqual(s.toLinks(), [[1, 1, "P"]]);
  s.undo();
  assert.deepEqual(s.toLinks(), [[0, 0, "S"]]);
});

test("conflict decisions: never silently drop either side", () => {
  const base = [[0, 0, "S"]];
  const mine = [
    [0, 0, "S"],
    [1, 1, "S"],
  ];
  // Our own save landed but its answer was lost: the server already holds exactly our links.
  assert.equal(decideConflict({ base, mine, theirs: mine }).action, "adopt");
  // We changed nothing since base: taking theirs loses nothing of ours.
  assert.equal(decideConflict({ base, mine: base, theirs: [[2, 2, "P"]] }).action, "reload");
  // Their content equals our base (only the number moved): our edits go on top.
  assert.equal(decideConflict({ base, mine, theirs: base }).action, "rebase");
  // Both changed: ask, and count the cells both changed differently.
  const theirs = [
    [0, 0, "P"],
    [1, 1, "P"],
  ];
  const d = decideConflict({ base, mine, theirs });
  assert.equal(d.action, "ask");
  assert.equal(d.mine, 1);
  assert.equal(d.theirs, 2);
  assert.equal(d.overlap, 1, "(1,1): mine S, theirs P; (0,0) only they changed");
  // Order of links never matters.
  assert.equal(decideConflict({ base, mine, theirs: [...mine].reverse() }).action, "adopt");
});

// ---- three-way merge on the cells (issue 31: conflicts that merge) ----
const BASE = [
  [0, 0, "S"],
  [1, 1, "P"],
  [2, 2, "S"],
];

test("merge: edits of different cells are both kept, nothing asks", () => {
  const mine = [...BASE, [3, 3, "S"]]; // I add (3,3)
  const theirs = [
    [0, 0, "S"],
    [1, 1, "P"],
    [2, 2, "S"],
    [4, 0, "P"],
  ]; // they add (4,0)
  const d = decideConflict({ base: BASE, mine, theirs });
  assert.equal(d.action, "merge");
  assert.equal(d.overlap, 0);
  assert.deepEqual(d.cells, []);
  assert.deepEqual(d.merged, [...BASE, [3, 3, "S"], [4, 0, "P"]]);
  assert.equal(d.mine, 1);
  assert.equal(d.theirs, 1);
});

test("merge: a deletion on one side and an addition or change on the other both survive", () => {
  const mine = [
    [1, 1, "P"],
    [2, 2, "S"],
  ]; // I removed (0,0)
  const theirs = [
    [0, 0, "S"],
    [1, 1, "S"],
    [2, 2, "S"],
    [5, 5, "S"],
  ]; // they turned (1,1) sure and added (5,5)
  const d = decideConflict({ base: BASE, mine, theirs });
  assert.equal(d.action, "merge");
  assert.deepEqual(d.merged, [
    [1, 1, "S"],
    [2, 2, "S"],
    [5, 5, "S"],
  ]);
  // both deleted different links: both deletions hold
  const both = decideConflict({ base: BASE, mine: [[1, 1, "P"], [2, 2, "S"]], theirs: [[0, 0, "S"], [1, 1, "P"]] });
  assert.equal(both.action, "merge");
  assert.deepEqual(both.merged, [[1, 1, "P"]]);
});

test("merge: the same edit made on both sides is no conflict", () => {
  // both added (3,3) sure, both deleted (0,0); only I added (6,6)
  const mine = [
    [1, 1, "P"],
    [2, 2, "S"],
    [3, 3, "S"],
    [6, 6, "P"],
  ];
  const theirs = [
    [1, 1, "P"],
    [2, 2, "S"],
    [3, 3, "S"],
  ];
  const d = decideConflict({ base: BASE, mine, theirs });
  assert.equal(d.action, "merge");
  assert.equal(d.overlap, 0);
  assert.deepEqual(d.merged, mine);
  // the same edit and nothing else on either side: the server already has it
  assert.equal(decideConflict({ base: BASE, mine: theirs, theirs }).action, "adopt");
});

test("merge: different edits of the same cell ask, and name that cell only", () => {
  const mine = [...BASE, [3, 3, "S"], [4, 4, "S"]]; // (3,3) sure, (4,4) only mine
  const theirs = [...BASE, [3, 3, "P"], [5, 0, "S"]]; // (3,3) possible, (5,0) only theirs
  const d = decideConflict({ base: BASE, mine, theirs });
  assert.equal(d.action, "ask");
  assert.equal(d.overlap, 1);
  assert.deepEqual(d.cells, [[3, 3, null, "S", "P"]], "sure vs possible on the same new cell");
  // whichever side wins those cells, every other change of both sides is kept
  const keepMine = mergeLinks({ base: BASE, mine, theirs, prefer: "mine" });
  assert.deepEqual(keepMine.links, [...BASE, [3, 3, "S"], [4, 4, "S"], [5, 0, "S"]]);
  const takeTheirs = mergeLinks({ base: BASE, mine, theirs, prefer: "theirs" });
  assert.deepEqual(takeTheirs.links, [...BASE, [3, 3, "P"], [4, 4, "S"], [5, 0, "S"]]);
});

test("merge: a deletion against a change of the same link is a real conflict", () => {
  const mine = [
    [1, 1, "P"],
    [2, 2, "S"],
  ]; // I deleted (0,0) sure
  const theirs = [
    [0, 0, "P"],
    [1, 1, "P"],
    [2, 2, "S"],
  ]; // they turned it possible
  const d = decideConflict({ base: BASE, mine, theirs });
  assert.equal(d.action, "ask");
  assert.deepEqual(d.cells, [[0, 0, "S", null, "P"]]);
  assert.deepEqual(mergeLinks({ base: BASE, mine, theirs, prefer: "mine" }).links, mine);
  assert.deepEqual(mergeLinks({ base: BASE, mine, theirs, prefer: "theirs" }).links, theirs);
  // sure turned possible on one side, possible turned sure... on different cells: merges
  const flips = decideConflict({
    base: BASE,
    mine: [[0, 0, "P"], [1, 1, "P"], [2, 2, "S"]],
    theirs: [[0, 0, "S"], [1, 1, "S"], [2, 2, "S"]],
  });
  assert.equal(flips.action, "merge");
  assert.deepEqual(flips.merged, [[0, 0, "P"], [1, 1, "S"], [2, 2, "S"]]);
});

test("merge: order and duplicates of the inputs never matter", () => {
  const mine = [[3, 3, "S"], ...BASE].reverse();
  const theirs = [[4, 0, "P"], ...BASE, [4, 0, "P"]];
  const d = decideConflict({ base: [...BASE].reverse(), mine, theirs });
  assert.equal(d.action, "merge");
  assert.deepEqual(d.merged, [...BASE, [3, 3, "S"], [4, 0, "P"]]);
});
