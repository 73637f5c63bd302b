"""The real, dirty corpora in the shared data folder read cleanly and give the published counts.

Skips on a laptop without the folder (fails under CI=true): see ``shared_data`` in conftest.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from alignment_core.formats import format_pairs, parse_pairs, read_pairs

# Brockett (2007), Table 2: sure / possible links per annotator on the RTE2 dev set. One pair of
# C is tokenised differently, so the README allows 5,887 sure links for C as well.
MSR = {"A": ({5983}, 2154), "B": ({6022}, 2015), "C": ({5888, 5887}, 2733)}


def totals(pairs) -> tuple[int, int]:
    return (
        sum(len(p.alignment.sure) for p in pairs),
        sum(len(p.alignment.possible) for p in pairs),
    )


@pytest.mark.parametrize("annotator", sorted(MSR))
def test_msr_rte2_counts(shared_data: Path, annotator: str) -> None:
    pairs = read_pairs(shared_data / "msr-rte2-dev" / f"RTE2_dev_{annotator}.align.txt")
    assert [p.id for p in pairs] == [str(n) for n in range(1, 801)]
    sure, possible = totals(pairs)
    allowed_sure, published_possible = MSR[annotator]
    assert sure in allowed_sure and possible == published_possible


def test_msr_rte2_round_trips_through_every_aligned_format(shared_data: Path) -> None:
    pairs = read_pairs(shared_data / "msr-rte2-dev" / "RTE2_dev_A.align.txt", "giza-a3")
    core = [(p.id, p.source, p.target, p.alignment) for p in pairs]
    for fmt in ("giza-a3", "jsonl", "edinburgh"):
        back = parse_pairs("".join(format_pairs(pairs, fmt)), fmt)
        assert [(p.id, p.source, p.target, p.alignment) for p in back] == core, fmt
    links = "".join(format_pairs(pairs, "naacl"))
    back = parse_pairs(links, "naacl", text_pairs=pairs)
    assert [(p.id, p.alignment) for p in back] == [(c[0], c[3]) for c in core]


def test_edinburgh_release(shared_data: Path) -> None:
    folder = shared_data / "edinburgh"
    pairs = {
        split: read_pairs(
            folder / f"gold.{split}.sure+poss.json",
            sure_path=folder / f"gold.{split}.sure.json",
        )
        for split in ("train", "test")
    }
    assert (len(pairs["train"]), len(pairs["test"])) == (714, 306)
    everything = pairs["train"] + pairs["test"]
    assert len({p.id for p in everything}) == 1020
    assert {p.subcorpus for p in everything} == {"mtc", "news", "novels"}
    assert sum(1 for p in everything if p.metadata.get("trial")) == 50  # the paper's trial set
    annotations = Counter(p.metadata["annotation"] for p in everything)
    assert set(annotations) == {"common", "A", "C", "trial"}
    # possible = (sure+poss) − sure: the sure-only file alone has the same sure links
    sure_only = read_pairs(folder / "gold.test.sure.json")
    assert [p.alignment.sure for p in sure_only] == [p.alignment.sure for p in pairs["test"]]
    assert totals(sure_only)[1] == 0 < totals(pairs["test"])[1]
