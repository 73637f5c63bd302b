"""What an import did (``ImportReport``) and why it refused (``CorpusImportError``).

Both are plain values: the report is JSON-able (``as_dict``) so a Job can store it as its
result, and the error carries every problem found, each naming the file, the line when the
reader knows it (otherwise the pair id and its 1-based position in the input) and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from alignment_core.formats.shorten import REASON_LIMIT, cut_middle
from annotator.common.exceptions import RefusedInput

MAX_SHOWN_PROBLEMS = 10
MAX_SHOWN_MISMATCHES = 10
MAX_SHOWN_DROPPED = 20


@dataclass(frozen=True)
class Problem:
    """One reason an import was refused."""

    reason: str
    file: str = ""
    line: int | None = None
    pair_id: str | None = None
    position: int | None = None  # 1-based index of the pair in the input

    def __str__(self) -> str:
        # Long values (a 5,000-character id) are cut in the middle so that the file, the line
        # and the reason stay visible in a one-line reason.
        where = cut_middle(self.file or "<input>", REASON_LIMIT)
        if self.line is not None:
            where = f"{where}:{self.line}"
        if self.pair_id is not None:
            where += f": pair {cut_middle(self.pair_id)!r}"
            if self.line is None and self.position is not None:
                where += f" (pair #{self.position} of the input)"
        elif self.line is None and self.position is not None:
            where += f": pair #{self.position} of the input"
        return f"{where}: {cut_middle(self.reason, REASON_LIMIT)}"


class CorpusImportError(RefusedInput):
    """An import was refused and nothing was written. ``str()`` lists the problems found.

    ``file``, ``line``, ``pair_id`` and ``reason`` describe the first problem; ``problems``
    holds all of them (validation keeps going so one run shows every bad line it can).
    """

    def __init__(self, problems: Sequence[Problem] | Problem) -> None:
        if isinstance(problems, Problem):
            problems = [problems]
        if not problems:
            raise ValueError("CorpusImportError needs at least one problem")
        self.problems = list(problems)
        first = self.problems[0]
        self.reason = first.reason
        self.file = first.file
        self.line = first.line
        self.pair_id = first.pair_id
        lines = [str(p) for p in self.problems[:MAX_SHOWN_PROBLEMS]]
        hidden = len(self.problems) - len(lines)
        if hidden:
            lines.append(f"... and {hidden} more problem(s)")
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class DroppedPair:
    """A pair left out by the length-ratio filter: ratio = max(N, M) / min(N, M)."""

    id: str
    ratio: float
    source_length: int
    target_length: int


@dataclass(frozen=True)
class TokenMismatch:
    """A file's tokens for a pair differ from the pair already stored (or seen earlier).

    ``action`` is "skipped" (the file's alignment was not loaded) or "attached" (same grid
    shape, so the alignment was loaded onto the stored tokens).
    """

    id: str
    file: str
    annotator: str | None
    action: str
    detail: str


def _zero_links() -> dict[str, int]:
    return {"sure": 0, "possible": 0}


@dataclass
class ImportReport:
    """Counts and lists describing one import (of one or several files).

    ``pairs_matched`` counts pairs that were already in the project when their file was
    imported (a second annotator's file over the same pairs matches every pair).
    ``links`` counts the links written, by kind; ``links_by_annotator`` the same per
    annotator username in annotator mode.
    """

    files: list[str] = field(default_factory=list)
    load_alignments_as: str | None = None
    dry_run: bool = False
    pairs_read: int = 0
    pairs_created: int = 0
    pairs_matched: int = 0
    trial_pairs_created: int = 0
    max_length_ratio: float | None = None
    dropped: list[DroppedPair] = field(default_factory=list)
    token_mismatches: list[TokenMismatch] = field(default_factory=list)
    alignments_written: int = 0
    alignments_unchanged: int = 0
    gold_replaced: int = 0
    links: dict[str, int] = field(default_factory=_zero_links)
    links_by_annotator: dict[str, dict[str, int]] = field(default_factory=dict)
    subcorpora_created: list[str] = field(default_factory=list)
    users_created: list[str] = field(default_factory=list)
    aligner_runs: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # --normalize / "normalize": tokens cleaned (control characters removed, NFC) as read
    normalized: bool = False
    tokens_normalized: int = 0
    pairs_normalized: int = 0

    def add_links(self, sure: int, possible: int, annotator: str | None = None) -> None:
        self.links["sure"] += sure
        self.links["possible"] += possible
        if annotator is not None:
            counts = self.links_by_annotator.setdefault(annotator, _zero_links())
            counts["sure"] += sure
            counts["possible"] += possible

    def merge(self, other: ImportReport) -> None:
        """Add another file's report to this one (same options, next file)."""
        self.files += other.files
        for name in (
            "pairs_read",
            "pairs_created",
            "pairs_matched",
            "trial_pairs_created",
            "alignments_written",
            "alignments_unchanged",
            "gold_replaced",
            "tokens_normalized",
            "pairs_normalized",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.dropped += other.dropped
        self.token_mismatches += other.token_mismatches
        self.add_links(other.links["sure"], other.links["possible"])
        for name, counts in other.links_by_annotator.items():
            mine = self.links_by_annotator.setdefault(name, _zero_links())
            mine["sure"] += counts["sure"]
            mine["possible"] += counts["possible"]
        self.subcorpora_created += [
            s for s in other.subcorpora_created if s not in self.subcorpora_created
        ]
        self.users_created += [u for u in other.users_created if u not in self.users_created]
        self.aligner_runs += other.aligner_runs
        self.warnings += other.warnings
        self.normalized = self.normalized or other.normalized

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form (what a Job stores as its result)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImportReport:
        """The report ``as_dict`` wrote (a Job's result); unknown keys are ignored."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["dropped"] = [DroppedPair(**d) for d in known.get("dropped", [])]
        known["token_mismatches"] = [TokenMismatch(**m) for m in known.get("token_mismatches", [])]
        return cls(**known)

    def summary_lines(self) -> list[str]:
        """A human summary, one fact per line (the command prints these)."""
        head = "DRY RUN, nothing written: " if self.dry_run else ""
        out = [
            f"{head}{self.pairs_read} pairs read from {len(self.files)} file(s): "
            f"{self.pairs_created} created ({self.trial_pairs_created} trial), "
            f"{self.pairs_matched} already present"
        ]
        if self.normalized:
            out.append(
                f"normalized: {self.tokens_normalized} token(s) cleaned in "
                f"{self.pairs_normalized} pair(s) (control characters removed, Unicode NFC)"
            )
        if self.subcorpora_created:
            out.append(f"subcorpora created: {', '.join(self.subcorpora_created)}")
        if self.max_length_ratio is not None:
            bound = f"{self.max_length_ratio:g}"
            out.append(f"length-ratio filter (> {bound}): dropped {len(self.dropped)} pairs")
            out += [
                f"  {d.id} (ratio {d.ratio:.2f}: {d.source_length} vs {d.target_length} tokens)"
                for d in self.dropped[:MAX_SHOWN_DROPPED]
            ]
            if len(self.dropped) > MAX_SHOWN_DROPPED:
                out.append(f"  ... and {len(self.dropped) - MAX_SHOWN_DROPPED} more")
        if self.load_alignments_as:
            out.append(
                f"alignments loaded as {self.load_alignments_as}: {self.alignments_written} written "
                f"({self.links['sure']} sure, {self.links['possible']} possible links), "
                f"{self.alignments_unchanged} already present and identical"
                + (f", {self.gold_replaced} gold replaced" if self.gold_replaced else "")
            )
            for name, counts in sorted(self.links_by_annotator.items()):
                out.append(
                    f"  annotator {name}: {counts['sure']} sure, {counts['possible']} possible"
                )
        if self.users_created:
            out.append(f"users created (inactive, no password): {', '.join(self.users_created)}")
        if self.aligner_runs:
            out.append(f"seed aligner runs: {', '.join(map(str, self.aligner_runs))}")
        if self.token_mismatches:
            actions = sorted({m.action for m in self.token_mismatches})
            out.append(
                f"token mismatches ({len(self.token_mismatches)}, {' / '.join(actions)}): "
                "pairs whose file tokens differ from the stored ones"
            )
        for m in self.token_mismatches[:MAX_SHOWN_MISMATCHES]:
            who = f" (annotator {m.annotator})" if m.annotator else ""
            out.append(f"  {m.action}: pair {m.id!r}{who} in {m.file}: {m.detail}")
        if len(self.token_mismatches) > MAX_SHOWN_MISMATCHES:
            hidden = len(self.token_mismatches) - MAX_SHOWN_MISMATCHES
            out.append(f"  ... and {hidden} more (the JSON report lists them all)")
        out += [f"warning: {w}" for w in self.warnings]
        return out
