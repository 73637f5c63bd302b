"""Which files make a document pair: the one matching rule by file name, shared by the zip
upload (``annotator.documents.reading.list_archive``) and ``sentalign``'s directories, so the
two cannot drift.

A file's *side* is told by a tag in its name: ``x.de`` / ``x.fr`` (the two languages),
``x.src.html`` / ``x.tgt.html``, ``x.source.txt`` / ``x.target.txt``; the pair's name is the
part before the tag, with the file's folder in front (``a/x``). A file whose name carries no
tag may still have a side given by where it lies (``sentalign``'s source and target
directories): ``doc1.txt`` in both then makes the pair ``doc1.txt``. Hidden files
(``.DS_Store``, ``__MACOSX/._x``) are no documents and are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

SOURCE, TARGET = "source", "target"


class PairingError(ValueError):
    """Files that do not make pairs; the message names the files and what is wrong."""


@dataclass(frozen=True)
class NamedPair:
    """A document pair matched by name: its name and its two files (as they were given)."""

    name: str
    source: str
    target: str


def side_of(path: str, source_language: str = "", target_language: str = ""):
    """``(pair name without folder, "source" | "target" | None)`` told by the file's name: the
    last dot-separated tag that names a side (``src``, ``source``, the source language, and
    the same for the target) wins; the name is what comes before it."""
    name = PurePosixPath(path).name
    parts = name.split(".")
    source_tags = {"src", SOURCE, source_language.lower()} - {""}
    target_tags = {"tgt", TARGET, target_language.lower()} - {""}
    for k in range(len(parts) - 1, 0, -1):
        tag = parts[k].lower()
        stem = ".".join(parts[:k])
        if tag in source_tags:
            return stem, SOURCE
        if tag in target_tags:
            return stem, TARGET
    return name, None


def is_hidden(path: str) -> bool:
    return PurePosixPath(path).name.startswith(".")


def naming_hint(source_language: str, target_language: str) -> str:
    if source_language and target_language:
        return f"name files x.{source_language} / x.{target_language}, or x.src.html / x.tgt.html"
    return "name files x.src / x.tgt, or x.src.html / x.tgt.html"


def match_by_name(
    files: Iterable[tuple[str, str | None]],
    *,
    source_language: str = "",
    target_language: str = "",
) -> list[NamedPair]:
    """Pairs of ``files``, each ``(path, side or None)``: ``path`` relative to where the files
    lie (POSIX separators), ``side`` what its place says (None: its name must say it; a name
    that says the other side is an error). Every file must find its partner. Sorted by name;
    empty when no file is a document (the caller words that)."""
    sides: dict[str, dict[str, str]] = {}
    for path, given in files:
        if is_hidden(path):
            continue
        stem, side = side_of(path, source_language, target_language)
        if side is None and given is None:
            raise PairingError(
                f"{path} is neither a source nor a target "
                f"({naming_hint(source_language, target_language)})"
            )
        if side is not None and given is not None and side != given:
            raise PairingError(f"{path} is named as a {side} but lies among the {given}s")
        folder = str(PurePosixPath(path).parent)
        key = stem if folder == "." else f"{folder}/{stem}"
        side = side or given
        if side in sides.setdefault(key, {}):
            raise PairingError(f"two {side} files for {key}")
        sides[key][side] = path
    unmatched = sorted(
        f"{k} has no {TARGET if SOURCE in v else SOURCE}" for k, v in sides.items() if len(v) != 2
    )
    if unmatched:
        raise PairingError(f"unmatched files: {'; '.join(unmatched[:10])}")
    return [NamedPair(k, v[SOURCE], v[TARGET]) for k, v in sorted(sides.items())]
