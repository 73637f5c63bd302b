"""Where a workspace keeps its arrays: files in a folder (``FolderStore``: what workers share,
and what bounds a large corpus's memory), or a dict in this process (``MemoryStore``: a corpus
of one chunk, which the E-step holds whole in memory anyway, trains without touching the disk).

Both hold the same arrays under the same names (``chunks/c00000.npz``, ``params/p001.f.npy``,
…), and the EM code reads and writes them only through these methods, so it is the same code
over either store and gives the same bits. What a load returns behaves alike in both: ``load``
and ``load_arrays`` give arrays of the caller's own (copies), ``load_mapped`` read-only ones,
``updating`` the stored array itself, written back when the block ends.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from alignment_core.aligner.corpus_store import LOAD_LOCK, save_atomic


class FolderStore:
    """The arrays as ``.npy`` / ``.npz`` files under ``root`` (each written atomically)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, name: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def save(self, name: str, array) -> None:
        save_atomic(self._path(name), lambda fh: np.save(fh, array))

    def save_arrays(self, name: str, arrays: dict) -> None:
        save_atomic(self._path(name), lambda fh: np.savez(fh, **arrays))

    def save_json(self, name: str, value) -> None:
        save_atomic(self._path(name), lambda fh: fh.write(json.dumps(value).encode()))

    def load(self, name: str) -> np.ndarray:
        with LOAD_LOCK:
            return np.load(self.root / name)

    def load_mapped(self, name: str) -> np.ndarray:
        with LOAD_LOCK:
            return np.load(self.root / name, mmap_mode="r")

    def load_arrays(self, name: str) -> dict[str, np.ndarray]:
        with LOAD_LOCK, np.load(self.root / name) as z:
            return {k: z[k] for k in z.files}

    def slices(self, name: str, dtype) -> _FileSlices:
        """Reads and writes of parts of the ``.npy`` file ``name``, its header parsed once
        (numpy parses a header with ``ast.literal_eval``: too slow to repeat per slice)."""
        return _FileSlices(self.root / name, dtype)

    def new_array(self, name: str, dtype, n: int) -> None:
        """A zero-filled array of ``n`` elements, to fill through ``updating``."""
        np.lib.format.open_memmap(self._path(name), "w+", dtype, (n,))

    @contextlib.contextmanager
    def updating(self, name: str) -> Iterator[np.ndarray]:
        with LOAD_LOCK:
            array = np.load(self.root / name, mmap_mode="r+")
        try:
            yield array
            array.flush()
        finally:
            del array

    @contextlib.contextmanager
    def appending(self, name: str, dtype) -> Iterator[list]:
        """A list to append arrays of ``dtype`` to; at the end of the block they are the
        array ``name``, copied through a small buffer (never whole in memory)."""
        raw = self._path(f"{name}.raw")
        parts = _FileParts(raw, dtype)
        with open(raw, "wb") as parts.fh:
            yield parts
        header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                  "fortran_order": False, "shape": (parts.n,)}  # fmt: skip
        with open(self.root / name, "wb") as dst, open(raw, "rb") as src:
            np.lib.format.write_array_header_1_0(dst, header)
            shutil.copyfileobj(src, dst, 1 << 22)
        raw.unlink()

    def exists(self, name: str) -> bool:
        return (self.root / name).exists()

    def remove(self, name: str) -> None:
        (self.root / name).unlink(missing_ok=True)

    def remove_folder(self, name: str) -> None:
        shutil.rmtree(self.root / name, ignore_errors=True)


class _FileSlices:
    """Parts of one ``.npy`` file read or written in place: a plain seek and read or write,
    nothing mapped, so nothing stays resident and nothing is synced."""

    def __init__(self, path: Path, dtype) -> None:
        self.path, self.dtype = path, np.dtype(dtype)
        with open(path, "rb") as fh:
            fmt = np.lib.format
            if fmt.read_magic(fh) == (1, 0):
                fmt.read_array_header_1_0(fh)
            else:
                fmt.read_array_header_2_0(fh)
            self.offset = fh.tell()

    def read(self, a: int, b: int) -> np.ndarray:
        with open(self.path, "rb") as fh:
            fh.seek(self.offset + a * self.dtype.itemsize)
            return np.fromfile(fh, dtype=self.dtype, count=b - a)

    def write(self, a: int, values: np.ndarray) -> None:
        with open(self.path, "r+b") as fh:
            fh.seek(self.offset + a * self.dtype.itemsize)
            np.asarray(values, self.dtype).tofile(fh)


class _ArraySlices:
    """``_FileSlices`` over an array of a ``MemoryStore``."""

    def __init__(self, array: np.ndarray, dtype) -> None:
        self.array, self.dtype = array, np.dtype(dtype)

    def read(self, a: int, b: int) -> np.ndarray:
        return self.array[a:b].astype(self.dtype)

    def write(self, a: int, values: np.ndarray) -> None:
        self.array[a : a + len(values)] = values


class _FileParts:
    def __init__(self, path: Path, dtype) -> None:
        self.path, self.dtype, self.n, self.fh = path, np.dtype(dtype), 0, None

    def append(self, array: np.ndarray) -> None:
        np.asarray(array, self.dtype).tofile(self.fh)
        self.n += len(array)


class MemoryStore:
    """The same arrays in a dict of this process (see the module docstring)."""

    def __init__(self) -> None:
        self._values: dict[str, object] = {}
        self._lock = threading.Lock()

    def save(self, name: str, array) -> None:
        self._values[name] = np.array(array)

    def save_arrays(self, name: str, arrays: dict) -> None:
        self._values[name] = {k: np.array(v) for k, v in arrays.items()}

    def save_json(self, name: str, value) -> None:
        self._values[name] = json.loads(json.dumps(value))

    def load(self, name: str) -> np.ndarray:
        return self._array(name).copy()

    def load_mapped(self, name: str) -> np.ndarray:
        view = self._array(name).view()
        view.flags.writeable = False
        return view

    def load_arrays(self, name: str) -> dict[str, np.ndarray]:
        value = self._values.get(name)
        if not isinstance(value, dict):
            raise FileNotFoundError(f"no arrays {name} in the workspace")
        return {k: v.copy() for k, v in value.items()}

    def slices(self, name: str, dtype) -> _ArraySlices:
        return _ArraySlices(self._array(name), dtype)

    def new_array(self, name: str, dtype, n: int) -> None:
        self._values[name] = np.zeros(n, dtype=dtype)

    @contextlib.contextmanager
    def updating(self, name: str) -> Iterator[np.ndarray]:
        yield self._array(name)

    @contextlib.contextmanager
    def appending(self, name: str, dtype) -> Iterator[list]:
        parts: list[np.ndarray] = []
        yield parts
        self._values[name] = np.concatenate([np.zeros(0, dtype), *parts]).astype(dtype)

    def exists(self, name: str) -> bool:
        return name in self._values

    def remove(self, name: str) -> None:
        self._values.pop(name, None)

    def remove_folder(self, name: str) -> None:
        prefix = name.rstrip("/") + "/"
        with self._lock:
            for key in [k for k in list(self._values) if k.startswith(prefix)]:
                self._values.pop(key, None)

    def _array(self, name: str) -> np.ndarray:
        value = self._values.get(name)
        if not isinstance(value, np.ndarray):
            raise FileNotFoundError(f"no array {name} in the workspace")
        return value
