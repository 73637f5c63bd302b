"""Settings of the seeding aligner (SPEC §7). Defaults are the tuned ones (see the README note
in ``alignment_core/aligner/__init__.py``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from alignment_core.aligner.symmetrize import METHODS


@dataclass(frozen=True)
class AlignerConfig:
    """How to train and symmetrise. All fields are plain JSON-able values.

    * ``ibm1_iterations`` / ``hmm_iterations``: EM iterations of IBM Model 1 (which initialises
      the HMM) and of the HMM; with 0 HMM iterations the model aligns with IBM1 alone.
    * ``identity_lexicon``: add every word type paired with itself as an extra training pair
      (SPEC §7, monolingual corpora), each counted ``identity_weight`` times.
    * ``lowercase``: the model sees casefolded tokens (output positions are unchanged).
    * ``t_smoothing``: add-α smoothing of the translation table in every M-step (Moore 2004):
      damps rare words' "garbage collection". EM then climbs the posterior under a symmetric
      Dirichlet prior, and the recorded objective includes ``α · Σ log t``.
    * ``null_prob``: p0, the HMM's probability of a transition into the empty word.
    * ``jump_exact``: jumps up to this width (either way) have their own class; wider jumps
      share log2-spaced buckets (``jump_buckets`` per side).
    * ``end_jump``: the HMM also scores the jump from the last aligned word to the virtual
      position after the sentence, anchoring the end as the start is anchored.
    * ``gold_lambda``: λ of seeds/004 — hand-aligned pairs' observed counts weigh λ, the other
      pairs' expected counts 1 − λ (only when gold is given).
    * ``gold_possible_weight``: a possible gold link's weight relative to a sure one when a
      word's unit of observed count is split over its links.
    * ``symmetrize``: ``intersect`` | ``union`` | ``grow-diag`` | ``grow-diag-final`` |
      ``grow-diag-final-and``.
    * ``threads``: 1 runs the two directions one after the other; 2 or more run them side by
      side, and a large corpus's E-step chunks on up to ``threads`` workers. The results do
      not depend on it.
    * ``unseen_prob``: translation probability of a word pair never seen in training.
    * ``chunk_pairs``: EM runs over chunks of this many pairs (``workspace``): memory per chunk
      grows with it. Chunk sums are added in chunk order, so the model is bit-identical for
      the same chunking, and the same up to floating-point summation order for another.
    """

    ibm1_iterations: int = 5
    hmm_iterations: int = 5
    identity_lexicon: bool = True
    identity_weight: float = 10.0
    lowercase: bool = True
    null_prob: float = 0.2
    t_smoothing: float = 0.0
    jump_exact: int = 7
    jump_buckets: int = 4
    end_jump: bool = True
    gold_lambda: float = 0.9
    gold_possible_weight: float = 1.0
    symmetrize: str = "intersect"
    threads: int = 2
    unseen_prob: float = 1e-7
    chunk_pairs: int = 5_000

    def __post_init__(self) -> None:
        problems = []
        if self.ibm1_iterations < 0 or self.hmm_iterations < 0:
            problems.append("iterations must be >= 0")
        if self.ibm1_iterations + self.hmm_iterations == 0:
            problems.append("at least one EM iteration is needed")
        if not 0.0 < self.null_prob < 1.0:
            problems.append("null_prob must lie in (0, 1)")
        if not 0.0 <= self.gold_lambda <= 1.0:
            problems.append("gold_lambda must lie in [0, 1]")
        if self.t_smoothing < 0:
            problems.append("t_smoothing must be >= 0")
        if self.identity_weight < 0 or self.gold_possible_weight < 0:
            problems.append("weights must be >= 0")
        if self.jump_exact < 1 or self.jump_buckets < 0:
            problems.append("jump_exact must be >= 1 and jump_buckets >= 0")
        if self.symmetrize not in METHODS:
            problems.append(f"symmetrize must be one of {', '.join(METHODS)}")
        if self.threads < 1:
            problems.append("threads must be >= 1")
        if self.chunk_pairs < 1:
            problems.append("chunk_pairs must be >= 1")
        if not 0.0 < self.unseen_prob < 1.0:
            problems.append("unseen_prob must lie in (0, 1)")
        if problems:
            raise ValueError("AlignerConfig: " + "; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AlignerConfig:
        """Build from a dict, ignoring keys this version does not know (older/newer files)."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})

    def replace(self, **changes: Any) -> AlignerConfig:
        return dataclasses.replace(self, **changes)
