"""Stage ``cell_pressure``: the cell deposit, the paper's pressure (Eq. 7-10) and Eq. 10.

Both solvers work on the fixed (unshifted) grid of ``a0`` cells whose faces line up with the
domain walls. Per cell: ``r`` = density ratio = (fluid particles + solid fraction * gamma) / gamma,
``u`` = mean velocity of its fluid particles and solid cover. Cells with nothing in them are
*empty* (air): pressure 0 there.

``"paper"`` -- Eq. 7-10 exactly: the divergence uses the cells at +-1 (Eq. 7), the Jacobi iteration
the cells at +-2 (Eq. 8), started from p = 0 with k iterations, the gradient +-1 (Eq. 9), and
Eq. 10 ``v = (1-r) v + r (v - grad)`` which is ``v - r grad``. Beyond a wall, cells mirror the
inside ones (pressure equal, normal velocity negated: a free-slip wall); an empty neighbour gives
velocity 0 and pressure 0, as in the paper's code. ``pressure_clamp`` bounds ``r`` (Eq. 10 with
r > 1 overshoots in compressed cells).

``"converged"`` -- the paper's idea as a standard approximate projection that can hold a deep pool
up: its right-hand sides, red-black SOR solver, gradient and density correction are in
:mod:`.pressure_converged` (fluids of several densities: :mod:`.pressure_variable`).

This module holds the paper's kernels and what both solvers share: the deposit
(:func:`deposit_cells`), the rows that hold fluid (:func:`row_spans`, :func:`active_rows`) and
Eq. 10 for every particle, ``v -= grad[cell]`` (:func:`apply_cell_correction`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = [
    "deposit_cells",
    "deposit_cells_parallel",
    "row_spans",
    "row_spans_parallel",
    "active_rows",
    "paper_pressure",
    "apply_cell_correction",
    "apply_cell_correction_parallel",
]

EMPTY_COUNT = 0.5  # a cell with less than this many particle-equivalents is air


@njit(cache=True, inline="always")
def is_wall(wall, j, i):
    """Whether cell (j, i) is a wall cell (``wall``: the converged solvers' wall cells, uint8,
    :mod:`.pressure_walls`; an empty array when there are none, which the loops then skip)."""
    return wall.shape[0] > 0 and wall[j, i] != 0


@njit(cache=True)
def _all_rows(ny, rows):
    """``rows`` (the active rows, :func:`active_rows`), or every row if it is ``None``."""
    if rows is None:
        return np.arange(ny)
    return rows


@njit(cache=True)
def _deposit_init(j0, j1, nx, gamma, solid_frac, solid_vel, cnt, vel_c):
    for j in range(j0, j1):
        for i in range(nx):
            f = solid_frac[j, i] * gamma
            cnt[j, i] = f
            vel_c[j, i, 0] = f * solid_vel[j, i, 0]
            vel_c[j, i, 1] = f * solid_vel[j, i, 1]


@njit(cache=True)
def _deposit_particles(pos, vel, n, a0, nx, ny, cnt, vel_c, cell_of):
    inv = 1.0 / a0
    cnt_flat = cnt.reshape(-1)
    vel_flat = vel_c.reshape(-1, 2)
    for p in range(n):
        i = min(max(int(pos[p, 0] * inv), 0), nx - 1)
        j = min(max(int(pos[p, 1] * inv), 0), ny - 1)
        c = j * nx + i
        cell_of[p] = c
        c = np.uint64(c)  # no negative-index wrap-around (see _correct_range)
        cnt_flat[c] += 1.0
        vel_flat[c, 0] += vel[p, 0]
        vel_flat[c, 1] += vel[p, 1]


@njit(cache=True)
def _deposit_finish(j0, j1, nx, cnt, vel_c):
    for j in range(j0, j1):
        for i in range(nx):
            c = cnt[j, i]
            if c > 0.0:
                vel_c[j, i, 0] /= c
                vel_c[j, i, 1] /= c


@njit(cache=True)
def deposit_cells(pos, vel, n, a0, nx, ny, gamma, solid_frac, solid_vel, cnt, vel_c, cell_of):
    """Count particles per cell (+ solid cover) and their mean velocity; remember each particle's
    cell in ``cell_of``. ``cnt`` and ``vel_c`` are (ny, nx) and (ny, nx, 2) outputs."""
    _deposit_init(0, ny, nx, gamma, solid_frac, solid_vel, cnt, vel_c)
    _deposit_particles(pos, vel, n, a0, nx, ny, cnt, vel_c, cell_of)
    _deposit_finish(0, ny, nx, cnt, vel_c)


@njit(cache=True, parallel=True)
def deposit_cells_parallel(pos, vel, n, a0, nx, ny, gamma, solid_frac, solid_vel, cnt, vel_c,
                           cell_of):
    """:func:`deposit_cells` with the grid loops in parallel (the sums stay serial); identical
    results."""
    band = 16
    for t in prange((ny + band - 1) // band):
        _deposit_init(t * band, min(ny, (t + 1) * band), nx, gamma, solid_frac, solid_vel, cnt,
                      vel_c)
    _deposit_particles(pos, vel, n, a0, nx, ny, cnt, vel_c, cell_of)
    for t in prange((ny + band - 1) // band):
        _deposit_finish(t * band, min(ny, (t + 1) * band), nx, cnt, vel_c)


# ----------------------------------------------------------------------------- active rows
@njit(cache=True)
def _span_row(j, cnt, spans):
    nx = cnt.shape[1]
    lo = nx
    hi = 0
    for i in range(nx):
        if cnt[j, i] >= EMPTY_COUNT:
            if i < lo:
                lo = i
            hi = i + 1
    if hi == 0:
        lo = 0
    spans[j, 0] = lo
    spans[j, 1] = hi


@njit(cache=True)
def row_spans(cnt, spans):
    """First and one-past-last non-empty column of every row (``spans`` (ny, 2); 0, 0 if empty):
    the sweeps skip air, which is most of a game level."""
    for j in range(cnt.shape[0]):
        _span_row(j, cnt, spans)


@njit(cache=True, parallel=True)
def row_spans_parallel(cnt, spans):
    """:func:`row_spans` with the rows in parallel; identical results."""
    for j in prange(cnt.shape[0]):
        _span_row(j, cnt, spans)


@njit(cache=True)
def active_rows(spans, was_active, rows):
    """The rows the converged solver works on: those with a non-empty cell now, or in the
    previous call (so that values left there by water that has moved on are reset to air).

    ``was_active`` (ny,) bool is updated; ``rows`` receives the row indices. Returns their count.
    Rows outside stay all air, so every grid array already holds air values there.
    """
    k = 0
    for j in range(spans.shape[0]):
        now = spans[j, 1] > spans[j, 0]
        if now or was_active[j]:
            rows[k] = j
            k += 1
        was_active[j] = now
    return k


# ----------------------------------------------------------------------------- paper, Eq. 7-10
@njit(cache=True)
def _mirror(k, n):
    """Index of the in-domain cell that a cell beyond a wall mirrors."""
    if k < 0:
        return -k - 1
    if k >= n:
        return 2 * n - k - 1
    return k


@njit(cache=True)
def _paper_vel(vel_c, cnt, j, i, comp, nx, ny):
    """Velocity component of cell (j, i) as Eq. 7 sees it: 0 if empty, mirrored beyond walls."""
    jj = _mirror(j, ny)
    ii = _mirror(i, nx)
    if cnt[jj, ii] < EMPTY_COUNT:
        return 0.0
    v = vel_c[jj, ii, comp]
    if (comp == 0 and ii != i) or (comp == 1 and jj != j):
        v = -v
    return v


@njit(cache=True)
def _paper_p(p, cnt, j, i, nx, ny):
    jj = _mirror(j, ny)
    ii = _mirror(i, nx)
    if cnt[jj, ii] < EMPTY_COUNT:
        return 0.0
    return p[jj, ii]


@njit(cache=True)
def paper_pressure(cnt, vel_c, a0, gamma, h, iters, r_clamp, div, p, p_tmp, grad, rows=None):
    """Eq. 7-9: divergence, k Jacobi iterations from p = 0, and ``grad = r * (Eq. 9)``.

    ``grad`` (ny, nx, 2) receives the velocity change of Eq. 10 with the sign flipped, i.e. each
    particle's new velocity is ``v - grad[cell]``. With ``rows`` (:func:`active_rows`) only those
    rows are computed: the others are empty, where every field is 0.
    """
    ny, nx = cnt.shape
    act = _all_rows(ny, rows)
    for j in act:
        for i in range(nx):
            r = min(cnt[j, i] / gamma, r_clamp)
            if cnt[j, i] < EMPTY_COUNT:
                div[j, i] = 0.0
            else:
                s = (_paper_vel(vel_c, cnt, j, i + 1, 0, nx, ny)
                     - _paper_vel(vel_c, cnt, j, i - 1, 0, nx, ny)
                     + _paper_vel(vel_c, cnt, j + 1, i, 1, nx, ny)
                     - _paper_vel(vel_c, cnt, j - 1, i, 1, nx, ny))
                div[j, i] = -2.0 * a0 * r / h * s  # Eq. 7
            p[j, i] = 0.0
    for _ in range(iters):  # Eq. 8, Jacobi from zero
        for j in act:
            inner_row = 2 <= j < ny - 2
            for i in range(nx):
                if cnt[j, i] < EMPTY_COUNT:
                    p_tmp[j, i] = 0.0
                elif inner_row and 2 <= i < nx - 2:
                    # no mirror needed, and p = 0 in empty cells already: plain reads
                    p_tmp[j, i] = 0.25 * (div[j, i] + p[j, i + 2] + p[j, i - 2] + p[j + 2, i]
                                          + p[j - 2, i])
                else:
                    p_tmp[j, i] = 0.25 * (div[j, i]
                                          + _paper_p(p, cnt, j, i + 2, nx, ny)
                                          + _paper_p(p, cnt, j, i - 2, nx, ny)
                                          + _paper_p(p, cnt, j + 2, i, nx, ny)
                                          + _paper_p(p, cnt, j - 2, i, nx, ny))
        for j in act:
            for i in range(nx):
                p[j, i] = p_tmp[j, i]
    for j in act:
        for i in range(nx):
            if cnt[j, i] < EMPTY_COUNT:
                grad[j, i, 0] = 0.0
                grad[j, i, 1] = 0.0
                continue
            r = min(cnt[j, i] / gamma, r_clamp)
            k = h / (2.0 * a0 * r)  # Eq. 9
            gx = k * (_paper_p(p, cnt, j, i + 1, nx, ny) - _paper_p(p, cnt, j, i - 1, nx, ny))
            gy = k * (_paper_p(p, cnt, j + 1, i, nx, ny) - _paper_p(p, cnt, j - 1, i, nx, ny))
            grad[j, i, 0] = r * gx  # Eq. 10: v - r grad
            grad[j, i, 1] = r * gy


# ----------------------------------------------------------------------------- Eq. 10
@njit(cache=True)
def _correct_range(i0, i1, vel, cell_of, grad, nx, scale):
    # the flat view and the unsigned index spare a signed floor division and the negative-index
    # wrap-around per particle (3x faster at 100k particles)
    g = grad.reshape(-1, 2)
    for p in range(np.uint64(i0), np.uint64(i1)):
        c = np.uint64(cell_of[p])
        vel[p, 0] -= g[c, 0] * scale
        vel[p, 1] -= g[c, 1] * scale


@njit(cache=True)
def apply_cell_correction(vel, n, cell_of, grad, nx):
    """Eq. 10 for every particle: ``v -= grad[cell]``."""
    _correct_range(0, n, vel, cell_of, grad, nx, 1.0)


@njit(cache=True, parallel=True)
def apply_cell_correction_parallel(vel, n, cell_of, grad, nx):
    """:func:`apply_cell_correction` over particle chunks in parallel; identical results."""
    chunk = 8192
    for t in prange((n + chunk - 1) // chunk):
        _correct_range(t * chunk, min(n, (t + 1) * chunk), vel, cell_of, grad, nx, 1.0)
