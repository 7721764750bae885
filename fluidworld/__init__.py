"""fluidworld: a 2D game fluid (SRD particles in numba) coupled two-way to pymunk bodies.

The simulation core (``fluidworld.fluid``, ``fluidworld.coupling``, :class:`World`) needs numpy,
numba and pymunk only; ``fluidworld.render`` is the arcade renderer.
"""

import os as _os

# Idle OpenMP workers sleep instead of spinning between numba's parallel regions. A game step
# alternates short parallel kernels with Python (pymunk, the coupling, drawing); on a 2-core
# machine the spinning worker slowed that Python by ~30 % and the fluid step by ~12 %
# (docs/architecture.md, "Parallelism"). Set the variable before importing fluidworld to choose
# otherwise; it only takes effect if no OpenMP runtime has started yet.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .fluid import FluidParams, FluidSystem, Material  # noqa: E402
from .world import World  # noqa: E402

__all__ = ["FluidParams", "FluidSystem", "Material", "World"]
__version__ = "0.1.0"
