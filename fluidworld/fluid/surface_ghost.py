"""The free surface inside the top cells of the converged cell pressure
(``FluidParams.surface_ghost``, opt-in): Gibou's ghost fluid, read by
:func:`.pressure_converged.solver_coefficients` and the corrections as ``theta``, the distance
from a top cell's centre up to the surface in cells.

Without it the solve puts phi = 0 at the centre of the air cell over a column's top cell (any
cell with half a particle or more), so a surface anywhere in a cell is the same surface to it:
water can stand up to a cell higher on one side of a body than on the other (two boxes 34
apart hold the water between them 3-4 units under the water outside for 20 s), and the water
beside a floating body stands ~1 unit under the pool's. Not the default: see
``docs/architecture.md``, Limits, "Surfaces to the cell" (shallow pools rest less calmly).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .pressure import EMPTY_COUNT

__all__ = ["SURFACE_REACH", "THETA_MIN", "THIN", "surface_theta"]

#: The least distance, in cells, that :func:`surface_theta` puts a free surface above the
#: centre of a top cell at least half full (``1 / theta`` is its weight in the stencil).
THETA_MIN = 0.1
#: ``theta`` of a thin top cell, left out of the solve (:func:`surface_theta`).
THIN = -1.0


@njit(cache=True)
def surface_theta(cnt, wall, solid, gamma, theta, pads, rows, height):
    """The free surface inside the top cells (``FluidParams.surface_ghost``; Gibou's ghost
    fluid): ``theta[j, i]`` is the distance, in cells, from a cell's centre up to the surface
    where its upper face leads to it, so that phi = 0 lies there and not at the centre of the
    air cell above; 1 where the face leads to fluid (or there is no surface).

    A top cell (fluid under air) at least half full takes its fill less a half (at least
    :data:`THETA_MIN`). One under half full (*thin*; its centre is over the surface) is left out
    of the solve (``theta`` :data:`THIN`, its potentials in ``pads`` zeroed) and the cell under
    it, when that one is at least half full, takes ``0.5 +`` the thin cell's fill. Rows are grid
    rows with gravity along ``-y``; ``rows`` the active ones (:func:`.pressure.active_rows`).

    A top cell with a body's cover in it or under it (``solid``) does not say where the
    surface is: the cover is the body's submerged part, and the fluid beside a body keeps a
    particle's gap from it, so such a cell's fill reads the surface low. Its column takes the
    surface of the nearest columns without cover on either side (``height``, scratch per
    column: the surface's height in cells), interpolated, where they lie within a cell of it.

    Without it a surface anywhere in a cell was the same surface to the solve, so water could
    stand up to a cell higher on one side of a body than on the other (a gap between two bodies
    3-4 units under the water outside them for 20 s)."""
    ny, nx = cnt.shape
    walls = wall.shape[0] > 0
    for j in rows:
        for i in range(nx):
            theta[j, i] = 1.0
    for i in range(nx):
        height[i] = np.nan
    for j in rows:
        for i in range(nx):
            if not _is_top(cnt, wall, walls, j, i) or _covered(solid, j, i):
                continue
            fill = min(cnt[j, i] / gamma, 1.0)
            if math.isnan(height[i]) or j + fill > height[i]:
                height[i] = j + fill
            _set_surface(cnt, wall, walls, gamma, theta, pads, j, i, fill)
    for j in rows:
        for i in range(nx):
            if _is_top(cnt, wall, walls, j, i) and _covered(solid, j, i):
                fill = min(cnt[j, i] / gamma, 1.0)
                s = _beside(height, i, j)
                _set_surface(cnt, wall, walls, gamma, theta, pads, j, i,
                             fill if math.isnan(s) else s - j)


@njit(cache=True)
def _is_top(cnt, wall, walls, j, i):
    """Whether cell ``(j, i)`` holds fluid with air (not wall) above it."""
    ny = cnt.shape[0]
    if cnt[j, i] < EMPTY_COUNT or (walls and wall[j, i] != 0):
        return False
    return not (j + 1 >= ny or cnt[j + 1, i] >= EMPTY_COUNT or (walls and wall[j + 1, i] != 0))


@njit(cache=True)
def _covered(solid, j, i):
    """Whether a body's cover lies in cell ``(j, i)`` or the one under it."""
    return solid[j, i] > 0.0 or (j > 0 and solid[j - 1, i] > 0.0)


#: How far (cells) :func:`surface_theta` looks beside a covered column for the surface.
SURFACE_REACH = 32


@njit(cache=True)
def _beside(height, i, j):
    """The surface height (cells) at column ``i`` interpolated from the nearest columns on
    either side whose surface (``height``) lies within a cell of row ``j``; NaN if none."""
    nx = height.shape[0]
    hl = np.nan
    dl = 0
    for k in range(i - 1, max(i - SURFACE_REACH, -1), -1):
        h = height[k]
        if not math.isnan(h) and j - 1.0 <= h <= j + 2.0:
            hl, dl = h, i - k
            break
    hr = np.nan
    dr = 0
    for k in range(i + 1, min(i + SURFACE_REACH, nx)):
        h = height[k]
        if not math.isnan(h) and j - 1.0 <= h <= j + 2.0:
            hr, dr = h, k - i
            break
    if math.isnan(hl):
        return hr
    if math.isnan(hr):
        return hl
    return (hl * dr + hr * dl) / (dl + dr)


@njit(cache=True)
def _set_surface(cnt, wall, walls, gamma, theta, pads, j, i, depth):
    """Top cell ``(j, i)``'s surface ``depth`` cells over its lower face: thick (at least half
    a cell: ``theta = depth - 0.5``, between :data:`THETA_MIN` and 1) or thin (left out, the
    cell under it taking ``0.5 + depth``)."""
    if (depth < 0.5 and j > 0 and cnt[j - 1, i] >= 0.5 * gamma
            and not (walls and wall[j - 1, i] != 0)):
        theta[j, i] = THIN
        theta[j - 1, i] = min(max(0.5 + depth, THETA_MIN), 1.0)
        pads[0][j + 1, i + 1] = 0.0
        pads[1][j + 1, i + 1] = 0.0
    else:
        theta[j, i] = min(max(depth - 0.5, THETA_MIN), 1.0)
