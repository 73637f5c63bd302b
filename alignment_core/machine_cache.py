"""The per-machine cache shared by every virtualenv and clone of gridalign on this machine:
``$GRIDALIGN_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/gridalign``; ``GRIDALIGN_CACHE=off``
turns it off. It holds what is slow to make and the same wherever it is made:

* ``resources/``: the converted outside resources (``aligner.resources``);
* ``numba/``: numba's compiled kernels (``alignment_core._numba_cache``), so that a new
  clone does not compile them again (the eager kernels compile when first imported);
* ``wordnet/``: WordNet's database parsed (``load_or_build``), read back in a fraction of
  the time a new process otherwise spends parsing its text files.

Standard library only: it is read before numba or numpy load.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV_CACHE = "GRIDALIGN_CACHE"
_OFF = ("off", "0", "no", "false")


def cache_dir() -> Path | None:
    """The cache folder (not created here); None when ``$GRIDALIGN_CACHE`` is ``off``."""
    override = os.environ.get(ENV_CACHE)
    if override:
        return None if override.lower() in _OFF else Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gridalign"


def use_for_numba() -> None:
    """Point numba's cache of compiled kernels at ``<cache>/numba`` (see
    ``alignment_core._numba_cache``), unless the user chose a numba cache (``NUMBA_CACHE_DIR``
    or ``NUMBA_CACHE_LOCATOR_CLASSES``) or turned the cache off. Takes effect if numba is not
    imported yet; numba's in-tree ``__pycache__`` remains the fallback."""
    if os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
        return
    if cache_dir() is None:
        return
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = (
        "alignment_core._numba_cache.SharedCacheLocator,InTreeCacheLocator,UserWideCacheLocator"
    )


def load_or_build(kind: str, key: str, build: Callable[[], Any]) -> Any:
    """``build()``'s value, kept in ``<cache>/<kind>/<key>.marshal`` for the next process.

    For parsed resources (plain dicts, lists, tuples, strings and numbers: what ``marshal``
    writes). The entry is written atomically (a temporary file renamed into place) beside the
    sha256 of its bytes, checked before reuse; an entry that fails the check, or cannot be
    read, is rebuilt. Without a cache (``GRIDALIGN_CACHE=off``) it only builds."""
    root = cache_dir()
    if root is None:
        return build()
    entry = root / kind / f"{key}.marshal"
    try:
        data = entry.read_bytes()
        if hashlib.sha256(data).hexdigest() == entry.with_suffix(".sha256").read_text().strip():
            return marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        pass
    value = build()
    try:
        data = marshal.dumps(value)
        entry.parent.mkdir(parents=True, exist_ok=True)
        for path, payload in ((entry, data), (entry.with_suffix(".sha256"),
                              hashlib.sha256(data).hexdigest().encode())):  # fmt: skip
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
            with os.fdopen(fd, "wb") as out:
                out.write(payload)
            os.replace(tmp, path)
    except (OSError, ValueError):  # the cache is a convenience: never a failure
        pass
    return value
