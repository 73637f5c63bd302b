"""Agreement between alignments: word and phrase precision / recall / F1 / AER (SPEC §3, §4),
the chance-corrected κ_C (§5), Cohen / Fleiss / Krippendorff (§6) and the report tables.

All indices are 0-based; all figures are fractions in [0, 1]; an undefined figure (0/0, κ with
total chance agreement) is None, never NaN.
"""

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
