"""The words a lead or an annotator can read are a person's words: no command-line flag
(``--source-text``), no raw code of the program (``not_paraphrase``, ``load_as``), no internal
section number (``SPEC §4``) and no "Django administration", on any page or in any message the
pages can show.

Pages: every routed page (the URLconf walked as in ``test_every_route_refuses_anonymous``, so a
new page is read as soon as it is routed), asked by the lead, by an annotator and by an
anonymous visitor, on the demo project with data on every page: submissions of doubly
annotated pairs, a flag, an agreement report, gold, a single submission waiting for review, a
discussion, a document pair with beads, a job and an API token. Read: the text of the page and
the attributes a reader sees (title, placeholder, aria-label, alt, a button's value).

Messages: every Django message (``messages.success(...)`` and the like) and every form error
(``add_error``, ``forms.ValidationError``) written in the app's code, their fixed words read
from the source (a message can only be shown after some action, so it is read where it is
written). The API's errors are left out: an API client is told the field names it sent, and
the management commands' errors name the command's own flags, rightly.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from lxml import html as lxml_html

from alignment_core.formats import FormatError, read_pairs
from annotator.accounts.services.tokens import create_token
from annotator.common.plain_words import in_plain_words
from annotator.gold.services.gold import set_gold
from annotator.grid.services import flag_assignment, save_annotation
from annotator.jobs.runner import error_text
from annotator.management.commands.setup_demo import DEMO_PROJECT, setup_demo
from annotator.models import (
    AnnotationRevision,
    Assignment,
    Bead,
    DocumentPair,
    GoldAlignment,
    GoldReview,
    Job,
    PairMessage,
    Project,
)
from annotator.reports.services import compute_report
from tests.app.test_every_route_refuses_anonymous import ROUTES, fill
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
# snake_case: two or more lowercase words joined by "_" (not inside a path, address or name
# with dots, slashes or hyphens, where an underscore is the data's own)
CODE = re.compile(r"(?<![\w./@{-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w(/.@-])")
INTERNAL = re.compile(r"§|\bSPEC\b|Django administration|Django site admin")
SEEN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")


def offending(text: str) -> list[str]:
    """The flags, raw codes and internal references in ``text``."""
    found = [m for rx in (FLAG, CODE, INTERNAL) for m in rx.finditer(text)]
    return [m.group() for m in sorted(found, key=lambda m: m.start())]


def visible_text(page: str) -> str:
    """The words a reader sees on a page: its text (not its scripts or styles) and the
    attributes shown on hover or in an empty field, and the words on buttons."""
    root = lxml_html.document_fromstring(page)
    for element in root.xpath("//script | //style | //template"):
        element.drop_tree()
    for key in root.xpath("//code[contains(@class, 'token-key')]"):
        key.drop_tree()  # an API token or its first characters: random letters, not words
    for box in root.xpath("//pre[contains(@class, 'job-error')]"):
        # a failed job's reason, then (to its leads and staff) the traceback, which is code by
        # design: the reason is read, the traceback is not
        reason = box.text_content().strip().split("\n\n")[0]
        box.clear()
        box.text = reason
    seen = [root.text_content()]
    for attribute in SEEN_ATTRIBUTES:
        seen += root.xpath(f"//@{attribute}")
    seen += root.xpath("//input[@type='submit' or @type='button']/@value")
    return re.sub(r"\s+", " ", " ".join(seen))


def test_the_catalogue_finds_flags_codes_and_section_numbers():
    said = "Pass --source-text; flagged not_paraphrase; load_as annotator; see SPEC §4."
    assert offending(said) == ["--source-text", "not_paraphrase", "load_as", "SPEC", "§"]
    assert offending("Django administration") == ["Django administration"]
    fine = "files x.src.html / gold_export.json, a—b, 2026-11-29, lead@example.org, κ 0.61"
    assert offending(fine) == []
    page = "<p title='set max_tokens'>Hi<script>var load_as = 1;</script></p>"
    assert offending(visible_text(page)) == ["max_tokens"]
    # a token's random letters are data, not words ("h5yoo_mx" once failed the walk below)
    keys = "<p>not_paraphrase <code class='token-key'>h5yoo_mx…</code> <code>load_as</code></p>"
    assert offending(visible_text(keys)) == ["not_paraphrase", "load_as"]


def _failed_import(project: Project, lead, tmp_path: Path) -> Job:
    """An import that failed as a Latin-1 file fails: the reader's own error, kept as the
    job runner keeps it (reason, then traceback)."""
    latin = tmp_path / "pairs.tsv"
    latin.write_bytes("caf\xe9 noir\tblack coffee\n".encode("latin-1"))
    try:
        read_pairs(str(latin), "tsv")
    except FormatError as exc:
        error = error_text(exc)
    assert "--encoding" in error  # the reader words it for the command line
    return Job.objects.create(
        kind="import", project=project, created_by=lead, params={}, status=Job.Status.FAILED,
        message=f"Failed: {error.splitlines()[0]}", error=error, finished_at=timezone.now(),
    )  # fmt: skip


@pytest.fixture
def demo_world(tmp_path):
    """The demo project with something on every page; the ids its routes need."""
    setup_demo()
    project = Project.objects.get(name=DEMO_PROJECT)
    lead = get_user_model().objects.get(username="lead")
    doubles = list(
        Assignment.objects.filter(pair__project=project, slot__isnull=False).order_by(
            "pair__position", "slot"
        )[:6]
    )
    for n, a in enumerate(doubles):
        links = [[0, 0, "S"]] if n % 3 else [[0, 0, "S"], [1, 1, "P"]]
        save_annotation(
            assignment=a, user=a.annotator, links=links, base_version=0,
            kind=AnnotationRevision.Kind.SUBMIT,
        )  # fmt: skip
    mine = Assignment.objects.filter(pair__project=project, status="assigned").first()
    flag_assignment(
        assignment=mine, user=mine.annotator, reason=Assignment.Flag.NOT_PARAPHRASE, note="odd"
    )
    compute_report(project=project, params={"samples": 20})
    set_gold(pair=doubles[0].pair, links=[[0, 0, "S"]], origin=GoldAlignment.Origin.ADJUDICATED,
             author=lead)  # fmt: skip
    review = GoldReview.objects.create(pair=doubles[2].pair, assignment=doubles[2])
    PairMessage.objects.create(pair=doubles[0].pair, annotator=doubles[0].annotator,
                               author=doubles[0].annotator, body="Is 'the' linked?")  # fmt: skip
    dp = DocumentPair.objects.create(
        project=project, name="hut", source_language="en", target_language="en",
        source_filename="hut.src.txt", target_filename="hut.tgt.txt", source_format="lines",
        target_format="lines", source_original="A hut.\nIt rained.",
        target_original="A cabin.\nRain fell.", source_sentences=["A hut.", "It rained."],
        target_sentences=["A cabin.", "Rain fell."], aligned_at=timezone.now(),
    )  # fmt: skip
    for k in range(2):
        Bead.objects.create(document_pair=dp, position=k, source=[k], target=[k], confidence=0.8)
    job = _failed_import(project, lead, tmp_path)
    token, _ = create_token(user=lead, name="laptop")
    return {
        "project_id": project.pk, "pair_id": doubles[0].pair_id, "assignment_id": mine.pk,
        "annotator_id": doubles[0].annotator_id, "job_id": job.pk,
        "review_id": review.pk, "document_pair_id": dp.pk,
        "token_id": token.pk, "pk": doubles[0].pair_id,
    }, mine.annotator.username  # fmt: skip


def _pages() -> list[tuple[str, str | None]]:
    return [
        (regex, name)
        for regex, name in ROUTES
        if not regex.startswith(("api/", "admin/")) and name not in ("healthz", "logout")
    ]


def test_every_page_speaks_to_a_person(demo_world):
    ids, annotator = demo_world
    found: dict[str, list[str]] = {}
    read = 0
    for who in ("lead", annotator, None):
        client = Client()
        if who:
            client.force_login(get_user_model().objects.get(username=who))
        for regex, name in _pages():
            path = fill(regex, ids)
            response = client.get(path, secure=True)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            read += 1
            if bad := offending(visible_text(response.content.decode())):
                found[f"{who or 'anonymous'} {path} ({name})"] = sorted(set(bad))
    assert read > 40, f"only {read} pages read: the walk lost its pages"
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


def _app_modules() -> list[Path]:
    """The web app's code: not its migrations, nor its management commands (whose errors name
    their own flags)."""
    return [
        path
        for path in sorted((REPO_ROOT / "annotator").rglob("*.py"))
        if not {"migrations", "management"} & set(path.parts)
    ]


def _message_calls(tree: ast.AST):
    """Calls that put words before a person on a page: ``messages.<level>(request, words)``,
    ``form.add_error(field, words)`` and ``forms.ValidationError(words)``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        f = node.func
        owner = f.value.id if isinstance(f.value, ast.Name) else ""
        if (
            owner == "messages"
            or f.attr == "add_error"
            or (owner == "forms" and f.attr == "ValidationError")
        ):
            yield node


def _words(node: ast.AST):
    """The fixed words of a string argument (an f-string's literal parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        yield "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    elif isinstance(node, ast.BinOp | ast.Call):
        for child in ast.iter_child_nodes(node):
            yield from _words(child)


def test_every_message_and_form_error_speaks_to_a_person():
    found = []
    checked = 0
    for path in _app_modules():
        for call in _message_calls(ast.parse(path.read_text(encoding="utf-8"))):
            for words in (w for arg in call.args for w in _words(arg)):
                checked += 1
                if bad := offending(words):
                    where = Path(path).relative_to(REPO_ROOT)
                    found.append(f"{where}:{call.lineno}: {bad} in {words!r}")
    assert checked > 30, f"only {checked} messages found: the reader lost them"
    assert found == [], "\n".join(found)


def _shown_errors(trees) -> set[str]:
    """The exception classes a page shows the words of: ``except X as exc:`` whose body puts
    ``str(exc)`` in a message or a form error. Python's own (ValueError...) are left out: they
    are raised for programmers too, and their page-bound raises are read where they are shown
    (export options, token names) by the page walk."""
    shown: set[str] = set()
    for tree in trees:
        for handler in (n for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler)):
            said = any(
                isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "str"
                for call in _message_calls(handler) for arg in call.args
            )  # fmt: skip
            kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            for kind in kinds if said else []:
                name = kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", "")
                if name and name not in dir(builtins):
                    shown.add(name)
    return shown


def test_every_error_a_page_shows_speaks_to_a_person():
    """The services' refusals a page passes on whole (a member that cannot be removed, a pair
    that cannot be reassigned, a document that cannot be read...), read where they are raised."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in _app_modules()}
    shown = _shown_errors(trees.values())
    assert {"MemberError", "DocumentError", "ProjectError"} <= shown
    found, checked = [], 0
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            f = node.exc.func
            if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) not in shown:
                continue
            for words in (w for arg in node.exc.args for w in _words(arg)):
                checked += 1
                if bad := offending(words):
                    found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: {bad} {words!r}")
    assert checked > 20, f"only {checked} refusals found"
    assert found == [], "\n".join(found)


def _flagged_words(folder: Path):
    """(place, words) of every string in ``folder``'s code that names a command-line flag."""
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                parts = [node.value]
            elif isinstance(node, ast.Call):
                parts = [*node.args, *(k.value for k in node.keywords)]
            else:
                continue
            for words in (w for part in parts for w in _words(part)):
                if FLAG.search(words):
                    yield f"{path.relative_to(REPO_ROOT)}:{node.lineno}", words


def test_the_readers_way_out_is_put_in_the_import_forms_words():
    """A reader of corpus files tells the command line which flag to pass (--encoding,
    --target-text...); every such reason, shown on a page, names the form's field instead."""
    found = dict(_flagged_words(REPO_ROOT / "alignment_core" / "formats"))
    assert len(found) >= 5, "the readers' hints were not found"
    left = {where: in_plain_words(words) for where, words in found.items()}
    assert {w: said for w, said in left.items() if FLAG.search(said)} == {}
