"""Training memory is bounded by the vocabulary and one chunk, not by the corpus: a corpus ten
times larger over the same vocabulary makes training's resident memory grow by little more."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The child streams the corpus (never a list of it) and reports its resident memory after the
# kernels are loaded and its peak after training, in MB.
_CHILD = """
import json, resource, sys
from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner.synthetic import synthetic_corpus
n_parts = int(sys.argv[1])
cfg = AlignerConfig(ibm1_iterations=2, hmm_iterations=2, chunk_pairs=300, threads=1)
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def stream():
    for part in range(n_parts):
        yield from synthetic_corpus(600, vocab_size=50, min_len=4, max_len=8, seed=part).pairs
train(list(stream())[:200], cfg)  # loads the kernels
before = peak()
model = train(stream(), cfg)
print(json.dumps({"before": before, "after": peak(), "entries": model.n_entries}))
"""


def _growth(n_parts: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n_parts)], cwd=REPO,
                         capture_output=True, text=True, check=True, timeout=300)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_ten_times_the_corpus_does_not_take_ten_times_the_memory():
    small, big = _growth(1), _growth(10)
    # the table grows with new co-occurrences of the same words (at most 60 bytes an entry)
    table = 60 * (big["entries"] - small["entries"]) / 2**20
    grew_small = small["after"] - small["before"]
    grew_big = big["after"] - big["before"]
    # the whole-corpus layout grew by ~640 bytes a token: 6,000 pairs × ~12 tokens ≈ 46 MB
    assert grew_big < grew_small + 8 + table, (small, big)
