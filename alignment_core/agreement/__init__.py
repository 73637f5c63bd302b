"""Agreement between alignments: word and phrase precision / recall / F1 / AER (SPEC §3, §4),
the chance-corrected κ_C (§5), Cohen / Fleiss / Krippendorff (§6) and the report tables.

All indices are 0-based; all figures are fractions in [0, 1]; an undefined figure (0/0, κ with
total chance agreement) is None, never NaN.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from alignment_core._lazy import lazy_names

if TYPE_CHECKING:
    from alignment_core.agreement.classic import (
        MultiRaterAgreement,
        cohen_kappa_cells,
        fleiss_kappa,
        krippendorff_alpha,
        link_items,
        multi_rater_agreement,
    )
    from alignment_core.agreement.kappa_c import (
        EditModel,
        KappaPair,
        KappaResult,
        KappaSummary,
        fit_edit_model,
        kappa_c,
    )
    from alignment_core.agreement.phrase import (
        PhraseCounts,
        PhraseScores,
        phrase_counts,
        score_alignments,
        score_phrase,
    )
    from alignment_core.agreement.report import PairAnnotations, build_report
    from alignment_core.agreement.word import WordCounts, WordScores, score_word, word_counts

__all__ = [
    "EditModel",
    "KappaPair",
    "KappaResult",
    "KappaSummary",
    "MultiRaterAgreement",
    "PairAnnotations",
    "PhraseCounts",
    "PhraseScores",
    "WordCounts",
    "WordScores",
    "build_report",
    "cohen_kappa_cells",
    "fit_edit_model",
    "fleiss_kappa",
    "kappa_c",
    "krippendorff_alpha",
    "link_items",
    "multi_rater_agreement",
    "phrase_counts",
    "score_alignments",
    "score_phrase",
    "score_word",
    "word_counts",
]

# The public names, loaded on first use (PEP 562): κ_C's chance model runs numba kernels, and
# the web process, which scores words and phrases, must not load numba and scipy for them.
_LAZY = {
    **dict.fromkeys(
        (
            "MultiRaterAgreement",
            "cohen_kappa_cells",
            "fleiss_kappa",
            "krippendorff_alpha",
            "link_items",
            "multi_rater_agreement",
        ),
        "classic",
    ),
    **dict.fromkeys(
        ("EditModel", "KappaPair", "KappaResult", "KappaSummary", "fit_edit_model", "kappa_c"),
        "kappa_c",
    ),
    **dict.fromkeys(
        ("PhraseCounts", "PhraseScores", "phrase_counts", "score_alignments", "score_phrase"),
        "phrase",
    ),
    **dict.fromkeys(("PairAnnotations", "build_report"), "report"),
    **dict.fromkeys(("WordCounts", "WordScores", "score_word", "word_counts"), "word"),
}


__getattr__, __dir__ = lazy_names(
    __name__, {name: (f"{__name__}.{module}", name) for name, module in _LAZY.items()}, __all__
)


class _Package(types.ModuleType):
    """The package's module type: its ``kappa_c`` is the function, as it was when the package
    imported everything at once, although the submodule of the same name is bound here by the
    import system whenever it is first imported (that binding is ignored)."""

    @property
    def kappa_c(self) -> Any:
        from alignment_core.agreement.kappa_c import kappa_c as function

        return function

    @kappa_c.setter
    def kappa_c(self, value: Any) -> None:
        pass  # the submodule, bound by the import system: ``kappa_c`` stays the function


sys.modules[__name__].__class__ = _Package
