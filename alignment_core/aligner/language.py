"""Is a corpus English? Told from the text itself (issue 34: the built-in English model seeds
only English pairs), unless the project declares its languages.

``english_share(sentences)`` is the share of tokens that are one of a short list of English
function words (articles, pronouns, auxiliaries, prepositions, conjunctions): about 0.4 in
English prose and well under 0.1 in German, French, Spanish or Dutch (words they share with
English, "in", "a", "was", "die", are left off the list). ``is_english`` asks it of both sides.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# English function words that are not also common words of German, French, Spanish, Italian,
# Dutch or Portuguese (so "in", "a", "an", "die", "was", "will", "so" are left out).
ENGLISH_WORDS = frozenset(
    """the of and to is that for it with as on be at by this had not are but from or have
    they which you were his her their has been would there who what when said its he she we
    them than more other these those into about after could should our your my me him how
    any some such only also over just can did does do being because while where why whom
    whose each both through during before under between against without upon its it's
    i isn't don't doesn't didn't won't can't were n't 's""".split()  # noqa: SIM905 - a word list
)
# The share of a side's tokens in ENGLISH_WORDS from which the side counts as English.
ENGLISH_SHARE = 0.15
# At most this many tokens per side are looked at (a corpus's first pairs say enough).
SAMPLE_TOKENS = 20000


def english_share(sentences: Iterable[Sequence[str]]) -> float:
    """The share of the tokens (up to ``SAMPLE_TOKENS``) that are English function words."""
    seen = hits = 0
    for sentence in sentences:
        for token in sentence:
            seen += 1
            hits += token.casefold() in ENGLISH_WORDS
        if seen >= SAMPLE_TOKENS:
            break
    return hits / seen if seen else 0.0


def declared_english(source: str, target: str) -> bool | None:
    """What a project's declared languages (ISO 639 codes, e.g. "en", "en-GB") say: True when
    both are English, False when one is declared and is not, None when neither is declared."""
    codes = [c.strip().casefold() for c in (source, target)]
    if not any(codes):
        return None
    return all(c == "en" or c.startswith(("en-", "en_")) for c in codes)


def english_verdict(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]], source: str = "", target: str = ""
) -> tuple[bool, str]:
    """Whether the pairs are English, and how that was decided: the declared languages win
    when set; else the text's share of English function words on each side."""
    declared = declared_english(source, target)
    if declared is not None:
        return declared, f"declared languages {source or '?'}/{target or '?'}"
    shares = [english_share(side) for side in ((s for s, _ in pairs), (t for _, t in pairs))]
    verdict = bool(pairs) and min(shares) >= ENGLISH_SHARE
    return verdict, (
        f"English function words are {shares[0]:.0%} / {shares[1]:.0%} of the two sides' "
        f"tokens (English from {ENGLISH_SHARE:.0%})"
    )
