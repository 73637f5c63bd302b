"""The default seed model, decided in one place: the app's seeding
(``annotator.seeding.services``) and the CLI's ``align`` (with ``--gold``, or on English text
without it) both call ``train_default_seed_model``, so the two cannot drift apart.

The rule. The built-in English model (``aligner.builtin``) joins when the pairs are English —
their declared languages, else their text (``language.english_verdict``) — and the caller has
not turned it off. Then ``link_training.train_seed_model`` decides by the gold:

* at least ``link_config.min_gold_pairs`` gold pairs: the supervised link model trained on
  them, pooled with the built-in model (on English pairs) at the weight chosen by
  cross-validation on that gold;
* from two gold pairs below that: on English pairs, the built-in model pooled with a model of
  the few pairs (weights from ``link_config.FEW_GOLD_WEIGHTS``); otherwise the HMM alone, the
  gold as observed counts;
* no gold (or one pair): the built-in model on English pairs, else the HMM.

Why the supervised model with gold: it is the best seed measured, in and out of the built-in
model's genre (``docs/benchmarks.md``), and the HMM with the gold as counts is worse than the
built-in model with no gold at all on English paraphrase (MSR RTE2, Edinburgh++).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from alignment_core.aligner.builtin import BuiltinModel, load_builtin
from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.language import english_verdict
from alignment_core.aligner.link_config import LinkModelConfig
from alignment_core.aligner.link_training import train_seed_model
from alignment_core.aligner.seed_model import SeedModel
from alignment_core.aligner.seed_resources import SeedResources
from alignment_core.alignment import Alignment
from alignment_core.progress import Progress

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]


def builtin_for(
    pairs: TokenPairs, source_language: str = "", target_language: str = ""
) -> tuple[BuiltinModel | None, str | None]:
    """The built-in English model when ``pairs`` are English (the declared languages win when
    set, else their text), else None and why: ``"not English (how it was told)"``."""
    english, how = english_verdict(pairs, source_language, target_language)
    if not english:
        return None, f"not English ({how})"
    return load_builtin(), None


def train_default_seed_model(
    pairs: TokenPairs,
    gold: Mapping[int, Alignment] | None = None,
    *,
    config: AlignerConfig | None = None,
    link_config: LinkModelConfig | None = None,
    resources: SeedResources | None = None,
    progress: Progress | None = None,
    source_language: str = "",
    target_language: str = "",
    use_builtin: bool = True,
) -> tuple[SeedModel, str | None]:
    """The default seed model of ``pairs`` with ``gold`` (0-based indices into ``pairs``; see
    the module notes for the rule), and why the built-in English model was not offered (None
    when it was, or when ``use_builtin`` is False: the caller knows why). When it was offered
    and still could not be used (a resource it reads is missing or off), the model's
    ``info["builtin_not_used"]`` says so."""
    builtin, why_not = (
        builtin_for(pairs, source_language, target_language) if use_builtin else (None, None)
    )
    model = train_seed_model(
        pairs,
        gold,
        config=config,
        link_config=link_config,
        resources=resources,
        progress=progress,
        builtin=builtin,
    )
    return model, why_not
