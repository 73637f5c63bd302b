"""Sentence alignment of parallel and comparable documents (issue 33), pure Python + numpy.

    from alignment_core.sentalign import align_parallel, html_sentences, match_comparable
    src, src_blocks, _ = html_sentences(page, "de")     # or split_text / lines_as_sentences
    beads = align_parallel(src, tgt, src_blocks=src_blocks, tgt_blocks=tgt_blocks)
    # [Bead(src=(0,), tgt=(0, 1), confidence=0.93), ...]: 0-based indices, every sentence once
    pairs = match_comparable(src, tgt, resources=None)  # [ComparablePair(src, tgt, score)]

Modules: ``split`` (sentences from text or HTML blocks; ``abbreviations``: our own list per
language), ``lexical`` (model-free evidence: numbers, names, cognates), ``ibm1`` (the second
pass's translation table), ``dp`` / ``_kernels`` (the banded DP; numba with plain-Python twins),
``align`` (the passes, anchors), ``confidence`` (calibrated bead confidences),
``comparable`` (pairs from comparable documents), ``score`` (strict / lax bead F1),
``beads`` (the CLI's bead file format).

How the defaults were chosen (``ParallelConfig``), on Text+Berg *dev* only
(sweeps scored with ``sentalign.score`` as ``benchmarks/sentalign.py`` does; the test set
was never read). Strict F1 0.857, lax 0.983 with these defaults:

* bead types up to 1–4 / 4–1 / 2–3 / 3–2: the dev gold has 37 beads of these shapes out of
  381 non-null ones; with the six basic types only they are unreachable;
* lexical cost ``w_lex · log((1 + ε)/(cos + ε)) · (a + b)/2`` with ε = 0.2 (0.855 when chosen)
  rather than ``1 − cos`` (0.852 at its best, and more sensitive to the null cost);
* ``null_cost`` 4 per sentence (3: 0.81, 5: 0.845), ``w_lex`` 2 (3: 0.82), ``w_ibm1`` 3 (2 the
  same, 5: 0.853); type penalties 2 for 1–2 / 2–1, 4 for 2–2 / 1–3 / 3–1, 6 for the rest
  (halving or raising them cost 0.02–0.4);
* more IBM1 passes change nothing on dev (one is kept, it is cheaper); IBM1 trains on beads
  of confidence ≥ 0.9 (0.0-0.9 all within 0.84-0.857);
* Gale–Church variance 6.8 (4: 0.797, 10: 0.848); cognate prefix 4 (3 or 5: 0.853, 6: 0.838);
  numbers weigh 3 (1.5: 0.81, 5: 0.844), names 1.5 (1: 0.843, 2: 0.852); the second-pass
  radius (6-20) makes no difference;
* the first pass's band is 128 cells wide around the *length diagonal* (where the running
  character counts of both sides meet), recentred on the path and doubled wherever the path
  comes near its edge; dev's F1 is the same as with the earlier ~6·√length band around the
  straight diagonal, and time and memory now grow linearly with the documents (two
  160,000-sentence documents in under 1 GB; ``benchmarks/sentalign.py``). IBM1 trains on at
  most 2 M word-pair cells of confident beads (a sample spread over longer documents):
  dev's training set is far below it, and 40,000-sentence documents score the same F1
  (0.786) with and without the bound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from alignment_core._lazy import lazy_names

if TYPE_CHECKING:
    from alignment_core.sentalign.align import Bead, ParallelConfig, align_parallel
    from alignment_core.sentalign.comparable import (
        ComparableConfig,
        ComparablePair,
        match_comparable,
    )
    from alignment_core.sentalign.split import (
        Block,
        html_blocks,
        html_sentences,
        lines_as_sentences,
        split_text,
    )

__all__ = [
    "Bead",
    "Block",
    "ComparableConfig",
    "ComparablePair",
    "ParallelConfig",
    "align_parallel",
    "html_blocks",
    "html_sentences",
    "lines_as_sentences",
    "match_comparable",
    "split_text",
]

# The public names, loaded on first use (PEP 562): the sentence splitter (``split``) must not
# load numba and scipy through the aligning kernels; a Django web process splits documents
# but never aligns them (the worker does).
_LAZY = {
    **dict.fromkeys(("Bead", "ParallelConfig", "align_parallel"), "align"),
    **dict.fromkeys(("ComparableConfig", "ComparablePair", "match_comparable"), "comparable"),
    **dict.fromkeys(
        ("Block", "html_blocks", "html_sentences", "lines_as_sentences", "split_text"), "split"
    ),
}


__getattr__, __dir__ = lazy_names(
    __name__, {name: (f"{__name__}.{module}", name) for name, module in _LAZY.items()}, __all__
)
