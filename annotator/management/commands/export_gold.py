"""``manage.py export_gold``: write a project's gold corpus in any export format.

    manage.py export_gold --project NAME [--format jsonl|pharaoh|naacl|giza-a3]
        [--subcorpus S] [--include-trial] [--text source|target|pairs] [-o FILE | -O DIR]

The same stream as ``GET /api/projects/{id}/export/``: pharaoh and naacl are a zip (links, the
pairs as TSV, both sides as text) unless ``--text``. Without ``-o``/``-O`` the file goes to
stdout (a zip refuses a terminal). ``-O DIR`` names the file as the API does (project and date).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.corpora.services.export import (
    EXPORT_FORMATS,
    TEXT_CHOICES,
    ExportOptions,
    export_chunks,
    file_name,
    prepare_export,
)
from annotator.models import Project


class Command(BaseCommand):
    help = "Write a project's gold alignments (trial pairs left out unless asked)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--format", dest="fmt", choices=EXPORT_FORMATS, default="jsonl")
        parser.add_argument("--subcorpus", help="only this subcorpus")
        parser.add_argument("--include-trial", action="store_true", help="also trial pairs")
        parser.add_argument("--text", choices=TEXT_CHOICES, help="pharaoh/naacl: one text file")
        out = parser.add_mutually_exclusive_group()
        out.add_argument("-o", "--output", metavar="FILE", help="write to FILE")
        out.add_argument("-O", "--output-dir", metavar="DIR", help="write into DIR, named")

    def handle(self, *args: Any, **opts: Any) -> None:
        project = Project.objects.filter(name=opts["project"]).first()
        if project is None:
            raise CommandError(f"no project named {opts['project']!r}")
        options = ExportOptions(
            fmt=opts["fmt"],
            subcorpus=opts["subcorpus"],
            include_trial=opts["include_trial"],
            text=opts["text"],
        )
        try:
            prepare_export(project=project, options=options)
        except ValueError as exc:  # a bad option, or a pair the format cannot carry
            raise CommandError(f"export refused: {exc}") from exc
        target: Path | None = None
        if opts["output_dir"]:
            target = Path(opts["output_dir"]) / file_name(project=project, options=options)
        elif opts["output"]:
            target = Path(opts["output"])
        if target is None:
            out = sys.stdout.buffer
            if options.is_zip and out.isatty():
                raise CommandError("a zip would go to the terminal: give -o FILE or -O DIR")
            for piece in export_chunks(project=project, options=options):
                out.write(piece)
            out.flush()
            return
        partial = target.with_name(f".{target.name}.part-{os.getpid()}")
        try:
            with open(partial, "wb") as fh:
                for piece in export_chunks(project=project, options=options):
                    fh.write(piece)
            os.replace(partial, target)  # no half-written file under the final name
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(f"cannot write {target}: {exc.strerror or exc}") from exc
        self.stderr.write(f"wrote {target}")
