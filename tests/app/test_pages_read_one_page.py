"""Every page and API listing an annotator or a lead opens reads a page of rows, never the
whole project: the same project shape at two sizes runs the same number of SQL statements,
and no statement on the pairs, assignments or seeds tables answers more rows than a page.

The shape scales everything with the pairs (every pair assigned, a third of them twice, with
work, gold and seeds), so a whole-project read would show at the larger size as more rows; a
statement's rows are counted by running it again wrapped in ``SELECT COUNT(*)``, with the
parameters it was sent with (SQLite and PostgreSQL alike)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from annotator.models import (
    AlignerRun,
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    GoldRevision,
    Membership,
    SeedAlignment,
    SentencePair,
    Subcorpus,
)

pytestmark = pytest.mark.django_db

SIZES = (120, 900)
# The largest page any of these lists serves (the annotator's queue page: 200 assignments).
PAGE_ROWS = 200
BIG_TABLES = ("annotator_sentencepair", "annotator_assignment", "annotator_seedalignment")
# a statement whose WITH writes (the grid page's opening) cannot be re-run to count its rows
WRITES = ("UPDATE", "INSERT", "DELETE")


def build(project, users, n: int) -> dict:
    """``n`` pairs in three subcorpora (two trial pairs), a seed each, every pair assigned to
    one annotator in turn and every third to both; of each annotator's pairs two in five
    submitted (with a revision that stores its edits), one in ten in progress, one in 37
    flagged; gold for the submitted pairs only one annotator had."""
    lead, a, b = users
    subs = [Subcorpus.objects.create(project=project, name=s) for s in ("mtc", "news", "nov")]
    pairs = SentencePair.objects.bulk_create(
        SentencePair(project=project, subcorpus=subs[k % 3], external_id=f"s{k}", position=k,
                     source_tokens=[f"w{k % 50}", "the", f"x{k}"], target_tokens=["a", f"w{k}"],
                     is_trial=k < 2)
        for k in range(n)
    )  # fmt: skip
    run = AlignerRun.objects.create(project=project)
    seeds = SeedAlignment.objects.bulk_create(
        SeedAlignment(pair=p, aligner_run=run, links=[[0, 0, "S"]], uncertainty=(k % 7) / 7)
        for k, p in enumerate(pairs)
    )
    now = timezone.now()
    given = []
    for j, (pair, seed) in enumerate(zip(pairs, seeds, strict=True)):
        first, second = (a, b) if j % 2 == 0 else (b, a)
        status = "submitted" if j % 10 < 4 else "in_progress" if j % 10 == 4 else "assigned"
        for user, slot in ((first, 1), (second, 2)) if j % 3 == 0 else ((first, None),):
            given.append(Assignment(
                pair=pair, annotator=user, slot=slot, seed=seed, status=status,
                started_at=now if status != "assigned" else None,
                submitted_at=now if status == "submitted" else None,
                flag="unsure" if j % 37 == 5 else "", flagged_at=now if j % 37 == 5 else None,
            ))  # fmt: skip
    given = Assignment.objects.bulk_create(given)
    worked = [g for g in given if g.status != "assigned"]
    notes = Annotation.objects.bulk_create(
        Annotation(assignment=g, links=[[0, 0, "S"], [1, 1, "P"]]) for g in worked
    )
    AnnotationRevision.objects.bulk_create(
        AnnotationRevision(annotation=note, version=1, links=note.links, edits_from_seed=1,
                           author=g.annotator, elapsed_seconds=30,
                           kind="submit" if g.status == "submitted" else "autosave")
        for note, g in zip(notes, worked, strict=True)
    )  # fmt: skip
    golds = GoldAlignment.objects.bulk_create(
        GoldAlignment(pair=g.pair, links=[[0, 0, "S"]], origin="single")
        for g in worked
        if g.status == "submitted" and g.slot is None
    )
    GoldRevision.objects.bulk_create(
        GoldRevision(gold=g, version=1, links=g.links, origin="single") for g in golds
    )
    todo = [g.pk for g in given if g.annotator == a and g.status == "assigned"]
    double = next(g.pair for g in given if g.slot == 2 and g.status == "submitted")
    return {"todo": todo[0], "warm": todo[1], "double": double.pk,
            "word": pairs[-1].source_tokens[0]}  # fmt: skip


def requests(project_id: int, shape: dict) -> dict[str, tuple[str, str, str]]:
    """name → (who, method, URL): the annotator's and the lead's pages and the API lists."""
    p, todo = project_id, shape["todo"]
    lead = {
        "project page": f"/projects/{p}/",
        "pair browser": f"/projects/{p}/pairs/",
        "pair browser, page 2": f"/projects/{p}/pairs/?page=2",
        "pair browser, search": f"/projects/{p}/pairs/?q={shape['word']}",
        "pair browser, status": f"/projects/{p}/pairs/?status=submitted",
        "pair browser, agreement": f"/projects/{p}/pairs/?max_agreement=0.5",
        "pair view": f"/projects/{p}/pairs/{shape['double']}/",
        "progress": f"/projects/{p}/progress/",
        "assignment plan page": f"/projects/{p}/assign/",
        "disagreements": f"/projects/{p}/disagreements/",
        "adjudication list": f"/projects/{p}/adjudicate/",
        "adjudicate a pair": f"/projects/{p}/adjudicate/{shape['double']}/",
        "export page": f"/projects/{p}/export/",
        "api project": f"/api/projects/{p}/",
        "api pairs": f"/api/pairs/?project={p}",
        "api pairs, submitted": f"/api/pairs/?project={p}&status=submitted",
        "api annotations": f"/api/annotations/?project={p}",
        "api jobs": f"/api/jobs/?project={p}",
        "api aligner runs": f"/api/aligner-runs/?project={p}",
    }
    annotator = {
        "queue": f"/projects/{p}/queue/",
        "grid page": f"/annotate/{todo}/",
        "grid data": f"/api/assignments/{todo}/",
        "seed": f"/api/assignments/{todo}/seed/",
        "api assignments": f"/api/assignments/?project={p}",
    }
    return {
        **{k: ("lead", "get", url) for k, url in lead.items()},
        **{k: ("annotator", "get", url) for k, url in annotator.items()},
        "save": ("annotator", "put", f"/api/assignments/{todo}/annotation/"),
    }


class Statements:
    """Every statement a request sends, with its parameters (``connection.execute_wrapper``)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple]] = []

    def __call__(self, execute, sql, params, many, context):
        self.sent.append((sql, tuple(params or ())))
        return execute(sql, params, many, context)

    def rows_of_big_reads(self) -> list[tuple[int, str]]:
        """(rows answered, SQL) of each SELECT that reads the pairs, assignments or seeds."""
        found = []
        for sql, params in self.sent:
            head = sql.lstrip().upper()
            writes = " FOR UPDATE" in head or any(f"AS ({w} " in head for w in WRITES)
            if not head.startswith(("SELECT", "WITH")) or writes:
                continue
            if not any(table in sql for table in BIG_TABLES):
                continue
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT COUNT(*) FROM ({sql}) counted_rows", params)
                found.append((cursor.fetchone()[0], sql))
        return found


def measure(client, user, method: str, url: str) -> Statements:
    client.force_login(user)
    statements = Statements()
    with connection.execute_wrapper(statements):
        if method == "put":
            body = {"version": 0, "links": [[0, 0, "S"], [1, 0, "P"]]}
            response = client.put(url, body, content_type="application/json")
        else:
            response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return statements


@pytest.fixture
def two_sizes(make_user):
    from annotator.models import Project

    users = (make_user("scale_lead"), make_user("scale_a"), make_user("scale_b"))
    made = []
    for n in SIZES:
        project = Project.objects.create(name=f"{n} pairs")
        for user, role in zip(users, ("lead", "annotator", "annotator"), strict=True):
            Membership.objects.create(project=project, user=user, role=role)
        made.append((project, build(project, users, n)))
    return users, made


def test_every_page_and_list_reads_a_page_whatever_the_projects_size(client, two_sizes):
    (lead, annotator, _), made = two_sizes
    who = {"lead": lead, "annotator": annotator}
    counts: dict[str, list[int]] = {}
    too_many: list[str] = []
    for project, shape in made:
        # once first on another assignment: PostgreSQL's prepared statements are prepared on
        # a connection's first use (annotator/common/compiled.py), not per request
        for role, method, url in requests(project.pk, {**shape, "todo": shape["warm"]}).values():
            measure(client, who[role], method, url)
        for name, (role, method, url) in requests(project.pk, shape).items():
            statements = measure(client, who[role], method, url)
            counts.setdefault(name, []).append(len(statements.sent))
            for rows, sql in statements.rows_of_big_reads():
                if rows > PAGE_ROWS:
                    too_many.append(f"{name} ({project.name}): {rows} rows from {sql[:300]}")
    differ = {name: n for name, n in counts.items() if n[0] != n[1]}
    assert not differ, f"statements at {SIZES[0]} / {SIZES[1]} pairs: {differ}"
    assert not too_many, "\n".join(too_many)


def test_a_whole_project_read_would_show(client, two_sizes):
    """The check itself: a statement that reads every pair of the larger project is caught."""
    _, made = two_sizes
    project, _ = made[1]
    statements = Statements()
    with connection.execute_wrapper(statements):
        list(SentencePair.objects.filter(project=project).values_list("pk", flat=True))
    (rows, _sql), *_ = statements.rows_of_big_reads()
    assert rows == SIZES[1] > PAGE_ROWS


# The annotator's queue page and the API's list of one queue, whose statements answer a page
# and a few counts but could read the whole queue to find them (a sort, a count): their reads
# are checked too.
# A page of the queue walks the pairs' order index and probes each pair's assignment: about
# twice the page's rows where two pairs in three are in the annotator's queue. (A later page
# walks the pages before it too: the page number is an offset; a page of one status walks
# the queue's other rows between its own.)
READ_BOUND = 4 * PAGE_ROWS


def rows_read(sql: str, params: tuple) -> int:
    """Rows PostgreSQL's scans of the pairs, assignments and seeds tables read for ``sql``
    (``EXPLAIN ANALYZE``: rows returned and rows filtered out, over every loop)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        (plan,) = cursor.fetchone()[0]

    def walk(node: dict) -> int:
        here = 0
        if node.get("Relation Name") in BIG_TABLES:
            seen = node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
            here = seen * node["Actual Loops"]
        return here + sum(walk(child) for child in node.get("Plans", ()))

    return walk(plan["Plan"])


@pytest.mark.integration  # PostgreSQL's EXPLAIN ANALYZE
def test_the_queue_page_and_its_api_list_read_a_page_not_the_whole_queue(client, two_sizes):
    from tests.conftest import need

    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    (_, annotator, _), made = two_sizes
    project, _shape = made[1]
    queue_size = Assignment.objects.filter(annotator=annotator, pair__project=project).count()
    # a whole-queue read reads each of its assignments and their pairs: more than the bound
    assert 2 * queue_size > READ_BOUND
    urls = {
        "queue": f"/projects/{project.pk}/queue/",
        "api assignments": f"/api/assignments/?project={project.pk}",
        "api assignments, one status": f"/api/assignments/?project={project.pk}&status=assigned",
    }
    settings = ("seqscan", "sort", "hashjoin", "mergejoin", "bitmapscan")
    with connection.cursor() as cursor:
        # plans as on a big project (tables this small are otherwise read whole and sorted,
        # whatever the query): the check is that a plan reading a page exists and is taken
        for setting in settings:
            cursor.execute(f"SET enable_{setting} = off")
        cursor.execute("ANALYZE")
    try:
        for name, url in urls.items():
            measure(client, annotator, "get", url)  # prepared once
            statements = measure(client, annotator, "get", url)
            reads = [
                (rows_read(sql, params), sql[:200])
                for sql, params in statements.sent
                if sql.lstrip().upper().startswith(("SELECT", "WITH"))
                and any(table in sql for table in BIG_TABLES)
            ]
            assert sum(n for n, _ in reads) <= READ_BOUND, (name, reads)
    finally:
        with connection.cursor() as cursor:
            for setting in settings:
                cursor.execute(f"RESET enable_{setting}")
