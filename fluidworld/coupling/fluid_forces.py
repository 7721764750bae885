"""The fluid's forces on the bodies, per sample: the pressure stage's push on a body's cover
(:func:`pressure_impulses`, its torque from the correction taken bilinearly, :func:`_grad_at`),
the shear drag between the outline and the fluid particles beside it (:func:`drag_impulses`)
with its equal and opposite reaction on them, and the sum of point impulses per body
(:func:`sum_point_impulses`). :func:`.kernels.exchange_impulses` runs them in the stage's order.

:func:`drag_impulses` and :func:`pressure_impulses` take the coupling's grouped arrays (tuples,
unpacked on their first lines; :mod:`fluidworld.coupling.kernels` documents the layouts):
``outline`` ``(local, owner, normal, pos, vel, imp, inset)`` and ``interior`` ``(local, owner, area,
pos, vel, cover_area)``, the samples; ``bodies`` ``(state, dynamic, levels, kick_levels, box,
prof, out_j, out_tau, submerged)``; ``cells`` ``(count, vel, grad, solid_frac, cover_vel)``,
the pressure grid.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .buoyancy import _level_at

__all__ = ["sum_point_impulses", "drag_impulses", "drag_range", "drag_reaction",
           "pressure_impulses", "cover_excess"]


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
def _fluid_near(qx, qy, nx_, ny_, radius, behind, fluid, mass_table, bins, give):
    """The fluid particles within ``radius`` of the surface point ``(qx, qy)`` and no more than
    ``behind`` inside the surface (outward normal ``(nx_, ny_)``), found through the neighbour
    grid the ``bin`` stage sorted them into (``bins``): their mass and momentum, or with ``give
    = (dvx, dvy)`` non-zero, that velocity change added to each of them instead."""
    pos, vel, mat, n = fluid
    nb_start, inv_nb, nb_nx, nb_ny = bins
    dvx, dvy = give
    i0 = min(max(int((qx - radius) * inv_nb), 0), nb_nx - 1)
    i1 = min(max(int((qx + radius) * inv_nb), 0), nb_nx - 1)
    j0 = min(max(int((qy - radius) * inv_nb), 0), nb_ny - 1)
    j1 = min(max(int((qy + radius) * inv_nb), 0), nb_ny - 1)
    r2 = radius * radius
    msum = 0.0
    px = 0.0
    py = 0.0
    for j in range(j0, j1 + 1):
        # a row's cells i0..i1 are one index range of the sorted particles
        for p in range(nb_start[j * nb_nx + i0], min(nb_start[j * nb_nx + i1 + 1], n)):
            dx = pos[p, 0] - qx
            dy = pos[p, 1] - qy
            if dx * dx + dy * dy >= r2 or dx * nx_ + dy * ny_ < -behind:
                continue
            if dvx != 0.0 or dvy != 0.0:
                vel[p, 0] += dvx
                vel[p, 1] += dvy
                continue
            m = mass_table[mat[p]]
            msum += m
            px += m * vel[p, 0]
            py += m * vel[p, 1]
    return msum, px, py


@njit(cache=True)
def _surface_frame(k, normal, inset, pos, state, b):
    """Sample ``k``'s outward normal (rotated with its body ``b``) and the surface point it
    stands for (``inset`` outwards from the solid particle)."""
    nx_ = state[b, 2] * normal[k, 0] - state[b, 3] * normal[k, 1]
    ny_ = state[b, 3] * normal[k, 0] + state[b, 2] * normal[k, 1]
    return nx_, ny_, pos[k, 0] + inset[k] * nx_, pos[k, 1] + inset[k] * ny_


@njit(cache=True)
def drag_impulses(outline, bodies, fluid, mass_table, bins, a0, r_l, coef, scratch):
    """Shear drag between the submerged outline samples of dynamic bodies and the fluid
    particles beside them, equal and opposite.

    For each sample below its body's water level (``bodies``' ``levels``) with a surface normal:
    the fluid within ``r_l`` of the surface point it stands for (no more than ``r_l / 4`` inside
    the surface; :func:`_fluid_near`, through the neighbour grid ``bins``), its mass-weighted
    mean velocity ``u``, and the impulse on the body ``c (u - v_sample) . t`` along the surface
    tangent ``t``, ``c = min(rho * coef, m_near / 2)`` (``coef`` = drag rate x layer area x h,
    ``rho`` the density of the fluid beside the body at the sample's row, ``prof``; the bound:
    one substep never more than halves the fluid's relative velocity). Minus the same goes to
    those particles, shared by mass (each gets the same velocity change), so momentum is
    conserved. All impulses are computed from the velocities before any is applied.
    ``scratch = (jt, msum)``: two arrays at least as long as the outline (:func:`drag_range`).

    Only the part along the surface: the normal part is the pressure's (contacts, buoyancy and
    the push). Why the particles and not the pressure cell the sample lies in: a cell the
    surface cuts holds a particle or two and the solid cover, and its mean velocity with the
    cover taken out still carried part of the cover's (the body's) velocity, so a spinning
    ball saw the fluid spin with it and was hardly braked (a ball of 0.8 in still water kept
    turning at 0.1-0.15 rad/s with no torque on it; floating balls put off a cell face turned
    by up to 68.5 degrees in 10 s, 30 or more in 6 of 30 runs; with the particles, 0.2-27.3
    over 40 runs).
    """
    jt, msum = scratch
    m_out = outline[3].shape[0]
    jt[:m_out] = 0.0
    drag_range(0, m_out, outline, bodies, fluid, mass_table, bins, (a0, r_l, coef), jt, msum)
    drag_reaction(outline, bodies, fluid, mass_table, bins, r_l, jt, msum)


@njit(cache=True)
def drag_range(k0, k1, outline, bodies, fluid, mass_table, bins, consts, jt, msum):
    """:func:`drag_impulses`' impulses on the bodies from the outline samples ``k0..k1`` (one
    body's, in the per-body parallel pass of :mod:`.per_body`); each sample's impulse along its
    tangent goes to ``jt[k]`` and the mass of its fluid to ``msum[k]``, for
    :func:`drag_reaction`. ``consts = (a0, r_l, coef)``."""
    local, owner, normal, pos, vel, imp, inset = outline
    state, dynamic, levels, kick_levels, body_box, prof, out_j, out_tau, submerged = bodies
    a0, r_l, coef = consts
    ny = prof.shape[1]
    behind = 0.25 * r_l
    for k in range(k0, k1):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        if not dynamic[b] or (normal[k, 0] == 0.0 and normal[k, 1] == 0.0):
            continue
        lev = _level_at(levels, b, pos[k, 0])
        if math.isnan(lev) or pos[k, 1] > lev:
            continue
        nx_, ny_, qx, qy = _surface_frame(k, normal, inset, pos, state, b)
        m, px, py = _fluid_near(qx, qy, nx_, ny_, r_l, behind, fluid, mass_table, bins,
                                (0.0, 0.0))
        if m <= 0.0:
            continue
        row = min(max(int(math.floor(pos[k, 1] / a0)), 0), ny - 1)
        c = min(prof[b, row] * coef, 0.5 * m)
        # tangent (-ny, nx): the relative velocity along it
        jt[k] = c * (-(px / m - vel[k, 0]) * ny_ + (py / m - vel[k, 1]) * nx_)
        msum[k] = m
        jx = -jt[k] * ny_
        jy = jt[k] * nx_
        out_j[b, 0] += jx
        out_j[b, 1] += jy
        out_tau[b] += (pos[k, 0] - state[b, 7]) * jy - (pos[k, 1] - state[b, 8]) * jx


@njit(cache=True)
def drag_reaction(outline, bodies, fluid, mass_table, bins, r_l, jt, msum):
    """Minus each sample's drag impulse (``jt``, along its tangent) to the fluid particles it
    was measured on (``msum``: their mass), shared by mass, sample by sample in order."""
    local, owner, normal, pos, vel, imp, inset = outline
    state = bodies[0]
    behind = 0.25 * r_l
    for k in range(pos.shape[0]):
        if jt[k] == 0.0:
            continue
        b = np.uint64(owner[k])
        nx_, ny_, qx, qy = _surface_frame(k, normal, inset, pos, state, b)
        _fluid_near(qx, qy, nx_, ny_, r_l, behind, fluid, mass_table, bins,
                    (jt[k] * ny_ / msum[k], -jt[k] * nx_ / msum[k]))


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
def pressure_impulses(interior, bodies, cells, a0, spacing, kick_x, kick_y, awash):
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
    ``awash = (sparse, reach)``: a body whose top is at most ``reach`` above its level (awash)
    gets no push either in cells under a partly filled one (against gravity, ``cell_count <
    sparse``). The sliver of cover over such a body's deck makes a cell that is not air, and
    the correction in the rows under it falls short of hydrostatic: a box 100 x 30 of 0.9 was
    held with its deck level with the water by a push of 10-14 % of its weight down, all its
    spare buoyancy (fraction 0.994 for 0.9). Only for awash bodies: for all, it lowered a
    floating box's displacement of the level and turned small calm balls (and beside every
    partly filled cell, without gravity too, a ball launched into a blob gained 40 % momentum).

    The linear push is exactly the cover's share of each cell's correction (what the stage
    gave the cover, so momentum stays balanced); its torque comes from the same push with the
    correction taken bilinearly between cell centres (:func:`_grad_at`). Cell-constant
    corrections at the samples pushed a body's samples differently on the two sides of every
    cell face, a torque of grid noise that turned a floating ball by up to 130 degrees in 10 s
    of still water (under 2 degrees with the smooth field); the smooth field as the force too
    let a ball launched into a free blob gain 7.5 % momentum (0.24 % cell-constant).
    """
    pressure_range(0, interior[3].shape[0], interior, bodies, cells, a0, spacing, kick_x,
                   kick_y, awash)


@njit(cache=True)
def _up_row(kick_x, kick_y):
    """The grid row step against gravity when gravity is mostly vertical (1 or -1), else 0."""
    if kick_y == 0.0 or abs(kick_y) < abs(kick_x):
        return 0
    return 1 if kick_y < 0.0 else -1


@njit(cache=True)
def pressure_range(k0, k1, interior, bodies, cells, a0, spacing, kick_x, kick_y, awash):
    """:func:`pressure_impulses` over the interior samples ``k0..k1``."""
    local, owner, area, pos, vel, cover_area, arm = interior
    # ``levels``: the kick levels, those the cover was built on
    state, dynamic, body_levels, levels, body_box, prof, out_j, out_tau, submerged = bodies
    cell_count, cell_vel, grad, solid_frac, cover_vel, wall_cover = cells
    ny, nx = grad.shape[0], grad.shape[1]
    inv = 1.0 / a0
    up_j = _up_row(kick_x, kick_y)
    sparse, reach = awash
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
        if up_j != 0 and not math.isnan(lev) and body_box[b, 3] <= lev + reach:
            ju = j + up_j  # an awash body: no push under a partly filled cell
            if 0 <= ju < ny and cell_count[ju, i] < sparse:
                continue
        c = -prof[b, j] * area[k] * w
        out_j[b, 0] += c * (grad[j, i, 0] - kick_x)
        out_j[b, 1] += c * (grad[j, i, 1] - kick_y)
        gx, gy = _grad_at(grad, cell_count, pos[k, 0] * inv - 0.5, pos[k, 1] * inv - 0.5, i, j)
        jx = c * (gx - kick_x)
        jy = c * (gy - kick_y)
        # about the sample's anchor (a circle's centre: no torque of its own, see push_anchors)
        ax = state[b, 0] + state[b, 2] * arm[k, 0] - state[b, 3] * arm[k, 1] - state[b, 7]
        ay = state[b, 1] + state[b, 3] * arm[k, 0] + state[b, 2] * arm[k, 1] - state[b, 8]
        out_tau[b] += ax * jy - ay * jx


@njit(cache=True)
def cover_excess(pos, area, n, a0, out):
    """``out`` (ny, nx, overwritten): how far the first ``n`` samples' areas (``cover_area``)
    over-cover each cell, in cells: their sum over ``a0^2`` less 1 where it is over 1, else 0.

    The solve's cover (``FluidSystem.solid_fraction``, :func:`.kernels.rasterise_cover`) is
    capped at 1, but :func:`pressure_impulses` pushes every sample by its whole area, so the
    momentum the fluid gives a body's cover in such a cell is more than the solve counted; the
    free-drift fix (``fluid.free_drift``) weighs it by this. A rotated body's sample lattice
    aliases with the grid (a quarter-cell lattice puts up to 1.11 of a cell into one cell)."""
    ny, nx = out.shape
    out[:, :] = 0.0
    inv = 1.0 / a0
    for k in range(n):
        i = int(math.floor(pos[k, 0] * inv))
        j = int(math.floor(pos[k, 1] * inv))
        if 0 <= i < nx and 0 <= j < ny:
            out[j, i] += area[k] * inv * inv
    for j in range(ny):
        for i in range(nx):
            out[j, i] = max(out[j, i] - 1.0, 0.0)
