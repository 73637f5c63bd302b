"""A refactoring check: one digest of what the seeding models give on a fixed sample, to compare
before and after a change that should not change behaviour (on the same machine: the trees'
last bits may differ between CPUs).

    .venv/bin/python benchmarks/seed_fingerprint.py [--data DIR] [--pairs 100] [--gold 40]

Sample: the first ``--pairs`` pairs of Edinburgh++'s train split (``$GRIDALIGN_SHARED_DATA`` or
``../shared/data``), every second one with its gold up to ``--gold``. Digested: the HMM's
intersection links and posteriors (without and with the gold as counts), the supervised seed
model's links, probabilities and info (with the installed resources), and the HMM fallback's
(10 gold pairs). Prints the digest, the model kind, what it read and the seconds taken.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from aligner_quality import data_dir, read_split  # noqa: E402

from alignment_core.aligner import AlignerConfig, train  # noqa: E402
from alignment_core.aligner.link_model import (  # noqa: E402
    LinkModelConfig,
    installed_resources,
    train_seed_model,
)


def digest(h, tag: str, alignments, matrices=None) -> None:
    h.update(tag.encode())
    for a in alignments:
        h.update(repr((sorted(a.sure), sorted(a.possible))).encode())
    for m in matrices or []:
        h.update(np.ascontiguousarray(m).tobytes())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="the shared data folder (holding edinburgh/)")
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--gold", type=int, default=40)
    args = ap.parse_args()
    pairs = read_split(data_dir(args.data) / "edinburgh", "train")[: args.pairs]
    sentences = [(p.source, p.target) for p in pairs]
    gold = {n: pairs[n].alignment for n in list(range(0, len(pairs), 2))[: args.gold]}
    h = hashlib.sha256()
    start = time.perf_counter()
    for tag, counted in (("hmm", None), ("hmmgold", gold)):
        hmm = train(sentences, config=AlignerConfig(), gold=counted)
        digest(h, tag, hmm.align(sentences), hmm.posteriors(sentences))
    resources = installed_resources()
    model = train_seed_model(
        sentences, gold, link_config=LinkModelConfig(seed=0), resources=resources
    )
    digest(h, "seed", *model.predict(sentences))
    info = {k: v for k, v in model.info.items() if k != "link_config"}
    h.update(json.dumps(info, sort_keys=True, default=str).encode())
    few = {n: gold[n] for n in list(gold)[:10]}
    fallback = train_seed_model(
        sentences, few, link_config=LinkModelConfig(seed=0), resources=resources
    )
    digest(h, "fallback", *fallback.predict(sentences))
    read = ", ".join(f"{k}: {model.info[k]}" for k in ("wordnet", "vectors", "thesaurus", "tags"))
    print(f"{h.hexdigest()}  {model.kind}; {read}; {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
