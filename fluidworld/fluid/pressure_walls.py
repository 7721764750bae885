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
"""

from __future__ import annotations

from numba import njit

from .pressure import EMPTY_COUNT

__all__ = ["mark_walls"]


@njit(cache=True)
def mark_walls(cnt, solid_frac, cover, gamma, wall, phi_pad, psi_pad):
    """Set ``wall`` (uint8, shaped like ``cnt``) to 1 in the cells with wall ``cover`` and no
    fluid particle (``cnt`` less the solid cover ``solid_frac * gamma`` is under
    :data:`.pressure.EMPTY_COUNT`), 0 elsewhere, and hold the two zero-bordered potentials at
    0 there. Returns how many wall cells."""
    ny, nx = cnt.shape
    count = 0
    for j in range(ny):
        for i in range(nx):
            w = cover[j, i] != 0 and cnt[j, i] - solid_frac[j, i] * gamma < EMPTY_COUNT
            wall[j, i] = w
            if w:
                phi_pad[j + 1, i + 1] = 0.0
                psi_pad[j + 1, i + 1] = 0.0
                count += 1
    return count
