"""Kernels of the velocity-constraint fluid (Dennis Gustafsson, "Sprinkle: fluid as constraints",
the talk in ``shared/seeds``): each particle is a density constraint on the velocities of its
neighbours, solved like rigid-body contacts with sequential impulses.

Per particle ``i`` with neighbours ``j`` at ``d = r / H < 1``:

* weight ``w = (1 - d^2)^3``, density ``rho_i = 1 + sum w`` (solids count, scaled by ``ws``);
* compression rate ``c_i = -sum w e_ij . (v_j - v_i)`` (``e_ij`` the unit vector from ``i`` to
  ``j``: positive when the neighbours close in);
* Baumgarte bias ``b_i = beta (rho_i - rho0) r_L / h``: an over-dense particle asks for its
  neighbours to separate, an under-dense one lets them close in;
* impulse ``d lambda = (c_i + b_i) / A_i`` with ``A_i = sum w^2 (1/m_i + 1/m_j)``; the
  accumulated ``lambda_i`` is clamped at 0 (pressure only pushes), and the change goes to
  ``v_j += e_ij w d lambda / m_j``, ``v_i -= e_ij w d lambda / m_i`` (equal and opposite; a
  heavy particle gives way less, so heavier fluid sinks under lighter).

Solids (walls, bodies) are neighbours of infinite mass that mirror the particle's pressure
(their rows carry ``2 ws w``: the particle's own push and the equal one a fluid neighbour in
the solid's place would give back; with ``w`` alone a layer by the floor has to compress by a
third before its neighbours' geometry holds the column's weight). Their velocity enters
``c_i``, the impulse they would get is recorded in ``solid_imp`` (the momentum the body
receives: minus what the fluid got from it).

Lists are built once per substep, capped at ``max_nbr`` fluid and ``max_solid`` solid
neighbours (the density counts all of them). The iterations are Gauss-Seidel, one particle
after the other: serial and deterministic. The list build writes only its own rows and may run
in parallel; it gives identical lists either way.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = [
    "build_lists",
    "build_lists_parallel",
    "solve_iterations",
    "warm_start",
    "store_warm_start",
    "read_warm_start",
    "follow_sort",
    "smooth_velocities",
    "seed_hydrostatic",
    "setup_rows",
    "rest_density",
    "solid_weight",
]


@njit(cache=True, inline="always")
def _cell(x, inv, n):
    return min(max(int(x * inv), 0), n - 1)


@njit(cache=True)
def _build_one(i, pos, n, grid, solids, radius, lists, s_lists):
    """Lists, density, mass term of particle ``i`` (writes row ``i`` only)."""
    nb_start, nb_nx, nb_ny, inv_nb, kb = grid
    s_pos, s_start, s_order, ws = solids
    nbr, w_, ex, ey, cnt, rho = lists
    s_nbr, s_w, s_ex, s_ey, s_cnt = s_lists
    inv_h2 = 1.0 / (radius * radius)
    kmax = nbr.shape[1]
    ksmax = s_nbr.shape[1]
    xi = pos[i, 0]
    yi = pos[i, 1]
    cx = _cell(xi, inv_nb, nb_nx)
    cy = _cell(yi, inv_nb, nb_ny)
    x0 = max(cx - kb, 0)
    x1 = min(cx + kb, nb_nx - 1)
    k = 0
    ks = 0
    dens = 1.0
    for yy in range(max(cy - kb, 0), min(cy + kb, nb_ny - 1) + 1):
        a = nb_start[yy * nb_nx + x0]
        b = min(nb_start[yy * nb_nx + x1 + 1], n)
        for j in range(a, b):
            dx = pos[j, 0] - xi
            dy = pos[j, 1] - yi
            r2 = dx * dx + dy * dy
            q = 1.0 - r2 * inv_h2
            if q <= 0.0 or j == i:
                continue
            w = q * q * q
            dens += w
            if k < kmax and r2 > 0.0:
                r = math.sqrt(r2)
                nbr[i, k] = j
                w_[i, k] = w
                ex[i, k] = dx / r
                ey[i, k] = dy / r
                k += 1
        for c in range(yy * nb_nx + x0, yy * nb_nx + x1 + 1):
            for t in range(s_start[c], s_start[c + 1]):
                s = s_order[t]
                dx = s_pos[s, 0] - xi
                dy = s_pos[s, 1] - yi
                r2 = dx * dx + dy * dy
                q = 1.0 - r2 * inv_h2
                if q <= 0.0:
                    continue
                w = q * q * q * ws
                dens += w
                if ks < ksmax and r2 > 0.0:
                    r = math.sqrt(r2)
                    s_nbr[i, ks] = s
                    s_w[i, ks] = 2.0 * w  # mirrored: the solid pushes back with i's pressure
                    s_ex[i, ks] = dx / r
                    s_ey[i, ks] = dy / r
                    ks += 1
    cnt[i] = k
    s_cnt[i] = ks
    rho[i] = dens


@njit(cache=True)
def build_lists(pos, n, grid, solids, radius, lists, s_lists):
    """Neighbour lists, weights, unit directions and densities of the first ``n`` particles.

    ``grid`` = ``(nb_start, nb_nx, nb_ny, inv_nb, kb)`` (the store's sort, ``kb`` cells of
    reach); ``solids`` = ``(s_pos, s_start, s_order, ws)`` (their weights scaled by ``ws``,
    see :func:`solid_weight`); ``lists`` =
    ``(nbr, w, ex, ey, cnt, rho)`` and ``s_lists`` = ``(s_nbr, s_w, s_ex, s_ey, s_cnt)`` are
    the outputs (rows of ``max_nbr`` / ``max_solid`` columns).
    """
    for i in range(n):
        _build_one(i, pos, n, grid, solids, radius, lists, s_lists)


@njit(cache=True, parallel=True)
def build_lists_parallel(pos, n, grid, solids, radius, lists, s_lists):
    """:func:`build_lists` with the particles in parallel (each writes its own row: the same
    lists)."""
    for i in prange(n):
        _build_one(i, pos, n, grid, solids, radius, lists, s_lists)


@njit(cache=True)
def setup_rows(n, mat, inv_mass, lists, s_lists, rho0, bias_scale, bias_max, lam, bias, a_inv):
    """Per particle: the bias ``bias_scale (rho - rho0)``, at most ``bias_max``, and ``1 / A``
    (0 where ``A`` is 0); the solid weights' mass term counts the particle's side only."""
    nbr, w_, _, _, cnt, rho = lists
    _, s_w, _, _, s_cnt = s_lists
    for i in range(n):
        mi = inv_mass[mat[i]]
        a = 0.0
        for k in range(cnt[i]):
            w = w_[i, k]
            a += w * w * (mi + inv_mass[mat[nbr[i, k]]])
        for k in range(s_cnt[i]):
            w = s_w[i, k]
            a += w * w * mi
        a_inv[i] = 1.0 / a if a > 0.0 else 0.0
        bias[i] = min(bias_scale * (rho[i] - rho0), bias_max)
        if a == 0.0:
            lam[i] = 0.0


@njit(cache=True, inline="always")
def _apply(i, dl, vel, mat, inv_mass, lists, s_lists, solid_imp):
    """Give particle ``i``'s constraint the impulse ``dl``: its neighbours pushed away, itself
    back, the solids' share recorded."""
    nbr, w_, ex, ey, cnt, _ = lists
    s_nbr, s_w, s_ex, s_ey, s_cnt = s_lists
    mi = inv_mass[mat[i]]
    dvx = 0.0
    dvy = 0.0
    for k in range(cnt[i]):
        j = nbr[i, k]
        p = dl * w_[i, k]
        px = p * ex[i, k]
        py = p * ey[i, k]
        mj = inv_mass[mat[j]]
        vel[j, 0] += px * mj
        vel[j, 1] += py * mj
        dvx -= px
        dvy -= py
    for k in range(s_cnt[i]):
        s = s_nbr[i, k]
        p = dl * s_w[i, k]
        px = p * s_ex[i, k]
        py = p * s_ey[i, k]
        solid_imp[s, 0] += px
        solid_imp[s, 1] += py
        dvx -= px
        dvy -= py
    vel[i, 0] += dvx * mi
    vel[i, 1] += dvy * mi


@njit(cache=True)
def warm_start(n, vel, mat, inv_mass, lists, s_lists, lam, solid_imp):
    """Apply every particle's starting impulse ``lam`` (from :func:`store_warm_start`)."""
    for i in range(n):
        if lam[i] > 0.0:
            _apply(i, lam[i], vel, mat, inv_mass, lists, s_lists, solid_imp)


@njit(cache=True)
def solve_iterations(n, vel, mat, inv_mass, s_vel, lists, s_lists, lam, bias, a_inv, iters,
                     use_bias, solid_imp):
    """``iters`` Gauss-Seidel sweeps of the density constraints over the velocities (with the
    bias times ``use_bias``); ``lam`` accumulates each particle's impulse (clamped at 0).
    Returns the last sweep's largest impulse change (a convergence figure)."""
    nbr, w_, ex, ey, cnt, _ = lists
    s_nbr, s_w, s_ex, s_ey, s_cnt = s_lists
    worst = 0.0
    for it in range(iters):
        worst = 0.0
        for t in range(n):
            # symmetric Gauss-Seidel: up the sorted rows, then down (a push travels far along
            # the sweep's direction, a row or two against it: a column's weight comes down)
            i = t if it % 2 == 0 else n - 1 - t
            if a_inv[i] == 0.0:
                continue
            vix = vel[i, 0]
            viy = vel[i, 1]
            c = 0.0
            for k in range(cnt[i]):
                j = nbr[i, k]
                c -= w_[i, k] * (ex[i, k] * (vel[j, 0] - vix) + ey[i, k] * (vel[j, 1] - viy))
            for k in range(s_cnt[i]):
                s = s_nbr[i, k]
                c -= s_w[i, k] * (s_ex[i, k] * (s_vel[s, 0] - vix)
                                  + s_ey[i, k] * (s_vel[s, 1] - viy))
            new = max(0.0, lam[i] + (c + use_bias * bias[i]) * a_inv[i])
            dl = new - lam[i]
            if dl == 0.0:
                continue
            lam[i] = new
            worst = max(worst, abs(dl))
            _apply(i, dl, vel, mat, inv_mass, lists, s_lists, solid_imp)
    return worst


@njit(cache=True)
def smooth_velocities(n, vel, mat, inv_mass, lists, rate):
    """Viscosity (XSPH-like, momentum conserving): each listed pair ``i < j`` exchanges the
    impulse ``rate w (v_j - v_i) / (1/m_i + 1/m_j)``, pair after pair (serial)."""
    nbr, w_, _, _, cnt, _ = lists
    for i in range(n):
        mi = inv_mass[mat[i]]
        for k in range(cnt[i]):
            j = nbr[i, k]
            if j <= i:
                continue
            mj = inv_mass[mat[j]]
            f = rate * w_[i, k] / (mi + mj)
            px = f * (vel[j, 0] - vel[i, 0])
            py = f * (vel[j, 1] - vel[i, 1])
            vel[i, 0] += px * mi
            vel[i, 1] += py * mi
            vel[j, 0] -= px * mj
            vel[j, 1] -= py * mj


@njit(cache=True)
def store_warm_start(pos, n, lam, inv_g, gx, gy, g_sum, g_n):
    """Average ``lam`` per cell of a ``gx x gy`` grid of cells ``1 / inv_g`` at the particles'
    positions: ``g_sum`` (overwritten) holds the averages (-1 where empty), ``g_n`` the counts
    (scratch); the
    next substep reads them at its sorted positions (:func:`read_warm_start`)."""
    g_sum[:] = 0.0
    g_n[:] = 0.0
    for i in range(n):
        c = _cell(pos[i, 1], inv_g, gy) * gx + _cell(pos[i, 0], inv_g, gx)
        g_sum[c] += lam[i]
        g_n[c] += 1.0
    for c in range(gx * gy):
        g_sum[c] = g_sum[c] / g_n[c] if g_n[c] > 0.0 else -1.0


@njit(cache=True)
def read_warm_start(pos, n, inv_g, gx, gy, g_avg, scale, lam):
    """``lam[i] = scale x`` the cell average that :func:`store_warm_start` left at ``pos[i]``,
    -1 where that cell held no particle."""
    for i in range(n):
        c = _cell(pos[i, 1], inv_g, gy) * gx + _cell(pos[i, 0], inv_g, gx)
        lam[i] = scale * g_avg[c] if g_avg[c] >= 0.0 else -1.0


@njit(cache=True)
def seed_hydrostatic(pos, n, mat, mass, inv_g, gx, per_depth, tops, lam):
    """Where ``lam`` is unknown (< 0): the impulse of the fluid column above the particle,
    ``per_depth x m x`` (highest particle of its grid column - its height): a freshly filled
    pool starts near its hydrostatic pressure instead of falling in on itself while the
    sweeps carry the weight down (``tops`` is scratch over the ``gx`` columns)."""
    tops[:] = -np.inf
    for i in range(n):
        c = _cell(pos[i, 0], inv_g, gx)
        tops[c] = max(tops[c], pos[i, 1])
    for i in range(n):
        if lam[i] < 0.0:
            c = _cell(pos[i, 0], inv_g, gx)
            lam[i] = per_depth * mass[mat[i]] * max(tops[c] - pos[i, 1], 0.0)


@njit(cache=True)
def follow_sort(cell_of, n_old, nb_start, cursor, scale, lam_old, lam):
    """Carry the impulses of the ``n_old`` particles through the store's last counting sort:
    ``cell_of`` holds each one's cell before the sort (the sort is stable, so the ``k``-th of
    a cell lands at ``nb_start[cell] + k``); ``lam[new] = scale x lam_old[old]``. ``cursor``
    is scratch over the cells."""
    for i in range(n_old):
        cursor[cell_of[i]] = nb_start[cell_of[i]]
    for i in range(n_old):
        c = cell_of[i]
        lam[cursor[c]] = scale * lam_old[i]
        cursor[c] += 1


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
