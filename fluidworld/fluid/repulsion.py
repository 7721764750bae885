"""Stage ``local_repulsion``: paper Eq. 5-6, in Jacobi form, plus fluid-solid contact.

Why Jacobi: the paper's pair loop (Gauss-Seidel, i and j moved in turn) depends on the loop order
and races when run in parallel. Here every fluid particle *gathers* its displacement from all its
neighbours at the current positions, then all displacements are applied at once. That is
deterministic, parallel over grid rows, and converges as well in the paper's 3 passes.

Per pair (i, j) at distance ``l < r_L`` along unit ``n`` (from i to j), Eq. 6 gives
``d = r_L/2 (1 - l/r_L) n``: i moves by ``-d`` and its velocity changes by ``-d * dv``.

Solid particles (walls, bodies) never move. A fluid particle near solids gets the same Eq. 6
displacement and velocity change from each of them, and in addition loses the part of its velocity
relative to the solid that points into the solid (an inelastic contact, weighted over its solid
neighbours so that several contacts do not add up). The *velocity* a contact gives the fluid is
recomputed from the solid's side by :func:`accumulate_solid_impulses`, with the same arithmetic, so
the momentum exchanged with bodies is equal and opposite to round-off.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = [
    "build_neighbour_lists",
    "build_neighbour_lists_parallel",
    "repulse_listed",
    "repulse_listed_parallel",
    "accumulate_listed_impulses",
    "repulse_fluid",
    "repulse_fluid_parallel",
    "accumulate_solid_impulses",
    "apply_displacements",
]


@njit(cache=True, inline="always")
def _contact(xi, yi, vxi, vyi, sx, sy, svx, svy, r_l, dv, wsum):
    """Displacement and velocity change one solid gives fluid particle i (0s if out of range)."""
    rx = sx - xi
    ry = sy - yi
    l2 = rx * rx + ry * ry
    if l2 >= r_l * r_l or l2 <= 1e-24:
        return 0.0, 0.0, 0.0, 0.0, False
    ln = math.sqrt(l2)
    k = 0.5 * r_l * (1.0 - ln / r_l) / ln
    ddx = -k * rx
    ddy = -k * ry
    dvx = ddx * dv
    dvy = ddy * dv
    if wsum > 0.0:
        nx_ = rx / ln
        ny_ = ry / ln
        vn = (vxi - svx) * nx_ + (vyi - svy) * ny_
        if vn > 0.0:
            w = (1.0 - ln / r_l) / wsum
            dvx -= w * vn * nx_
            dvy -= w * vn * ny_
    return ddx, ddy, dvx, dvy, True


@njit(cache=True)
def apply_displacements(pos, vel, n, disp, dvel):
    """Apply one Jacobi pass: ``pos += disp``, ``vel += dvel``."""
    for i in range(n):
        pos[i, 0] += disp[i, 0]
        pos[i, 1] += disp[i, 1]
        vel[i, 0] += dvel[i, 0]
        vel[i, 1] += dvel[i, 1]


# ----------------------------------------------------------------------------- neighbour lists
# The three Jacobi passes of a substep share one neighbour list: built once from the sorted bins
# with a cutoff r_L * (1 + skin), it still holds every pair within r_L after the passes have
# moved particles by less than skin * r_L / 2 each, and a pass then walks ~10 listed entries per
# particle instead of rescanning every grid cell. Measured on Table 1's 6,114-particle row:
# repulsion went from 3 x 0.73 ms cell scans + 3 x 0.12 ms solid scans to one build + 3 short
# passes (see benchmarks/paper_table1.py).


@njit(cache=True)
def _list_row(cy, pos, n_start, nx, ny, s_pos, s_start, s_order, cutoff, nbr, nbr_count, s_nbr,
              s_nbr_count):
    c2 = cutoff * cutoff
    kmax = nbr.shape[1]
    ksmax = s_nbr.shape[1]
    for cx in range(nx):
        c = cy * nx + cx
        if n_start[c] == n_start[c + 1]:
            continue
        y0 = max(cy - 1, 0)
        y1 = min(cy + 2, ny)
        x0 = max(cx - 1, 0)
        x1 = min(cx + 2, nx)
        for i in range(n_start[c], n_start[c + 1]):
            xi = pos[i, 0]
            yi = pos[i, 1]
            k = 0
            ks = 0
            for yy in range(y0, y1):
                row = yy * nx
                for j in range(n_start[row + x0], n_start[row + x1]):
                    # branch-free: write every candidate, advance only on a hit (hits are ~45 %
                    # of candidates, in random order: a branch here mispredicts constantly)
                    rx = pos[j, 0] - xi
                    ry = pos[j, 1] - yi
                    hit = (rx * rx + ry * ry < c2) & (j != i)
                    nbr[i, min(k, kmax - 1)] = j
                    k += hit
                for q in range(s_start[row + x0], s_start[row + x1]):
                    s = s_order[q]
                    rx = s_pos[s, 0] - xi
                    ry = s_pos[s, 1] - yi
                    if rx * rx + ry * ry < c2:
                        if ks < ksmax:
                            s_nbr[i, ks] = s
                        ks += 1
            nbr_count[i] = k  # may exceed the width: the caller widens and rebuilds
            s_nbr_count[i] = ks


@njit(cache=True)
def build_neighbour_lists(pos, n_start, nx, ny, s_pos, s_start, s_order, cutoff, nbr, nbr_count,
                          s_nbr, s_nbr_count):
    """Fluid and solid neighbours within ``cutoff`` of every sorted particle (serial).

    ``nbr`` (n, K) / ``s_nbr`` (n, Ks) receive indices in bin order; ``*_count`` the true counts.
    The fluid list is written branch-free and needs a spare slot: it is complete only where
    ``nbr_count < K`` (and ``s_nbr_count <= Ks``); otherwise widen it and build again.
    """
    for cy in range(ny):
        _list_row(cy, pos, n_start, nx, ny, s_pos, s_start, s_order, cutoff, nbr, nbr_count,
                  s_nbr, s_nbr_count)


@njit(cache=True, parallel=True)
def build_neighbour_lists_parallel(pos, n_start, nx, ny, s_pos, s_start, s_order, cutoff, nbr,
                                   nbr_count, s_nbr, s_nbr_count):
    """:func:`build_neighbour_lists` with grid rows in parallel; identical lists."""
    for cy in prange(ny):
        _list_row(cy, pos, n_start, nx, ny, s_pos, s_start, s_order, cutoff, nbr, nbr_count,
                  s_nbr, s_nbr_count)


@njit(cache=True)
def _pass_range(lo, hi, pos, vel, nbr, nbr_count, s_pos, s_vel, s_nbr, s_nbr_count, r_l, dv, disp,
                dvel, wsum_out):
    half = 0.5 * r_l
    inv_r = 1.0 / r_l
    r_l2 = r_l * r_l
    for i in range(lo, hi):
        xi = pos[i, 0]
        yi = pos[i, 1]
        dx_sum = 0.0
        dy_sum = 0.0
        for q in range(nbr_count[i]):
            j = nbr[i, q]
            rx = pos[j, 0] - xi
            ry = pos[j, 1] - yi
            l2 = rx * rx + ry * ry
            if l2 < 1e-24:  # coincident: split along x, deterministically
                dx_sum += -0.5 * half if j > i else 0.5 * half
                continue
            k = half * max(1.0 / math.sqrt(l2) - inv_r, 0.0)  # Eq. 6, zero beyond r_L
            dx_sum -= k * rx
            dy_sum -= k * ry
        wsum = 0.0
        ns = s_nbr_count[i]
        for q in range(ns):
            s = s_nbr[i, q]
            rx = s_pos[s, 0] - xi
            ry = s_pos[s, 1] - yi
            l2 = rx * rx + ry * ry
            if l2 < r_l2 and l2 > 1e-24:
                wsum += 1.0 - math.sqrt(l2) * inv_r
        dvx_sum = dx_sum * dv
        dvy_sum = dy_sum * dv
        if wsum > 0.0:
            vxi = vel[i, 0]
            vyi = vel[i, 1]
            for q in range(ns):
                s = s_nbr[i, q]
                ddx, ddy, dvx, dvy, hit = _contact(xi, yi, vxi, vyi, s_pos[s, 0], s_pos[s, 1],
                                                   s_vel[s, 0], s_vel[s, 1], r_l, dv, wsum)
                if hit:
                    dx_sum += ddx
                    dy_sum += ddy
                    dvx_sum += dvx
                    dvy_sum += dvy
        disp[i, 0] = dx_sum
        disp[i, 1] = dy_sum
        dvel[i, 0] = dvx_sum
        dvel[i, 1] = dvy_sum
        wsum_out[i] = wsum


@njit(cache=True)
def repulse_listed(pos, vel, n, nbr, nbr_count, s_pos, s_vel, s_nbr, s_nbr_count, r_l, dv, disp,
                   dvel, wsum):
    """One Jacobi repulsion pass (Eq. 6) over neighbour lists, serial.

    Fills ``disp`` (position change), ``dvel`` (velocity change) and ``wsum`` (total solid contact
    weight, 0 where a particle touches no solid) for the first ``n`` particles.
    """
    _pass_range(0, n, pos, vel, nbr, nbr_count, s_pos, s_vel, s_nbr, s_nbr_count, r_l, dv, disp,
                dvel, wsum)


@njit(cache=True, parallel=True)
def repulse_listed_parallel(pos, vel, n, nbr, nbr_count, s_pos, s_vel, s_nbr, s_nbr_count, r_l,
                            dv, disp, dvel, wsum):
    """:func:`repulse_listed` in parallel chunks; bit-identical results."""
    chunk = 2048
    for c in prange((n + chunk - 1) // chunk):
        _pass_range(c * chunk, min(n, (c + 1) * chunk), pos, vel, nbr, nbr_count, s_pos, s_vel,
                    s_nbr, s_nbr_count, r_l, dv, disp, dvel, wsum)


@njit(cache=True)
def accumulate_listed_impulses(pos, vel, mat, mass_table, n, s_pos, s_vel, s_nbr, s_nbr_count,
                               r_l, dv, wsum, s_impulse, s_marked):
    """:func:`accumulate_solid_impulses` over the neighbour lists the pass used (serial)."""
    for i in range(n):
        if wsum[i] <= 0.0:
            continue
        xi = pos[i, 0]
        yi = pos[i, 1]
        m = mass_table[mat[i]]
        for q in range(s_nbr_count[i]):
            s = s_nbr[i, q]
            _, _, dvx, dvy, hit = _contact(xi, yi, vel[i, 0], vel[i, 1], s_pos[s, 0], s_pos[s, 1],
                                           s_vel[s, 0], s_vel[s, 1], r_l, dv, wsum[i])
            if hit:
                s_impulse[s, 0] -= m * dvx
                s_impulse[s, 1] -= m * dvy
                s_marked[s] = True


def _lists_for(pos, n_start, nx, ny, s_pos, s_start, s_order, r_l, parallel):
    """Neighbour lists at cutoff ``r_L`` for sorted particles, widened until complete."""
    n = int(n_start[-1])
    cap = max(len(pos), 1)
    k, ks = 8, 8
    build = build_neighbour_lists_parallel if parallel else build_neighbour_lists
    while True:
        nbr = np.zeros((cap, k), np.int32)
        cnt = np.zeros(cap, np.int64)
        s_nbr = np.zeros((cap, ks), np.int32)
        s_cnt = np.zeros(cap, np.int64)
        build(pos, n_start, nx, ny, s_pos, s_start, s_order, r_l, nbr, cnt, s_nbr, s_cnt)
        km = int(cnt[:n].max(initial=0))
        ksm = int(s_cnt[:n].max(initial=0))
        if km < k and ksm <= ks:
            return n, nbr, cnt, s_nbr, s_cnt
        k = max(k, km + 1)
        ks = max(ks, ksm)


def repulse_fluid(pos, vel, n_start, nx, ny, s_pos, s_vel, s_start, s_order, r_l, dv, disp, dvel,
                  wsum):
    """One Jacobi repulsion pass (Eq. 6) straight from the sorted bins (serial).

    Fills ``disp`` (position change), ``dvel`` (velocity change) and ``wsum`` (total solid contact
    weight, 0 where a particle touches no solid). A convenience entry point (tests, tools): it
    builds the neighbour lists and runs :func:`repulse_listed`, the code ``FluidSystem`` runs.
    """
    n, nbr, cnt, s_nbr, s_cnt = _lists_for(pos, n_start, nx, ny, s_pos, s_start, s_order, r_l,
                                           False)
    repulse_listed(pos, vel, n, nbr, cnt, s_pos, s_vel, s_nbr, s_cnt, r_l, dv, disp, dvel, wsum)


def repulse_fluid_parallel(pos, vel, n_start, nx, ny, s_pos, s_vel, s_start, s_order, r_l, dv, disp,
                           dvel, wsum):
    """:func:`repulse_fluid` with the parallel list kernels; bit-identical results."""
    n, nbr, cnt, s_nbr, s_cnt = _lists_for(pos, n_start, nx, ny, s_pos, s_start, s_order, r_l,
                                           True)
    repulse_listed_parallel(pos, vel, n, nbr, cnt, s_pos, s_vel, s_nbr, s_cnt, r_l, dv, disp,
                            dvel, wsum)


def accumulate_solid_impulses(pos, vel, mat, mass_table, n_start, nx, ny, s_pos, s_vel, s_start,
                              s_order, r_l, dv, wsum, s_impulse, s_marked):
    """Add to ``s_impulse`` minus the momentum each solid particle gave the fluid in the pass
    that produced ``wsum``, and mark solids within ``r_L`` of fluid (paper Sec. 3.3).

    Convenience entry point from the sorted bins: builds the lists and runs
    :func:`accumulate_listed_impulses`.
    """
    n, _, _, s_nbr, s_cnt = _lists_for(pos, n_start, nx, ny, s_pos, s_start, s_order, r_l, False)
    accumulate_listed_impulses(pos, vel, mat, mass_table, n, s_pos, s_vel, s_nbr, s_cnt, r_l, dv,
                               wsum, s_impulse, s_marked)
