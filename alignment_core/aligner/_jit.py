"""The one decorator every numba kernel uses: compiled ahead of first use, cached on disk
(``cache=True``, so a new process reads the machine code instead of compiling), and releasing
the GIL (``nogil=True``: the directions and E-step chunks run in threads). Its own module so
``_kernels`` and ``_hmm_kernels`` both import it and neither imports the other."""

from numba import njit

jit = njit(cache=True, nogil=True)

# A part of a kernel, split out so a reader can hold each step: inlined into the kernel that
# calls it (numba's IR-level inlining), so the compiled kernel is the one loop it was before.
jit_part = njit(cache=True, nogil=True, inline="always")
