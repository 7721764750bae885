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
cells beyond it empty and uncovered (the air under a thin floor). And in a cell that a wall
cuts, the pieces behind the wall from the cell's water count as wall cover while the stage
solves (:func:`cut_cover`, :func:`restore_cut_cover`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pressure import EMPTY_COUNT

__all__ = ["mark_walls", "cut_cover", "restore_cut_cover", "SUB"]


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


#: Sub-points per cell side of ``FluidSystem.wall_parts`` (``fluidworld.coupling.cut_cells``).
SUB = 4


@njit(cache=True)
def cut_cover(pos, n, a0, cover, labels, gamma, cells, seen, touched, saved):
    """Count the pieces of the cells that walls cut and that hold no particle as wall cover,
    in place; :func:`restore_cut_cover` puts the cells back after the solve.

    ``labels`` (ny, nx, ``SUB * SUB``) are the coupler's sub-point labels of the cells with wall
    cover (``cover`` bit 0; -1 inside a wall, else the piece:
    :func:`fluidworld.coupling.cut_cells.label_cut_cells`). A piece holds water where a particle
    lies in one of its sub-points; in a cell that holds some, the other pieces (not the wall's
    own inside, which its interior samples already cover) are air behind a wall, and count as
    cover at rest: ``cells = (cnt, solid, vel)`` (the deposit's count, solid cover and mean
    velocity) get that share added (``gamma`` per full cell) and the mean velocity diluted by
    it. ``seen`` (uint16, shaped like ``cnt``, all 0 between calls) and ``touched`` (ny * nx
    int64) are scratch; ``saved`` (ny * nx, 5) keeps the changed cells' index and values.
    Returns how many cells it changed."""
    cnt, solid, vel = cells
    ny, nx = cnt.shape
    inv = 1.0 / a0
    nt = 0
    for p in range(n):
        u = pos[p, 0] * inv
        v = pos[p, 1] * inv
        i = min(max(int(u), 0), nx - 1)
        j = min(max(int(v), 0), ny - 1)
        if not cover[j, i] & 1:
            continue
        a = min(max(int((u - i) * SUB), 0), SUB - 1)
        b = min(max(int((v - j) * SUB), 0), SUB - 1)
        lab = labels[j, i, b * SUB + a]
        if lab >= 0:
            if seen[j, i] == 0:
                touched[nt] = j * nx + i
                nt += 1
            seen[j, i] |= np.uint16(1 << lab)
    count = 0
    for t in range(nt):
        j = touched[t] // nx
        i = touched[t] % nx
        behind = 0
        for k in range(SUB * SUB):
            lab = labels[j, i, k]
            if lab >= 0 and not seen[j, i] & (1 << lab):
                behind += 1
        seen[j, i] = 0
        if behind == 0:
            continue
        add = behind / (SUB * SUB)
        saved[count, 0] = touched[t]
        saved[count, 1] = cnt[j, i]
        saved[count, 2] = solid[j, i]
        saved[count, 3] = vel[j, i, 0]
        saved[count, 4] = vel[j, i, 1]
        c = cnt[j, i] + add * gamma
        keep = cnt[j, i] / c
        cnt[j, i] = c
        solid[j, i] += add
        vel[j, i, 0] *= keep
        vel[j, i, 1] *= keep
        count += 1
    return count


@njit(cache=True)
def restore_cut_cover(cells, saved, count):
    """Put back the ``count`` cells that :func:`cut_cover` changed (``saved``)."""
    cnt, solid, vel = cells
    nx = cnt.shape[1]
    for t in range(count):
        c = int(saved[t, 0])
        j = c // nx
        i = c % nx
        cnt[j, i] = saved[t, 1]
        solid[j, i] = saved[t, 2]
        vel[j, i, 0] = saved[t, 3]
        vel[j, i, 1] = saved[t, 4]
