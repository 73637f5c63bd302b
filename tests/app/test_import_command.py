"""``manage.py import_corpus``: real files in every shape, the summary, and all-or-nothing:
a bad line at the END of a file (or in the last of several files) leaves every table as it was.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotator.corpora.services.importing import ImportSource, import_files
from annotator.models import (
    AlignerRun,
    Annotation,
    Assignment,
    GoldAlignment,
    Project,
    SeedAlignment,
    SentencePair,
)
from tests.app.test_import import FIXTURES, snapshot

pytestmark = pytest.mark.django_db
MSR = [FIXTURES / f"annotator_{k}.align.txt" for k in "ABC"]
EDINBURGH = FIXTURES / "mini.sure+poss.json"
EDINBURGH_SURE = FIXTURES / "mini.sure.json"


def run(*args: object) -> tuple[str, str]:
    """Run the command; (stdout, stderr)."""
    out, err = StringIO(), StringIO()
    call_command("import_corpus", *map(str, args), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.fixture
def loaded(project) -> Project:
    """The test project holding the mini Edinburgh gold and annotator A's file."""
    run("--project", project.name, "--as", "gold", EDINBURGH, "--sure-file", EDINBURGH_SURE)
    run("--project", project.name, "--annotator", "A", MSR[0])
    return project


# -- the shared corpora's shapes, in miniature -------------------------------------------


def test_edinburgh_gold_with_subcorpora_and_trial_pairs(db):
    out, err = run(
        "--project", "edi", "--create-project", "--as", "gold", EDINBURGH,
        "--sure-file", EDINBURGH_SURE,
    )  # fmt: skip
    project = Project.objects.get(name="edi")
    pairs = {p.external_id: p for p in SentencePair.objects.filter(project=project)}
    assert len(pairs) == 4
    assert {k: p.subcorpus.name for k, p in pairs.items()} == {
        "mtc-common:1": "mtc",
        "news-A:2": "news",
        "novels-C:3": "novels",
        "mtc-trial:4": "mtc",
    }
    assert [k for k, p in pairs.items() if p.is_trial] == ["mtc-trial:4"]
    gold = GoldAlignment.objects.get(pair=pairs["mtc-common:1"])
    assert gold.links == [[0, 0, "P"], [1, 1, "S"], [2, 2, "P"], [2, 3, "S"]]
    assert "4 pairs read from 1 file(s): 4 created (1 trial)" in out
    assert "subcorpora created: mtc, news, novels" in out
    assert "(8 sure, 6 possible links)" in out
    assert "100.0%" in err  # the progress bar


def test_three_annotators_files_in_one_command(db):
    out, _ = run(
        "--project", "msr", "--create-project", "--as", "annotator",
        "--annotator", "A", "--annotator", "B", "--annotator", "C",
        "--token-mismatch", "same-shape", *MSR,
    )  # fmt: skip
    assert SentencePair.objects.count() == 2
    counts = {
        name: (
            sum(link[2] == "S" for a in anns for link in a.links),
            sum(link[2] == "P" for a in anns for link in a.links),
        )
        for name in "ABC"
        for anns in [Annotation.objects.filter(assignment__annotator__username=name)]
    }
    assert counts == {"A": (6, 2), "B": (6, 1), "C": (6, 3)}
    assert "annotator C: 6 sure, 3 possible" in out
    assert "attached: pair '1' (annotator C)" in out
    assert "source token 4 is '.' stored, '..' in the file" in out


def test_a_token_mismatch_refuses_the_three_files_unless_told(db):
    args = ["--project", "msr", "--create-project", "--annotator", "A", "--annotator", "B"]
    with pytest.raises(CommandError, match="annotator_C.align.txt: pair '1'.*tokens differ") as e:
        run(*args, "--annotator", "C", *MSR)
    assert "hint: --token-mismatch skip|same-shape" in str(e.value)
    assert not Project.objects.exists() and not SentencePair.objects.exists()
    out, _ = run(*args, "--annotator", "C", "--skip-token-mismatch", *MSR)
    assert "skipped: pair '1' (annotator C)" in out
    assert Assignment.objects.filter(annotator__username="C").count() == 1


def test_one_annotator_for_every_file_and_json_report(project):
    out, _ = run("--project", project.name, "--annotator", "B", "--json", MSR[1])
    report = json.loads(out)
    assert report["links_by_annotator"] == {"B": {"sure": 6, "possible": 1}}
    assert report["users_created"] == ["B"]
    assert report["files"] == [str(MSR[1])]


# -- other formats ----------------------------------------------------------------------


def test_tsv_subcorpus_column_option_and_length_ratio_filter(project):
    out, _ = run(
        "--project", project.name, "--subcorpus", "misc", "--max-length-ratio", "3",
        FIXTURES / "pairs.tsv",
    )  # fmt: skip
    got = dict(SentencePair.objects.values_list("external_id", "subcorpus__name"))
    assert got == {"n1": "news", "n2": "misc"}
    assert SentencePair.objects.get(external_id="n1").metadata == {"genre": "weather"}
    assert "length-ratio filter (> 3): dropped 1 pairs" in out
    assert "n3 (ratio 6.00: 6 vs 1 tokens)" in out


def test_pharaoh_seeds_over_two_text_files(project, tmp_path):
    src = write(tmp_path / "src.txt", "the cat\nrain fell\n")
    tgt = write(tmp_path / "tgt.txt", "a cat\nit rained\n")
    ali = write(tmp_path / "run.pharaoh", "0-0 1-1\n0?1\n")
    run("--project", project.name, "--as", "seed", "--source-text", src, "--target-text", tgt, ali)
    run_ = AlignerRun.objects.get()
    assert run_.kind == "imported" and "run.pharaoh" in run_.note
    seeds = {s.pair.external_id: s.links for s in SeedAlignment.objects.select_related("pair")}
    assert seeds == {"1": [[0, 0, "S"], [1, 1, "S"]], "2": [[0, 1, "P"]]}


def test_parallel_text_files(project, tmp_path):
    src = write(tmp_path / "src.txt", "the cat\nrain fell\n")
    tgt = write(tmp_path / "tgt.txt", "a cat\nit rained\n")
    run("--project", project.name, "--format", "parallel", "--target-text", tgt, src)
    assert SentencePair.objects.get(external_id="2").target_tokens == ["it", "rained"]


def test_latin1_file_with_the_encoding_option(project, tmp_path):
    path = write(tmp_path / "p.tsv", "a\tcaf\xe9 noir\tblack coffee\n".encode("latin-1"))
    run("--project", project.name, "--encoding", "latin-1", path)
    assert SentencePair.objects.get().source_tokens == ["café", "noir"]


# -- all or nothing ---------------------------------------------------------------------


JSONL_OK = '{"id": "j1", "source": ["x", "y"], "target": ["y"], "sure": [[1, 0]]}\n'
TSV_OK = "t1\tthe sky\tthe sky\nt2\tgood morning\tmorning\n"
BAD_FILES = {
    # kind: (file name, contents, extra command arguments, where the error must point)
    "out-of-range link": (
        "bad.jsonl",
        JSONL_OK + '{"id": "j2", "source": ["x"], "target": ["y"], "sure": [[0, 5]]}\n',
        [],
        "bad.jsonl:2: ",
    ),
    "bad label": ("bad.naacl", "1 1 1 S\n2 1 2 P\n2 2 1 Q\n", ["--as", "seed"], "bad.naacl:3: "),
    "duplicate id": ("bad.tsv", TSV_OK + "t1\tthe sky\tthe sky\n", [], "bad.tsv:3: "),
    "token mismatch": (
        "bad.jsonl",
        JSONL_OK + '{"id": "2", "source": "rain fell all day", "target": "it rained"}\n',
        [],
        "bad.jsonl: pair '2' (pair #2 of the input): tokens differ",
    ),
    "bad encoding": ("bad.tsv", TSV_OK.encode() + b"t3\tcaf\xe9\tcoffee\n", [], "bad.tsv:3: "),
    "existing gold": (
        "bad.jsonl",
        JSONL_OK + '{"id": "novels-C:3", "source": "she smiled", "target": "she gave a smile",'
        ' "sure": [[0, 0]]}\n',
        ["--as", "gold"],
        "bad.jsonl: pair 'novels-C:3' (pair #2 of the input): the pair already has a gold",
    ),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_a_bad_line_at_the_end_leaves_every_table_unchanged(loaded, tmp_path, kind):
    name, contents, extra, where = BAD_FILES[kind]
    bad = write(tmp_path / name, contents)
    if name.endswith(".naacl"):
        extra = [*extra, "--source-text", write(tmp_path / "s.txt", "a b\nc d\n")]
        extra = [*extra, "--target-text", write(tmp_path / "t.txt", "a b\nc d\n")]
    before = snapshot()
    with pytest.raises(CommandError) as err:
        run("--project", loaded.name, *extra, bad)
    assert str(tmp_path / where) in str(err.value), str(err.value)
    assert "nothing written" in str(err.value)
    assert snapshot() == before


def test_a_bad_last_file_undoes_the_files_before_it(loaded, tmp_path):
    good = write(tmp_path / "good.tsv", "g1\tx\ty\n")
    bad = write(tmp_path / "bad.tsv", b"g2\tx\ty\ng3\t\xff\ty\n")
    before = snapshot()
    with pytest.raises(CommandError, match="bad.tsv:2: "):
        run("--project", loaded.name, good, bad)
    assert snapshot() == before


def test_service_error_names_file_and_line_for_reader_errors(project, tmp_path):
    bad = write(tmp_path / "x.tsv", "a\tb\tc\nd\te\n")
    with pytest.raises(Exception) as err:
        import_files(project=project, sources=[ImportSource(bad)])
    assert (err.value.file, err.value.line) == (str(bad), 2)
    assert isinstance(err.value, ValueError)


def test_dry_run_and_a_failed_create_project_leave_nothing(db, tmp_path):
    before = snapshot()
    out, _ = run("--project", "new", "--create-project", "--dry-run", FIXTURES / "pairs.tsv")
    assert out.startswith("DRY RUN, nothing written: 3 pairs read")
    assert snapshot() == before
    with pytest.raises(CommandError):
        run("--project", "new", "--create-project", write(tmp_path / "b.tsv", "a\tb\n\n\tc\td\n"))
    assert snapshot() == before


# -- usage errors and the exit status ------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--project", "nope", "f.tsv"], "no project named 'nope'"),
        (
            ["--project", "Test project", "--annotator", "A", "--annotator", "B", "f.tsv"],
            "--annotator given 2 times for 1 files",
        ),
        (["--project", "Test project", "--as", "gold", "--annotator", "A", "f.tsv"], "cannot go"),
        (["--project", "Test project", "f.unknown"], "cannot tell the format"),
        (["--project", "Test project", "missing.tsv"], "missing.tsv: cannot read file"),
    ],
)
def test_usage_errors(project, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_exit_status_is_non_zero_and_stderr_names_file_and_line(
    project, tmp_path, monkeypatch, capsys
):
    from django.core.management import execute_from_command_line

    # run_from_argv closes the connections when it ends; the test's transaction needs its own.
    monkeypatch.setattr("django.db.connections.close_all", lambda: None)
    bad = write(tmp_path / "bad.tsv", "a\tx\ty\na\tx\ty\n")
    with pytest.raises(SystemExit) as exit_:
        execute_from_command_line(
            ["manage.py", "import_corpus", "--project", project.name, str(bad)]
        )
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert f"{bad}:2: duplicate pair id 'a'" in err
    assert SentencePair.objects.count() == 0
