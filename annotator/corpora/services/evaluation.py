"""Evaluate a system's alignments against a project's gold (SPEC §8: the corpus as an
evaluation set).

Pairs are matched by external id. The figures are those of ``python -m alignment_core score
--json`` with the gold as reference B and the system as test A, computed by the same code
(``count_pairs`` → ``word_scores_from_rows`` / ``phrase_scores_from_rows``, which is what
``score_alignments`` runs), micro-averaged over the matched pairs, plus the same figures per
subcorpus from the same per-pair count rows. Trial pairs are never gold here. Nothing is
dropped silently: pairs of the file that were not scored are listed with the reason, and gold
pairs the file lacks are listed as ``missing``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from alignment_core import AlignedPair
from alignment_core.formats import FORMATS, Normalization, guess_format, parse_pairs
from annotator.corpora.services.export import gold_pairs
from annotator.models import Project, SentencePair

LEVELS = ("word", "phrase", "both")
# Ids per lookup query: SQLite allows 32,766 variables by default (fewer when built so), and
# psycopg 65,535 parameters; a file of 292,300 pairs must not be one query.
ID_CHUNK = 5000


def gold_for_evaluation(*, project: Project) -> list[AlignedPair]:
    """The project's non-trial gold pairs, in import order (also the text that a pharaoh or
    naacl system file is read against when it comes without its own)."""
    return list(gold_pairs(project=project, include_trial=False))


def _figures(rows: np.ndarray, level: str) -> dict[str, Any]:
    from alignment_core.agreement.batch import WORD_COLUMNS
    from alignment_core.agreement.phrase import phrase_scores_from_rows
    from alignment_core.agreement.word import word_scores_from_rows

    out: dict[str, Any] = {"pairs": int(rows.shape[0])}
    if level in ("word", "both"):
        out["word"] = word_scores_from_rows(rows[:, : len(WORD_COLUMNS)]).as_dict()
    if level in ("phrase", "both"):
        out["phrase"] = phrase_scores_from_rows(rows[:, len(WORD_COLUMNS) :]).as_dict()
    return out


def _mismatch(system: AlignedPair, gold: AlignedPair) -> str:
    for side in ("source", "target"):
        mine, theirs = getattr(system, side), getattr(gold, side)
        if mine != theirs:
            k = next(
                (k for k, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), None
            )
            if k is None:
                return f"{side} has {len(mine)} tokens in the file, {len(theirs)} in the gold"
            return f"{side} token {k} is {mine[k]!r} in the file, {theirs[k]!r} in the gold"
    return "tokens differ"


def evaluate_alignments(
    *,
    project: Project,
    system: Sequence[AlignedPair],
    level: str = "both",
    include_identical: bool = False,
    gold: Sequence[AlignedPair] | None = None,
) -> dict[str, Any]:
    """Score ``system`` against the gold of ``project``; see the module docstring.

    Raises ValueError for a bad level, a pair without an alignment (a text-only file), or a
    file that matches no gold pair at all.
    """
    return evaluate_chunks(
        project=project,
        chunks=[system],
        level=level,
        include_identical=include_identical,
        gold=gold,
    )


def evaluate_chunks(
    *,
    project: Project,
    chunks: Iterable[Sequence[AlignedPair]],
    level: str = "both",
    include_identical: bool = False,
    gold: Sequence[AlignedPair] | None = None,
) -> dict[str, Any]:
    """``evaluate_alignments`` of the pairs of ``chunks`` taken together (ids unique across
    them), holding one chunk's pairs at a time: each chunk is matched and counted (one row of
    counts per matched pair), and the figures come from all the rows, so the result equals
    ``evaluate_alignments`` of the whole file. Same errors."""
    if level not in LEVELS:
        raise ValueError(f"level: choose one of {', '.join(LEVELS)}, not {level!r}")
    gold = gold_for_evaluation(project=project) if gold is None else gold
    gold_by_id = {p.id: p for p in gold}
    seen: set[str] = set()
    counted: list[np.ndarray] = []
    names: list[str | None] = []
    unmatched: list[dict[str, str]] = []
    mismatched: list[dict[str, str]] = []
    for system in chunks:
        bare = next((p for p in system if p.alignment is None), None)
        if bare is not None:
            raise ValueError(f"pair {bare.id!r} has no alignment (a text-only file?)")
        matched, lost, differ = _match_to_gold(project, system, gold_by_id)
        unmatched += lost
        mismatched += differ
        seen.update(p.id for p in system)
        if matched:
            counted.append(_count(matched, level, include_identical))
            names += [ref.subcorpus for _, ref in matched]
    if not names:
        raise ValueError(
            f"no pair of the file matches a gold pair of project {project.name!r} by id and "
            f"tokens ({len(unmatched)} unknown or without gold, {len(mismatched)} with other "
            "tokens)"
        )
    rows = np.concatenate(counted)
    result = _figures(rows, level)
    by_name = np.array(names, dtype=object)
    result["subcorpora"] = {
        name: _figures(rows[by_name == name], level) for name in sorted(set(names))
    }
    result.update(
        level=level,
        include_identical=include_identical,
        gold_pairs=len(gold),
        unmatched=unmatched,
        token_mismatch=mismatched,
        missing=[p.id for p in gold if p.id not in seen],
    )
    return result


def _count(
    matched: Sequence[tuple[AlignedPair, AlignedPair]], level: str, include_identical: bool
) -> np.ndarray:
    from alignment_core.agreement.batch import (
        count_pairs,  # numba: loaded when first used, never by an idle web process
    )

    return count_pairs(
        ((ref.source, ref.target, mine.alignment, ref.alignment) for mine, ref in matched),
        include_identical=include_identical,
        phrases=level != "word",
    )


def _match_to_gold(
    project: Project, system: Sequence[AlignedPair], gold_by_id: dict[str, AlignedPair]
) -> tuple[list[tuple[AlignedPair, AlignedPair]], list[dict[str, str]], list[dict[str, str]]]:
    """The file's pairs matched to gold by id and tokens; those without gold, each with why;
    those whose tokens differ from the gold pair's."""
    # Only the file's ids without gold are looked up (why: unknown, trial, no gold yet); two
    # lists of every id in the query made the database compare each pair with each id.
    without_gold = sorted({p.id for p in system if p.id not in gold_by_id})
    others: dict[str, bool] = {}
    for start in range(0, len(without_gold), ID_CHUNK):  # under SQLite's variable limit
        chunk = without_gold[start : start + ID_CHUNK]
        others.update(
            SentencePair.objects.filter(project=project, external_id__in=chunk).values_list(
                "external_id", "is_trial"
            )
        )
    matched: list[tuple[AlignedPair, AlignedPair]] = []
    unmatched: list[dict[str, str]] = []
    mismatched: list[dict[str, str]] = []
    for pair in system:
        ref = gold_by_id.get(pair.id)
        if ref is None:
            if pair.id not in others:
                reason = "no pair with this id in the project"
            elif others[pair.id]:
                reason = "a trial pair (never gold)"
            else:
                reason = "the pair has no gold alignment yet"
            unmatched.append({"id": pair.id, "reason": reason})
        elif pair.source != ref.source or pair.target != ref.target:
            mismatched.append({"id": pair.id, "reason": _mismatch(pair, ref)})
        else:
            matched.append((pair, ref))
    return matched, unmatched, mismatched


@dataclass(frozen=True)
class SystemFile:
    """A system's alignment file as the API receives it or the command reads it: its name
    (for the format and for messages), its bytes and, for pharaoh/naacl, its text files as
    ``(name, bytes)``. ``normalize``: clean the tokens as they are read (control characters
    removed, NFC) instead of refusing a file with control characters."""

    name: str
    data: bytes
    fmt: str | None = None
    encoding: str = "utf-8"
    source_text: tuple[str, bytes] | None = None
    target_text: tuple[str, bytes] | None = None
    normalize: bool = False


class EvaluationRefused(ValueError):
    """The file cannot be evaluated; the message names the option or the file and why."""


def evaluate_file(
    *, project: Project, file: SystemFile, level: str = "both", include_identical: bool = False
) -> dict[str, Any]:
    """Read ``file`` in its format and score it against the gold of ``project`` (the API's
    evaluate and ``manage.py evaluate``). pharaoh and naacl are read against their text files:
    both sides one sentence per line, or one pair file (TSV, bitext, JSONL) alone, or by
    default the project's gold pairs in export order. Raises EvaluationRefused, or
    FormatError naming the file and line."""
    fmt = file.fmt or guess_format(file.name)
    if fmt is None:
        raise EvaluationRefused(
            f"format: cannot tell the format of {file.name!r} from its name; give format"
        )
    info = FORMATS[fmt]
    if not info.carries_alignment:
        raise EvaluationRefused(f"format: {fmt} files hold no alignments")
    gold = gold_for_evaluation(project=project)
    norm = Normalization() if file.normalize else None
    kwargs: dict[str, Any] = {"name": file.name, "encoding": file.encoding, "normalize": norm}
    src, tgt = file.source_text, file.target_text
    if info.needs_text:
        if src is not None and tgt is not None:
            kwargs.update(source_lines=src[1], target_lines=tgt[1])
            kwargs.update(source_name=src[0], target_name=tgt[0])
        elif src is not None:
            text_fmt = guess_format(src[0]) or "tsv"
            kwargs["text_pairs"] = parse_pairs(
                src[1], text_fmt, name=src[0], encoding=file.encoding, normalize=norm
            )
            kwargs["text_name"] = src[0]
        elif tgt is not None:
            raise EvaluationRefused(
                "source_text: give it with target_text, or alone as a pair file"
            )
        else:
            kwargs.update(text_pairs=gold, text_name=f"the gold of {project.name!r}")
    elif src is not None or tgt is not None:
        raise EvaluationRefused(f"source_text/target_text: {fmt} files carry their own sentences")
    system = parse_pairs(file.data, fmt, **kwargs)
    try:
        return evaluate_alignments(
            project=project,
            system=system,
            level=level,
            include_identical=include_identical,
            gold=gold,
        )
    except ValueError as exc:
        raise EvaluationRefused(f"{file.name}: {exc}") from None
