"""The per-machine cache shared by every virtualenv and clone of gridalign on this machine:
``$GRIDALIGN_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/gridalign``; ``GRIDALIGN_CACHE=off``
turns it off. It holds what is slow to make and the same wherever it is made:

* ``resources/``: the converted outside resources (``aligner.resources``);
* ``numba/``: numba's compiled kernels (``alignment_core._numba_cache``), so that a new
  clone does not compile them again (the eager kernels compile when first imported).

Standard library only: it is read before numba or numpy load.
"""

from __future__ import annotations

import os
from pathlib import Path

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
