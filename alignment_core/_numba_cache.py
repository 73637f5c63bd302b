"""A numba cache locator that lets every clone on a machine share compiled kernels.

numba's own caches sit beside the source (``__pycache__``) or under ``NUMBA_CACHE_DIR`` in a
folder named after the source's absolute path: a new clone, in a new path, compiles every
kernel again (tens of seconds on a 2-core machine). ``SharedCacheLocator`` keys the folder by
content instead: ``<machine cache>/numba/<package>-<sha256 of every .py file of the kernel's
package>``. A kernel inlines and calls kernels of its own package, so any change there gives
a new folder; numba itself checks its version, the CPU and the source file's hash inside.
Registered by ``machine_cache.use_for_numba`` (``NUMBA_CACHE_LOCATOR_CLASSES``).
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

from alignment_core.machine_cache import cache_dir


@cache
def package_digest(folder: str) -> str:
    """sha256 of the .py files of ``folder`` (names and contents, in name order)."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


class SharedCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """Compiled kernels of gridalign's own modules in the per-machine cache."""

    def __init__(self, py_func, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        folder = os.path.dirname(os.path.abspath(py_file))
        name = f"{os.path.basename(folder)}-{package_digest(folder)}"
        self._cache_path = str(Path(cache_dir() or ".") / "numba" / name)

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file: str):
        module = getattr(py_func, "__module__", "") or ""
        if cache_dir() is None or not module.startswith("alignment_core."):
            return None  # other code: numba's own locators
        return super().from_function(py_func, py_file)
