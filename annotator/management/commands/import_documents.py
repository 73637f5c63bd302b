"""``manage.py import_documents``: add document pairs to a project and align their sentences.

    manage.py import_documents --project NAME --source-lang de --target-lang fr SRC TGT
    manage.py import_documents --project NAME --source-lang de --target-lang fr --zip DOCS.zip
        [--kind parallel|comparable] [--split auto|lines|text|html] [--name NAME]
        [--accept-above 0.9 --send SUBCORPUS]

All or nothing: a file that cannot be read stops the command with its name and the reason, and
nothing is stored. The alignment runs here (not in a worker); ``--accept-above`` and ``--send``
do in one go what a lead does in the review screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.documents import services
from annotator.documents.reading import SPLIT_MODES, DocumentError, Upload
from annotator.models import DocumentPair, Project


class Command(BaseCommand):
    help = "Add document pairs (text or HTML, or a zip of them) to a project and align them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", help="SRC TGT (or nothing with --zip)")
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--source-lang", required=True, help="ISO 639-1, e.g. de")
        parser.add_argument("--target-lang", required=True, help="ISO 639-1, e.g. fr")
        parser.add_argument("--zip", help="a zip of pairs: x.de / x.fr or x.src.html / x.tgt.html")
        parser.add_argument("--kind", choices=DocumentPair.Kind.values, default="parallel")
        parser.add_argument("--split", choices=SPLIT_MODES, default="auto")
        parser.add_argument("--name", default="", help="the pair's name (default: file names)")
        parser.add_argument("--accept-above", type=float, help="accept beads at this confidence")
        parser.add_argument("--send", metavar="SUBCORPUS", help="send accepted beads to annotation")

    def handle(self, *args: Any, **opts: Any) -> None:
        project = Project.objects.filter(name=opts["project"]).first()
        if project is None:
            raise CommandError(f"no project named {opts['project']!r}")
        files, archive = opts["files"], None
        if opts["zip"]:
            if files:
                raise CommandError("give either SRC TGT or --zip, not both")
            archive = (Path(opts["zip"]).name, _read_bytes(opts["zip"]))
        elif len(files) != 2:
            raise CommandError("give two files, SRC and TGT (or --zip)")
        src = Upload(Path(files[0]).name, _read_bytes(files[0]), opts["source_lang"]) if files \
            else Upload("", b"", opts["source_lang"])  # fmt: skip
        tgt = Upload(Path(files[1]).name, _read_bytes(files[1]), opts["target_lang"]) if files \
            else Upload("", b"", opts["target_lang"])  # fmt: skip
        try:
            pairs = services.create_document_pairs(
                project=project, user=None, kind=opts["kind"], split=opts["split"],
                name=opts["name"], source=src, target=tgt, archive=archive,
            )  # fmt: skip
            for dp in pairs:
                beads = services.align_document_pair(document_pair=dp)
                self.stdout.write(
                    f"{dp.name}: {len(dp.source_sentences)} + {len(dp.target_sentences)} "
                    f"sentences, {len(beads)} beads"
                )
                if opts["accept_above"] is not None:
                    n = services.accept_above(
                        document_pair=dp, threshold=opts["accept_above"], user=None
                    )
                    self.stdout.write(f"  {n} beads accepted (confidence ≥ {opts['accept_above']})")
            if opts["send"]:
                result = services.send_to_annotation(
                    document_pairs=pairs, subcorpus=opts["send"], user=None
                )
                self.stdout.write(f"{result['pairs']} pairs sent to subcorpus {opts['send']!r}")
        except DocumentError as exc:
            raise CommandError(str(exc)) from None


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None
