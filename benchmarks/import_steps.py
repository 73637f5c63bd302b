"""The measured steps of ``benchmarks/import.py``, one a process (so each peak RSS is its own).

    python benchmarks/import_steps.py migrate | baseline | truncate
    python benchmarks/import_steps.py copy FILE | import FILE

The database is DATABASE_URL's (PostgreSQL or an SQLite file). Prints one JSON line:
``seconds`` (the timed part) and ``rss_mb`` (the process's peak resident set).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUBCORPORA = ("mtc", "news", "novels")


def main(argv: list[str]) -> None:
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    name = argv[0]
    seconds = 0.0
    if name == "migrate":
        call_command("migrate", verbosity=0)
    elif name == "truncate":
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE annotator_sentencepair CASCADE")
            cursor.execute("VACUUM ANALYZE annotator_sentencepair")
    elif name == "copy":
        seconds = copy_anchor(Path(argv[1]))
    elif name == "import":
        seconds = import_figure(Path(argv[1]))
    elif name != "baseline":
        raise SystemExit(f"unknown step {name!r}")
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mb": rss_mb}))


def _project(name: str) -> tuple[int, dict[str, int]]:
    from annotator.models import Project, Subcorpus

    project = Project.objects.create(name=name)
    subs = {s: Subcorpus.objects.create(project=project, name=s).pk for s in SUBCORPORA}
    return project.pk, subs


def _rows(path: Path, project: int, subs: dict[str, int]) -> Iterator[tuple]:
    """The file's rows as the pairs table holds them: split on tabs and spaces, the tokens
    JSON-encoded; nothing checked."""
    dumps = json.dumps
    with path.open(encoding="utf-8") as fh:
        next(fh)  # the header
        for position, line in enumerate(fh, 1):
            pid, source, target, sub = line.rstrip("\n").split("\t")
            yield (project, subs[sub], pid, position, dumps(source.split()),
                   dumps(target.split()), "{}")  # fmt: skip


class _Lines:
    """A file-like object over the COPY lines, encoded as psycopg2 reads them."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines, self.rest = lines, b""

    def read(self, size: int = -1) -> bytes:
        data = [self.rest]
        have = len(self.rest)
        for line in self.lines:
            data.append(line.encode())
            have += len(data[-1])
            if have >= size > 0:
                break
        joined = b"".join(data)
        cut = len(joined) if size < 0 else size
        self.rest = joined[cut:]
        return joined[:cut]

    readline = read


def copy_anchor(path: Path) -> float:
    """Seconds to load the file's rows by psycopg2 ``COPY`` (PostgreSQL) or one sqlite3
    ``executemany`` (SQLite), in one transaction."""
    from django.db import connection, transaction

    project, subs = _project("anchor")
    columns = (
        "project_id, subcorpus_id, external_id, position, source_tokens, target_tokens, "
        "is_trial, metadata, created_at"
    )
    t0 = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        rows = _rows(path, project, subs)
        if connection.vendor == "postgresql":
            lines = ("\t".join(map(str, row[:6])) + "\tf\t{}\tnow\n" for row in rows)
            cursor.cursor.copy_expert(
                f"COPY annotator_sentencepair ({columns}) FROM STDIN", _Lines(lines)
            )
        else:
            now = time.strftime("%Y-%m-%d %H:%M:%S")
            cursor.cursor.executemany(
                f"INSERT INTO annotator_sentencepair ({columns}) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)",
                (row + (now,) for row in rows),
            )
    return time.perf_counter() - t0


def import_figure(path: Path) -> float:
    """Seconds for ``import_file`` of the file into a new project (as the import job runs)."""
    from annotator.corpora.services.importing import import_file
    from annotator.models import Project, SentencePair

    project = Project.objects.create(name="bench")
    t0 = time.perf_counter()
    report = import_file(project=project, path=path, fmt="tsv")
    seconds = time.perf_counter() - t0
    stored = SentencePair.objects.filter(project=project).count()
    assert report.pairs_created == stored > 0, (report.pairs_created, stored)
    return seconds


if __name__ == "__main__":
    main(sys.argv[1:])
