"""The core's import graph has no circle: every module of ``alignment_core`` can be read (and
changed) knowing only what it imports, never what imports it. Runs without Django: grimp reads
the source, it imports nothing of the project."""

from __future__ import annotations

import grimp


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
