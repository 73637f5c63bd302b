"""``python -m alignment_core align`` end to end on a tiny corpus."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from alignment_core.cli import main
from tests.conftest import REPO_ROOT

CORPUS = [
    ("p1", "the cat sat on the mat .", "the cat was sitting on the mat ."),
    ("p2", "a dog sat on a log .", "a dog was sitting on a log ."),
    ("p3", "the dog saw the cat .", "the dog noticed the cat ."),
    ("p4", "a cat saw a bird .", "a cat noticed a bird ."),
    ("p5", "the bird sat on the dog .", "the bird was sitting on the dog ."),
]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.tsv"
    path.write_text("".join(f"{i}\t{s}\t{t}\n" for i, s, t in CORPUS), encoding="utf-8")
    return path


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_align_jsonl_posteriors_and_model(tmp_path, corpus, capsys):
    out = tmp_path / "seeds.jsonl"
    post = tmp_path / "post.npz"
    model = tmp_path / "model.npz"
    rc = main(
        [
            "align",
            str(corpus),
            "--out",
            str(out),
            "--posteriors",
            str(post),
            "--save-model",
            str(model),
            "--threads",
            "1",
        ]
    )
    assert rc == 0
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == ["p1", "p2", "p3", "p4", "p5"]
    first = {tuple(link) for link in rows[0]["sure"]}
    assert {(0, 0), (1, 1), (3, 4), (4, 5), (5, 6), (6, 7)} <= first  # the cat … on the mat .
    assert rows[0]["possible"] == []
    err = capsys.readouterr().err
    assert "HMM" in err and "5 pairs" in err
    z = np.load(post)
    assert list(z["ids"]) == ["p1", "p2", "p3", "p4", "p5"]
    assert z["shapes"].tolist()[0] == [7, 8]
    assert z["offsets"][-1] == len(z["values"]) == sum(n * m for n, m in z["shapes"].tolist())
    grid = z["values"][: 7 * 8].reshape(7, 8)
    assert grid[0, 0] > 0.5

    # aligning again with the saved model gives the same seeds, in pharaoh
    again = tmp_path / "again.txt"
    assert main(["align", str(corpus), "--out", str(again), "--model", str(model), "--quiet"]) == 0
    lines = again.read_text().splitlines()
    assert len(lines) == 5
    assert {tuple(map(int, x.split("-"))) for x in lines[0].split()} == first


def test_align_with_gold_and_options(tmp_path, corpus):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps(
            {
                "id": "p3",
                "source": CORPUS[2][1].split(),
                "target": CORPUS[2][2].split(),
                "sure": [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4], [5, 5]],
                "possible": [],
            }
        )
        + "\n"
        + json.dumps({"id": "elsewhere", "source": ["x"], "target": ["y"], "sure": [[0, 0]]})
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.txt"
    rc = main(
        [
            "align",
            str(corpus),
            "--out",
            str(out),
            "--format",
            "pharaoh",
            "--gold",
            str(gold),
            "--lambda",
            "0.8",
            "--symmetrize",
            "grow-diag-final-and",
            "--ibm1-iterations",
            "3",
            "--hmm-iterations",
            "2",
            "--no-identity-lexicon",
            "--model-kind",
            "hmm",  # the HMM's options; the default with gold is the supervised model
            "--quiet",
        ]
    )
    assert rc == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 5 and all(lines)


def test_gold_that_does_not_fit(tmp_path, corpus, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps({"id": "p1", "source": ["a"], "target": ["b"], "sure": [[0, 0]]}) + "\n"
    )
    rc = main(["align", str(corpus), "--out", str(tmp_path / "o.txt"), "--gold", str(gold)])
    assert rc == 1
    assert "p1" in capsys.readouterr().err
    assert not (tmp_path / "o.txt").exists()


def test_bad_model_file(tmp_path, corpus, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    rc = main(["align", str(corpus), "--out", str(tmp_path / "o.txt"), "--model", str(bad)])
    assert rc == 1
    assert "not an aligner model" in capsys.readouterr().err


def test_module_entry_point_to_stdout(corpus):
    proc = subprocess.run(
        [sys.executable, "-m", "alignment_core", "align", str(corpus), "--out", "-"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 5
    assert "0-0" in proc.stdout.splitlines()[0]


def test_the_streamed_hmm_path_writes_what_the_in_process_model_aligns(tmp_path, monkeypatch):
    """--no-builtin without gold or posteriors streams the file (train, then align and write
    chunk by chunk); its links are those of train() + align() on the same pairs, in jsonl (the
    pairs read again beside them) and in pharaoh (links only, one line per pair, in order),
    over several chunks, and a saved model aligns the file the same way again."""
    from alignment_core.aligner import AlignerConfig, train
    from alignment_core.aligner.synthetic import synthetic_corpus

    pairs = synthetic_corpus(120, vocab_size=80, min_len=4, max_len=9, seed=2).pairs
    path = tmp_path / "c.tsv"
    path.write_text(
        "".join(f"q{n}\t{' '.join(s)}\t{' '.join(t)}\n" for n, (s, t) in enumerate(pairs))
    )
    out, saved, again = tmp_path / "out.jsonl", tmp_path / "m.npz", tmp_path / "again.jsonl"
    common = ["--no-builtin", "--threads", "1", "--quiet"]
    assert main(["align", str(path), "--out", str(out), "--save-model", str(saved), *common]) == 0
    assert main(["align", str(path), "--out", str(again), "--model", str(saved), *common]) == 0
    expected = train(pairs, AlignerConfig(threads=1)).align(pairs)
    for written in (out, again):
        rows = read_jsonl(written)
        assert [r["id"] for r in rows] == [f"q{n}" for n in range(len(pairs))]
        assert [{tuple(x) for x in r["sure"]} for r in rows] == [a.sure for a in expected]

    # pharaoh, over chunks of 50 pairs (the base config the streamed run starts from)
    from alignment_core.cli import align_stream

    monkeypatch.setattr(align_stream, "AlignerConfig", lambda: AlignerConfig(chunk_pairs=50))
    links = tmp_path / "out.pharaoh"
    assert main(["align", str(path), "--out", str(links), *common]) == 0
    chunked = train(pairs, AlignerConfig(threads=1, chunk_pairs=50)).align(pairs)
    lines = links.read_text().splitlines()
    assert len(lines) == len(pairs)
    assert [{tuple(map(int, x.split("-"))) for x in line.split()} for line in lines] == [
        a.sure for a in chunked
    ]
