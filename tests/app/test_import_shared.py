"""The two real corpora in ../shared/data load with the published counts (skips off CI when
the folder is absent; see tests/conftest.py)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotator.models import Annotation, GoldAlignment, SentencePair, Subcorpus

pytestmark = pytest.mark.django_db


def import_corpus(*args: object) -> str:
    out = StringIO()
    call_command("import_corpus", *map(str, args), "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue()


def link_counts(links_lists) -> tuple[int, int]:
    sure = possible = 0
    for links in links_lists:
        for link in links:
            if link[2] == "S":
                sure += 1
            else:
                possible += 1
    return sure, possible


def test_edinburgh_loads_1020_gold_pairs_with_subcorpora_and_trial_flags(shared_data):
    d = shared_data / "edinburgh"
    import_corpus(
        "--project", "edinburgh", "--create-project", "--as", "gold",
        d / "gold.train.sure+poss.json", d / "gold.test.sure+poss.json",
        "--sure-file", d / "gold.train.sure.json", "--sure-file", d / "gold.test.sure.json",
    )  # fmt: skip
    pairs = SentencePair.objects.filter(project__name="edinburgh")
    assert pairs.count() == 1020
    assert GoldAlignment.objects.filter(pair__in=pairs, origin="imported").count() == 1020
    names = set(Subcorpus.objects.filter(project__name="edinburgh").values_list("name", flat=True))
    assert names == {"mtc", "news", "novels"}
    trial = pairs.filter(is_trial=True)
    assert trial.count() == 50
    assert all(e.startswith("mtc-trial:") for e in trial.values_list("external_id", flat=True))
    assert not pairs.filter(is_trial=False, external_id__contains="-trial:").exists()
    assert not pairs.filter(subcorpus__isnull=True).exists()
    # Counted straight from the JSON: sure = the sure files' links, possible = the rest.
    expected_sure = expected_all = 0
    for split in ("train", "test"):
        for kind in ("sure", "sure+poss"):
            entries = json.loads((d / f"gold.{split}.{kind}.json").read_text())
            n = sum(len(set(e["sureAlign"].split())) for e in entries)
            if kind == "sure":
                expected_sure += n
            else:
                expected_all += n
    sure, possible = link_counts(GoldAlignment.objects.values_list("links", flat=True))
    assert (sure, possible) == (expected_sure, expected_all - expected_sure)


def test_msr_rte2_dev_loads_three_annotators_with_the_published_link_counts(shared_data):
    d = shared_data / "msr-rte2-dev"
    out = import_corpus(
        "--project", "msr", "--create-project", "--as", "annotator",
        "--annotator", "A", "--annotator", "B", "--annotator", "C",
        "--token-mismatch", "same-shape",
        d / "RTE2_dev_A.align.txt", d / "RTE2_dev_B.align.txt", d / "RTE2_dev_C.align.txt",
    )  # fmt: skip
    assert SentencePair.objects.filter(project__name="msr").count() == 800
    counts = {}
    for name in "ABC":
        annotations = Annotation.objects.filter(assignment__annotator__username=name)
        assert annotations.count() == 800
        counts[name] = link_counts(annotations.values_list("links", flat=True))
    assert counts["A"] == (5983, 2154)
    assert counts["B"] == (6022, 2015)
    assert counts["C"] in ((5888, 2733), (5887, 2733))
    # C writes ".." for "." in some pairs: same grid, attached to the stored tokens, reported.
    assert "token mismatches" in out and "(annotator C)" in out
