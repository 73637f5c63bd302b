"""``manage.py evaluate``: score a system's alignment file against a project's gold.

    manage.py evaluate --project NAME FILE [--format FMT] [--level word|phrase|both]
        [--include-identical] [--source-text F [--target-text F]] [--encoding ENC]

Prints the JSON of ``POST /api/projects/{id}/evaluate/``: the keys of ``python -m
alignment_core score --json``, the same per subcorpus, and the pairs not scored. pharaoh and
naacl files without ``--source-text`` are read against the project's gold pairs, in export
order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from alignment_core.formats import FORMATS, FormatError
from annotator.corpora.services.evaluation import (
    LEVELS,
    EvaluationRefused,
    SystemFile,
    evaluate_file,
)
from annotator.models import Project


class Command(BaseCommand):
    help = "Score a system's alignments against a project's gold (trial pairs left out)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the system's alignments")
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--format", dest="fmt", choices=list(FORMATS))
        parser.add_argument("--level", choices=LEVELS, default="both")
        parser.add_argument("--include-identical", action="store_true")
        parser.add_argument("--source-text", metavar="F")
        parser.add_argument("--target-text", metavar="F")
        parser.add_argument("--encoding", default="utf-8")
        parser.add_argument(
            "--normalize",
            action="store_true",
            help="clean the tokens: remove control characters from inside them, Unicode NFC",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        project = Project.objects.filter(name=opts["project"]).first()
        if project is None:
            raise CommandError(f"no project named {opts['project']!r}")

        def read(path: str | None) -> tuple[str, bytes] | None:
            if path is None:
                return None
            try:
                return path, Path(path).read_bytes()
            except OSError as exc:
                raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc

        name, data = read(opts["file"])
        system = SystemFile(
            name=name,
            data=data,
            fmt=opts["fmt"],
            encoding=opts["encoding"],
            source_text=read(opts["source_text"]),
            target_text=read(opts["target_text"]),
            normalize=opts["normalize"],
        )
        try:
            result = evaluate_file(
                project=project,
                file=system,
                level=opts["level"],
                include_identical=opts["include_identical"],
            )
        except (FormatError, EvaluationRefused) as exc:
            raise CommandError(f"evaluation refused: {exc}") from exc
        self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
