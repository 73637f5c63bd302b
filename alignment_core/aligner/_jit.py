"""The one decorator every numba kernel uses: compiled ahead of first use, cached on disk
(``cache=True``, so a new process reads the machine code instead of compiling), and releasing
the GIL (``nogil=True``: the directions and E-step chunks run in threads). Its own module so
``_kernels`` and ``_hmm_kernels`` both import it and neither imports the other."""

from numba import njit

jit = njit(cache=True, nogil=True)
