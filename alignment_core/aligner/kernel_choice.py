"""Which kernels the aligner runs: compiled (numba) or their plain-Python twins.

The switch lives here, apart from the kernels, so that an edge can set it without importing
numba: the web process (``gridalign.celery`` is imported by every Django process) never runs
a kernel, and importing numba (with scipy) there cost about 90 MB of resident memory. The
kernels (``_kernels.get_kernels``) read it when they are asked for.
"""

from __future__ import annotations

# Whether ``get_kernels()`` hands out the plain-Python twins: chosen once by the process's edge
# (the CLI, the Django project: ``GRIDALIGN_ALIGNER_PLAIN=1``), never read from the environment
# here. Plain kernels give the same results, slowly; they are for checks.
_PLAIN = {"default": False}


def use_plain_kernels(plain: bool) -> None:
    """Make ``get_kernels()`` (no argument) return the plain-Python twins (True) or the compiled
    kernels (False) in this process. Called by an edge, from its own setting."""
    _PLAIN["default"] = bool(plain)


def plain_by_default() -> bool:
    """What ``use_plain_kernels`` chose (False until an edge chooses)."""
    return _PLAIN["default"]
