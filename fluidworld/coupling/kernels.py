"""Numba kernels of the coupling: everything that loops over particles or samples.

Body state crosses from pymunk into one ``(n_bodies, 9)`` array per substep (see
:data:`STATE_COLUMNS`); impulses go back as ``(n_bodies, 2)`` linear and ``(n_bodies,)`` angular
sums. Nothing here knows pymunk.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .buoyancy import (
    _level_at,
    cell_densities,
    density_profiles,
    sum_contact_impulses,
    surface_buoyancy,
)
from .containment import contain_particles, shape_bounds

__all__ = [
    "STATE_COLUMNS",
    "body_state",
    "impulse_velocities",
    "pose_points",
    "rasterise_cover",
    "sum_point_impulses",
    "shape_bounds",
    "contain_particles",
    "column_tops",
    "water_levels",
    "submerged_areas",
    "drag_impulses",
    "apply_cell_impulses",
    "impulse_particle_range",
    "sample_bounds",
    "pressure_impulses",
    "submerged_cover",
    "body_rows_range",
    "exchange_impulses",
    "sync_geometry",
]

#: Columns of the per-body state array: origin (px, py), rotation (cos, sin), centre-of-gravity
#: velocity (vx, vy), angular velocity w, centre of gravity in world coordinates (gx, gy).
STATE_COLUMNS = ("px", "py", "cos", "sin", "vx", "vy", "w", "gx", "gy")


@njit(cache=True)
def body_state(raw, cog_local, state):
    """Each body's :attr:`Coupler.state` row from its raw pose ``(x, y, angle, vx, vy, w)``:
    ``(x, y, cos, sin, vx, vy, w, cog_x, cog_y)``, the centre of gravity in world coordinates."""
    for k in range(raw.shape[0]):
        x = raw[k, 0]
        y = raw[k, 1]
        c = math.cos(raw[k, 2])
        s = math.sin(raw[k, 2])
        gx = cog_local[k, 0]
        gy = cog_local[k, 1]
        state[k, 0] = x
        state[k, 1] = y
        state[k, 2] = c
        state[k, 3] = s
        state[k, 4] = raw[k, 3]
        state[k, 5] = raw[k, 4]
        state[k, 6] = raw[k, 5]
        state[k, 7] = x + c * gx - s * gy
        state[k, 8] = y + s * gx + c * gy


@njit(cache=True)
def impulse_velocities(raw, rows, dynamic, J, tau, inv_mass, inv_moment, out):
    """The velocities ``(vx, vy, w)`` of every body of a space after the impulses.

    Args:
        raw: (n, 6) ``(x, y, angle, vx, vy, w)`` of the space's bodies, in its order.
        rows: (nb,) row of each coupled body in ``raw``. dynamic: (nb,) which of them move.
        J, tau: (nb, 2) and (nb,) impulse and angular impulse of each coupled body.
        inv_mass, inv_moment: (nb,) their inverse mass and moment.
        out: (n, 3) receives ``v + J/m`` and ``w + tau/I`` (the same operations, in the same
            order, as the coupler's body-by-body write), ``raw``'s velocities elsewhere.
    """
    for r in range(raw.shape[0]):
        out[r, 0] = raw[r, 3]
        out[r, 1] = raw[r, 4]
        out[r, 2] = raw[r, 5]
    for k in range(rows.shape[0]):
        if dynamic[k]:
            r = rows[k]
            out[r, 0] = raw[r, 3] + J[k, 0] * inv_mass[k]
            out[r, 1] = raw[r, 4] + J[k, 1] * inv_mass[k]
            out[r, 2] = raw[r, 5] + tau[k] * inv_moment[k]


@njit(cache=True)
def pose_points(local, owner, state, out_pos, out_vel):
    """World positions and velocities ``v + w x r`` of body-local points.

    Args:
        local: (m, 2) body-local points. owner: (m,) body index of each point.
        state: (n_bodies, 9) body state (:data:`STATE_COLUMNS`).
        out_pos, out_vel: (m, 2) outputs.
    """
    for k in range(local.shape[0]):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        c = state[b, 2]
        s = state[b, 3]
        lx = local[k, 0]
        ly = local[k, 1]
        x = state[b, 0] + c * lx - s * ly
        y = state[b, 1] + s * lx + c * ly
        out_pos[k, 0] = x
        out_pos[k, 1] = y
        w = state[b, 6]
        out_vel[k, 0] = state[b, 4] - w * (y - state[b, 8])
        out_vel[k, 1] = state[b, 5] + w * (x - state[b, 7])


@njit(cache=True)
def rasterise_cover(pos, vel, area, n, a0, frac, cover_vel):
    """Deposit area samples into the pressure grid: ``frac`` (ny, nx) += area / a0^2 and the
    area-weighted velocity into ``cover_vel`` (ny, nx, 2); then normalise the velocity and clamp
    the cover to 1. Both outputs are overwritten."""
    ny, nx = frac.shape
    frac[:, :] = 0.0
    cover_vel[:, :, :] = 0.0
    inv = 1.0 / a0
    inv_cell = inv * inv
    for k in range(n):
        i = int(math.floor(pos[k, 0] * inv))
        j = int(math.floor(pos[k, 1] * inv))
        if i < 0 or i >= nx or j < 0 or j >= ny:
            continue
        f = area[k] * inv_cell
        frac[j, i] += f
        cover_vel[j, i, 0] += f * vel[k, 0]
        cover_vel[j, i, 1] += f * vel[k, 1]
    for j in range(ny):
        for i in range(nx):
            f = frac[j, i]
            if f > 0.0:
                cover_vel[j, i, 0] /= f
                cover_vel[j, i, 1] /= f
                if f > 1.0:
                    frac[j, i] = 1.0


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
def submerged_areas(pos, area, owner, n, levels, spacing, out_submerged):
    """Each body's submerged area (``out_submerged``, n_bodies) from its interior samples.

    A sample at height y stands for the strip ``[y - s/2, y + s/2]``; the fraction of the strip
    below the level (interpolated between the left and right levels) weights it, which makes the
    submerged area of an axis-aligned box exact. (The buoyancy itself is the pressure integral
    over the surface, :func:`~.buoyancy.surface_buoyancy`.)
    """
    for k in range(n):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        lev = _level_at(levels, b, pos[k, 0])
        if math.isnan(lev):
            continue
        w = (lev - (pos[k, 1] - 0.5 * spacing)) / spacing
        if w <= 0.0:
            continue
        out_submerged[b] += area[k] * min(w, 1.0)


@njit(cache=True)
def drag_impulses(pos, vel, owner, normal, n, state, levels, dynamic, cell_count, cell_vel,
                  grad, solid_frac, cover_vel, gamma, a0, prof, grad_unit, m1, coef, out_j,
                  out_tau, out_cell_imp):
    """Linear drag between submerged outline samples and the fluid in their pressure cell.

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
def sample_bounds(pos, owner, n_bodies, half, out_box):
    """World bounding box of each body's samples, grown by ``half``; empty bodies get NaN."""
    for b in range(n_bodies):
        out_box[b, 0] = 1e300
        out_box[b, 1] = 1e300
        out_box[b, 2] = -1e300
        out_box[b, 3] = -1e300
    for k in range(pos.shape[0]):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        out_box[b, 0] = min(out_box[b, 0], pos[k, 0] - half)
        out_box[b, 1] = min(out_box[b, 1], pos[k, 1] - half)
        out_box[b, 2] = max(out_box[b, 2], pos[k, 0] + half)
        out_box[b, 3] = max(out_box[b, 3], pos[k, 1] + half)
    for b in range(n_bodies):
        if out_box[b, 0] > out_box[b, 2]:
            for c in range(4):
                out_box[b, c] = np.nan


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
def pressure_impulses(pos, area, owner, n, state, dynamic, levels, spacing, grad, cell_count,
                      a0, prof, kick_x, kick_y, out_j, out_tau):
    """The cell-pressure stage's push on the bodies' cover: ``-rho * w A * (grad - g h)`` per
    interior sample, where ``w A`` is the sample's share of the cover (:func:`submerged_cover`),
    ``grad`` the velocity correction the stage gave the cover in that cell and ``g h`` the
    hydrostatic part that the cover's gravity kick put in and :func:`~.buoyancy.surface_buoyancy`
    already gives; ``rho`` is the density of the fluid beside the body at the sample's row
    (``prof``), the fluid the cover stands for. What is left is the dynamic pressure: a body
    moving through the fluid takes the reaction of the fluid that the pressure stage pushed out
    of its way.

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
    ny, nx = grad.shape[0], grad.shape[1]
    inv = 1.0 / a0
    for k in range(n):
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


@njit(cache=True)
def submerged_cover(pos, owner, n, dynamic, levels, spacing, area, kick_x, kick_y, vel,
                    out_area):
    """Weight and velocity of the interior samples for the cell-pressure stage's solid cover:
    the fluid the body displaces, at the velocity that fluid would have.

    Below the body's water level (weight ``w`` as in :func:`buoyancy_impulses`; ``w = 1`` where
    no level is known) the sample counts with area ``w A`` and its velocity carries the gravity
    kick ``g h`` that the fluid got this substep. A dynamic body's velocity already holds that
    kick (pymunk's last step; its buoyancy only comes in the exchange stage), a static or
    kinematic body's does not and gets it added. The part above the water is left out: the
    pressure solve would treat it as a column of fluid standing above the surface.
    """
    for k in range(n):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        w = 1.0
        lev = _level_at(levels, b, pos[k, 0])
        if not math.isnan(lev):
            w = min(max((lev - (pos[k, 1] - 0.5 * spacing)) / spacing, 0.0), 1.0)
        out_area[k] = w * area[k]
        if not dynamic[b]:
            vel[k, 0] += kick_x
            vel[k, 1] += kick_y


@njit(cache=True)
def column_tops(pos, vel, n, a0, cell_count, solid_frac, gamma, col_w, out_top):
    """Highest fluid particle in each column of width ``col_w`` that has fluid below it (the
    pressure cell one row down holds at least ``gamma / 4`` fluid particles by the pressure
    stage's count, solid cover taken out), so that a droplet in the air is not the surface.
    Empty columns get -inf. Returns the largest particle speed component (for broad phases)."""
    ny, nx = cell_count.shape
    out_top[:] = -np.inf
    inv = 1.0 / a0
    inv_c = 1.0 / col_w
    ncol = out_top.shape[0]
    vmax = 0.0
    # top rows first (the particles come sorted by row from the bin stage, give or take a
    # substep's motion): a column's top is then found early and the particles below it leave at
    # the first test. The result (a maximum per column) does not depend on the order.
    for p in range(n - 1, -1, -1):
        vmax = max(vmax, abs(vel[p, 0]), abs(vel[p, 1]))
        x = pos[p, 0]
        y = pos[p, 1]
        c = min(max(int(x * inv_c), 0), ncol - 1)
        if y <= out_top[c]:
            continue
        i = min(max(int(x * inv), 0), nx - 1)
        j = min(max(int(y * inv), 0), ny - 1) - 1
        if j >= 0 and cell_count[j, i] - solid_frac[j, i] * gamma < 0.25 * gamma:
            continue
        out_top[c] = y
    return vmax


@njit(cache=True)
def water_levels(body_box, tops, col_w, solid_frac, a0, half_layer, near, far, min_clean,
                 out_level):
    """Free-surface level left and right of each body from :func:`column_tops`.

    The level on a side is the mean of the column tops plus half a particle layer, over the
    columns between ``near`` and ``far`` from the body's bounding box whose top cell holds less
    than ``min_clean`` solid cover. Where neither side has such a column (bodies packed side
    by side), the band widens (x2, up to 4 times) before giving up with NaN.
    ``out_level[b] = (x_left, level_left, x_right, level_right)``.
    """
    ny, nx = solid_frac.shape
    ncol = tops.shape[0]
    for b in range(body_box.shape[0]):
        x0 = body_box[b, 0]
        x1 = body_box[b, 2]
        for c in range(4):
            out_level[b, c] = np.nan
        if math.isnan(x0) or math.isnan(x1):
            continue
        f = far
        for _ in range(5):
            found = False
            for side in range(2):
                if side == 0:
                    lo = x0 - f
                    hi = x0 - near
                else:
                    lo = x1 + near
                    hi = x1 + f
                c0 = max(int(math.ceil(lo / col_w)), 0)
                c1 = min(int(math.floor(hi / col_w)), ncol)
                s = 0.0
                xs = 0.0
                k = 0
                for c in range(c0, c1):
                    t = tops[c]
                    if not math.isfinite(t):
                        continue
                    i = min(max(int((c + 0.5) * col_w / a0), 0), nx - 1)
                    j = min(max(int(t / a0), 0), ny - 1)
                    if solid_frac[j, i] >= min_clean:
                        continue
                    s += t
                    xs += (c + 0.5) * col_w
                    k += 1
                if k > 0:
                    out_level[b, 2 * side] = xs / k
                    out_level[b, 2 * side + 1] = s / k + half_layer
                    found = True
            if found:
                break
            f *= 2.0


@njit(cache=True)
def body_rows_range(body_box, levels, a0, nb_start, inv_nb, nb_nx, nb_ny):
    """The particles (an index range of the ``bin`` stage's order, by neighbour-grid row) in
    the rows from the lowest body's bottom to the highest body top or water level, a cell
    more each way: those whose densities the bodies' profiles use."""
    y0 = 1e300
    y1 = -1e300
    for b in range(body_box.shape[0]):
        if math.isnan(body_box[b, 1]):
            continue
        y0 = min(y0, body_box[b, 1])
        y1 = max(y1, body_box[b, 3])
        for c in (1, 3):
            if math.isfinite(levels[b, c]):
                y1 = max(y1, levels[b, c])
    if y0 > y1:
        return 0, 0
    r0 = min(max(int((y0 - a0) * inv_nb), 0), nb_ny - 1)
    r1 = min(max(int((y1 + a0) * inv_nb), 0), nb_ny - 1)
    return nb_start[r0 * nb_nx], nb_start[(r1 + 1) * nb_nx]


@njit(cache=True)
def exchange_impulses(f_pos, f_vel, f_mat, n, mass_table, cell_of, cell_count, cell_vel, grad,
                      solid_frac, cover_vel, gamma, a0, half_layer, out_pos, out_vel, out_imp,
                      out_owner, in_pos, in_area, in_owner, state, dynamic, kick_levels,
                      spacing, push, grad_unit, kick_x, kick_y, measure, col_w, near, far,
                      min_clean, buoyancy, g_h, drag_coef, m1, vmax, body_box, tops,
                      levels, out_j, out_tau, submerged, cell_imp, cell_mass, touched, nb_start,
                      inv_nb, nb_nx, nb_ny, reach, surf_local, surf_normal, surf_len,
                      surf_owner, rho_table, rho_fixed, cell_rho, cell_n, prof, prof_sum,
                      prof_n, out_normal):
    """The ``exchange`` stage's impulses in one call (the coupler's order; each step is the
    kernel named, see there):

    1. :func:`~.buoyancy.sum_contact_impulses`: what the outline's solid particles got from the
       fluid (``out_normal``: their surface normals, body-local);
    2. :func:`pressure_impulses` (if ``push``): the pressure stage's push on the cover, with the
       density profiles ``prof`` of the last measure;
    3. :func:`sample_bounds`, :func:`column_tops` (if ``measure``, or no level is known yet) and
       :func:`water_levels`: the water level beside each body; then, where measured and no
       fixed density is given (``rho_fixed <= 0``), the fluid's density beside each body row by
       row (:func:`~.buoyancy.cell_densities` over the particles of the bodies' rows,
       :func:`~.buoyancy.density_profiles` into ``prof``);
    4. :func:`submerged_areas` and, if ``buoyancy``, :func:`~.buoyancy.surface_buoyancy`
       (``g_h`` = ``|g| h``);
    5. :func:`drag_impulses` (if ``drag_coef > 0``) and its reaction on the fluid,
       :func:`apply_cell_impulses`, looking only at the particles that
       :func:`impulse_particle_range` finds through the neighbour grid (``nb_*``, ``reach``).

    ``vmax`` is the largest particle speed component known; returns it, measured again by
    :func:`column_tops` if that ran.
    """
    nb = state.shape[0]
    m_out = out_pos.shape[0]
    if m_out:
        sum_contact_impulses(out_pos, out_imp, out_normal, out_owner, state, out_j, out_tau)
    m_in = in_pos.shape[0]
    if push:
        pressure_impulses(in_pos, in_area, in_owner, m_in, state, dynamic, kick_levels, spacing,
                          grad, cell_count, a0, prof, kick_x, kick_y, out_j, out_tau)
    sample_bounds(in_pos, in_owner, nb, 0.5 * spacing, body_box)
    known = False
    for b in range(nb):
        for c in range(4):
            if math.isfinite(levels[b, c]):
                known = True
    fresh = measure or not known
    if fresh:
        vmax = column_tops(f_pos, f_vel, n, a0, cell_count, solid_frac, gamma, col_w, tops)
    water_levels(body_box, tops, col_w, solid_frac, a0, half_layer, near, far, min_clean, levels)
    if rho_fixed > 0.0:
        prof[:, :] = rho_fixed
    elif fresh:
        lo, hi = body_rows_range(body_box, levels, a0, nb_start, inv_nb, nb_nx, nb_ny)
        cell_densities(f_pos[lo:min(hi, n)], f_mat[lo:min(hi, n)], min(hi, n) - lo, rho_table,
                       a0, cell_rho, cell_n)
        density_profiles(body_box, cell_rho, cell_n, a0, near, far, rho_table[0], prof,
                         prof_sum, prof_n)
    submerged_areas(in_pos, in_area, in_owner, m_in, levels, spacing, submerged)
    if buoyancy:
        surface_buoyancy(surf_local, surf_normal, surf_len, surf_owner, state, levels, prof, a0,
                         g_h, out_j, out_tau)
    if drag_coef > 0.0 and m_out and n:
        cell_imp[:] = 0.0
        drag_impulses(out_pos, out_vel, out_owner, out_normal, m_out, state, levels, dynamic,
                      cell_count, cell_vel, grad, solid_frac, cover_vel, gamma, a0, prof,
                      grad_unit, m1, drag_coef, out_j, out_tau, cell_imp)
        nx = cell_count.shape[1]
        lo, hi = impulse_particle_range(cell_imp, nx, a0, reach, nb_start, inv_nb, nb_nx, nb_ny)
        apply_cell_impulses(f_vel, f_mat, n, cell_of, mass_table, cell_imp, cell_mass, touched,
                            lo, min(hi, n))
    return vmax


@njit(cache=True)
def sync_geometry(state, out_local, out_owner, out_pos, out_vel, in_local, in_owner, in_pos,
                  in_vel, in_area, dynamic, levels, use_levels, kick_levels, spacing, kick_x,
                  kick_y, cover_area, a0, frac, cover_vel, shape_vlocal, shape_vowner,
                  shape_verts, shape_vvel, shape_kind, shape_vstart, shape_radius, margin,
                  shape_box, out_j, out_tau, submerged):
    """The ``sync_bodies`` stage's kernels in one call, from the bodies' :data:`STATE_COLUMNS`:

    1. :func:`pose_points`: the outline's solid particles and the interior samples;
    2. :func:`submerged_cover` on the levels of the last exchange (``kick_levels`` receives
       them, or NaN where ``use_levels`` is false: without gravity the whole body counts) and
       :func:`rasterise_cover`: the solid cover of the pressure cells;
    3. :func:`pose_points` and :func:`shape_bounds`: the containment geometry, boxes grown by
       ``margin``;
    4. the impulse accumulators ``out_j``, ``out_tau`` and ``submerged`` zeroed.
    """
    if out_local.shape[0]:
        pose_points(out_local, out_owner, state, out_pos, out_vel)
    pose_points(in_local, in_owner, state, in_pos, in_vel)
    for b in range(kick_levels.shape[0]):
        for c in range(4):
            kick_levels[b, c] = levels[b, c] if use_levels else np.nan
    submerged_cover(in_pos, in_owner, in_pos.shape[0], dynamic, kick_levels, spacing, in_area,
                    kick_x, kick_y, in_vel, cover_area)
    rasterise_cover(in_pos, in_vel, cover_area, in_pos.shape[0], a0, frac, cover_vel)
    pose_points(shape_vlocal, shape_vowner, state, shape_verts, shape_vvel)
    shape_bounds(shape_kind, shape_vstart, shape_verts, shape_radius, margin, shape_box)
    out_j[:] = 0.0
    out_tau[:] = 0.0
    submerged[:] = 0.0
