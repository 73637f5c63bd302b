"""The core's import graph has no circle: every module of ``alignment_core`` can be read (and
changed) knowing only what it imports, never what imports it. Runs without Django: grimp reads
the source, it imports nothing of the project."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

import alignment_core


def _cycles(graph: grimp.ImportGraph, package: str) -> list[list[str]]:
    """Every import circle among ``package``'s modules, each as the chain of modules that
    leads from one module back to itself (lazy imports inside functions count too)."""
    modules = sorted(m for m in graph.modules if m == package or m.startswith(package + "."))
    found = []
    for module in modules:
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if not imported.startswith(package):
                continue
            chain = graph.find_shortest_chain(importer=imported, imported=module)
            if chain is not None:
                found.append([module, *chain])
    return found


def test_no_import_circle_in_the_core():
    graph = grimp.build_graph("alignment_core")
    assert _cycles(graph, "alignment_core") == []


def test_the_check_finds_a_circle():
    """The check itself: a graph holding a circle is reported, with the chain."""
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    cycles = _cycles(graph, "pkg")
    assert ["pkg.a", "pkg.b", "pkg.c", "pkg.a"] in cycles and len(cycles) == 3


def test_training_finds_no_file_by_itself():
    """Paths stop at the edge: the seed model's training takes its outside resources as an
    argument (``SeedResources``), so no module it is built from imports the edge's reader of
    the installed resources (``installed``), and only the edges (``installed``, the CLI) and
    ``resources`` itself name ``resources_dir``, the one function that reads the environment
    to find the installed folder."""
    graph = grimp.build_graph("alignment_core")
    training = "alignment_core.aligner.link_training"
    inside = {training, *graph.find_upstream_modules(training)}
    edge = "alignment_core.aligner.installed"
    assert edge not in inside, graph.find_shortest_chain(importer=training, imported=edge)
    root = Path(alignment_core.__file__).parent
    naming = {
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if any(
            isinstance(node, ast.Name | ast.Attribute | ast.alias)
            and "resources_dir" in (getattr(node, "id", None), getattr(node, "attr", None),
                                    getattr(node, "name", None))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    }  # fmt: skip
    edges = {"aligner/resources.py", "aligner/installed.py", "cli/align.py", "cli/builtin.py"}
    assert naming <= edges, naming
