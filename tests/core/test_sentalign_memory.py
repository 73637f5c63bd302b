"""The aligner's memory on long documents grows with its band, not with the square of the
length: two generated document pairs, one four times the other, are aligned in fresh
processes, and each one's peak memory above the same process before aligning stays under a
bound of a fixed cost plus, per sentence, the band's cells and the sentence's vectors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from alignment_core.sentalign.align import FIRST_BAND
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.slow

# What the bound allows: a fixed part (IBM1's bounded EM, numba's first compilations
# excluded by a warm-up) and, per sentence, two band rows of the DP (int8 back-pointer and
# float32 bead cost per cell: 5 bytes) plus its sparse vectors and Python objects.
FIXED_MB = 160
PER_SENTENCE_BYTES = 2 * FIRST_BAND * 5 + 6000

CHILD = textwrap.dedent(
    r"""
    import json, random, resource, sys
    sys.path.insert(0, sys.argv[2])
    from alignment_core.sentalign import align_parallel

    def documents(n, seed=1):
        rng = random.Random(seed)
        src_words = [f"wort{k}" + "abcdefgh"[k % 8] * (k % 5) for k in range(3000)]
        tgt_words = [f"mot{k}" + "xyzuvw"[k % 6] * (k % 4) for k in range(3000)]
        src, tgt = [], []
        while len(src) < n:
            ids = [rng.randrange(3000) for _ in range(rng.randint(6, 22))]
            number = str(rng.randrange(10, 99999))
            name = f"Ort{rng.randrange(500)}"
            s = " ".join(src_words[i] for i in ids) + f" {name} {number} ."
            t = " ".join(tgt_words[i] for i in ids) + f" {name} {number} ."
            kind = rng.random()
            if kind < 0.05:  # one source sentence, two target sentences
                cut = len(t) // 2
                src.append(s); tgt.extend([t[:cut] + " .", t[cut:]])
            elif kind < 0.07:  # a caption only the target has
                src.append(s); tgt.extend([t, f"Photo {rng.randrange(1000)} ."])
            else:
                src.append(s); tgt.append(t)
        return src, tgt

    n = int(sys.argv[1])
    src, tgt = documents(n)
    align_parallel(src[:300], tgt[:300])  # compile / load the kernels first
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    beads = align_parallel(src, tgt)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"n": len(src), "m": len(tgt), "growth_mb": after - before,
                      "beads": len(beads)}))
    """
)


def _align_in_a_fresh_process(n: int) -> dict:
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(REPO_ROOT)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def _bound_mb(sentences: int) -> float:
    return FIXED_MB + sentences * PER_SENTENCE_BYTES / 2**20


def test_aligning_long_documents_stays_under_a_bound_linear_in_length():
    short = _align_in_a_fresh_process(4000)
    long = _align_in_a_fresh_process(16000)
    for run in (short, long):
        assert run["growth_mb"] <= _bound_mb(run["n"]), run
    # the extra memory of four times the sentences is at most linear in them (a square
    # would be 16 times the short one's, the old band growing with √n about 8 times)
    extra = long["growth_mb"] - short["growth_mb"]
    per_sentence = extra * 2**20 / (long["n"] - short["n"])
    assert per_sentence <= PER_SENTENCE_BYTES, (short, long, per_sentence)
