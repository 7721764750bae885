"""fluidworld: a 2D game fluid (SRD particles in numba) coupled two-way to pymunk bodies.

The simulation core (``fluidworld.fluid``, ``fluidworld.coupling``, :class:`World`) needs numpy,
numba and pymunk only; ``fluidworld.render`` is the arcade renderer.
"""

from .fluid import FluidParams, FluidSystem, Material
from .world import World

__all__ = ["FluidParams", "FluidSystem", "Material", "World"]
__version__ = "0.1.0"
