"""fluidworld: a 2D game fluid (SRD particles in numba) coupled two-way to pymunk bodies.

The simulation core (``fluidworld.fluid``, ``fluidworld.coupling``, :class:`World`) needs numpy,
numba and pymunk only; ``fluidworld.render`` is the arcade renderer.
"""

import os as _os

# Idle OpenMP workers spin briefly (~0.25 ms here), then sleep. numba's default lets them spin
# for milliseconds after each parallel region, which slowed the Python between kernels (pymunk,
# the coupling, drawing); sleeping at once (OMP_WAIT_POLICY=PASSIVE) costs ~20 us to wake a
# worker for each of the dozens of parallel regions in a step (docs/architecture.md,
# "Parallelism"). Set GOMP_SPINCOUNT or OMP_WAIT_POLICY before importing fluidworld to choose
# otherwise; either only takes effect if no OpenMP runtime has started yet.
if "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ.setdefault("GOMP_SPINCOUNT", "10000")

from .fluid import FluidParams, FluidSystem, Material  # noqa: E402
from .saving import SaveError  # noqa: E402
from .world import World  # noqa: E402

__all__ = ["FluidParams", "FluidSystem", "Material", "SaveError", "World"]
__version__ = "0.1.0"
