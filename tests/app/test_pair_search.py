"""The pair browser's search: a query finds the pairs whose external id holds it, or where
each of its words is part of a token on either side, whatever the letters' case (ASCII
letters on SQLite, as its ``UPPER`` folds). Tokens are matched as text, never the JSON around
them, so punctuation, quotes, wildcards and non-ASCII words find exactly their pairs, on both
databases (the search text is a generated column: ``SentencePair.search_text``)."""

from __future__ import annotations

import pytest
from django.db import connection

from annotator.models import SentencePair
from annotator.projects.selectors.pair_browser import PairFilters, _filtered, snippet

pytestmark = pytest.mark.django_db

PAIRS = {
    "p-1": (["The", "Cat", "sat", ","], ["Le", "chat", "s'assit"]),
    "p-2": (["dogs", "bark", "[", "loudly", "]"], ["les", "chiens", "aboient"]),
    "p-3": (["another", "day"], ["un", "autre", "jour"]),
    "p-4": (["été", "Straße", "50%"], ["夏天", "a_b"]),
    "p-5": (['say"', '"', "\\", "ab"], ["cd", 'x", "y']),
    "q-6": (["rain"], ["pluie"]),
}

QUERIES = [
    "cat", "CAT chat", "cat chiens", "the", "dog", "Dog BARK", ",", '"', "[", "]", "\\",
    "%", "_", "0%", "a_b", "été", "Straße", "夏", "say\"", "bc", "dc", "b\",\"c", '", "',
    'x", "y', "p-", "P-1", "q-6", "rain p-1", "p-1 rain", "nothing",
]  # fmt: skip


def fold(text: str) -> str:
    """Case folding of ASCII letters only: what both databases' ``UPPER`` agree on (the
    queries change no other letter's case)."""
    return text.translate({c: c - 32 for c in range(ord("a"), ord("z") + 1)})


def expected(query: str) -> list[str]:
    """The oracle, pair by pair in Python."""
    found = []
    for external_id, (source, target) in PAIRS.items():
        tokens = [fold(t) for t in source + target]
        by_words = all(any(fold(w) in t for t in tokens) for w in query.split())
        if fold(query) in fold(external_id) or by_words:
            found.append(external_id)
    return found


@pytest.fixture
def corpus(project):
    SentencePair.objects.bulk_create(
        SentencePair(project=project, external_id=e, position=k, source_tokens=s,
                     target_tokens=t)
        for k, (e, (s, t)) in enumerate(PAIRS.items())
    )  # fmt: skip
    return project


def searched(project, query: str) -> list[str]:
    qs = _filtered(project, PairFilters(q=query))
    return list(qs.values_list("external_id", flat=True))


@pytest.mark.parametrize("query", QUERIES)
def test_a_search_finds_the_pairs_whose_tokens_hold_each_word(corpus, query):
    assert searched(corpus, query) == expected(query)


def test_the_oracle_itself_reads_tokens_not_json(corpus):
    # a few answers written out, so that the oracle above cannot be wrong in the same way
    assert expected(",") == ["p-1", "p-5"] and expected('"') == ["p-5"] and expected("[") == ["p-2"]
    assert expected("the") == ["p-1", "p-3"] and expected("bc") == []
    assert expected("%") == ["p-4"] and expected("_") == ["p-4"] and expected("夏") == ["p-4"]
    assert expected("p-") == list(PAIRS)[:5] and expected("nothing") == []


def test_the_search_text_is_kept_when_a_pair_is_edited(corpus):
    pair = SentencePair.objects.get(project=corpus, external_id="q-6")
    pair.target_tokens = ["averse", "»"]
    pair.save()
    assert searched(corpus, "»") == ["q-6"] and searched(corpus, "pluie") == []


def test_pairs_are_read_without_their_search_text(corpus):
    pair = SentencePair.objects.get(project=corpus, external_id="p-1")
    assert "search_text" in pair.get_deferred_fields()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT search_text FROM {SentencePair._meta.db_table} WHERE id = %s", [pair.pk]
        )
        (text,) = cursor.fetchone()
    assert text == "THE CAT SAT , LE CHAT S'ASSIT"


def test_the_list_cuts_a_long_sentence_without_splitting_a_letter_from_its_marks():
    assert snippet(["short", "one"]) == "short one"
    words = ["word"] * 30
    assert snippet(words) == ("word " * 18)[:89] + "…" and len(snippet(words)) == 90
    # "e" + COMBINING ACUTE ACCENT across the cut: the letter goes with its mark
    marked = "x" * 88 + "e\u0301" + "yyyy"
    assert snippet([marked]) == "x" * 88 + "…"
    assert snippet(["x" * 87 + "e\u0301" + "yyyy"]) == "x" * 87 + "e\u0301" + "…"
