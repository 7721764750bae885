"""The SRD particle fluid (numpy + numba only; no pymunk, no arcade)."""

from .params import HONEY, INK, OIL, WATER, FluidParams, Material, default_materials
from .system import STAGES, FluidSystem

__all__ = [
    "FluidParams",
    "FluidSystem",
    "Material",
    "STAGES",
    "WATER",
    "INK",
    "OIL",
    "HONEY",
    "default_materials",
]
