"""The checks an import runs before it touches the database: pure functions over AlignedPairs.

The readers in ``alignment_core.formats`` already refuse bad lines with a line number; these
checks repeat what the database needs (pairs may also come straight from the API) and name the
pair id and its 1-based position in the input when no line is known.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError

from alignment_core import AlignedPair, AlignmentError
from alignment_core.formats import textcheck
from annotator.corpora.services.importing_report import DroppedPair, Problem

ID_MAX_LENGTH = 200  # SentencePair.external_id
PROJECT_NAME_MAX_LENGTH = 200  # Project.name
SUBCORPUS_MAX_LENGTH = 100  # Subcorpus.name
USERNAME_MAX_LENGTH = 150  # auth.User.username
MAX_PROBLEMS = 100  # stop collecting after this many: the first ones are what a person fixes
TRIAL_KEY = "trial"

_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}
_username_validator = UnicodeUsernameValidator()


def token_problem(tokens: Any, side: str, *, text: bool = True) -> str | None:
    """Why ``tokens`` cannot be stored as a sentence (non-empty, no whitespace), or None.
    ``text``: also check the characters (``textcheck``); a reader has done so already."""
    if not isinstance(tokens, list | tuple) or not tokens:
        return f"empty {side} sentence (a pair needs tokens on both sides)"
    tokens = list(tokens)
    if not _plain_tokens(tokens):
        for k, tok in enumerate(tokens):
            if not isinstance(tok, str):
                return f"{side} token {k} is not a string: {tok!r}"
            if tok.split() != [tok]:
                return f"{side} token {k} ({tok!r}) is empty or contains whitespace"
    # Storable, visible text on every database (NUL, surrogates, controls, invisible tokens).
    return textcheck.tokens_problem(tokens, side) if text else None


def _plain_tokens(tokens: list[Any]) -> bool:
    """Joining and re-splitting gives the same list exactly when every token is a non-empty
    string without whitespace (the common case, checked in C: ``join`` refuses a non-string)."""
    try:
        return " ".join(tokens).split() == tokens
    except TypeError:
        return False


def project_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name a project, or None."""
    if not isinstance(name, str) or not name.strip():
        return "the project name is empty"
    if len(name) > PROJECT_NAME_MAX_LENGTH:
        return (
            f"the project name has {len(name)} characters, more than the "
            f"{PROJECT_NAME_MAX_LENGTH} allowed"
        )
    if name != name.strip():
        return f"the project name {name!r} has surrounding whitespace"
    return textcheck.name_problem(name, "the project name")


def parse_trial(value: Any) -> bool | None:
    """``metadata["trial"]`` as a bool (readers give a bool; a TSV column gives text)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().casefold()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
    return None


def username_problem(name: Any) -> str | None:
    """Why ``name`` cannot be an annotator's username, or None."""
    if not isinstance(name, str) or not name:
        return "no annotator named (give one, or use a format that names the annotator per pair)"
    if len(name) > USERNAME_MAX_LENGTH:
        return f"annotator name longer than {USERNAME_MAX_LENGTH} characters"
    try:
        _username_validator(name)
    except ValidationError:
        return f"annotator name {name!r} is not a valid username (letters, digits and @.+-_)"
    return None


def _known_subcorpus_problem(name: Any) -> str | None:
    """``subcorpus_problem``, remembered for text (a file names few subcorpora, often)."""
    return _subcorpus_problem_of_text(name) if isinstance(name, str) else subcorpus_problem(name)


@functools.lru_cache(maxsize=1024)
def _subcorpus_problem_of_text(name: str) -> str | None:
    return subcorpus_problem(name)


def subcorpus_problem(name: Any) -> str | None:
    if not isinstance(name, str):
        return f"subcorpus must be text, got {name!r}"
    if len(name) > SUBCORPUS_MAX_LENGTH:
        return f"subcorpus name longer than {SUBCORPUS_MAX_LENGTH} characters"
    if name != name.strip():
        return f"subcorpus name {name!r} has surrounding whitespace"
    return textcheck.name_problem(name, "subcorpus name")


def check_pairs(
    pairs: Sequence[AlignedPair],
    *,
    file: str,
    per_pair_annotator: bool,
    max_tokens: int | None = None,
    first: int = 1,
    read_checked: bool = False,
) -> list[Problem]:
    """Every problem (up to MAX_PROBLEMS) that would stop these pairs being stored.

    ``max_tokens``: the project's longest sentence (tokens, either side). ``first``: the
    input position of ``pairs[0]`` (a chunk of a longer input). ``read_checked``: the pairs
    come from a reader of ``alignment_core.formats``, whose ``PairCollector`` has refused
    (with the file's line) every unstorable character, bad metadata and alignment outside its
    grid: those checks are not run twice; the rest are.

    Ids must be unique; with ``per_pair_annotator`` (annotator mode, names taken from the
    pairs) an id may repeat once per annotator, since one file can hold several people's
    alignments of the same pair.
    """
    problems: list[Problem] = []
    first_seen: dict[Any, int] = {}
    for position, pair in enumerate(pairs, first):
        if len(problems) >= MAX_PROBLEMS:
            break

        def bad(reason: str, pair: AlignedPair = pair, position: int = position) -> None:
            pid = pair.id if isinstance(pair.id, str) else repr(pair.id)
            problems.append(Problem(reason, file=file, pair_id=pid, position=position))

        if not isinstance(pair, AlignedPair):
            problems.append(
                Problem(
                    f"expected an AlignedPair, got {type(pair).__name__}",
                    file=file,
                    position=position,
                )
            )
            continue
        if not isinstance(pair.id, str) or not pair.id.strip():
            bad("empty pair id")
            continue
        if len(pair.id) > ID_MAX_LENGTH:
            bad(f"pair id longer than {ID_MAX_LENGTH} characters")
        elif reason := (
            (None if read_checked else textcheck.name_problem(pair.id, "pair id"))
            or length_problem(pair, max_tokens)
            or token_problem(pair.source, "source", text=not read_checked)
            or token_problem(pair.target, "target", text=not read_checked)
            or _pair_problem(pair, per_pair_annotator, read_checked)
        ):
            bad(reason)
        key = (pair.id, pair.annotator) if per_pair_annotator else pair.id
        first = first_seen.setdefault(key, position)
        if first != position:
            who = f" for annotator {pair.annotator!r}" if per_pair_annotator else ""
            bad(f"duplicate pair id{who} (first seen at pair #{first} of the input)")
    return problems


def length_problem(pair: AlignedPair, max_tokens: int | None) -> str | None:
    """Why a pair is too long for the project (``max_tokens`` a side), or None."""
    if max_tokens is None:
        return None
    for side, tokens in (("source", pair.source), ("target", pair.target)):
        if isinstance(tokens, list | tuple) and len(tokens) > max_tokens:
            return (
                f"the {side} sentence has {len(tokens)} tokens, more than this project's limit "
                f"of {max_tokens} tokens a side (the project's max_tokens; the aligner's time "
                "and memory grow with the square of a sentence's length)"
            )
    return None


def _pair_problem(pair: AlignedPair, per_pair_annotator: bool, read_checked: bool) -> str | None:
    if pair.alignment is not None and not read_checked:
        try:
            pair.alignment.validate(len(pair.source), len(pair.target))
        except AlignmentError as exc:
            return str(exc)
    if not isinstance(pair.metadata, dict):
        return f"metadata must be a mapping, got {type(pair.metadata).__name__}"
    if not read_checked and (reason := textcheck.json_value_problem(pair.metadata, "metadata")):
        return reason
    if TRIAL_KEY in pair.metadata and parse_trial(pair.metadata[TRIAL_KEY]) is None:
        return f"metadata 'trial' must be true or false, got {pair.metadata[TRIAL_KEY]!r}"
    if pair.subcorpus and (reason := _known_subcorpus_problem(pair.subcorpus)):
        return reason
    if per_pair_annotator:
        return username_problem(pair.annotator)
    return None


def length_ratio(n_source: int, n_target: int) -> float:
    """max(N, M) / min(N, M): 1.0 for equal lengths; both lengths are at least 1."""
    return max(n_source, n_target) / min(n_source, n_target)


def filter_length_ratio(
    pairs: Sequence[AlignedPair], max_ratio: float | None, *, first: int = 1
) -> tuple[list[tuple[int, AlignedPair]], list[DroppedPair]]:
    """(kept pairs with their 1-based input positions, dropped pairs) for a ratio bound;
    ``first`` is the input position of ``pairs[0]``.

    The decision is made per id on its first occurrence, so every alignment of a dropped
    pair goes with it.
    """
    if max_ratio is None:  # nothing is dropped
        return list(enumerate(pairs, first)), []
    kept: list[tuple[int, AlignedPair]] = []
    dropped: list[DroppedPair] = []
    decided: dict[str, bool] = {}
    for position, pair in enumerate(pairs, first):
        keep = decided.get(pair.id)
        if keep is None:
            ratio = length_ratio(len(pair.source), len(pair.target))
            keep = max_ratio is None or ratio <= max_ratio
            decided[pair.id] = keep
            if not keep:
                dropped.append(
                    DroppedPair(pair.id, round(ratio, 4), len(pair.source), len(pair.target))
                )
        if keep:
            kept.append((position, pair))
    return kept, dropped


def describe_difference(
    stored: tuple[Sequence[str], Sequence[str]], given: tuple[Sequence[str], Sequence[str]]
) -> str:
    """Where two tokenisations of a pair first differ, in words (0-based token index)."""
    parts = []
    for side, a, b in (("source", stored[0], given[0]), ("target", stored[1], given[1])):
        if list(a) == list(b):
            continue
        if len(a) != len(b):
            parts.append(f"{side} has {len(a)} tokens stored, {len(b)} in the file")
            continue
        k = next(k for k, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
        n_diff = sum(x != y for x, y in zip(a, b, strict=True))
        more = f" (+{n_diff - 1} more)" if n_diff > 1 else ""
        parts.append(f"{side} token {k} is {a[k]!r} stored, {b[k]!r} in the file{more}")
    return "; ".join(parts)


def same_shape(
    stored: tuple[Sequence[str], Sequence[str]], given: tuple[Sequence[str], Sequence[str]]
) -> bool:
    return len(stored[0]) == len(given[0]) and len(stored[1]) == len(given[1])
