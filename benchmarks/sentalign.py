"""Sentence alignment (issue 33): quality on Text+Berg dev, speed, and comparable documents.

    .venv/bin/python benchmarks/sentalign.py [--data DIR] [--only quality|calibration|speed|comparable|batch|window]
        [--no-big] [--json FILE]
    .venv/bin/python benchmarks/sentalign.py --only batch [--pairs N]

* quality: strict and lax bead F1 (Vecalign's ``score.py`` definitions, ``sentalign.score``)
  on ``textberg-dev`` (German–French, 468 / 554 sentences, 422 gold beads), for the full
  aligner and for its plain Gale–Church mode (the same-run anchor), beside the published
  figures on the 7-document test set (Gale–Church 0.686, hunalign 0.751, Bleualign 0.807,
  Vecalign 0.902). Goal: strict ≥ 0.85, lax ≥ 0.95. The defaults were tuned on this set.
* calibration: how far the bead confidences can be trusted, by cross-validation on
  textberg-dev (``sentalign_calibration.py``: five regions, each aligned as a document and
  as halves and quarters; each region's beads scored by the model fitted on the other
  four): expected calibration error (10 bins), and precision / recall of "accept every
  paired bead at or above 0.5 / 0.9" (right = exactly a gold bead), per fold and pooled,
  beside the confidences before calibration (the cost sigmoid) on the same beads. Goal at
  0.5: precision >= 0.95 with recall >= 0.90.
* speed: wall time of the full aligner on a ~1,000-sentence document pair (dev twice over;
  goal ≤ 2 s) and on two synthetic 10,000-sentence documents (dev's gold beads drawn at
  random, so the gold is known; goal ≤ 30 s and ≤ 500 MB peak), each in a fresh process
  (peak = its max RSS, interpreter and libraries included), beside the ``galechurch`` package
  (pinned in requirements-bench.txt) on the same input; then two documents of 40,000
  (~5 MB a side; goal ≤ 45 s and ≤ 400 MB) and 160,000 sentences (~20 MB a side; goal
  ≤ 1 GB, in time linear in length): beyond the package, so their anchor is the
  10,000-sentence time of the same run scaled linearly (``--no-big`` skips them).
* batch: seven document pairs cut from ``textberg-dev`` at gold bead boundaries (~70-90
  sentences a side, like the seven test documents) aligned by ``sentalign`` in ONE call (two
  directories matched by name; goal <= 2 s), beside the anchor of the same run: the seven
  pairs in seven separate processes, as before (18 s in the held-out run). Wall and CPU time
  (children's user + system) of each, their ratio, and whether both wrote the same beads.
* window: a long pair is realigned around a merge or split, not whole
  (``annotator/documents/realign.py``): dev four times over aligned whole, then windows of
  60 to 400 beads each side of a random bead aligned alone; the share of the gold beads
  inside each window that the window's own alignment finds, beside the whole alignment's
  (the anchor), and the window's time.
* upload: ``benchmarks/documents_scale.py`` measures the web process during an upload.
* comparable: document pairs built from Edinburgh++'s MTC paraphrase pairs (20 pairs a
  document, targets shuffled, 20% of them dropped, 5 distractors from other documents added);
  precision / recall of the proposed pairs, with WordNet / vectors / thesaurus if installed,
  beside the same matching without them.

The data folder defaults to ``$GRIDALIGN_SHARED_DATA`` or ``../shared/data`` beside the repo.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from alignment_core.sentalign import ParallelConfig, align_parallel  # noqa: E402
from alignment_core.sentalign.score import score_beads  # noqa: E402

PUBLISHED = {"Gale-Church": 0.686, "hunalign": 0.751, "Bleualign": 0.807, "Vecalign": 0.902}
GOAL_STRICT, GOAL_LAX = 0.85, 0.95


def data_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    return Path(os.environ.get("GRIDALIGN_SHARED_DATA", REPO.parent / "shared" / "data"))


def read_textberg(folder: Path):
    d = folder / "textberg-dev"
    src = (d / "dev.de").read_text(encoding="utf-8").split("\n")[:-1]
    tgt = (d / "dev.fr").read_text(encoding="utf-8").split("\n")[:-1]
    gold = []
    for line in (d / "dev.defr").read_text(encoding="utf-8").splitlines():
        a, b = line.split(":")
        gold.append((tuple(json.loads(a)), tuple(json.loads(b))))
    return src, tgt, gold


def quality(folder: Path) -> dict:
    src, tgt, gold = read_textberg(folder)
    out = {}
    for name, cfg in (("full", ParallelConfig()), ("gale-church", ParallelConfig("gale-church"))):
        t0 = time.perf_counter()
        beads = align_parallel(src, tgt, config=cfg)
        secs = time.perf_counter() - t0
        s = score_beads([gold], [[(b.src, b.tgt) for b in beads]])
        out[name] = {**s.as_dict(), "seconds": secs}
    full, gc = out["full"], out["gale-church"]
    print("Text+Berg dev (de-fr), bead F1        strict   lax    (P / R strict)")
    for name, r in out.items():
        print(
            f"  {name:<13} {r['f1_strict']:.3f}   {r['f1_lax']:.3f}  "
            f"({r['precision_strict']:.3f} / {r['recall_strict']:.3f})"
        )
    print(
        f"  ratio full / Gale-Church (same run): strict {full['f1_strict'] / gc['f1_strict']:.2f}"
        f", lax {full['f1_lax'] / gc['f1_lax']:.2f}"
    )
    gold_set = set(gold)
    paired = [b for b in align_parallel(src, tgt) if b.src and b.tgt]
    taken = [b for b in paired if b.confidence >= 0.5]
    right = sum((b.src, b.tgt) in gold_set for b in paired)
    good = sum((b.src, b.tgt) in gold_set for b in taken)
    print(
        f"  full, accept paired beads >= 0.5 (shipped coefficients; in sample: fitted on "
        f"dev's regions): {len(taken)} of {len(paired)}, P {good / max(len(taken), 1):.3f}"
        f" R {good / max(right, 1):.3f}"
    )
    print("  published (7-document test set, strict):")
    for name, f1 in PUBLISHED.items():
        print(f"    {name:<12} {f1:.3f}   ours/theirs {full['f1_strict'] / f1:.2f}")
    print(
        f"  goal strict >= {GOAL_STRICT}: {'met' if full['f1_strict'] >= GOAL_STRICT else 'NOT met'}"
        f"; lax >= {GOAL_LAX}: {'met' if full['f1_lax'] >= GOAL_LAX else 'NOT met'}"
    )
    return out


GOAL_P, GOAL_R = 0.95, 0.90


def calibration(folder: Path) -> dict:
    import numpy as np
    from sentalign_calibration import (
        FOLDS,
        best_precision_at_recall,
        collect,
        ece,
        out_of_fold,
        precision_recall,
        ranking_auc,
    )

    s = collect(*read_textberg(folder))
    pred = out_of_fold(s)
    folds = sorted(set(s.fold.tolist()))
    out: dict = {}
    n_paired = int(s.paired.sum())
    print(
        f"Bead confidences, Text+Berg dev, {FOLDS}-fold cross-validation by region "
        f"({len(s.fold)} beads, {n_paired} paired, {s.right[s.paired].mean():.1%} of them right)"
    )
    print("                          ECE paired (all)   P / R at 0.5    P / R at 0.9")
    for name, conf in (("before (anchor)", s.old), ("calibrated, out of fold", pred)):
        row = {"ece_paired": ece(conf[s.paired], s.right[s.paired]), "ece_all": ece(conf, s.right)}
        for t in (0.5, 0.9):
            row[f"p_{t}"], row[f"r_{t}"] = precision_recall(conf[s.paired], s.right[s.paired], t)
        per_fold = []
        for f in folds:
            m = s.paired & (s.fold == f)
            p5, r5 = precision_recall(conf[m], s.right[m], 0.5)
            per_fold.append((ece(conf[m], s.right[m]), p5, r5))
        row["per_fold"] = per_fold
        row["auc"] = ranking_auc(conf[s.paired], s.right[s.paired])
        row["ceiling"] = best_precision_at_recall(conf[s.paired], s.right[s.paired], GOAL_R)
        out[name] = row
        print(
            f"  {name:<24} {row['ece_paired']:.3f} ({row['ece_all']:.3f})     "
            f"{row['p_0.5']:.3f} / {row['r_0.5']:.3f}   {row['p_0.9']:.3f} / {row['r_0.9']:.3f}"
        )
        lo, hi = np.array(per_fold).min(axis=0), np.array(per_fold).max(axis=0)
        print(
            f"    per fold: ECE {lo[0]:.3f}-{hi[0]:.3f}, P at 0.5 {lo[1]:.3f}-{hi[1]:.3f}, "
            f"R at 0.5 {lo[2]:.3f}-{hi[2]:.3f}"
        )
        print(
            f"    ranking: AUC {row['auc']:.3f}; the best precision of any threshold with "
            f"recall >= {GOAL_R}: {row['ceiling']:.3f}"
        )
    cal, old = out["calibrated, out of fold"], out["before (anchor)"]
    print(
        f"  ratio calibrated / before: ECE {cal['ece_paired'] / old['ece_paired']:.2f}, "
        f"recall at 0.5 {cal['r_0.5'] / old['r_0.5']:.2f}, precision at 0.5 "
        f"{cal['p_0.5'] / old['p_0.5']:.2f}"
    )
    met = cal["p_0.5"] >= GOAL_P and cal["r_0.5"] >= GOAL_R
    print(f"  goal at 0.5 P >= {GOAL_P} with R >= {GOAL_R}: {'met' if met else 'NOT met'}")
    return out


def synthetic(folder: Path, target_sentences: int, seed: int = 0):
    """Dev's gold beads drawn at random until each side has ~``target_sentences`` sentences;
    returns the two documents and their gold beads."""
    src, tgt, gold = read_textberg(folder)
    rng = random.Random(seed)
    s_out: list[str] = []
    t_out: list[str] = []
    beads = []
    while len(s_out) < target_sentences and len(t_out) < target_sentences:
        a, b = rng.choice(gold)
        si = tuple(range(len(s_out), len(s_out) + len(a)))
        ti = tuple(range(len(t_out), len(t_out) + len(b)))
        s_out.extend(src[i] for i in a)
        t_out.extend(tgt[j] for j in b)
        beads.append((si, ti))
    return s_out, t_out, beads


_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {repo!r})
sys.path.insert(0, {bench!r})
from sentalign import synthetic, read_textberg
from pathlib import Path
folder, n, method = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if n:
    src, tgt, gold = synthetic(folder, n)
else:
    src, tgt, gold = read_textberg(folder)
    k = len(src)
    gold = gold + [(tuple(i + k for i in a), tuple(j + len(tgt) for j in b)) for a, b in gold]
    src, tgt = src + src, tgt + tgt
if method == "galechurch":
    import galechurch
    t0 = time.perf_counter()
    r = galechurch.align(src, tgt, max_block_size=10**9)
    secs = time.perf_counter() - t0
    cpu = time.process_time()
    beads = [(tuple(range(b.source_start, b.source_end)),
              tuple(range(b.target_start, b.target_end))) for b in r.beads]
else:
    from alignment_core.sentalign import align_parallel, ParallelConfig
    align_parallel(src[:50], tgt[:50])  # load the compiled kernels (numba cache) first
    t0, c0 = time.perf_counter(), time.process_time()
    out = align_parallel(src, tgt)
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    beads = [(b.src, b.tgt) for b in out]
from alignment_core.sentalign.score import score_beads
s = score_beads([gold], [beads])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
mb = sum(len(x.encode()) + 1 for x in src) / 2**20
print(json.dumps({{"n_src": len(src), "n_tgt": len(tgt), "seconds": secs, "cpu": cpu, "peak_mb": peak,
                  "f1_strict": s.f1_strict, "f1_lax": s.f1_lax, "mb": mb}}))
"""


def _run_child(folder: Path, n: int, method: str, timeout: float) -> dict:
    code = _CHILD.format(repo=str(REPO), bench=str(Path(__file__).parent))
    try:
        run = subprocess.run(
            [sys.executable, "-c", code, str(folder), str(n), method],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    if run.returncode != 0:
        return {"error": (run.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(run.stdout.strip().splitlines()[-1])


# (label, sentences a side (0: dev twice), goal seconds, goal peak MB, galechurch anchor?)
SIZES = (
    ("~1,000 sentences (dev x2)", 0, 2.0, None, True),
    ("10,000 synthetic", 10000, 30.0, 500, True),
    ("40,000 synthetic (4-4.5 MB a side)", 40000, 45.0, 400, False),
    ("160,000 synthetic (16-18 MB a side)", 160000, None, 1024, False),
)


def speed(folder: Path, big: bool = True) -> dict:
    """Each size in a fresh process. The two big ones are beyond the ``galechurch`` package
    (a full DP of n x m cells: it refuses them), so their anchor is the 10,000-sentence
    figure of the same run scaled linearly (n / 10,000): time linear in length means a ratio
    near 1 (or below: fixed costs weigh less)."""
    out = {}
    print(f"Speed (fresh process each; peak = max RSS; load {_load()})")
    print("                                           seconds   peak MB   strict / lax F1")
    for label, n, goal_s, goal_mb, with_package in SIZES:
        if n > 10000 and not big:
            continue
        ours = _run_child(folder, n, "full", 1800)
        anchor = _run_child(folder, n, "galechurch", 90) if with_package else None
        out[label] = {"ours": ours, "galechurch": anchor}
        for name, r in (("ours", ours), ("galechurch pkg", anchor)):
            if r is None:
                continue
            if "error" in r:
                print(f"  {label:<34} {name:<15} {r['error']}")
                continue
            print(
                f"  {label:<34} {name:<15} {r['seconds']:7.2f}   {r['peak_mb']:7.0f}   "
                f"{r['f1_strict']:.3f} / {r['f1_lax']:.3f}   ({r['n_src']} x {r['n_tgt']}, "
                f"{r.get('mb', 0):.1f} MB a side)"
            )
        if "error" not in ours:
            _judge(out, label, n, goal_s, goal_mb)
    print(f"  load average after: {_load()}")
    return out


def _judge(out: dict, label: str, n: int, goal_s, goal_mb) -> None:
    ours = out[label]["ours"]
    anchor = out[label]["galechurch"]
    base = out.get("10,000 synthetic", {}).get("ours", {})
    notes = []
    if anchor and "error" not in anchor:
        notes.append(f"time ours/package {ours['seconds'] / anchor['seconds']:.2f}")
    if n > 10000 and "seconds" in base:
        scale = ours["n_src"] / base["n_src"]
        linear = base["seconds"] * scale
        ours["linear_anchor_s"] = linear
        ours["time_ratio_to_linear"] = ours["seconds"] / linear
        ours["cpu_ratio_to_linear"] = ours["cpu"] / (base["cpu"] * scale)
        notes.append(
            f"10,000-sentence time x {scale:.1f} = {linear:.1f} s; ours/that "
            f"{ours['time_ratio_to_linear']:.2f} (CPU time {ours['cpu']:.1f} s against "
            f"{base['cpu'] * scale:.1f} s: {ours['cpu_ratio_to_linear']:.2f})"
        )
        if goal_s is None:
            goal_s = linear
    met = (goal_s is None or ours["seconds"] <= goal_s) and (
        goal_mb is None or ours["peak_mb"] <= goal_mb
    )
    goal = " and ".join(
        g for g in (goal_s and f"<= {goal_s:.1f} s", goal_mb and f"<= {goal_mb} MB") if g
    )
    print(f"    goal {goal}: {'met' if met else 'NOT met'}; {'; '.join(notes)}")


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def _cut_documents(folder: Path, root: Path, n: int) -> list[str]:
    """``n`` document pairs from dev, cut at gold bead boundaries: ``root/src/docK.de`` and
    ``root/tgt/docK.fr``; returns their names."""
    src, tgt, gold = read_textberg(folder)
    names = []
    for d in range(n):
        chunk = gold[d * len(gold) // n : (d + 1) * len(gold) // n]
        s_ids = [i for a, _ in chunk for i in a]
        t_ids = [j for _, b in chunk for j in b]
        for side, ids, lines, lang in (("src", s_ids, src, "de"), ("tgt", t_ids, tgt, "fr")):
            (root / side).mkdir(parents=True, exist_ok=True)
            text = "".join(lines[i] + "\n" for i in range(min(ids), max(ids) + 1))
            (root / side / f"doc{d}.{lang}").write_text(text, encoding="utf-8")
        names.append(f"doc{d}")
    return names


def _timed(commands: list[list[str]]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system of the children) of the commands, one
    after another."""
    before = os.times()
    t0 = time.perf_counter()
    for cmd in commands:
        subprocess.run(cmd, cwd=REPO, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def batch(folder: Path, n: int = 7, repeats: int = 3) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="sentalign-batch-") as tmp:
        root = Path(tmp)
        names = _cut_documents(folder, root, n)
        base = [sys.executable, "-m", "alignment_core", "sentalign"]
        one = [base + [str(root / "src"), str(root / "tgt"), "--out-dir", str(root / "one")]]
        one[0] += ["--languages", "de:fr"]
        many = [
            base + [str(root / "src" / f"{x}.de"), str(root / "tgt" / f"{x}.fr")]
            + ["--out", str(root / "many" / f"{x}.beads")]
            for x in names
        ]  # fmt: skip
        (root / "many").mkdir()
        runs = {"one call": [], f"{n} processes": []}
        for _ in range(repeats):  # alternated, so both see the same load
            runs["one call"].append(_timed(one))
            runs[f"{n} processes"].append(_timed(many))
        same = all(
            (root / "one" / f"{x}.beads").read_bytes()
            == (root / "many" / f"{x}.beads").read_bytes()
            for x in names
        )
    print(f"Many pairs in one call: {n} document pairs cut from dev (load {_load()})")
    print(f"  {'':<14} wall s (min / max of {repeats})   CPU s (min / max)")
    for label, r in runs.items():
        walls, cpus = [w for w, _ in r], [c for _, c in r]
        print(
            f"  {label:<14} {min(walls):6.2f} / {max(walls):6.2f}"
            f"            {min(cpus):6.2f} / {max(cpus):6.2f}"
        )
    best = {label: min(w for w, _ in r) for label, r in runs.items()}
    cpu = {label: min(c for _, c in r) for label, r in runs.items()}
    one_s, many_s = best["one call"], best[f"{n} processes"]
    ratio_cpu = cpu["one call"] / cpu[f"{n} processes"]
    print(
        f"  ratio one call / {n} processes: wall {one_s / many_s:.2f}, CPU {ratio_cpu:.2f};"
        f" same beads: {'yes' if same else 'NO'}"
    )
    one_cpu = cpu["one call"]
    print(
        f"  goal one call <= 2 s: wall {'met' if one_s <= 2.0 else 'NOT met'}, CPU "
        f"{one_cpu:.2f} s {'met' if one_cpu <= 2.0 else 'NOT met'} (on an idle machine wall "
        f"time is close to CPU time: one process); load {_load()}"
    )
    return {"runs": runs, "same_beads": same, "load_after": _load()}


def comparable(folder: Path, seed: int = 0) -> dict:
    from alignment_core.paraphrase.features import Resources
    from alignment_core.sentalign.comparable import match_comparable

    entries = json.loads((folder / "edinburgh" / "gold.train.sure.json").read_text("utf-8"))
    entries += json.loads((folder / "edinburgh" / "gold.test.sure.json").read_text("utf-8"))
    mtc = [(e["source"], e["target"]) for e in entries if e["id"].startswith("mtc")]
    rng = random.Random(seed)
    rng.shuffle(mtc)
    docs = []
    size = 20
    for k in range(0, len(mtc) - size + 1, size):
        chunk = mtc[k : k + size]
        src = [s for s, _ in chunk]
        keep = [i for i in range(size) if rng.random() >= 0.2]
        others = [t for j, (_, t) in enumerate(mtc) if not k <= j < k + size]
        tgt_items = [(chunk[i][1], i) for i in keep] + [(t, None) for t in rng.sample(others, 5)]
        rng.shuffle(tgt_items)
        gold = {(i, j) for j, (_, i) in enumerate(tgt_items) if i is not None}
        docs.append((src, [t for t, _ in tgt_items], gold))
    resources = Resources.load()
    out = {}
    print(f"Comparable documents from Edinburgh++ MTC: {len(docs)} document pairs, 20 sentences,")
    print("  targets shuffled, 20% dropped, 5 distractors each    precision  recall   F1")
    for name, res in (("with resources", resources), ("words only", None)):
        tp = fp = fn = 0
        t0 = time.perf_counter()
        for src, tgt, gold in docs:
            got = {(p.src, p.tgt) for p in match_comparable(src, tgt, resources=res)}
            tp += len(got & gold)
            fp += len(got - gold)
            fn += len(gold - got)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        out[name] = {"precision": p, "recall": r, "f1": f, "seconds": time.perf_counter() - t0}
        print(f"  {name:<52} {p:.3f}     {r:.3f}   {f:.3f}")
    a, b = out["with resources"]["f1"], out["words only"]["f1"]
    print(f"  ratio F1 with / without resources (same run): {a / b:.2f}" if b else "")
    return out


def window(folder: Path, copies: int = 4, trials: int = 40, seed: int = 1) -> dict:
    """A long pair realigned around an edit (``annotator/documents/realign.py``): the window's
    beads aligned on their own, against the same beads of the whole pair's alignment."""
    src, tgt, gold = read_textberg(folder)
    n, m = len(src), len(tgt)
    src_k, tgt_k = src * copies, tgt * copies
    start = time.perf_counter()
    whole = align_parallel(src_k, tgt_k)
    whole_s = time.perf_counter() - start
    paired = [(s, t) for s, t in gold if s and t]
    golds = {
        (tuple(i + k * n for i in s), tuple(j + k * m for j in t))
        for k in range(copies)
        for s, t in paired
    }
    rng = random.Random(seed)
    print(f"Realigning a window: textberg-dev {copies} times over ({n * copies} x {m * copies}, "
          f"aligned whole in {whole_s:.2f} s), {trials} windows a margin")  # fmt: skip
    print("  margin (beads each side)   gold beads found: window alone   whole   ratio   time")
    out = {}
    for margin in (60, 150, 250, 400):
        local_hits = whole_hits = total = 0
        times = []
        for _ in range(trials):
            c = rng.randrange(len(whole))
            beads = whole[max(0, c - margin) : c + margin + 1]
            ss = [i for b in beads for i in b.src]
            tt = [j for b in beads for j in b.tgt]
            s0, s1, t0, t1 = min(ss), max(ss) + 1, min(tt), max(tt) + 1
            start = time.perf_counter()
            local = align_parallel(src_k[s0:s1], tgt_k[t0:t1])
            times.append(time.perf_counter() - start)
            got = {(tuple(i + s0 for i in b.src), tuple(j + t0 for j in b.tgt)) for b in local}
            want = {(b.src, b.tgt) for b in beads}
            inside = {
                g
                for g in golds
                if s0 <= g[0][0] and g[0][-1] < s1 and t0 <= g[1][0] and g[1][-1] < t1
            }
            local_hits += len(got & inside)
            whole_hits += len(want & inside)
            total += len(inside)
        a, b = local_hits / total, whole_hits / total
        med = sorted(times)[len(times) // 2]
        out[margin] = {"window": a, "whole": b, "seconds": med}
        print(f"  {margin:<26} {a:31.3f}   {b:.3f}   {a / b:.3f}   {med * 1000:.0f} ms")
    print("  the app realigns 250 beads each side of an edit in a pair of more than 2,000 beads")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data")
    ap.add_argument(
        "--only", choices=("quality", "calibration", "speed", "comparable", "batch", "window")
    )
    ap.add_argument("--pairs", type=int, default=7, help="batch: how many document pairs")
    ap.add_argument("--json")
    ap.add_argument("--no-big", action="store_true", help="skip the 40,000 / 160,000 sizes")
    args = ap.parse_args()
    folder = data_dir(args.data)
    if not (folder / "textberg-dev").is_dir():
        print(f"error: {folder} has no textberg-dev (set GRIDALIGN_SHARED_DATA or --data)")
        return 1
    results = {}
    for name, fn in (
        ("quality", quality),
        ("calibration", calibration),
        ("speed", lambda f: speed(f, big=not args.no_big)),
        ("comparable", comparable),
        ("batch", lambda f: batch(f, n=args.pairs)),
        ("window", window),
    ):
        if args.only in (None, name):
            results[name] = fn(folder)
            print()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
