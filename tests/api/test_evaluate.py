"""``POST /api/projects/{id}/evaluate/``: the same figures as ``python -m alignment_core score
--json`` on the same files, per subcorpus too; unscored pairs listed, never dropped."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.api.conftest import make_pair, set_gold_row
from tests.api.helpers import body, upload
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db


def system_line(pid, source, target, sure=(), possible=()):
    return json.dumps(
        {
            "id": pid,
            "source": source,
            "target": target,
            "sure": list(sure),
            "possible": list(possible),
        }
    )


@pytest.fixture
def system(corpus, project):
    """A system's output: p1 and p3 scored, p2 (no gold), t1 (trial), x9 (unknown) listed,
    and a pair with other tokens."""
    make_pair(project, "p4", "we won", "victory was ours", subcorpus="novels", position=5)
    set_gold_row(project.pairs.get(external_id="p4"), [[0, 2, "P"], [1, 0, "S"]])
    lines = [
        system_line("p1", "the cat sat", "a cat was sitting", [[1, 1], [2, 2]], [[0, 0]]),
        system_line("p3", "rain fell hard", "it rained heavily", [[1, 1], [2, 2], [0, 1]]),
        system_line("p2", "he left early", "he went away soon", [[0, 0]]),
        system_line("t1", "good morning", "hello there", [[0, 0]]),
        system_line("x9", "what is this", "no idea", [[0, 0]]),
        system_line("p4", "we lost", "victory was ours", [[1, 0]]),
    ]
    return "\n".join(lines) + "\n"


def evaluate(client, project, name, text, **options):
    return client.post(
        f"/api/projects/{project.pk}/evaluate/",
        {"file": upload(name, text), **options},
        format="multipart",
    )


def score_cli(tmp_path, gold: str, test: str) -> dict:
    (tmp_path / "gold.jsonl").write_text(gold)
    (tmp_path / "test.jsonl").write_text(test)
    out = subprocess.run(
        [sys.executable, "-m", "alignment_core", "score", "gold.jsonl", "test.jsonl", "--json"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_same_figures_as_score_overall_and_per_subcorpus(tmp_path, api, project, lead, system):
    client = api(lead)
    result = evaluate(client, project, "system.jsonl", system)
    assert result.status_code == 200, result.content
    result = result.json()
    gold = body(client.get(f"/api/projects/{project.pk}/export/", {"format": "jsonl"})).decode()
    scored = [ln for ln in system.splitlines() if json.loads(ln)["id"] in ("p1", "p3")]
    expected = score_cli(tmp_path, gold, "\n".join(scored) + "\n")
    assert {k: result[k] for k in ("pairs", "word", "phrase")} == expected
    assert result["pairs"] == 2

    for sub, ids in (("news", ["p1"]), ("novels", ["p3"])):
        rows = [ln for ln in system.splitlines() if json.loads(ln)["id"] in ids]
        gold_rows = [ln for ln in gold.splitlines() if json.loads(ln)["id"] in ids]
        assert result["subcorpora"][sub] == score_cli(
            tmp_path, "\n".join(gold_rows) + "\n", "\n".join(rows) + "\n"
        )


def test_unscored_pairs_are_listed_with_reasons(api, project, lead, system):
    result = evaluate(api(lead), project, "system.jsonl", system).json()
    reasons = {u["id"]: u["reason"] for u in result["unmatched"]}
    assert reasons == {
        "p2": "the pair has no gold alignment yet",
        "t1": "a trial pair (never gold)",
        "x9": "no pair with this id in the project",
    }
    assert result["token_mismatch"] == [
        {"id": "p4", "reason": "source token 1 is 'lost' in the file, 'won' in the gold"}
    ]
    assert result["missing"] == [] and result["gold_pairs"] == 3


def test_missing_gold_pairs_are_listed(api, project, lead, corpus):
    text = system_line("p1", "the cat sat", "a cat was sitting", [[1, 1]]) + "\n"
    result = evaluate(api(lead), project, "s.jsonl", text).json()
    assert result["missing"] == ["p3"] and result["pairs"] == 1


def test_level_word_only(api, project, lead, system):
    result = evaluate(api(lead), project, "system.jsonl", system, level="word").json()
    assert "word" in result and "phrase" not in result
    assert "phrase" not in result["subcorpora"]["news"]


def test_pharaoh_is_read_against_the_gold_text(api, project, lead, corpus):
    # line n = gold pair n in export order (p1, p3), as the pharaoh export writes them
    text = "0?0 1-1 2-3\n0?1 1-1 2-2\n"
    result = evaluate(api(lead), project, "system.pharaoh", text).json()
    assert result["pairs"] == 2
    assert result["word"]["f1"] == 1.0 and result["word"]["aer"] == 0.0


@pytest.mark.parametrize(
    ("name", "text", "options", "expected"),
    [
        ("s.xml", "x", {}, "cannot tell the format"),
        ("s.jsonl", "x", {"format": "latex"}, "format"),
        ("s.jsonl", '{"id": "p1"\n', {}, "s.jsonl:1"),
        ("s.tsv", "id\tsource\ttarget\np1\ta\tb\n", {}, "hold no alignments"),
        ("s.pharaoh", "0-0\n", {}, "1 alignment lines but the gold"),
        ("s.pharaoh", "0-9\n0-0\n", {}, "target index 9"),
        ("s.jsonl", '{"id": "zz", "source": "a", "target": "b", "sure": [[0,0]]}\n', {},
         "no pair of the file matches"),
        ("s.jsonl", "x", {"level": "sentence"}, "level"),
    ],
)  # fmt: skip
def test_bad_input_is_400_naming_it(api, project, lead, corpus, name, text, options, expected):
    response = evaluate(api(lead), project, name, text, **options)
    assert response.status_code == 400
    assert expected in response.json()["error"]


def test_roles(api, project, lead, annotator, outsider, system):
    assert evaluate(api(), project, "s.jsonl", system).status_code == 401
    assert evaluate(api(annotator), project, "s.jsonl", system).status_code == 403
    assert evaluate(api(outsider), project, "s.jsonl", system).status_code == 404


def test_command_prints_what_the_api_answers(tmp_path, api, project, lead, system, capsys):
    from django.core.management import call_command

    path = tmp_path / "system.jsonl"
    path.write_text(system)
    call_command("evaluate", str(path), project=project.name)
    printed = json.loads(capsys.readouterr().out)
    assert printed == evaluate(api(lead), project, "system.jsonl", system).json()


def test_command_refuses_a_bad_file(tmp_path, project, corpus):
    from django.core.management import CommandError, call_command

    path = tmp_path / "s.jsonl"
    path.write_text('{"id": \n')
    with pytest.raises(CommandError, match="s.jsonl:1"):
        call_command("evaluate", str(path), project=project.name)
