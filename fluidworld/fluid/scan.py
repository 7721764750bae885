"""Fast scans of the particles' material array (uint8): is a run of it all one material?

Several stages ask each substep whether the fluid holds materials that differ in some table
(mass or miscibility group: :func:`.repulsion.material_mix`; density:
:func:`.pressure_variable.mixed_densities`). Looking each particle's material up in the table
cost ~0.7 ns a particle (100k particles: 74 us a call, ~0.25 ms a step for the two checks). In
the common case every particle is of one material: :func:`same_block` answers that for a
block of the array in one branch-free pass that the compiler turns into vector code, and the
table lookups run only in blocks that hold another material (:func:`any_other`). The answers
are the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["BLOCK", "same_block", "any_other"]

#: Particles per block of the material scans.
BLOCK = 2048


@njit(cache=True)
def same_block(mat, i0, i1, k0):
    """Whether ``mat[i0:i1]`` are all ``k0``."""
    # uint8 throughout and unsigned indices (no negative-index wrap-around): only then is the
    # loop vectorised (5.7 us for 100k particles; 49 us with a signed index)
    d = np.uint8(0)
    for i in range(np.uint64(i0), np.uint64(i1)):
        d |= mat[i] ^ k0
    return d == 0


@njit(cache=True)
def any_other(mat, i0, i1, k0, other):
    """Whether a particle of ``i0..i1`` has a material ``k`` with ``other[k]`` nonzero
    (``other``: per material, whether it differs from ``k0`` in what the caller compares, as
    bools or as a table that is 0 where it does not); blocks all of ``k0`` are passed over by
    :func:`same_block`."""
    for b0 in range(i0, i1, BLOCK):
        b1 = min(i1, b0 + BLOCK)
        if same_block(mat, b0, b1, k0):
            continue
        for i in range(b0, b1):
            if other[mat[i]]:
                return True
    return False
