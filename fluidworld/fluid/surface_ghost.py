"""The free surface inside the top cells of the converged cell pressure
(``FluidParams.surface_ghost``, opt-in): Gibou's ghost fluid, read by
:func:`.pressure_converged.solver_coefficients` and the corrections as ``theta``, the distance
from a top cell's centre up to the surface in cells.

Without it the solve puts phi = 0 at the centre of the air cell over a column's top cell (any
cell with half a particle or more), so a surface anywhere in a cell is the same surface to it:
water can stand up to a cell higher on one side of a body than on the other (two boxes 34
apart hold the water between them 3-4 units under the water outside for 20 s), and the water
beside a floating body stands ~1 unit under the pool's. Not the default: see
``docs/architecture.md``, Limits, "Surfaces to the cell" (floating bodies bob more on the
surface it frees).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .pressure import EMPTY_COUNT

__all__ = ["NO_TOPS", "SURFACE_REACH", "THETA_MIN", "THIN", "cell_tops", "surface_theta"]

#: The least distance, in cells, that :func:`surface_theta` puts a free surface above the
#: centre of a top cell at least half full (``1 / theta`` is its weight in the stencil).
THETA_MIN = 0.1
#: ``theta`` of a thin top cell, left out of the solve (:func:`surface_theta`).
THIN = -1.0


#: The particle heights of :func:`surface_theta` where there are none: each top cell's fill
#: is then its count over ``gamma``.
NO_TOPS = np.zeros((2, 0, 0))


@njit(cache=True)
def cell_tops(pos, n, cell_of, tops):
    """``tops[0]`` and ``tops[1]`` (each shaped like the pressure grid, overwritten): the
    highest and the second highest height of a particle in each cell (``-inf`` where none),
    each particle's cell from ``cell_of`` (the pressure stage's deposit)."""
    t1 = tops[0].reshape(-1)
    t2 = tops[1].reshape(-1)
    t1[:] = -np.inf
    t2[:] = -np.inf
    for p in range(n):
        c = cell_of[p]
        y = pos[p, 1]
        if y > t1[c]:
            t2[c] = t1[c]
            t1[c] = y
        elif y > t2[c]:
            t2[c] = y


@njit(cache=True)
def _top_depth(tops, surf, j, i):
    """How far over its lower face the surface of top cell ``(j, i)`` lies, in cells (-0.5 to
    1), from its highest particle: that particle's height plus ``surf[1]`` (half a particle
    layer; ``surf[0]`` is the cell size). A particle more than ``surf[2]`` over the next one
    down (in the cell or the one under it) is a drop over the surface, and the next one stands
    for it. NaN where the cell holds no particle or there are no heights (:data:`NO_TOPS`)."""
    if tops.shape[1] == 0:
        return np.nan
    y = tops[0][j, i]
    if not y > -1e300:
        return np.nan
    below = tops[1][j, i]
    if j > 0:
        below = max(below, tops[0][j - 1, i])
    if below > -1e300 and y - below > surf[2]:
        y = below
    return min(max((y + surf[1]) / surf[0] - j, -0.5), 1.0)


@njit(cache=True)
def surface_theta(cnt, wall, solid, gamma, theta, pads, rows, height, tops, surf):
    """The free surface inside the top cells (``FluidParams.surface_ghost``; Gibou's ghost
    fluid): ``theta[j, i]`` is the distance, in cells, from a cell's centre up to the surface
    where its upper face leads to it, so that phi = 0 lies there and not at the centre of the
    air cell above; 1 where the face leads to fluid (or there is no surface).

    A top cell's *fill* is how far over its lower face the surface lies, in cells: from its
    highest particle (``tops``, :func:`cell_tops`; ``surf = (a0, half a particle layer, the
    gap over which a particle is a drop)``, see :func:`_top_depth`), or its count over
    ``gamma`` with :data:`NO_TOPS`. A top cell (fluid under air) at least half full takes its
    fill less a half (at least :data:`THETA_MIN`). One under half full (*thin*; its centre is
    over the surface) is left out of the solve (``theta`` :data:`THIN`, its potentials in
    ``pads`` zeroed) and the cell under it, when that one is at least half full, takes
    ``0.5 +`` the thin cell's fill. Rows are grid rows with gravity along ``-y``; ``rows`` the
    active ones (:func:`.pressure.active_rows`).

    Why the highest particle and not the count (2026-11-30): a particle that crosses a cell's
    face moves a count's surface by a fifth of a cell at once, and that noise drove the
    surface it freed into standing waves (pools at rest at 0.5-1.1 % of ``sqrt(g d)``; the
    highest particle moves as the particles do: 0.16-0.43 %).

    A top cell with a body's cover in it holds the body's submerged part and the water beside
    it: its own particles say where the surface is. One with no particle of its own, or with
    cover only under it (a drop on a deck), does not: its column takes the surface of the
    nearest columns without cover on either side (``height``, scratch per column: the
    surface's height in cells), interpolated, where they lie within a cell of it.

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
            fill = _top_depth(tops, surf, j, i)
            if math.isnan(fill):
                fill = min(cnt[j, i] / gamma, 1.0)
            if math.isnan(height[i]) or j + fill > height[i]:
                height[i] = j + fill
            _set_surface(cnt, wall, walls, gamma, theta, pads, j, i, fill)
    for j in rows:
        for i in range(nx):
            if _is_top(cnt, wall, walls, j, i) and _covered(solid, j, i):
                fill = min(cnt[j, i] / gamma, 1.0)
                s = _beside(height, i, j)
                own = _top_depth(tops, surf, j, i)
                if solid[j, i] > 0.0 and not math.isnan(own):  # water beside the body
                    s = j + own
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
