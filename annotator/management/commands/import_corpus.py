"""``manage.py import_corpus``: load sentence pairs (and their alignments) into a project.

All FILEs are read first and imported in one transaction: any bad line in any file and
nothing is written (the error names file, line and reason; exit status 1).

Per-file options (--source-text, --target-text, --sure-file, --annotator) are given either
once, applying to every FILE, or once per FILE, pairing with the FILEs in order. Examples::

    # Edinburgh++: both splits as gold (subcorpora and trial flags come from the ids)
    manage.py import_corpus --project edinburgh --create-project --lead lead --as gold \\
        gold.train.sure+poss.json gold.test.sure+poss.json \\
        --sure-file gold.train.sure.json --sure-file gold.test.sure.json

    # MSR RTE2 dev: three annotators' files over the same 800 pairs
    manage.py import_corpus --project msr --create-project --as annotator \\
        --annotator A --annotator B --annotator C --token-mismatch same-shape \\
        RTE2_dev_A.align.txt RTE2_dev_B.align.txt RTE2_dev_C.align.txt

    # Pharaoh alignments over two one-sentence-per-line files, as seeds
    manage.py import_corpus --project p --as seed --source-text src.txt --target-text tgt.txt \\
        aligner.pharaoh
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from alignment_core.progress import ProgressBar
from annotator.corpora.services.importing import (
    LOAD_MODES,
    TOKEN_MISMATCH_POLICIES,
    CorpusImportError,
    ImportSource,
    import_files,
)
from annotator.corpora.services.importing_checks import project_name_problem
from annotator.models import Membership, Project
from annotator.projects.services.members import MemberError, add_member

PER_FILE = ("source_text", "target_text", "sure_file", "annotator")
HINTS = {  # what the service says -> the option that answers it
    "token-mismatch policy": "hint: --token-mismatch skip|same-shape (or --skip-token-mismatch)",
    "replacing it must be asked for": "hint: --replace-gold",
    "no annotator named": "hint: --annotator NAME",
    "tokens a side": "hint: a new project takes --max-tokens N with --create-project; an existing "
    "project's limit (max_tokens) is changed in the admin",
}


class Command(BaseCommand):
    help = (
        "Import sentence pairs, with or without alignments (as gold, seeds or an annotator's "
        "annotations), from one or more files into a project. All files or nothing."
    )

    # long: one add_argument per option, each with its help text; a list, not logic to follow
    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE", help="files to import, in order")
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument(
            "--create-project", action="store_true", help="create the project if it is missing"
        )
        parser.add_argument(
            "--lead",
            action="append",
            metavar="USERNAME",
            help="make this existing user a lead of the project (repeatable), so the project "
            "shows in their browser",
        )
        parser.add_argument(
            "--max-tokens",
            type=int,
            metavar="N",
            help="with --create-project: the new project's longest sentence, in tokens a side "
            f"(default {Project._meta.get_field('max_tokens').default}); longer pairs are refused",
        )
        parser.add_argument(
            "--format",
            dest="fmt",
            help="format of every FILE: pharaoh, naacl, giza-a3, jsonl, edinburgh, tsv, "
            "parallel, bitext (default: guessed from each file name)",
        )
        parser.add_argument("--encoding", default="utf-8", help="file encoding (default utf-8)")
        parser.add_argument(
            "--source-text",
            action="append",
            metavar="F",
            help="pharaoh/naacl: the source sentences, one per line (with --target-text), or a "
            "tsv/bitext/jsonl text-pair file alone",
        )
        parser.add_argument(
            "--target-text",
            action="append",
            metavar="F",
            help="pharaoh/naacl: the target sentences, one per line; parallel: the target side "
            "(FILE is the source side)",
        )
        parser.add_argument(
            "--text-format", help="format of a --source-text text-pair file (default: guessed)"
        )
        parser.add_argument(
            "--sure-file",
            action="append",
            metavar="F",
            help="edinburgh: the sure-only file beside a sure+poss FILE (possible = the rest)",
        )
        parser.add_argument(
            "--as",
            dest="load_as",
            choices=LOAD_MODES,
            help="load the files' alignments as gold, seeds or an annotator's annotations "
            "(default: text only)",
        )
        parser.add_argument(
            "--annotator",
            action="append",
            metavar="NAME",
            help="username whose annotations these are (implies --as annotator; default: the "
            "names inside the file). Missing users are created inactive without a password",
        )
        parser.add_argument("--subcorpus", help="subcorpus of pairs whose file names none")
        parser.add_argument(
            "--max-length-ratio",
            type=float,
            metavar="R",
            help="leave out pairs with max(N, M) / min(N, M) > R (reported)",
        )
        parser.add_argument(
            "--token-mismatch",
            choices=TOKEN_MISMATCH_POLICIES,
            default="error",
            help="a pair already stored with other tokens: refuse the import (error), skip "
            "its alignment (skip), or attach the alignment when both sides have the same "
            "number of tokens (same-shape); skipped and attached pairs are reported",
        )
        parser.add_argument(
            "--skip-token-mismatch",
            action="store_const",
            const="skip",
            dest="token_mismatch",
            help="shorthand for --token-mismatch skip",
        )
        parser.add_argument(
            "--replace-gold",
            action="store_true",
            help="replace existing gold alignments that differ (default: refuse)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check and count everything, write nothing"
        )
        parser.add_argument(
            "--normalize",
            action="store_true",
            help="clean the tokens: remove control characters (e.g. U+0082) from inside them and "
            "put them in Unicode NFC; the report counts them (default: refuse such a file)",
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **opts: Any) -> None:
        files: list[str] = opts["files"]
        per_file = {key: self._per_file(key, opts[key], len(files)) for key in PER_FILE}
        load_as = opts["load_as"]
        if opts["annotator"]:
            if load_as not in (None, "annotator"):
                raise CommandError(
                    f"--annotator loads annotations; it cannot go with --as {load_as}"
                )
            load_as = "annotator"
        sources = [
            ImportSource(
                path=path,
                fmt=opts["fmt"],
                encoding=opts["encoding"],
                source_text=per_file["source_text"][k],
                target_text=per_file["target_text"][k],
                sure_path=per_file["sure_file"][k],
                annotator=per_file["annotator"][k],
                text_format=opts["text_format"],
                normalize=opts["normalize"],
            )
            for k, path in enumerate(files)
        ]
        bar = ProgressBar(
            self.stderr._out, enabled=not opts["no_progress"] and opts["verbosity"] > 0
        )
        try:
            with transaction.atomic():
                project = self._project(opts["project"], opts["create_project"], opts["max_tokens"])
                for username in opts["lead"] or []:
                    self._add_lead(project, username)
                report = import_files(
                    project=project,
                    sources=sources,
                    load_alignments_as=load_as,
                    subcorpus=opts["subcorpus"],
                    max_length_ratio=opts["max_length_ratio"],
                    on_token_mismatch=opts["token_mismatch"],
                    replace_gold=opts["replace_gold"],
                    progress=bar,
                )
                report.dry_run = opts["dry_run"]
                if opts["dry_run"]:
                    transaction.set_rollback(True)
        except (CorpusImportError, ValueError) as exc:
            bar.close()
            hints = [hint for key, hint in HINTS.items() if key in str(exc)]
            message = "\n".join([f"import refused, nothing written:\n{exc}", *hints])
            raise CommandError(message) from exc
        bar.close()
        if opts["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
            return
        lines = report.summary_lines()
        self.stdout.write(self.style.SUCCESS(lines[0]))
        for line in lines[1:]:
            self.stdout.write(line)

    @staticmethod
    def _per_file(key: str, values: list[str] | None, n_files: int) -> list[str | None]:
        if not values:
            return [None] * n_files
        if len(values) == 1:
            return values * n_files
        if len(values) != n_files:
            flag = "--" + key.replace("_", "-")
            raise CommandError(
                f"{flag} given {len(values)} times for {n_files} files: give it once (for every "
                "file) or once per file, in the files' order"
            )
        return values

    @staticmethod
    def _add_lead(project: Project, username: str) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(
                f"--lead {username}: no such user (create one with manage.py createsuperuser "
                "or use the demo's 'lead')"
            )
        try:
            add_member(project=project, user=user, role=Membership.Role.LEAD)
        except MemberError as exc:
            raise CommandError(f"--lead {username}: {exc}") from exc

    @staticmethod
    def _project(name: str, create: bool, max_tokens: int | None) -> Project:
        if reason := project_name_problem(name):
            raise CommandError(f"--project: {reason}")
        if max_tokens is not None and max_tokens < 1:
            raise CommandError(f"--max-tokens must be at least 1, got {max_tokens}")
        project = Project.objects.filter(name=name).first()
        if project is not None:
            if max_tokens is not None and max_tokens != project.max_tokens:
                raise CommandError(
                    f"--max-tokens only applies to a new project: {name!r} exists with "
                    f"max_tokens {project.max_tokens} (change it in the admin)"
                )
            return project
        if not create:
            raise CommandError(f"no project named {name!r} (add --create-project to create it)")
        if max_tokens is None:
            return Project.objects.create(name=name)
        return Project.objects.create(name=name, max_tokens=max_tokens)
