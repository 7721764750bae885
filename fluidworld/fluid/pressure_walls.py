"""Stage ``cell_pressure``: the wall cells of the converged solvers (:func:`mark_walls`).

The pressure grid's border is a wall (Neumann: no flow through it, left out of a cell's
equation). Walls inside the domain -- the static shapes of a level: floors, tanks, ramps -- are
cells too: before this, a cell that a wall covers was *fluid* (its cover counts as fluid at
the cover's velocity), so a tank or a floor with air below it had the air as a free surface
under its water, and the water, pulled towards that surface, packed at the floor (a tank
filled 100 deep rested 76-89 deep) and could hold a light body under.

A **wall cell** is a cell that a wall covers in part (``FluidSystem.wall_cover``, set by the
coupling layer from the shapes of bodies that neither are dynamic nor move) and that holds no
fluid particle. The converged solvers treat it as they treat the border: no flow through its
faces, no equation and phi = 0 of its own, left out of its neighbours' equations and
gradients, full in the density correction's 3x3 blocks; a body of water that touches one is
held by it (:mod:`.free_drift`). A cell with both wall cover and fluid stays fluid, as before.
An empty cell that touches fluid only across faces that walls stand across is a wall cell
too: a wall thinner than a cell that runs through the middle of its water's cells leaves the
cells beyond it empty and uncovered (the air under a thin floor).
"""

from __future__ import annotations

from numba import njit

from .pressure import EMPTY_COUNT

__all__ = ["mark_walls"]


@njit(cache=True, inline="always")
def _holds_fluid(cnt, solid_frac, gamma, j, i):
    return cnt[j, i] - solid_frac[j, i] * gamma >= EMPTY_COUNT


@njit(cache=True)
def _walled_off(cnt, solid_frac, cover, gamma, j, i):
    """Whether the empty cell ``(j, i)`` touches fluid across a wall's face (``cover``'s bits
    1 and 2, :func:`fluidworld.coupling.kernels.rasterise_wall_faces`) and none through an
    open face."""
    ny, nx = cnt.shape
    across = False
    for k in range(4):
        if k == 0:
            jj, ii, shut = j, i - 1, i > 0 and cover[j, i - 1] & 2
        elif k == 1:
            jj, ii, shut = j, i + 1, cover[j, i] & 2
        elif k == 2:
            jj, ii, shut = j - 1, i, j > 0 and cover[j - 1, i] & 4
        else:
            jj, ii, shut = j + 1, i, cover[j, i] & 4
        if jj < 0 or jj >= ny or ii < 0 or ii >= nx:
            continue
        if _holds_fluid(cnt, solid_frac, gamma, jj, ii):
            if not shut:
                return False
            across = True
    return across


@njit(cache=True)
def mark_walls(cnt, solid_frac, cover, gamma, wall, phi_pad, psi_pad):
    """Set ``wall`` (uint8, shaped like ``cnt``) to 1 in the cells that hold no fluid particle
    (``cnt`` less the solid cover ``solid_frac * gamma`` is under :data:`.pressure.EMPTY_COUNT`)
    and either have wall ``cover`` (bit 0) or touch fluid only across the faces that walls
    stand across (bits 1 and 2: the air under a thin floor that runs through the middle of the
    cells its water is in); 0 elsewhere. The two zero-bordered potentials are held at 0 there.
    Returns how many wall cells."""
    ny, nx = cnt.shape
    count = 0
    for j in range(ny):
        for i in range(nx):
            w = False
            if cover[j, i] != 0 or (i > 0 and cover[j, i - 1] & 2) or (
                    j > 0 and cover[j - 1, i] & 4):
                if not _holds_fluid(cnt, solid_frac, gamma, j, i):
                    w = cover[j, i] & 1 or _walled_off(cnt, solid_frac, cover, gamma, j, i)
            wall[j, i] = w
            if w:
                phi_pad[j + 1, i + 1] = 0.0
                psi_pad[j + 1, i + 1] = 0.0
                count += 1
    return count
