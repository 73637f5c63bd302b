"""Import sentence pairs, with or without alignments, into a project (issue 2: Import).

``import_pairs`` stores pairs already read (by ``alignment_core.formats`` or the API);
``import_files`` / ``import_file`` read files first, then import them together. Alignments can
be loaded as gold, as seeds (one imported AlignerRun per file) or as an annotator's submitted
annotations.

All or nothing: everything is checked before anything is written, the writes happen in one
transaction, and any problem raises ``CorpusImportError`` (file, line or pair, reason) with the
database unchanged. Pairs already in the project (same external id) are matched, never
rewritten: a file may only attach alignments to them, and its tokens must be the stored ones.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Model

from alignment_core import AlignedPair
from alignment_core.formats import (
    FORMATS,
    FormatError,
    Normalization,
    guess_format,
    iter_pair_chunks,
)
from alignment_core.progress import Progress, part, silent
from annotator.corpora.services.importing_checks import (
    check_pairs,
    filter_length_ratio,
    subcorpus_problem,
    username_problem,
)
from annotator.corpora.services.importing_plan import (
    PlanNotes,
    plan_pairs,
    plan_warnings,
    write_pairs,
)
from annotator.corpora.services.importing_report import (
    CorpusImportError,
    DroppedPair,
    ImportReport,
    Problem,
    TokenMismatch,
)
from annotator.corpora.services.importing_write import (
    check_alignment_conflicts,
    resolve_annotators,
    write_alignments,
)
from annotator.corpora.services.maintenance import analyze_tables, settle_after_commit
from annotator.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    GoldRevision,
    Project,
    SeedAlignment,
    SentencePair,
)
from annotator.projects.services import member_rules

# The tables an import writes besides the pairs, by ``load_alignments_as``: settled after a
# large import (``services.maintenance``).
WRITTEN_BY_MODE = {
    "gold": (GoldAlignment, GoldRevision),
    "seed": (SeedAlignment,),
    "annotator": (Assignment, Annotation, AnnotationRevision),
}

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

__all__ = [
    "CorpusImportError",
    "DroppedPair",
    "ImportReport",
    "ImportSource",
    "LOAD_MODES",
    "TOKEN_MISMATCH_POLICIES",
    "TokenMismatch",
    "import_file",
    "import_files",
    "import_pair_chunks",
    "import_pairs",
    "read_source",
]

LOAD_MODES = ("gold", "seed", "annotator")
# error: a file whose tokens differ from a stored pair is refused;
# skip: that pair's alignment is not loaded (reported);
# same-shape: loaded onto the stored tokens when both sides have the same token counts
#   (the MSR RTE data has annotator C writing ".." for "." in 41 pairs), else skipped.
TOKEN_MISMATCH_POLICIES = ("error", "skip", "same-shape")


def import_pairs(
    *,
    project: Project,
    pairs: Sequence[AlignedPair],
    load_alignments_as: str | None = None,
    annotator: AbstractBaseUser | str | None = None,
    subcorpus: str | None = None,
    max_length_ratio: float | None = None,
    progress: Progress | None = None,
    source_name: str = "",
    on_token_mismatch: str = "error",
    replace_gold: bool = False,
    dry_run: bool = False,
    settle: bool = True,
    added_by: Any = None,
) -> ImportReport:
    """Store ``pairs`` in ``project``; optionally load their alignments. Returns what it did.

    * ``load_alignments_as``: None (text only; alignments in the input are ignored with a
      warning), "gold" (GoldAlignment, origin imported; an existing different gold is an error
      unless ``replace_gold``), "seed" (one AlignerRun kind=imported, note=``source_name``)
      or "annotator" (a submitted Assignment + Annotation v1 + its first revision).
    * ``annotator``: for "annotator" mode, a User or a username (created inactive, with no
      usable password, when missing); None takes each pair's ``AlignedPair.annotator``.
      Every annotator becomes an annotator member of the project. An annotator's existing
      work on a pair is never overwritten: identical links count as unchanged, others are an
      error.
    * ``subcorpus``: the subcorpus of pairs that name none themselves (a TSV column or an
      Edinburgh id prefix names one), as ``read_pairs(subcorpus=...)`` does.
    * ``metadata["trial"]`` sets is_trial; the key is not kept in the stored metadata
      (is_trial is the one place it lives). Other metadata is stored as given.
    * ``max_length_ratio``: pairs with max(N, M) / min(N, M) above it are not imported;
      the report lists them.
    * ``on_token_mismatch``: see TOKEN_MISMATCH_POLICIES.
    * ``progress(fraction, message)`` is called as work advances; ``dry_run`` does everything
      and rolls back. ``source_name`` names the input in errors, notes and the report.
    * ``settle``: a large import vacuums its tables once committed (:func:`_settle_later`);
      a caller importing several inputs in one transaction passes False and settles once.
    * ``added_by``: who imports (the job's user), for "annotator" mode: every annotator must
      be someone they may add (``member_rules.may_add``), else the import is refused with the
      same words whether the account exists or not, and no account is created. None: the
      server's operator (a management command), who may load anyone and create accounts.

    Raises CorpusImportError (a ValueError) with nothing written; ValueError for bad options.
    """
    return import_pair_chunks(
        project=project, chunks=[pairs], load_alignments_as=load_alignments_as,
        annotator=annotator, subcorpus=subcorpus, max_length_ratio=max_length_ratio,
        progress=progress, source_name=source_name, on_token_mismatch=on_token_mismatch,
        replace_gold=replace_gold, dry_run=dry_run, settle=settle, added_by=added_by,
    )  # fmt: skip


@dataclass
class _Stream:
    """What the chunks of one input share: how many pairs came before, the planning notes
    (warnings are worded once, for the whole input), the seed run of the input, and where the
    progress stands."""

    read: int = 0
    notes: PlanNotes = field(default_factory=PlanNotes)
    seed_runs: dict[str, Any] = field(default_factory=dict)
    fraction: float = 0.0


def import_pair_chunks(
    *,
    project: Project,
    chunks: Iterable[Sequence[AlignedPair]],
    read_fraction: Callable[[], float] | None = None,
    load_alignments_as: str | None = None,
    annotator: AbstractBaseUser | str | None = None,
    subcorpus: str | None = None,
    max_length_ratio: float | None = None,
    progress: Progress | None = None,
    source_name: str = "",
    on_token_mismatch: str = "error",
    replace_gold: bool = False,
    dry_run: bool = False,
    settle: bool = True,
    added_by: Any = None,
    read_checked: bool = False,
) -> ImportReport:
    """``import_pairs`` of one input that arrives in ``chunks`` (``iter_pair_chunks``): each
    chunk is checked, matched and written in turn, all in ONE transaction, so a bad line in a
    late chunk leaves nothing written, and memory holds one chunk. ``read_fraction()``, if
    given, says how much of the input the chunks read so far cover (for progress). The
    written tables are analysed once the first chunk is written, if more follow,
    so the later chunks' lookups of stored pairs use their indexes. ``read_checked``: the chunks
    come from a reader that checked their text (``check_pairs``). Options as ``import_pairs``."""
    name = source_name or "<input>"
    _check_options(load_alignments_as, on_token_mismatch, max_length_ratio, subcorpus, annotator)
    tick = progress or silent
    tick(0.0, f"reading {name}")
    report = ImportReport(files=[name], load_alignments_as=load_alignments_as, dry_run=dry_run,
                          max_length_ratio=max_length_ratio)  # fmt: skip
    stream = _Stream()
    options = dict(mode=load_alignments_as, annotator=annotator, subcorpus=subcorpus,
                   max_length_ratio=max_length_ratio, on_token_mismatch=on_token_mismatch,
                   replace_gold=replace_gold, name=name, added_by=added_by,
                   read_checked=read_checked)  # fmt: skip
    with transaction.atomic():
        # One import at a time per project: positions and conflict checks stay true.
        Project.objects.select_for_update().filter(pk=project.pk).exists()
        # A reader refuses an id twice in its file: into a project with no pairs yet, no
        # chunk can meet a stored pair, and the lookups are skipped.
        fresh = read_checked and not SentencePair.objects.filter(project=project).exists()
        options["lookup"] = not fresh
        for count, pairs in enumerate(chunks, 1):
            done = read_fraction() if read_fraction is not None else 1.0
            share = part(tick, stream.fraction, max(done, stream.fraction))
            stream.fraction = done
            if count == 2:  # the first chunk is written: let the planner know
                analyze_tables(models=_written_models(load_alignments_as))
            _import_chunk(project, pairs, stream=stream, report=report, tick=share, **options)
        if not stream.read:
            raise CorpusImportError(
                Problem(
                    "no sentence pairs to import: the input is empty (or only blank)", file=name
                )
            )
        report.warnings += plan_warnings(load_alignments_as, stream.notes)
        if dry_run:
            transaction.set_rollback(True)
        elif settle:
            _settle_later(report)
    tick(1.0, "done")
    return report


def _import_chunk(
    project: Project,
    pairs: Sequence[AlignedPair],
    *,
    stream: _Stream,
    report: ImportReport,
    tick: Progress,
    mode: str | None,
    annotator: AbstractBaseUser | str | None,
    subcorpus: str | None,
    max_length_ratio: float | None,
    on_token_mismatch: str,
    replace_gold: bool,
    name: str,
    added_by: Any,
    read_checked: bool,
    lookup: bool,
) -> None:
    """Check, match and write one chunk of an input (inside the import's transaction)."""
    first = stream.read + 1  # the input position of the chunk's first pair
    tick(0.0, f"checking {len(pairs)} pairs")
    fixed_name = _check_input(pairs, project=project, name=name, mode=mode, annotator=annotator,
                              first=first, read_checked=read_checked)  # fmt: skip
    kept, dropped = filter_length_ratio(pairs, max_length_ratio, first=first)
    report.dropped += dropped
    report.pairs_read += len(pairs)
    stream.read += len(pairs)
    tick(0.1, "checked")
    given = None if isinstance(annotator, str) else annotator
    plan = plan_pairs(
        project=project, kept=kept, name=name, mode=mode, fixed_name=fixed_name,
        subcorpus=subcorpus, on_token_mismatch=on_token_mismatch, report=report,
        notes=stream.notes, lookup=lookup,
    )  # fmt: skip
    _check_against_project(
        project, plan, mode=mode, given=given, replace_gold=replace_gold, name=name,
        report=report, added_by=added_by,
    )  # fmt: skip
    tick(0.25, "checked against the project")
    write_pairs(project=project, plan=plan, report=report, tick=part(tick, 0.25, 0.75),
                keys=bool(plan.loads))  # fmt: skip
    if plan.loads:
        _write_loads(
            project, plan, mode=mode or "", given=given, replace_gold=replace_gold, name=name,
            report=report, tick=part(tick, 0.75, 1.0), seed_runs=stream.seed_runs,
        )  # fmt: skip


def _check_input(
    pairs: Sequence[AlignedPair],
    *,
    project: Project,
    name: str,
    mode: str | None,
    annotator: AbstractBaseUser | str | None,
    first: int = 1,
    read_checked: bool = False,
) -> str | None:
    """Check the pairs on their own (before the database is asked anything); raise
    CorpusImportError listing every problem. ``first``: the input position of ``pairs[0]``.
    Returns the one annotator's name for "annotator" mode with a given annotator, else None."""
    per_pair_annotator = mode == "annotator" and annotator is None
    problems = check_pairs(
        pairs,
        file=name,
        per_pair_annotator=per_pair_annotator,
        max_tokens=project.max_tokens,
        first=first,
        read_checked=read_checked,
    )
    fixed_name: str | None = None
    if mode == "annotator" and annotator is not None:
        fixed_name = annotator if isinstance(annotator, str) else annotator.get_username()
        if reason := username_problem(fixed_name):
            problems.insert(0, Problem(reason, file=name))
    if problems:
        raise CorpusImportError(problems)
    return fixed_name


def _check_against_project(
    project: Project,
    plan: Any,
    *,
    mode: str | None,
    given: AbstractBaseUser | None,
    replace_gold: bool,
    name: str,
    report: ImportReport,
    added_by: Any,
) -> None:
    """Refuse annotators the importer may not add (before any account is made), and
    alignments that would overwrite different work already in the project."""
    names = sorted({load.annotator for load in plan.loads if load.annotator})
    if mode == "annotator":
        if given is not None:
            names = sorted({*names, given.get_username()})
        refused = member_rules.not_addable_names(project=project, by=added_by, names=names)
        if refused:
            raise CorpusImportError(
                [Problem(member_rules.not_addable(n), file=name) for n in refused]
            )
    users = resolve_annotators(
        project=project,
        names=names,
        given=given,
        report=report,
        create=False,
    )
    problems = check_alignment_conflicts(
        mode=mode,
        loads=[load for load in plan.loads if load.pair_pk is not None],
        users=users,
        replace_gold=replace_gold,
        file=name,
    )
    if problems:
        raise CorpusImportError(problems)


def _write_loads(
    project: Project,
    plan: Any,
    *,
    mode: str,
    given: AbstractBaseUser | None,
    replace_gold: bool,
    name: str,
    report: ImportReport,
    tick: Progress,
    seed_runs: dict[str, Any],
) -> None:
    """Write the plan's alignments, the annotators they need created first, each onto its pair
    (new pairs have their primary keys now). ``seed_runs``: the input's AlignerRun, shared by
    its chunks (seed mode)."""
    users = resolve_annotators(
        project=project,
        names=sorted({load.annotator for load in plan.loads if load.annotator}),
        given=given,
        report=report,
        create=True,
    )
    for load in plan.loads:
        if load.pair_pk is None:
            load.pair_pk = plan.new_pks[load.pair.id]
    write_alignments(
        project=project,
        mode=mode,
        loads=plan.loads,
        users=users,
        replace_gold=replace_gold,
        file=name,
        report=report,
        tick=tick,
        seed_runs=seed_runs,
    )


def _written_models(mode: str | None) -> tuple[type[Model], ...]:
    """The tables an import in ``mode`` writes to."""
    return (SentencePair, *WRITTEN_BY_MODE.get(mode or "", ()))


def _settle_later(report: ImportReport) -> None:
    """After the commit, VACUUM (ANALYZE) the tables the import wrote, if it wrote many rows
    (``services.maintenance``); nothing if the transaction rolls back."""
    settle_after_commit(
        models=_written_models(report.load_alignments_as),
        rows=report.pairs_created + report.alignments_written,
    )


def _check_options(
    mode: str | None,
    policy: str,
    max_ratio: float | None,
    subcorpus: str | None,
    annotator: AbstractBaseUser | str | None = None,
) -> None:
    if mode is not None and mode not in LOAD_MODES:
        raise ValueError(f"load_alignments_as must be one of {LOAD_MODES} or None, not {mode!r}")
    if policy not in TOKEN_MISMATCH_POLICIES:
        raise ValueError(f"on_token_mismatch must be one of {TOKEN_MISMATCH_POLICIES}")
    if max_ratio is not None and not max_ratio >= 1.0:
        raise ValueError(f"max_length_ratio must be at least 1 (it is max/min), got {max_ratio}")
    if subcorpus is not None:
        reason = "empty name" if not subcorpus else subcorpus_problem(subcorpus)
        if reason:
            raise ValueError(f"subcorpus: {reason}")
    if annotator is not None and mode != "annotator":
        raise ValueError("annotator only applies to load_alignments_as='annotator'")


# -- files ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportSource:
    """One file to import and how to read it (see ``alignment_core.formats.read_pairs``).

    ``fmt`` None guesses from the name. ``source_text``/``target_text`` give the sentences for
    alignment-only formats (pharaoh, naacl: two one-sentence-per-line files, or
    ``source_text`` alone as a tsv/bitext/jsonl file, format ``text_format`` or guessed) and
    the target side of ``parallel``; ``sure_path`` is Edinburgh's sure-only file beside its
    sure+poss file. ``annotator`` is the username whose annotations these are (annotator
    mode; None = the names inside the file). ``normalize``: clean the tokens as they are read
    (control characters removed, NFC; see ``alignment_core.formats.Normalization``) instead
    of refusing a file with control characters. ``name``: the file's name in errors, reports
    and what the import stores (gold notes, a seed run's note); default the path. An upload
    gives the uploaded file's name: the server's paths never reach people or the database.
    """

    path: str | os.PathLike[str]
    fmt: str | None = None
    encoding: str = "utf-8"
    source_text: str | os.PathLike[str] | None = None
    target_text: str | os.PathLike[str] | None = None
    sure_path: str | os.PathLike[str] | None = None
    annotator: str | None = None
    text_format: str | None = None
    normalize: bool = False
    name: str | None = None

    @property
    def shown_name(self) -> str:
        return self.name or str(self.path)


def read_source(
    source: ImportSource,
    *,
    max_tokens: int | None = None,
    normalization: Normalization | None = None,
) -> list[AlignedPair]:
    """Read one file into pairs; any reader error becomes a CorpusImportError (file:line).
    A sentence longer than ``max_tokens`` (either side) is refused with its line. With
    ``source.normalize`` the tokens are cleaned, counted in ``normalization`` if given."""
    chunks = SourceChunks(source, max_tokens=max_tokens, normalization=normalization)
    return [pair for chunk in chunks for pair in chunk]


class SourceChunks:
    """The pairs of one file in chunks of ``settings.IMPORT_CHUNK_PAIRS``
    (``alignment_core.formats.iter_pair_chunks``: jsonl and tsv are read a line at a time,
    other formats whole); any reader error becomes a CorpusImportError (file:line), raised
    when the chunk holding it is reached. ``fraction()``: the share of the file read so far.
    With ``source.normalize`` the tokens are cleaned, counted in ``normalization`` if given."""

    def __init__(
        self,
        source: ImportSource,
        *,
        max_tokens: int | None = None,
        normalization: Normalization | None = None,
    ) -> None:
        self.source, self.max_tokens = source, max_tokens
        if source.normalize and normalization is None:
            normalization = Normalization()
        self.normalization = normalization if source.normalize else None
        self._fraction = 0.0

    def fraction(self) -> float:
        return self._fraction

    def _read(self, fraction: float, message: str) -> None:
        self._fraction = fraction

    def __iter__(self) -> Iterator[list[AlignedPair]]:
        source = self.source
        name = source.shown_name
        fmt = source.fmt or guess_format(source.path)
        if fmt is None:
            raise CorpusImportError(
                Problem(
                    f"cannot tell the format from the file name; give it ({', '.join(FORMATS)})",
                    file=name,
                )
            )
        try:
            yield from iter_pair_chunks(
                source.path, fmt, chunk_size=settings.IMPORT_CHUNK_PAIRS,
                encoding=source.encoding, source_text=source.source_text,
                target_text=source.target_text, sure_path=source.sure_path,
                text_format=source.text_format, max_tokens=self.max_tokens,
                normalize=self.normalization, progress=self._read,
            )  # fmt: skip
        except FormatError as exc:
            problem = Problem(exc.reason, file=exc.file or name, line=exc.line)
            raise CorpusImportError(problem) from exc
        except UnicodeError as exc:  # a reader should have said so; keep the promise anyway
            raise CorpusImportError(Problem(f"cannot decode: {exc}", file=name)) from exc
        except OSError as exc:
            problem = Problem(f"cannot read: {exc.strerror or exc}", file=name)
            raise CorpusImportError(problem) from exc


def import_files(
    *,
    project: Project,
    sources: Sequence[ImportSource],
    load_alignments_as: str | None = None,
    subcorpus: str | None = None,
    max_length_ratio: float | None = None,
    on_token_mismatch: str = "error",
    replace_gold: bool = False,
    dry_run: bool = False,
    progress: Progress | None = None,
    added_by: Any = None,
) -> ImportReport:
    """Import the files in order in ONE transaction (all files or none), each read in chunks
    (:class:`SourceChunks`) and written chunk by chunk, so memory holds one chunk of pairs: a
    bad line anywhere, even in the last chunk of the last file, leaves nothing written.

    A later file sees the pairs an earlier one created (three annotators' files over the
    same pairs: the first creates them, the others attach). Returns the merged report.
    """
    if not sources:
        raise ValueError("no files to import")
    tick = progress or silent
    cleaned = Normalization()  # counts over every file read with normalize
    report = ImportReport(
        load_alignments_as=load_alignments_as, dry_run=dry_run, max_length_ratio=max_length_ratio
    )
    with _fewer_collections(), transaction.atomic():
        for k, source in enumerate(sources):
            share = part(tick, k / len(sources), (k + 1) / len(sources))
            chunks = SourceChunks(source, max_tokens=project.max_tokens, normalization=cleaned)
            report.merge(
                import_pair_chunks(
                    project=project,
                    chunks=chunks,
                    read_fraction=chunks.fraction,
                    load_alignments_as=load_alignments_as,
                    annotator=source.annotator,
                    subcorpus=subcorpus,
                    max_length_ratio=max_length_ratio,
                    progress=share,
                    source_name=source.shown_name,
                    on_token_mismatch=on_token_mismatch,
                    replace_gold=replace_gold,
                    settle=False,  # once below, for all the files
                    added_by=added_by,
                    read_checked=True,  # SourceChunks' reader checked the text
                )
            )
        if any(source.normalize for source in sources):
            report.normalized = True
            report.tokens_normalized = cleaned.tokens_changed
            report.pairs_normalized = cleaned.pairs_changed
        if dry_run:
            transaction.set_rollback(True)
        else:
            _settle_later(report)
    return report


@contextmanager
def _fewer_collections(threshold: int = 100_000) -> Iterator[None]:
    """Python's cyclic garbage collector less often while an import runs: every chunk is
    thousands of new lists and dicts (pairs, rows), which set off a collection each 700
    allocations, and those scans cost a quarter of the import's own CPU (measured: 4.8 s
    against 3.5 s for 100,000 pairs). The pairs hold no cycles; refcounting frees them."""
    before = gc.get_threshold()
    gc.set_threshold(max(threshold, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def import_file(
    *,
    project: Project,
    path: str | os.PathLike[str],
    fmt: str | None = None,
    encoding: str = "utf-8",
    source_text: str | os.PathLike[str] | None = None,
    target_text: str | os.PathLike[str] | None = None,
    sure_path: str | os.PathLike[str] | None = None,
    annotator: str | None = None,
    text_format: str | None = None,
    **options: Any,
) -> ImportReport:
    """``import_files`` for one file; ``options`` are import_files' keyword options."""
    source = ImportSource(
        path, fmt, encoding, source_text, target_text, sure_path, annotator, text_format
    )
    return import_files(project=project, sources=[source], **options)
