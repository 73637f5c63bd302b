"""An import read in chunks (issue 30, finding 5): jsonl and tsv files are read and written
``IMPORT_CHUNK_PAIRS`` pairs at a time inside the import's one transaction. The result is what
a whole read gives, and a bad line in the last chunk still leaves every table as it was, the
error naming file:line. Runs on SQLite and, with DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.corpora.services.importing import CorpusImportError, import_file
from annotator.models import AlignerRun, SeedAlignment, SentencePair
from tests.app.test_import import snapshot

pytestmark = pytest.mark.django_db
N = 50


@pytest.fixture(autouse=True)
def small_chunks(settings):
    settings.IMPORT_CHUNK_PAIRS = 7  # 50 pairs: 8 chunks


def tsv(tmp_path: Path, lines: list[str], name: str = "pairs.tsv") -> Path:
    path = tmp_path / name
    path.write_text("id\tsource\ttarget\tsubcorpus\n" + "".join(f"{ln}\n" for ln in lines))
    return path


def rows(n: int = N) -> list[str]:
    return [f"p{k}\tthe cat {k}\ta cat {k}\t{'news' if k % 3 else ''}" for k in range(n)]


def test_every_chunk_lands_in_input_order_with_one_report(project, tmp_path):
    report = import_file(project=project, path=tsv(tmp_path, rows()), subcorpus="rest")
    stored = list(
        SentencePair.objects.filter(project=project)
        .order_by("position")
        .values_list("external_id", "position", "subcorpus__name")
    )
    assert [s[0] for s in stored] == [f"p{k}" for k in range(N)]
    assert [s[1] for s in stored] == list(range(1, N + 1))
    assert [s[2] for s in stored] == ["news" if k % 3 else "rest" for k in range(N)]
    assert (report.pairs_read, report.pairs_created, report.pairs_matched) == (N, N, 0)
    assert sorted(report.subcorpora_created) == ["news", "rest"]
    assert report.warnings == []

    again = import_file(project=project, path=tsv(tmp_path, rows(N + 3), "more.tsv"))
    assert (again.pairs_read, again.pairs_created, again.pairs_matched) == (N + 3, 3, N)
    assert SentencePair.objects.filter(project=project).count() == N + 3


def test_seeds_in_chunks_make_one_run_and_one_warning(project, tmp_path):
    path = tmp_path / "seeds.jsonl"
    lines = []
    for k in range(N):
        record = {"id": f"s{k}", "source": ["a", "b"], "target": ["x", "y"]}
        if k % 10:  # every tenth pair carries no links
            record["sure"] = [[0, 0], [1, 1]]
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    report = import_file(project=project, path=path, load_alignments_as="seed")
    run = AlignerRun.objects.get(project=project)
    assert report.aligner_runs == [run.pk]
    assert run.config["pairs"] == N - 5
    assert SeedAlignment.objects.filter(aligner_run=run).count() == N - 5
    assert report.warnings == ["5 pairs carry no alignment (text only)"]
    assert report.links["sure"] == 2 * (N - 5)


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("p3\tthe dup\ta dup\t", "pairs.tsv:50: duplicate pair id 'p3' (first seen on line 5)"),
        ("p99\tonly two", "pairs.tsv:50: expected 4 tab-separated fields"),
    ],
)
def test_a_bad_line_in_the_last_chunk_leaves_nothing(project, tmp_path, bad, words):
    import_file(project=project, path=tsv(tmp_path, rows(5), "first.tsv"))
    before = snapshot()
    lines = rows(N - 2)
    lines.append(bad)  # line 50 (the header is line 1), the last chunk
    with pytest.raises(CorpusImportError) as refused:
        import_file(project=project, path=tsv(tmp_path, lines))
    assert words in str(refused.value)
    assert snapshot() == before


def test_a_check_failing_in_a_late_chunk_names_the_pair_and_rolls_back(project, tmp_path):
    project.max_tokens = 5
    project.save()
    before = snapshot()
    lines = rows()
    lines[45] = "p45\t" + " ".join(["w"] * 9) + "\tshort\t"
    with pytest.raises(CorpusImportError) as refused:
        import_file(project=project, path=tsv(tmp_path, lines))
    assert "pairs.tsv:47" in str(refused.value)
    assert "9 tokens" in str(refused.value)
    assert snapshot() == before


def test_a_dry_run_in_chunks_writes_nothing_and_reports_all(project, tmp_path):
    before = snapshot()
    report = import_file(project=project, path=tsv(tmp_path, rows()), dry_run=True)
    assert (report.dry_run, report.pairs_read, report.pairs_created) == (True, N, N)
    assert snapshot() == before
