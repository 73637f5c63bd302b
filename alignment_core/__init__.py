"""gridalign's core: alignments, file formats, agreement measures and the seeding aligner.

Pure Python + numpy. Nothing here imports Django, a database or the network, so the
package is usable as a library and as a command line tool (``python -m alignment_core``).
All indices inside this package are 0-based.
"""

from alignment_core.machine_cache import use_for_numba

use_for_numba()  # compiled kernels shared by every clone on the machine (before numba loads)

from alignment_core.alignment import (  # noqa: E402 - after the numba cache is set
    POSSIBLE,
    SURE,
    AlignedPair,
    Alignment,
    AlignmentError,
)

__all__ = ["SURE", "POSSIBLE", "Alignment", "AlignedPair", "AlignmentError"]
