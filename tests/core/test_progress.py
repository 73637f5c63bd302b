import io

import numpy as np
import pytest

from alignment_core.agreement import KappaPair, PairAnnotations, build_report, kappa_c
from alignment_core.aligner import AlignerConfig, retrain, train
from alignment_core.aligner.synthetic import synthetic_corpus
from alignment_core.alignment import Alignment
from alignment_core.progress import Progress, ProgressBar, part, silent


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_is_redrawn_in_place_and_closed_with_a_newline():
    out = Terminal()
    bar = ProgressBar(out, width=10)
    bar(0, "start")
    bar(0.5, "HMM source→target iteration 1/5")
    bar(1.0, "done")
    bar.close()
    text = out.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n") and text.count("\n") == 1
    assert "[#####.....]  50.0%" in text and "[##########] 100.0%" in text


def test_in_a_log_it_writes_a_line_per_stage_or_ten_percent_only():
    out = io.StringIO()
    bar = ProgressBar(out)
    for n in range(0, 1001, 10):  # "stored N pairs" is one stage whatever N is
        bar(n / 1000, f"stored {n} pairs")
    bar(1.0, "alignments written")
    lines = out.getvalue().splitlines()
    assert len(lines) == 12  # 0 %, 10 %, ..., 100 %, and the new stage
    assert lines[0].startswith("  0.0%") and lines[-1].endswith("alignments written")


def test_a_disabled_bar_writes_nothing():
    out = Terminal()
    bar = ProgressBar(out, enabled=False)
    bar(0.5, "x")
    bar.close()
    assert out.getvalue() == ""


# --- the one shape: progress(fraction, message) ----------------------------------------------


def test_part_maps_a_step_onto_its_share_of_the_parent():
    seen: list[tuple[float, str]] = []
    half = part(lambda f, m: seen.append((f, m)), 0.5, 0.9)
    half(0.0, "a")
    half(0.5, "b")
    half(1.0, "c")
    half(2.0, "over")  # clamped to the part's end
    half(-1.0, "under")  # and to its start
    assert seen == [(0.5, "a"), (0.7, "b"), (0.9, "c"), (0.9, "over"), (0.5, "under")]
    assert part(None, 0.2, 0.4) is silent  # no callback: nothing to report to


def recorder() -> tuple[list[tuple[float, str]], Progress]:
    seen: list[tuple[float, str]] = []

    def progress(fraction: float, message: str) -> None:
        assert isinstance(fraction, float) and isinstance(message, str) and message
        seen.append((fraction, message))

    return seen, progress


def assert_one_shape(seen: list[tuple[float, str]]) -> None:
    """Monotone fractions in [0, 1] that end at 1.0."""
    fractions = [f for f, _ in seen]
    assert fractions, "progress was never called"
    assert all(0.0 <= f <= 1.0 for f in fractions), fractions
    assert fractions == sorted(fractions), fractions
    assert fractions[-1] == 1.0


def annotated(k: int, *names: str) -> PairAnnotations:
    rng = np.random.default_rng(k)
    n, m = 4 + k % 3, 5
    words = ["w" + str(x) for x in rng.integers(0, 9, n + m)]
    seed = Alignment.from_sets([(i, i) for i in range(min(n, m))])
    anns = {
        name: Alignment.from_sets(
            seed.all_links ^ {(int(rng.integers(n)), int(rng.integers(m))) for _ in range(2)}
        )
        for name in names
    }
    return PairAnnotations(str(k), "ab"[k % 2], words[:n], words[n:], seed, anns)


RECORDS = [annotated(k, "ann1", "ann2", *(["ann3"] if k % 3 else [])) for k in range(9)]


@pytest.mark.parametrize("pairwise_kappa_c", [True, False])
def test_build_report_reports_one_shape(pairwise_kappa_c):
    seen, progress = recorder()
    build_report(RECORDS, samples=5, pairwise_kappa_c=pairwise_kappa_c, progress=progress)
    assert_one_shape(seen)
    assert seen[-2][0] < 1.0  # the steps were counted right: done only when done
    messages = [m for _, m in seen]
    assert any(m.startswith("κ_C at phrase level") for m in messages)  # reports within κ_C
    assert any(m.startswith("pairwise: ann1 against ann3") for m in messages)


def test_build_report_of_nothing_still_ends_at_one():
    seen, progress = recorder()
    build_report([], samples=5, progress=progress)
    assert_one_shape(seen)


@pytest.mark.parametrize("records", [RECORDS, []], ids=["pairs", "no pairs"])
def test_kappa_c_reports_one_shape(records):
    seen, progress = recorder()
    pairs = [
        KappaPair(r.source, r.target, r.seed, r.annotations["ann1"], r.annotations["ann2"])
        for r in records
    ]
    kappa_c(pairs, samples=5, progress=progress)
    assert_one_shape(seen)
    assert len(seen) == len(pairs) + 1  # before sampling, then after each pair


def test_train_and_retrain_report_one_shape():
    corpus = synthetic_corpus(30, vocab_size=40, min_len=3, max_len=6, seed=1)
    config = AlignerConfig(ibm1_iterations=2, hmm_iterations=2)
    seen, progress = recorder()
    model = train(corpus.pairs, config, progress=progress)
    assert_one_shape(seen)
    assert seen[0][0] == 0.0
    seen.clear()
    retrain(model, corpus.pairs, gold={0: corpus.gold[0]}, progress=progress)
    assert_one_shape(seen)
