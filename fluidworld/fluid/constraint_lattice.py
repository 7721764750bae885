"""The constraint solver's lattice sums (plain Python, run once when the solver attaches):
the rest density a fill's hexagonal lattice has under the ``(1 - d^2)^3`` weights, and the
corrections :func:`~fluidworld.fluid.constraint.build_lists` applies at a free surface and
beside a row of solids, so that a lattice's top and bottom rows count at that density."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["rest_density", "solid_weight", "surface_fill"]


def _weight(r: float, radius: float) -> float:
    q = 1.0 - (r / radius) ** 2
    return q * q * q if q > 0.0 else 0.0


def rest_density(spacing: float, radius: float) -> float:
    """``1 + sum (1 - d^2)^3`` over the neighbours of a particle inside a hexagonal lattice at
    ``spacing`` (the density the fills place the fluid at)."""
    return 1.0 + _half_lattice(spacing, radius, lowest_row=None)


def _half_lattice(spacing: float, radius: float, lowest_row: int | None) -> float:
    """Neighbour weights of a lattice particle, counting only rows ``>= lowest_row`` (all rows
    for ``None``)."""
    m = int(math.ceil(radius / spacing)) + 2
    dy = spacing * math.sqrt(3.0) / 2.0
    total = 0.0
    lo = -2 * m if lowest_row is None else lowest_row
    for row in range(lo, 2 * m + 1):
        off = 0.5 * spacing if row % 2 else 0.0
        for col in range(-m, m + 1):
            r = math.hypot(col * spacing + off, row * dy)
            if r > 0.0:
                total += _weight(r, radius)
    return total


def surface_fill(spacing: float, radius: float, dead: float = 0.1) -> tuple[float, float]:
    """``(fill, m0)`` of the free-surface correction of
    :func:`~fluidworld.fluid.constraint.build_lists`: a lattice's top
    row, whose kernel sum misses the rows above it, counts at the rest density. ``m0`` is
    ``dead x (rho0 - 1)`` (the first moment's noise in a disordered bulk stays below it)."""
    m = int(math.ceil(radius / spacing)) + 2
    dy = spacing * math.sqrt(3.0) / 2.0
    moment = 0.0
    for row in range(-2 * m, 1):
        off = 0.5 * spacing if row % 2 else 0.0
        for col in range(-m, m + 1):
            r = math.hypot(col * spacing + off, row * dy)
            if r > 0.0:
                moment += _weight(r, radius) * row * dy / r
    full = rest_density(spacing, radius) - 1.0
    missing = full - _half_lattice(spacing, radius, 0)
    m0 = dead * full
    return missing / (abs(moment) - m0), m0


def solid_weight(spacing: float, radius: float, distance: float) -> float:
    """Scale of a solid particle's weight so that a fluid particle of a lattice's bottom row,
    ``distance`` from a straight row of solids at ``spacing / 2``, has the rest density: the
    solids stand in for the fluid that is missing below it."""
    missing = rest_density(spacing, radius) - 1.0 - _half_lattice(spacing, radius, 0)
    s = 0.5 * spacing
    k = int(math.ceil(radius / s)) + 1
    line = float(np.mean([sum(_weight(math.hypot((c + o) * s, distance), radius)
                              for c in range(-k, k + 1)) for o in (0.0, 0.25, 0.5, 0.75)]))
    return missing / line if line > 0.0 else 0.0
