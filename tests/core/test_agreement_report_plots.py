"""What the dashboard's plots read from the report: each annotator's edit-rate points and the
line fitted on them; and the pairwise section without κ_C (a cheaper report)."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.agreement import PairAnnotations, build_report
from alignment_core.agreement.report import NOT_COMPUTED
from alignment_core.alignment import Alignment


def _corpus() -> list[PairAnnotations]:
    """Doubly annotated pairs whose words all differ (no identity filter bites) and whose
    annotations are never empty, so κ_C skips no pair and every pair gives an edit point."""
    rng = np.random.default_rng(11)
    records = []
    for k in range(30):
        n, m = (int(x) for x in rng.integers(3, 15, 2))
        src = [f"s{x}" for x in range(n)]
        tgt = [f"t{x}" for x in range(m)]
        seed = Alignment.from_sets({(i, min(m - 1, i * m // n)) for i in range(n)})
        anns = {}
        for name in ("bea", "al"):
            flips = {
                (int(i), int(j)) for i, j in zip(*np.nonzero(rng.random((n, m)) < 0.1), strict=True)
            }
            links = (seed.all_links ^ flips) | {(0, 0)}
            anns[name] = Alignment.from_sets(links)
        records.append(PairAnnotations(str(k), "news", src, tgt, seed, anns))
    return records


@pytest.fixture(scope="module")
def corpus() -> list[PairAnnotations]:
    return _corpus()


@pytest.fixture(scope="module")
def report(corpus) -> dict:
    return build_report(corpus, samples=20, rng_seed=5)


def test_edit_points_are_each_pairs_length_and_edit_rate(corpus, report) -> None:
    for level in ("word", "phrase"):
        rates = report["agreement"]["edit_rates"][level]
        assert sorted(rates) == ["al", "bea"]
        for who, entry in rates.items():
            expected = sorted(
                (
                    len(r.source) + len(r.target),
                    len(r.annotations[who].all_links ^ r.seed.all_links)
                    / (len(r.source) * len(r.target)),
                )
                for r in corpus
            )
            assert sorted(map(tuple, entry["points"])) == expected
            assert entry["pairs"] == len(corpus)


def test_the_line_is_the_least_squares_fit_of_its_points(report) -> None:
    for entry in report["agreement"]["edit_rates"]["phrase"].values():
        x, y = np.array(entry["points"]).T
        slope, intercept = np.polyfit(x, y, 1)
        assert entry["slope"] == pytest.approx(slope)
        assert entry["intercept"] == pytest.approx(intercept)
    models = report["agreement"]["kappa_c"]["phrase"]["edit_models"]
    for who, model in models.items():
        line = report["agreement"]["edit_rates"]["phrase"][who]
        assert (line["intercept"], line["slope"]) == (model["intercept"], model["slope"])


def test_pairwise_without_kappa_keeps_the_other_figures(corpus, report) -> None:
    cheap = build_report(corpus, samples=20, rng_seed=5, pairwise_kappa_c=False)
    assert cheap["agreement"] == report["agreement"]
    assert cheap["against_seed"] == report["against_seed"]
    (full_pair,) = report["pairwise"]
    (cheap_pair,) = cheap["pairwise"]
    assert full_pair["word"][-1]["kappa_c"] is not None
    assert cheap_pair["cohen_kappa_cells"] == full_pair["cohen_kappa_cells"]
    for level in ("word", "phrase"):
        for full_row, cheap_row in zip(full_pair[level], cheap_pair[level], strict=True):
            assert cheap_row["kappa_c"] is None and cheap_row["kappa_c_reason"] == NOT_COMPUTED
            for col in ("precision_sure", "recall_sure", "f1", "precision_possible"):
                assert cheap_row[col] == full_row[col]
    assert "edit_rates" not in cheap_pair and cheap_pair["by_length"] == {}
