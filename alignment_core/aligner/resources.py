"""Outside knowledge the supervised link model reads, installed once from pinned npm packages.

A project's gold cannot teach what words and phrases mean, or what part of speech they are, in
general; three resources learnt or written from far more text can: GloVe's word vectors
(``aligner.vectors``), the Moby thesaurus (``aligner.thesaurus``) and a Penn Treebank tag
lexicon (``aligner.tags``). No PyPI package carries them; npm packages do. ``install``
— run by ``make setup`` as ``python -m alignment_core resources install`` — obtains a
package's tarball from the npm registry with ``npm pack`` (or from a folder of tarballs
already fetched, as the Docker build does), checks it against the pinned sha512, converts it
once into compact arrays and writes them, atomically, into the Python environment
(``resources_dir()``: ``<sys.prefix>/share/gridalign``, or ``$GRIDALIGN_RESOURCES``).
Nothing is fetched at run time; without a resource the model goes without its features and
records so.

The conversion is the slow part of a cold start (a minute for the vectors on a 2-core
machine), so ``install(..., cache=cache_dir())`` — what the CLI does — keeps each converted
resource once per machine, in ``${XDG_CACHE_HOME:-~/.cache}/gridalign/resources/`` (or
``$GRIDALIGN_CACHE``; ``off`` turns the cache off; see ``alignment_core.machine_cache``), keyed by the package's pinned version,
the tarball's sha512 and a digest of the converter's source. Another virtualenv or clone
then hard-links (else copies) the files instead of fetching and converting: no npm call.
Entries are written atomically (a scratch folder renamed into place) and carry the sha256 of
each file, checked before reuse; an entry that fails the check is thrown away and rebuilt.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from alignment_core.machine_cache import cache_dir as cache_dir  # the CLI reads it here

ENV_FOLDER = "GRIDALIGN_RESOURCES"
MANIFEST_FILE = "manifest.json"  # a cache entry's files and their sha256
SOURCE_FILE = "source.json"
NPM_TIMEOUT = 1800  # seconds


class ResourceError(Exception):
    """A resource could not be installed (the message says what and where)."""


class Unavailable(ResourceError):
    """The package could not be obtained at all (no npm, no registry): a setup that may go
    without it goes on; a wrong or broken package is a plain ``ResourceError``."""


@dataclass(frozen=True)
class NpmPackage:
    """A pinned npm package holding a resource, and how it becomes an installed folder.

    ``write(archive, tarball, folder)`` reads the package's members from the open tarball and
    writes ``files`` into ``folder``; it returns what ``source.json`` should also record (counts),
    and raises ``ResourceError`` naming ``tarball`` when the package is not as expected."""

    key: str  # the CLI's name for it
    package: str
    version: str
    integrity: str  # the registry's sha512 of the tarball
    folder_name: str
    title: str
    licence: str
    files: tuple[str, ...]
    write: Callable[[tarfile.TarFile, Path, Path], dict[str, Any]]

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    @property
    def tarball_name(self) -> str:
        return f"{self.package}-{self.version}.tgz"

    def folder(self, root: str | Path | None = None) -> Path:
        return Path(root if root is not None else resources_dir()) / self.folder_name


def resources_dir() -> Path:
    """Where resources are installed: ``$GRIDALIGN_RESOURCES``, else in the Python environment
    beside the pinned packages (``make clean`` leaves it alone)."""
    override = os.environ.get(ENV_FOLDER)
    return Path(override) if override else Path(sys.prefix) / "share" / "gridalign"


def cache_key(package: NpmPackage) -> str:
    """The cache entry's name: what the converted files depend on — the pinned version, the
    tarball's sha512 and the converter's code (the module that writes them, and this one)."""
    code = hashlib.sha256()
    for module in (sys.modules[package.write.__module__], sys.modules[__name__]):
        code.update(Path(module.__file__ or "").read_bytes())
    tarball = hashlib.sha256(package.integrity.encode()).hexdigest()[:16]
    return f"{package.key}-{package.version}-{tarball}-c{code.hexdigest()[:16]}"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cached_entry(package: NpmPackage, cache: Path) -> Path | None:
    """The cache's entry for ``package`` when it is whole and every file matches its sha256;
    an entry that does not is removed (renamed aside first: atomic) and None returned."""
    entry = cache / "resources" / cache_key(package)
    if not entry.is_dir():
        return None
    try:
        manifest = json.loads((entry / MANIFEST_FILE).read_text(encoding="utf-8"))
        whole = set(manifest) == {*package.files, SOURCE_FILE} and all(
            _sha256(entry / name) == digest for name, digest in manifest.items()
        )
    except (OSError, ValueError, TypeError):
        whole = False
    if whole:
        return entry
    _discard(entry)
    return None


def _discard(folder: Path) -> None:
    """Remove ``folder`` so that no reader sees it half gone: renamed aside, then deleted."""
    aside = folder.with_name(f".{folder.name}.{os.getpid()}.discarded")
    try:
        os.replace(folder, aside)
    except OSError:
        return
    shutil.rmtree(aside, ignore_errors=True)


def _link_or_copy(source: Path, destination: Path) -> None:
    try:
        os.link(source, destination)
    except OSError:  # another filesystem, or links not allowed
        shutil.copy2(source, destination)


def _store_in_cache(package: NpmPackage, staged: Path, cache: Path) -> None:
    """Put the converted folder ``staged`` into the cache (a failure only loses the cache)."""
    entry = cache / "resources" / cache_key(package)
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f".{entry.name}-", dir=entry.parent) as scratch:
            tmp = Path(scratch) / "entry"
            tmp.mkdir()
            manifest = {}
            for name in (*package.files, SOURCE_FILE):
                _link_or_copy(staged / name, tmp / name)
                manifest[name] = _sha256(tmp / name)
            (tmp / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
            if entry.exists():
                _discard(entry)
            os.replace(tmp, entry)
    except OSError as exc:
        print(f"resources: warning: could not cache {package.spec} in {cache}: {exc}",
              file=sys.stderr)  # fmt: skip


def installed(package: NpmPackage, folder: str | Path | None = None) -> dict[str, Any] | None:
    """The installed resource's ``source.json`` (package, version, integrity, counts), or None
    when ``folder`` (default: its folder under ``resources_dir()``) does not hold it whole."""
    where = Path(folder) if folder is not None else package.folder()
    try:
        source = json.loads((where / SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(source, dict) or not all((where / f).is_file() for f in package.files):
        return None
    return source


def locate(
    package: NpmPackage, folder: str | Path | None = None
) -> tuple[Path, dict[str, Any]] | None:
    """Where the installed resource is (``folder``, default its folder under
    ``resources_dir()``) and its ``source.json``; None when it is not installed there."""
    where = Path(folder) if folder is not None else package.folder()
    source = installed(package, where)
    return (where, source) if source is not None else None


def describe(source: dict[str, Any]) -> str:
    """How the model names an installed resource: "GloVe 6B 100d from wink-…@1.1.0"."""
    return f"{source.get('name')} from {source.get('package')}@{source.get('version')}"


def sha512_integrity(path: Path) -> str:
    """A file's npm-style integrity string ("sha512-" + base64 digest)."""
    digest = hashlib.sha512()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode("ascii")


def fetch_tarball(package: NpmPackage, destination: Path, npm: str = "npm") -> Path:
    """``npm pack`` the package into ``destination``: the registry's tarball, as npm itself
    would fetch it (its configured registry, proxy and cache)."""
    try:
        done = subprocess.run(
            [npm, "pack", package.spec, "--pack-destination", str(destination), "--silent"],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
        )
    except FileNotFoundError:
        raise Unavailable(
            f"npm not found ({npm!r}): it fetches {package.spec} from the npm registry"
        ) from None
    except subprocess.TimeoutExpired:
        raise Unavailable(f"npm pack {package.spec} did not finish in time") from None
    tarball = destination / package.tarball_name
    if done.returncode != 0 or not tarball.is_file():
        why = (done.stderr or done.stdout).strip().splitlines()
        raise Unavailable(f"npm pack {package.spec} failed: {why[-1] if why else 'no tarball'}")
    return tarball


def member(archive: tarfile.TarFile, tarball: Path, name: str) -> IO[bytes]:
    """The package member ``name`` of the open ``archive``, or a ``ResourceError``."""
    try:
        found = archive.extractfile(name)
    except KeyError:
        found = None
    if found is None:
        raise ResourceError(f"{tarball}: no {name} in the package")
    return found


def install(
    package: NpmPackage,
    tarball: str | Path | None = None,
    folder: str | Path | None = None,
    *,
    integrity: str | None = None,
    npm: str = "npm",
    cache: Path | None = None,
) -> tuple[Path, bool]:
    """Install ``package`` into ``folder`` (default ``package.folder()``) from ``tarball``
    (default: fetched by ``npm pack``), checked against ``integrity`` (default: the pinned
    one). Returns the folder and whether anything was written (False: it was already there).
    Atomic: the folder is replaced whole, and a wrong, broken or missing package leaves it as
    it was. With ``cache`` (see ``cache_dir``; only for the pinned integrity), the converted
    files come from the cache when it holds them, else are stored there once converted."""
    integrity = integrity or package.integrity
    where = Path(folder) if folder is not None else package.folder()
    present = installed(package, where)
    if present is not None and present.get("integrity") == integrity:
        return where, False
    if integrity != package.integrity:
        cache = None  # the cache keys on the pinned integrity
    where.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{package.key}-", dir=where.parent) as scratch:
        scratch_dir = Path(scratch)
        entry = cached_entry(package, cache) if cache is not None else None
        if entry is not None:
            staged = scratch_dir / package.folder_name
            staged.mkdir()
            for name in (*package.files, SOURCE_FILE):
                _link_or_copy(entry / name, staged / name)
            _replace(where, staged, scratch_dir)
            return where, True
        source = Path(tarball) if tarball is not None else fetch_tarball(package, scratch_dir, npm)
        staged = _convert(package, source, integrity, scratch_dir)
        if cache is not None:
            _store_in_cache(package, staged, cache)
        _replace(where, staged, scratch_dir)
    return where, True


def _convert(package: NpmPackage, source: Path, integrity: str, scratch_dir: Path) -> Path:
    """Check the tarball ``source`` against ``integrity`` and convert it into a new folder in
    ``scratch_dir`` (returned), ``source.json`` included."""
    if not source.is_file():
        raise ResourceError(f"{source}: no such file")
    found = sha512_integrity(source)
    if found != integrity:
        raise ResourceError(
            f"{source}: sha512 {found} is not the pinned {integrity} "
            f"({package.spec}); nothing was installed"
        )
    staged = scratch_dir / package.folder_name
    staged.mkdir()
    try:
        with tarfile.open(source, "r:gz") as archive:
            counts = package.write(archive, source, staged)
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise ResourceError(f"{source}: not a readable .tgz ({exc})") from exc
    meta = {
        "name": package.title,
        "package": package.package,
        "version": package.version,
        "integrity": integrity,
        **counts,
        "licence": package.licence,
    }
    (staged / SOURCE_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return staged


def _replace(where: Path, staged: Path, scratch_dir: Path) -> None:
    """Put ``staged`` at ``where``; an old folder moves aside, into the scratch folder that
    goes."""
    if where.exists():
        os.replace(where, scratch_dir / "replaced")
    os.replace(staged, where)
