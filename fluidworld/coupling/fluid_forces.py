"""The fluid's forces on the bodies, per sample: the pressure stage's push on a body's cover
(:func:`pressure_impulses`, its torque from the correction taken bilinearly, :func:`_grad_at`),
the linear drag between the outline and the fluid beside it (:func:`drag_impulses`) with its
equal and opposite reaction on that fluid (:func:`impulse_particle_range`,
:func:`apply_cell_impulses`), and the sum of point impulses per body
(:func:`sum_point_impulses`). :func:`.kernels.exchange_impulses` runs them in the stage's order.

:func:`drag_impulses` and :func:`pressure_impulses` take the coupling's grouped arrays (tuples,
unpacked on their first lines; :mod:`fluidworld.coupling.kernels` documents the layouts):
``outline`` ``(local, owner, normal, pos, vel, imp)`` and ``interior`` ``(local, owner, area,
pos, vel, cover_area)``, the samples; ``bodies`` ``(state, dynamic, levels, kick_levels, box,
prof, out_j, out_tau, submerged)``; ``cells`` ``(count, vel, grad, solid_frac, cover_vel)``,
the pressure grid.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .buoyancy import _level_at

__all__ = ["sum_point_impulses", "drag_impulses", "apply_cell_impulses",
           "impulse_particle_range", "pressure_impulses"]


@njit(cache=True)
def sum_point_impulses(pos, imp, owner, state, scale, out_j, out_tau):
    """Add ``scale * imp`` applied at world points ``pos`` to each owner body: linear impulse to
    ``out_j`` (n_bodies, 2), angular impulse about the centre of gravity to ``out_tau``."""
    for k in range(pos.shape[0]):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        jx = scale * imp[k, 0]
        jy = scale * imp[k, 1]
        if jx == 0.0 and jy == 0.0:
            continue
        out_j[b, 0] += jx
        out_j[b, 1] += jy
        out_tau[b] += (pos[k, 0] - state[b, 7]) * jy - (pos[k, 1] - state[b, 8]) * jx


@njit(cache=True)
def drag_impulses(outline, bodies, cells, gamma, a0, grad_unit, m1, coef, out_cell_imp):
    """Linear drag between submerged outline samples (``outline``'s ``pos``, ``vel``) and the
    fluid in their pressure cell, below each body's water level (``bodies``' ``levels``).

    Impulse on the body ``rho * coef * (u_fluid - v_sample)`` per sample (``coef`` = drag rate
    x layer area x h, ``rho`` the density of the fluid beside the body at the sample's row,
    ``prof``; bounded so that one substep never more than halves the relative velocity of the
    cell's fluid); minus the same goes to the fluid of that cell via ``out_cell_imp`` (flat,
    one row per cell), so momentum is conserved. ``u_fluid`` is the cell's mean velocity from the
    pressure stage with the solid cover taken out and the pressure correction applied (the
    correction of a particle of that density); ``m1`` is the mass of a particle of density 1.

    Only the correction's part along the sample's surface normal (``normal``, body-local, as
    in :func:`~.buoyancy.sum_contact_impulses`; the whole correction where it is zero) counts:
    it is the fluid pushed out of the body's way. Its part along the surface comes from the
    staircase of the solid cover in the cells the surface cuts, not from the flow: taken as
    fluid velocity, it gave a floating ball in still water a wandering torque (its rim reached
    8 units/s while the fluid around it moved at under 2): a ball of 0.8 turned by 4-57
    degrees in 10 s over four seeds, 1.3-6 without it.
    """
    local, owner, normal, pos, vel, imp = outline
    state, dynamic, levels, kick_levels, body_box, prof, out_j, out_tau, submerged = bodies
    cell_count, cell_vel, grad, solid_frac, cover_vel = cells
    n = pos.shape[0]
    ny, nx = cell_count.shape
    inv = 1.0 / a0
    for k in range(n):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        if not dynamic[b]:
            continue
        lev = _level_at(levels, b, pos[k, 0])
        if math.isnan(lev) or pos[k, 1] > lev:
            continue
        i = int(math.floor(pos[k, 0] * inv))
        j = int(math.floor(pos[k, 1] * inv))
        if i < 0 or i >= nx or j < 0 or j >= ny:
            continue
        fc = solid_frac[j, i] * gamma
        nf = cell_count[j, i] - fc
        if nf < 1.0:
            continue
        rho = prof[b, j]
        sc = 1.0 / rho if grad_unit else 1.0
        gx = sc * grad[j, i, 0]
        gy = sc * grad[j, i, 1]
        nx_ = state[b, 2] * normal[k, 0] - state[b, 3] * normal[k, 1]
        ny_ = state[b, 3] * normal[k, 0] + state[b, 2] * normal[k, 1]
        if nx_ != 0.0 or ny_ != 0.0:
            gn = gx * nx_ + gy * ny_
            gx = gn * nx_
            gy = gn * ny_
        ux = (cell_count[j, i] * cell_vel[j, i, 0] - fc * cover_vel[j, i, 0]) / nf - gx
        uy = (cell_count[j, i] * cell_vel[j, i, 1] - fc * cover_vel[j, i, 1]) / nf - gy
        c = rho * min(coef, 0.5 * nf * m1)
        jx = c * (ux - vel[k, 0])
        jy = c * (uy - vel[k, 1])
        out_j[b, 0] += jx
        out_j[b, 1] += jy
        out_tau[b] += (pos[k, 0] - state[b, 7]) * jy - (pos[k, 1] - state[b, 8]) * jx
        cc = j * nx + i
        out_cell_imp[cc, 0] -= jx
        out_cell_imp[cc, 1] -= jy


@njit(cache=True)
def apply_cell_impulses(vel, mat, n, cell_of, mass_table, cell_imp, cell_mass, touched, lo=0,
                        hi=-1):
    """Share each cell's impulse ``cell_imp`` (n_cells, 2) among the particles that the pressure
    stage put in that cell (``cell_of``), by mass: each gets the same velocity change, and the
    momentum they receive adds up to the impulse exactly. ``cell_mass`` (n_cells) and
    ``touched`` (n) are scratch: the second pass visits only the particles of cells with an
    impulse (those next to bodies), listed by the first. Only particles ``lo..hi`` (default:
    all ``n``) are looked at (see :func:`impulse_particle_range`)."""
    cell_mass[:] = 0.0
    k = 0
    for p in range(np.uint64(lo), np.uint64(n if hi < 0 else hi)):
        c = np.uint64(cell_of[p])  # unsigned: no negative-index wrap-around per particle
        if cell_imp[c, 0] != 0.0 or cell_imp[c, 1] != 0.0:
            cell_mass[c] += mass_table[mat[p]]
            touched[k] = p
            k += 1
    for q in range(k):
        p = np.uint64(touched[q])
        c = np.uint64(cell_of[p])
        m = cell_mass[c]
        if m > 0.0:
            vel[p, 0] += cell_imp[c, 0] / m
            vel[p, 1] += cell_imp[c, 1] / m


@njit(cache=True)
def impulse_particle_range(cell_imp, nx, a0, reach, nb_start, inv_nb, nb_nx, nb_ny):
    """The particles that can be in a cell with an impulse: ``(lo, hi)``, an index range of the
    particles as the ``bin`` stage sorted them (by neighbour-grid row), covering the rows of
    those cells grown by ``reach`` (how far a particle can have moved between the sort and the
    pressure stage's deposit, which put it in its cell). ``(0, 0)`` if no cell has one."""
    jmin = -1
    jmax = -1
    for c in range(cell_imp.shape[0]):
        if cell_imp[c, 0] != 0.0 or cell_imp[c, 1] != 0.0:
            j = c // nx
            if jmin < 0:
                jmin = j
            jmax = j
    if jmin < 0:
        return 0, 0
    r0 = min(max(int((jmin * a0 - reach) * inv_nb), 0), nb_ny - 1)
    r1 = min(max(int(((jmax + 1) * a0 + reach) * inv_nb), 0), nb_ny - 1)
    return nb_start[r0 * nb_nx], nb_start[(r1 + 1) * nb_nx]


@njit(cache=True)
def _grad_at(grad, cell_count, u, v, i, j):
    """The pressure stage's correction at a point, bilinear between the centres of the four
    nearest cells (``u, v``: the point in cell units from the first cell's centre); a corner
    cell that is air or outside the grid takes the value of the point's own cell ``(j, i)``.
    Smooth across cells: a cell-constant field pushed a body's samples differently on the two
    sides of a cell face, and turned a floating ball by over 100 degrees in 10 s."""
    ny, nx = cell_count.shape
    i0 = int(math.floor(u))
    j0 = int(math.floor(v))
    fu = u - i0
    fv = v - j0
    gx = 0.0
    gy = 0.0
    for dj in range(2):
        for di in range(2):
            wt = (fu if di else 1.0 - fu) * (fv if dj else 1.0 - fv)
            jj = j0 + dj
            ii = i0 + di
            if jj < 0 or jj >= ny or ii < 0 or ii >= nx or cell_count[jj, ii] < 0.5:
                jj = j
                ii = i
            gx += wt * grad[jj, ii, 0]
            gy += wt * grad[jj, ii, 1]
    return gx, gy


@njit(cache=True)
def pressure_impulses(interior, bodies, cells, a0, spacing, kick_x, kick_y):
    """The cell-pressure stage's push on the bodies' cover: ``-rho * w A * (grad - g h)`` per
    interior sample (``interior``'s ``pos``, ``area``), where ``w A`` is the sample's share of
    the cover (:func:`submerged_cover`, ``w`` from ``bodies``' ``kick_levels``, the levels the
    cover was built on), ``grad`` the velocity correction the stage gave the cover in that cell
    and ``g h`` (``kick_x``, ``kick_y``) the hydrostatic part that the cover's gravity kick put
    in and :func:`~.buoyancy.surface_buoyancy` already gives; ``rho`` is the density of the
    fluid beside the body at the sample's row (``prof``), the fluid the cover stands for. What
    is left is the dynamic pressure: a body moving through the fluid takes the reaction of the
    fluid that the pressure stage pushed out of its way.

    The cover's correction is ``grad`` (``FluidSystem.cell_grad``) both in the single-density
    stage (it counts like particles) and in the variable-density one (it counts at density 1,
    whose correction is ``grad / 1``); there a cover inside oil carries water's hydrostatic
    gradient ``g h``, not oil's ``0.8 g h``. Measured with that stage (a box of 0.9 on water
    under oil, theory: centre ~82): this form 82.9; ``-w A (grad - rho g h)`` 91.8 (it took
    the cover's own ``0.2 g h`` for a push).

    Cells next to air (a neighbour with ``cell_count < 0.5``) are left out: there the stage's
    one-sided gradient is not hydrostatic even at rest (measured: a floating box got -6 % of its
    weight from its waterline cells), and the fluid in them is held by contacts instead.

    The linear push is exactly the cover's share of each cell's correction (what the stage
    gave the cover, so momentum stays balanced); its torque comes from the same push with the
    correction taken bilinearly between cell centres (:func:`_grad_at`). Cell-constant
    corrections at the samples pushed a body's samples differently on the two sides of every
    cell face, a torque of grid noise that turned a floating ball by up to 130 degrees in 10 s
    of still water (under 2 degrees with the smooth field); the smooth field as the force too
    let a ball launched into a free blob gain 7.5 % momentum (0.24 % cell-constant).
    """
    pressure_range(0, interior[3].shape[0], interior, bodies, cells, a0, spacing, kick_x,
                   kick_y)


@njit(cache=True)
def pressure_range(k0, k1, interior, bodies, cells, a0, spacing, kick_x, kick_y):
    """:func:`pressure_impulses` over the interior samples ``k0..k1``."""
    local, owner, area, pos, vel, cover_area = interior
    # ``levels``: the kick levels, those the cover was built on
    state, dynamic, body_levels, levels, body_box, prof, out_j, out_tau, submerged = bodies
    cell_count, cell_vel, grad, solid_frac, cover_vel = cells
    ny, nx = grad.shape[0], grad.shape[1]
    inv = 1.0 / a0
    for k in range(k0, k1):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        if not dynamic[b]:
            continue
        i = int(math.floor(pos[k, 0] * inv))
        j = int(math.floor(pos[k, 1] * inv))
        if i < 0 or i >= nx or j < 0 or j >= ny:
            continue
        if ((i > 0 and cell_count[j, i - 1] < 0.5) or (i + 1 < nx and cell_count[j, i + 1] < 0.5)
                or (j > 0 and cell_count[j - 1, i] < 0.5)
                or (j + 1 < ny and cell_count[j + 1, i] < 0.5)):
            continue
        w = 1.0
        lev = _level_at(levels, b, pos[k, 0])
        if not math.isnan(lev):
            w = min(max((lev - (pos[k, 1] - 0.5 * spacing)) / spacing, 0.0), 1.0)
        if w <= 0.0:
            continue
        c = -prof[b, j] * area[k] * w
        out_j[b, 0] += c * (grad[j, i, 0] - kick_x)
        out_j[b, 1] += c * (grad[j, i, 1] - kick_y)
        gx, gy = _grad_at(grad, cell_count, pos[k, 0] * inv - 0.5, pos[k, 1] * inv - 0.5, i, j)
        jx = c * (gx - kick_x)
        jy = c * (gy - kick_y)
        out_tau[b] += (pos[k, 0] - state[b, 7]) * jy - (pos[k, 1] - state[b, 8]) * jx
