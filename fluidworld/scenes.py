"""Fluid-only scenes, written once and shared by tests, benchmarks and demos.

Each function returns a ready :class:`~fluidworld.fluid.FluidSystem`. The paper's scenes use
:meth:`FluidParams.paper` unless ``params`` is given; keyword overrides go to the params.
"""

from __future__ import annotations

import math

import numpy as np

from .fluid import FluidParams, FluidSystem
from .fluid.params import _finite

__all__ = ["dam_break", "droplet", "mixing", "tank_at_rest", "TABLE1", "block_of", "fluid_area"]

#: The paper's Table 1 (dam break): a0, gamma, particles, cells, ms/iteration, % repulsion,
#: % cell pressure (Crespin et al. 2020, Processing on a CPU).
TABLE1 = (
    (40.0, 2.0, 260, 1024, 0.8042989, 76, 13),
    (40.0, 10.0, 376, 256, 1.8230367, 96, 1),
    (20.0, 5.0, 660, 1024, 2.6646383, 90, 4),
    (10.0, 2.0, 1134, 4096, 3.9304664, 78, 12),
    (10.0, 10.0, 6114, 4096, 44.856846, 96, 1),
)


def _params(params: FluidParams | None, **overrides: object) -> FluidParams:
    base = params if params is not None else FluidParams.paper()
    return base.replace(**overrides) if overrides else base


def block_of(fs: FluidSystem, count: int, x0: float = 0.0, y0: float = 0.0) -> np.ndarray:
    """Exactly ``count`` points at rest density in a square block with its corner at (x0, y0),
    filled row by row from the bottom (the paper's dam-break column)."""
    side = math.sqrt(count * fs.params.particle_area)
    pts = fs.hex_lattice(x0, y0, x0 + side, y0 + 2.0 * side)
    if len(pts) < count:
        raise ValueError(f"cannot place {count} particles in the domain")
    return pts[:count]


def dam_break(params: FluidParams | None = None, count: int | None = None,
              **overrides: object) -> FluidSystem:
    """Paper Fig. 3: a square column of water in the lower-left corner collapses.

    ``count`` fixes the number of particles (Table 1's counts); by default the column is 3/8 of
    the box wide.
    """
    if count is not None and (isinstance(count, bool) or not isinstance(count, int | np.integer)
                              or count < 1):
        raise ValueError(f"count must be an int >= 1 or None, got {count!r}")
    fs = FluidSystem(_params(params, **overrides))
    p = fs.params
    if count is None:
        side = 0.375 * min(p.width, p.height)
        fs.fill_rect(0.0, 0.0, side, side)
    else:
        fs.add_particles(block_of(fs, count))
    return fs


def droplet(params: FluidParams | None = None, depth: float = 0.25, radius: float = 0.08,
            drop_height: float = 0.7, **overrides: object) -> FluidSystem:
    """Paper Fig. 6: a disc of water falls into a pool at rest (fractions of the box height)."""
    for name, v, lo in (("depth", depth, 0.0), ("radius", radius, 0.0),
                        ("drop_height", drop_height, -math.inf)):
        if not (lo < _finite(name, v) < 1.0):
            raise ValueError(f"{name} must be a fraction of the box in ({lo:g}, 1), got {v!r}")
    fs = FluidSystem(_params(params, **overrides))
    p = fs.params
    fs.fill_rect(0.0, 0.0, p.width, depth * p.height)
    fs.fill_circle(p.width / 2, drop_height * p.height, radius * min(p.width, p.height))
    return fs


def mixing(params: FluidParams | None = None, push: float = 0.5, band: float = 1 / 3,
           **overrides: object) -> FluidSystem:
    """Paper Fig. 7: gravity off, the box full of two fluids of equal density; the middle band
    (material 1, "ink") is pushed slowly downwards, which rolls up two vortices.

    ``push`` is the downward acceleration on the ink in world units per time unit squared.
    """
    overrides.setdefault("gravity", (0.0, 0.0))
    fs = FluidSystem(_params(params, **overrides))
    p = fs.params
    pts = fs.hex_lattice(0.0, 0.0, p.width, p.height)
    in_band = np.abs(pts[:, 0] - p.width / 2) < band * p.width / 2
    fs.add_particles(pts[~in_band], material=0)
    fs.add_particles(pts[in_band], material=1)
    fs.material_accelerations[1] = (0.0, -abs(push))
    return fs


def tank_at_rest(params: FluidParams | None = None, layers: int = 20,
                 **overrides: object) -> FluidSystem:
    """A pool of ``layers`` hexagonal particle layers at rest density across the whole box."""
    fs = FluidSystem(_params(params, **overrides))
    depth = layers * fs.r_l * math.sqrt(3.0) / 2.0
    if depth >= fs.params.height:
        raise ValueError(f"{layers} layers ({depth:.1f}) do not fit in height {fs.params.height}")
    fs.fill_rect(0.0, 0.0, fs.params.width, depth)
    return fs


def fluid_area(fluid: FluidSystem, column: float | None = None) -> float:
    """Area under the free surface of a pool: the fluid is cut into columns (width ``a0`` by
    default); each column counts from the floor up to its highest particle plus half a layer
    (``r_L sqrt(3) / 4``). Meant for settled fluid resting on the floor (dam break at rest)."""
    w = fluid.params.a0 if column is None else _finite("column", column)
    if not w > 0.0:
        raise ValueError(f"column must be > 0, got {column!r}")
    pos = fluid.positions
    if len(pos) == 0:
        return 0.0
    col = np.floor(pos[:, 0] / w).astype(np.int64)
    tops = np.full(col.max() + 1, -np.inf)
    np.maximum.at(tops, col, pos[:, 1])
    present = np.isfinite(tops)
    half_layer = fluid.r_l * math.sqrt(3.0) / 4.0
    return float(((tops[present] + half_layer) * w).sum())
