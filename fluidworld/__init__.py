"""fluidworld: a 2D game fluid (SRD particles in numba) coupled two-way to pymunk bodies."""

from .fluid import FluidParams, FluidSystem, Material

__all__ = ["FluidParams", "FluidSystem", "Material"]
__version__ = "0.1.0"
