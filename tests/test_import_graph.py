"""The import graph of the web app has no circles, and nothing starts a job through the task
module (jobs are sent by task name, so services never import ``annotator.tasks``).

Read statically with grimp (the engine of import-linter), every import statement counted,
including those inside functions: a lazy import still ties two modules together.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

PACKAGES = ("annotator", "gridalign")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, include_external_packages=False, cache_dir=None)


def strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the groups of modules that import each other in a
    circle; a module on its own is a group only if it imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1 or node in graph.find_modules_directly_imported_by(node):
                        groups.append(sorted(group))
    return groups


def test_no_module_of_the_app_imports_another_in_a_circle(graph):
    circles = strongly_connected(graph)
    assert circles == [], "import circles: " + "; ".join(" ↔ ".join(c) for c in circles)


def test_the_checker_finds_a_circle_when_there_is_one():
    """The check itself: a graph with a -> b -> c -> a and a lone d gives exactly one circle."""
    graph = grimp.ImportGraph()
    for importer, imported in (("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")):
        graph.add_import(importer=importer, imported=imported)
    assert strongly_connected(graph) == [["a", "b", "c"]]


def test_nothing_imports_the_task_module(graph):
    """Jobs start by task name (``annotator.jobs.services``); only Celery loads the tasks."""
    assert graph.find_modules_that_directly_import("annotator.tasks") == set()


def test_the_job_runner_imports_no_feature(graph):
    """The runner and the registry sit under every feature: they name none of them."""
    features = ("accounts", "projects", "corpora", "grid", "gold", "seeding", "reports")
    for module in ("annotator.jobs.runner", "annotator.jobs.registry", "annotator.jobs.services"):
        imported = graph.find_modules_directly_imported_by(module)
        assert not {m for m in imported if m.split(".")[1:2] and m.split(".")[1] in features}, (
            module
        )


def test_views_and_apis_call_only_their_own_features_services(graph):
    """A page or an endpoint of one feature never writes through another feature's services:
    a write that spans features is one service of the upper feature, called by its own view."""
    crossings = []
    for module in sorted(graph.modules):
        parts = module.split(".")
        if len(parts) < 3 or parts[0] != "annotator" or parts[2] not in ("views", "api"):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            other = imported.split(".")
            if len(other) > 2 and other[2] == "services" and other[1] != parts[1]:
                crossings.append(f"{module} -> {imported}")
    assert crossings == []


def test_the_import_contracts_hold():
    """The layering contracts of pyproject.toml ([tool.importlinter]), checked as `lint-imports`
    checks them, so `make test` fails on a broken layer whatever runs it."""
    from importlinter.cli import lint_imports

    config = Path(__file__).resolve().parent.parent / "pyproject.toml"
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 0
