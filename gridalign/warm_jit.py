"""``python -m gridalign.warm_jit``: compile every numba kernel once, into numba's on-disk cache.

The Docker image runs this at build time with ``NUMBA_CACHE_DIR`` set (the Dockerfile), so a
new container loads compiled kernels instead of compiling them on its first seed or report
(about 13 s). It aligns a tiny synthetic corpus (unsupervised, then with gold: the seeding
job's paths) and builds an agreement report on it (the report job's kernels: word, phrase,
κ_C). No Django, no database. Prints where the cache went and how long it took.
"""

from __future__ import annotations

import os
import sys
import time

from alignment_core.agreement import PairAnnotations, build_report
from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner.synthetic import synthetic_corpus


def cache_dir() -> str | None:
    """Where numba writes its cache: NUMBA_CACHE_DIR if set (read by numba at import)."""
    from numba.core.config import CACHE_DIR

    return CACHE_DIR or None


def warm() -> dict[str, float]:
    """Run every kernel once on a tiny corpus; returns seconds per stage."""
    seconds: dict[str, float] = {}
    corpus = synthetic_corpus(12, vocab_size=40, min_len=3, max_len=6, seed=1)
    pairs = corpus.pairs
    for name, gold in (("align", None), ("align with gold", dict(enumerate(corpus.gold[:4])))):
        started = time.perf_counter()
        model = train(pairs, config=AlignerConfig(identity_lexicon=True), gold=gold)
        seeds = model.align(pairs)
        model.posteriors(pairs)
        seconds[name] = time.perf_counter() - started
    started = time.perf_counter()
    records = [
        PairAnnotations(
            pair_id=str(i),
            subcorpus="warm",
            source=source,
            target=target,
            seed=seeds[i],
            annotations={"a": corpus.gold[i], "b": seeds[i]},
        )
        for i, (source, target) in enumerate(pairs)
    ]
    build_report(records, samples=5)
    seconds["agreement report"] = time.perf_counter() - started
    return seconds


def main() -> int:
    if os.environ.get("GRIDALIGN_ALIGNER_PLAIN"):
        print("GRIDALIGN_ALIGNER_PLAIN is set: the kernels run as plain Python, nothing to warm")
        return 1
    seconds = warm()
    where = cache_dir() or "__pycache__ beside the sources"
    stages = ", ".join(f"{name} {s:.1f} s" for name, s in seconds.items())
    print(f"numba kernels compiled into {where}: {stages}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
