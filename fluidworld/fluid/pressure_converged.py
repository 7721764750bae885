"""Stage ``cell_pressure``, the ``"converged"`` solver: the paper's idea (:mod:`.pressure`) as a
standard approximate projection that can hold a deep pool up.

Measured in a prototype, 10 Jacobi sweeps from zero cannot carry hydrostatic pressure through
more than a few cells (pools settle at 0.3-0.7 of their height). Here:

* face velocities are averages of the two cells (the cell's own velocity towards an empty cell, 0
  at a wall: the domain's border or a wall cell, :mod:`.pressure_walls`), the divergence is the
  compact face sum, and the Poisson equation uses the 5-point stencil with Neumann walls and
  Dirichlet (phi = 0) air cells -- no +-2 checkerboard decoupling;
* a density correction: the target divergence of a cell is ``beta * max(r - 1, 0) / h``, so
  compressed cells are pushed back to rest density instead of staying compressed (expansion is
  corrected too, away from the surface: see :func:`converged_rhs`);
* red-black Gauss-Seidel with over-relaxation, **warm-started** from the previous substep's
  solution, so that a hydrostatic pressure that is the same every step is reached once and kept.

``phi`` has units of velocity x length (``h p / rho``); each cell's velocity correction is minus
the mean of its face gradients (a face against a wall does not count).

The cell deposit, the active rows and the final ``v -= grad[cell]`` are shared with the paper's
solver (:mod:`.pressure`). Fluids of several densities (oil, honey) take the variable-density
kernels of :mod:`.pressure_variable`; the kernels here are the single-density path.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .free_drift import remove_free_drift
from .pressure import EMPTY_COUNT, _all_rows, _correct_range, is_wall

__all__ = [
    "COVERED_SHARE",
    "converged_rhs",
    "converged_rhs_parallel",
    "correct_covered_cells",
    "NO_THETA",
    "solver_coefficients",
    "solve_padded",
    "solve_padded_parallel",
    "solve_padded_pair",
    "solve_padded_pair_parallel",
    "solve_rbgs",
    "converged_correction",
    "converged_correction_parallel",
    "apply_cell_shift",
    "apply_cell_shift_parallel",
    "apply_shift_and_correction_parallel",
    "remove_free_drift",
]


# ----------------------------------------------------------------------------- right-hand sides
@njit(cache=True)
def _face_vel(vel_c, cnt, j, i, jn, in_, comp, nx, ny):
    """Normal velocity on the face between cell (j, i) and neighbour (jn, in_)."""
    if jn < 0 or jn >= ny or in_ < 0 or in_ >= nx:
        return 0.0  # the domain's border: no flow through it
    if cnt[jn, in_] < EMPTY_COUNT:
        return vel_c[j, i, comp]  # air: free outflow, no divergence made up at the surface
    return 0.5 * (vel_c[j, i, comp] + vel_c[jn, in_, comp])


@njit(cache=True)
def _face_vel_walls(vel_c, cnt, wall, j, i, jn, in_, comp, nx, ny):
    """:func:`_face_vel` where there are wall cells: no flow towards one either."""
    if 0 <= jn < ny and 0 <= in_ < nx and wall[jn, in_]:
        return 0.0
    return _face_vel(vel_c, cnt, j, i, jn, in_, comp, nx, ny)


@njit(cache=True, inline="always")
def _divergence(vel_c, cnt, wall, walls, j, i, a0, nx, ny):
    """The face divergence of cell (j, i) (a separate loop body where there are wall cells:
    with none, the checks cost the right-hand side half its time again)."""
    if walls:
        return (_face_vel_walls(vel_c, cnt, wall, j, i, j, i + 1, 0, nx, ny)
                - _face_vel_walls(vel_c, cnt, wall, j, i, j, i - 1, 0, nx, ny)
                + _face_vel_walls(vel_c, cnt, wall, j, i, j + 1, i, 1, nx, ny)
                - _face_vel_walls(vel_c, cnt, wall, j, i, j - 1, i, 1, nx, ny)) / a0
    return (_face_vel(vel_c, cnt, j, i, j, i + 1, 0, nx, ny)
            - _face_vel(vel_c, cnt, j, i, j, i - 1, 0, nx, ny)
            + _face_vel(vel_c, cnt, j, i, j + 1, i, 1, nx, ny)
            - _face_vel(vel_c, cnt, j, i, j - 1, i, 1, nx, ny)) / a0


#: A cell below this share of the rest density is surface for the density correction: a block
#: of cells that holds one corrects only compression (:func:`converged_rhs`).
SPARSE_RATIO = 0.5


@njit(cache=True)
def _block_sums(j0, j1, cnt, wall, gamma, hs, ha, sparse):
    """3-wide horizontal sums of the counts (``hs``) and of the sparse flags (``cnt < sparse``,
    ``ha``), rows j0..j1; a wall cell counts as full (``gamma``), not sparse."""
    nx = cnt.shape[1]
    if wall.shape[0] > 0:
        for j in range(j0, j1):
            for i in range(nx):
                s, a = _block_cell(cnt, wall, gamma, sparse, j, i)
                if i > 0:
                    s2, a2 = _block_cell(cnt, wall, gamma, sparse, j, i - 1)
                    s += s2
                    a += a2
                if i + 1 < nx:
                    s2, a2 = _block_cell(cnt, wall, gamma, sparse, j, i + 1)
                    s += s2
                    a += a2
                hs[j, i] = s
                ha[j, i] = a
        return
    for j in range(j0, j1):  # no wall cells
        for i in range(nx):
            s = cnt[j, i]
            a = cnt[j, i] < sparse
            if i > 0:
                s += cnt[j, i - 1]
                a += cnt[j, i - 1] < sparse
            if i + 1 < nx:
                s += cnt[j, i + 1]
                a += cnt[j, i + 1] < sparse
            hs[j, i] = s
            ha[j, i] = a


@njit(cache=True, inline="always")
def _block_cell(cnt, wall, gamma, sparse, j, i):
    """A cell's count and sparse flag in the 3x3 blocks: a wall cell is full and not sparse."""
    if is_wall(wall, j, i):
        return gamma, 0
    return cnt[j, i], int(cnt[j, i] < sparse)


@njit(cache=True)
def _rhs_row(j, cnt, wall, vel_c, a0, gamma, h, beta, hs, ha, rhs, rhs_density):
    ny, nx = cnt.shape
    rows_in = 1 + (j > 0) + (j + 1 < ny)
    walls = wall.shape[0] > 0
    for i in range(nx):
        if cnt[j, i] < EMPTY_COUNT or (walls and wall[j, i]):
            rhs[j, i] = 0.0
            rhs_density[j, i] = 0.0
            continue
        d = _divergence(vel_c, cnt, wall, walls, j, i, a0, nx, ny)
        # the 3x3 block from three horizontal sums (``sparse``: its cells below SPARSE_RATIO)
        s = hs[j, i]
        sparse = ha[j, i]
        if j > 0:
            s += hs[j - 1, i]
            sparse += ha[j - 1, i]
        if j + 1 < ny:
            s += hs[j + 1, i]
            sparse += ha[j + 1, i]
        # on a wall (the domain's edge or a wall cell) the block holds two rows of fluid; its
        # sparse test spans three, one row further away from the wall
        if (j == 0 or (walls and wall[j - 1, i])) and j + 2 < ny:
            sparse += ha[j + 2, i]
        if (j == ny - 1 or (walls and wall[j + 1, i])) and j >= 2:
            sparse += ha[j - 2, i]
        k = rows_in * (1 + (i > 0) + (i + 1 < nx))
        excess = s / (k * gamma) - 1.0
        rhs[j, i] = a0 * a0 * d
        if excess > 0.0 or sparse == 0:
            rhs_density[j, i] = -a0 * a0 * beta * excess / h
        else:
            rhs_density[j, i] = 0.0


@njit(cache=True)
def converged_rhs(cnt, wall, vel_c, a0, gamma, h, beta, rhs, rhs_density, rows=None, hs=None,
                  ha=None):
    """Right-hand sides of the two compact Poisson problems: ``a0^2 div u`` (velocity projection)
    and ``-a0^2 beta (r_s - 1) / h`` (density correction, applied to positions only).

    ``r_s`` is the density ratio smoothed over 3x3 cells: single-cell counts at gamma ~ 5 swing
    by +-40 % and would make the correction shake the fluid. Cells whose block holds a sparse
    cell (below :data:`SPARSE_RATIO` of the rest density: air, or the partly filled top row of
    a pool) correct only compression (a surface cell is partly empty by nature); interior cells
    correct both ways, so that count noise averages out instead of inflating the fluid.

    Why sparse and not only empty cells: the row under a pool's partly filled top row saw a
    deficit in its block and pulled particles up into the top row every substep. Water's random
    walk carries them back; a viscous fluid barely diffuses, so a mean flow had to, and it
    ran where nothing interrupts the surface: in honey 120 deep it went up beside a floating
    box at 2-4 units/s and down the walls, and the pressure push it made lifted bodies (a 0.8x
    box floated 0.07 high, a 1.1x box never got under). Whether a pool's top row is partly
    filled depends on its depth against the grid: at 100 deep the same box floated 0.03 high.

    A cell on a floor (the grid's bottom row, or a wall cell under it) has two rows of fluid in
    its block, and its sparse test takes the row above those too (under a ceiling, the row
    below): a pool's top row of particles that lies on a cell edge flickers between two cells,
    so the cell under it holds that row (over the rest density) or not (under it, yet above
    the sparse ratio); in the block of a pool two cells deep that swing was half the fluid,
    and its correction, both ways, pushed the row up and pulled it back down: a pool 20 deep
    (five rows of particles, the fifth at ~20) jiggled at 1.6 % of ``sqrt(g d)``, 0.00 % now
    (on a tank's floor of wall cells 0.79 %, now 0.24 %). Looking three rows away everywhere
    calmed it as well, but took the two-way correction from around floating bodies (a ball of
    0.5 turned 49-66 degrees in still water, 1.6-1.8 with this rule).

    ``wall`` (uint8, shaped like ``cnt``) marks the wall cells (:mod:`.pressure_walls`): no
    flow through their faces, no equation of their own, full in the 3x3 blocks.
    With ``rows`` (:func:`.pressure.active_rows`) only those rows are written; the others must
    be air.
    ``hs`` (float) and ``ha`` (int64), shaped like ``cnt``, are scratch (allocated if omitted).
    """
    ny, nx = cnt.shape
    act = _all_rows(ny, rows)
    if len(act) == 0:
        return
    if hs is None:
        hs = np.empty((ny, nx))
    if ha is None:
        ha = np.empty((ny, nx), np.int64)
    _block_sums(max(act.min() - 2, 0), min(act.max() + 3, ny), cnt, wall, gamma, hs, ha,
                SPARSE_RATIO * gamma)
    for j in act:
        _rhs_row(j, cnt, wall, vel_c, a0, gamma, h, beta, hs, ha, rhs, rhs_density)


@njit(cache=True, parallel=True)
def converged_rhs_parallel(cnt, wall, vel_c, a0, gamma, h, beta, rhs, rhs_density, rows, hs,
                           ha):
    """:func:`converged_rhs` with rows in parallel; identical results. ``hs`` (float) and ``ha``
    (int64), shaped like ``cnt``, are scratch."""
    ny = cnt.shape[0]
    if len(rows) == 0:
        return
    j0 = max(rows.min() - 2, 0)
    j1 = min(rows.max() + 3, ny)
    band = 8
    for t in prange((j1 - j0 + band - 1) // band):
        _block_sums(j0 + t * band, min(j1, j0 + (t + 1) * band), cnt, wall, gamma, hs, ha,
                    SPARSE_RATIO * gamma)
    for t in prange(len(rows)):
        _rhs_row(rows[t], cnt, wall, vel_c, a0, gamma, h, beta, hs, ha, rhs, rhs_density)


#: Share of ``density_correction`` by which a cell that holds part of a moving body's cover
#: corrects its own compression (:func:`correct_covered_cells`).
COVERED_SHARE = 0.35


@njit(cache=True)
def correct_covered_cells(cnt, solid, wall, static, gamma, a0, beta, h, rows, rhs_density):
    """A cell that holds part of a moving body's cover (``0 < solid < 1``, ``static`` 0: no
    wall's cover, :attr:`FluidSystem.wall_cover`) and more fluid than its share of the rest
    density corrects that from its own count, not only its 3x3 block's: its ``rhs_density``
    (:func:`converged_rhs`) becomes at most ``-a0^2 beta COVERED_SHARE (cnt / gamma - 1) / h``
    (``cnt`` holds the cover as ``solid * gamma``). Walls keep the block's correction: their
    cut cells have rules of their own (``pressure_walls.cut_cover``), and with this one as
    well the puzzle's bucket, walls of segments, no longer filled to its line from any aim.

    Why: the block's mean hides the rows that pack against a solid. Next to a floating body
    those cells held ~1.2x their share of particles, and the water a body displaces went
    there instead of into the level: a 72 x 24 box of 0.8 raised a pool 200 wide by 0.92 of
    its submerged area over the width (seeds 0-5; under 0.9 on three), a ball of radius 20 by
    0.93. With its own count corrected at 0.35 of the block's rate, seeds 0 / 1: the box
    1.008 / 1.028 (0.885 / 0.875 before), the ball 0.931 / 1.004 (0.981 / 0.908), a 108 x 36
    box 1.014 / 1.018 (0.913 / 0.959), a 40 x 40 box 0.992 / 0.919 (0.969 / 0.913). The
    correction's shifts stir the water by a body, so a floating ball turns more in calm water
    (radius 20, 16 runs, largest turn in 10 s: 5.1 degrees without, 23.4 with; at 0.2 of the
    rate 15.8, but a 100 x 30 box of 0.9 on oil rode 0.056 deep). At half the rate the level
    overshot (40 x 40 1.06, a ball of radius 15 1.16) and bodies rode a little deep (a box of
    0.6 in honey at 0.661); at the whole rate the ball rose by 1.09."""
    nx = cnt.shape[1]
    walls = wall.shape[0] > 0
    k = -a0 * a0 * beta * COVERED_SHARE / h
    for j in rows:
        for i in range(nx):
            s = solid[j, i]
            if (not (0.0 < s < 1.0) or cnt[j, i] < EMPTY_COUNT or static[j, i]
                    or (walls and wall[j, i])):
                continue
            excess = cnt[j, i] / gamma - 1.0
            if excess > 0.0:
                rhs_density[j, i] = min(rhs_density[j, i], k * excess)


# ----------------------------------------------------------------------------- SOR solver
#: The surface distances of a solve without ``FluidParams.surface_ghost``: none (the kernels
#: then put the surface at the air cell's centre, as before it existed).
NO_THETA = np.zeros((0, 0))


@njit(cache=True)
def solver_coefficients(cnt, wall, invk, rows=None, theta=NO_THETA):
    """``invk`` = 1 / (number of in-domain neighbours that are not wall cells) for non-empty
    cells, 0 for air and wall cells.

    With ``theta`` (:func:`.surface_ghost.surface_theta`, not :data:`NO_THETA`) a top cell's
    face to the air above weighs ``1 / theta`` (the ghost value ``phi (1 - 1 / theta)`` in the
    air cell) and a thin cell gets 0, out of the solve like air.

    With it and a zero border around ``phi`` (:func:`solve_padded`), a sweep needs no branch: an
    air neighbour holds phi = 0 (Dirichlet) and the domain's border is the zero border, left
    out of the count (Neumann); so is a wall cell (``wall``, :mod:`.pressure_walls`), whose phi
    is held at 0 too.
    """
    ny, nx = cnt.shape
    walls = wall.shape[0] > 0
    for j in _all_rows(ny, rows):
        # int(): without the JIT, numpy adds two bools as a logical or
        kj = int(j > 0) + int(j + 1 < ny)
        for i in range(nx):
            k = kj + int(i > 0) + int(i + 1 < nx)
            if walls:  # no walls: the branch-free loop of before
                k -= (int(is_wall(wall, j - 1, i)) if j > 0 else 0)
                k -= (int(is_wall(wall, j + 1, i)) if j + 1 < ny else 0)
                k -= (int(is_wall(wall, j, i - 1)) if i > 0 else 0)
                k -= (int(is_wall(wall, j, i + 1)) if i + 1 < nx else 0)
                if wall[j, i]:
                    k = 0
            kf = float(k)
            if theta.shape[0] > 0 and k > 0:
                if theta[j, i] < 0.0:
                    kf = 0.0
                else:
                    kf += 1.0 / theta[j, i] - 1.0
            invk[j, i] = 1.0 / kf if cnt[j, i] >= EMPTY_COUNT and kf > 0 else 0.0


@njit(cache=True)
def _zero_air(j, cnt, phi_pad):
    for i in range(cnt.shape[1]):
        if cnt[j, i] < EMPTY_COUNT:
            phi_pad[j + 1, i + 1] = 0.0


@njit(cache=True, inline="always")
def _rows_around(pad, j):
    """Rows ``j + 1``, ``j`` and ``j - 1`` of a zero-bordered field (row j of the grid is
    ``pad[j + 1]``): above, the row itself, below."""
    return pad[j + 2], pad[j + 1], pad[j]


@njit(cache=True)
def _sweep_row(j, color, phi_pad, rhs, invk, omega, spans):
    """One colour of one row: ``phi += omega * ((sum of the 4 neighbours - rhs) * invk - phi)``."""
    lo = spans[j, 0]
    hi = spans[j, 1]
    if hi <= lo:
        return
    up, mid, down = _rows_around(phi_pad, j)
    rr = rhs[j]
    kk = invk[j]
    # unsigned i: numba skips the negative-index wrap-around on each of the six accesses (the
    # span bounds come from an array); the paired sweep ran a third faster
    one = np.uint64(1)
    two = np.uint64(2)
    for i in range(np.uint64(lo + ((j + color + lo) & 1)), np.uint64(hi), two):
        s = mid[i + two] + mid[i] + up[i + one] + down[i + one]
        p = mid[i + one]
        mid[i + one] = p + omega * ((s - rr[i]) * kk[i] - p)


@njit(cache=True)
def solve_padded(phi_pad, rhs, cnt, invk, iters, omega, spans, rows=None):
    """Red-black SOR sweeps on ``phi_pad[1:-1, 1:-1]`` (a zero border around the grid).

    Air cells are set to phi = 0 first; then each colour updates the non-empty span of every row
    (``spans``, :func:`.pressure.row_spans`): ``phi += omega * ((sum of the 4 neighbours - rhs)
    * invk - phi)``. Air cells inside a span have ``invk = 0`` and stay 0. With ``rows`` only
    those rows are touched (:func:`.pressure.active_rows`).
    """
    if iters <= 0:
        return
    act = _all_rows(cnt.shape[0], rows)
    for j in act:
        _zero_air(j, cnt, phi_pad)
    for _ in range(iters):
        for color in range(2):
            for j in act:
                _sweep_row(j, color, phi_pad, rhs, invk, omega, spans)


@njit(cache=True, parallel=True)
def solve_padded_parallel(phi_pad, rhs, cnt, invk, iters, omega, spans, rows):
    """:func:`solve_padded` with the rows of one colour in parallel (a colour reads only the other
    colour's cells, so its rows are independent); bit-identical results."""
    if iters <= 0:
        return
    for t in prange(len(rows)):
        _zero_air(rows[t], cnt, phi_pad)
    for _ in range(iters):
        for color in range(2):
            for t in prange(len(rows)):
                _sweep_row(rows[t], color, phi_pad, rhs, invk, omega, spans)


@njit(cache=True)
def _sweep_row_pair(j, color, phi_pad, rhs, psi_pad, rhs2, invk, omega, spans):
    """:func:`_sweep_row` on two fields with the same coefficients, in one pass over the row."""
    lo = spans[j, 0]
    hi = spans[j, 1]
    if hi <= lo:
        return
    up, mid, down = _rows_around(phi_pad, j)
    up2, mid2, down2 = _rows_around(psi_pad, j)
    rr = rhs[j]
    rr2 = rhs2[j]
    kk = invk[j]
    one = np.uint64(1)  # unsigned i, as in _sweep_row
    two = np.uint64(2)
    for i in range(np.uint64(lo + ((j + color + lo) & 1)), np.uint64(hi), two):
        k = kk[i]
        s = mid[i + two] + mid[i] + up[i + one] + down[i + one]
        p = mid[i + one]
        mid[i + one] = p + omega * ((s - rr[i]) * k - p)
        s2 = mid2[i + two] + mid2[i] + up2[i + one] + down2[i + one]
        p2 = mid2[i + one]
        mid2[i + one] = p2 + omega * ((s2 - rr2[i]) * k - p2)


@njit(cache=True)
def solve_padded_pair(phi_pad, rhs, psi_pad, rhs2, cnt, invk, iters, omega, spans, rows=None):
    """:func:`solve_padded` for two right-hand sides on the same grid (the pressure and the
    density potential) in the same sweeps: each field gets exactly the updates it would get
    alone (bit-identical), but the rows, coefficients and parallel regions are shared."""
    if iters <= 0:
        return
    act = _all_rows(cnt.shape[0], rows)
    for j in act:
        _zero_air(j, cnt, phi_pad)
        _zero_air(j, cnt, psi_pad)
    for _ in range(iters):
        for color in range(2):
            for j in act:
                _sweep_row_pair(j, color, phi_pad, rhs, psi_pad, rhs2, invk, omega, spans)


@njit(cache=True, parallel=True)
def solve_padded_pair_parallel(phi_pad, rhs, psi_pad, rhs2, cnt, invk, iters, omega, spans,
                               rows):
    """:func:`solve_padded_pair` with the rows of one colour in parallel; bit-identical."""
    if iters <= 0:
        return
    for t in prange(len(rows)):
        _zero_air(rows[t], cnt, phi_pad)
        _zero_air(rows[t], cnt, psi_pad)
    for _ in range(iters):
        for color in range(2):
            for t in prange(len(rows)):
                _sweep_row_pair(rows[t], color, phi_pad, rhs, psi_pad, rhs2, invk, omega, spans)


@njit(cache=True)
def solve_rbgs(phi, rhs, cnt, iters, omega, spans=None, wall=None):
    """Red-black Gauss-Seidel/SOR sweeps on ``sum_nb (phi_nb - phi) = rhs``, warm-started.

    Neighbours are the in-domain cells that are not wall cells (``wall``, uint8; Neumann
    walls); air cells are phi = 0 (Dirichlet), and so are wall cells. With ``spans`` only the
    non-empty span of each row (:func:`.pressure.row_spans`) is swept. A convenience entry
    point over :func:`solve_padded`, which FluidSystem runs on its padded arrays.
    """
    ny, nx = cnt.shape
    pad = np.zeros((ny + 2, nx + 2))
    pad[1:-1, 1:-1] = phi
    w = np.zeros((ny, nx), np.uint8)
    if wall is not None:
        w[:, :] = wall
    for j in range(ny):
        for i in range(nx):
            if w[j, i]:
                pad[j + 1, i + 1] = 0.0
    invk = np.empty((ny, nx))
    solver_coefficients(cnt, w, invk)
    sp = np.empty((ny, 2), np.int64)
    if spans is None:
        for j in range(ny):
            sp[j, 0] = 0
            sp[j, 1] = nx
    else:
        sp[:, :] = spans
    solve_padded(pad, rhs, cnt, invk, iters, omega, sp)
    phi[:, :] = pad[1:-1, 1:-1]


# ----------------------------------------------------------------------------- corrections
@njit(cache=True)
def _correction_row(j, phi, cnt, wall, inv, grad, theta):
    ny, nx = phi.shape
    walls = wall.shape[0] > 0  # once: with none, the loop is the one without walls
    for i in range(nx):
        if cnt[j, i] < EMPTY_COUNT or (walls and wall[j, i] != 0):
            grad[j, i, 0] = 0.0
            grad[j, i, 1] = 0.0
            continue
        p = phi[j, i]
        if theta.shape[0] > 0 and theta[j, i] < 0.0:  # a thin top cell: the face below it
            grad[j, i, 0] = 0.0
            grad[j, i, 1] = -phi[j - 1, i] * inv / theta[j - 1, i]
            continue
        gx = 0.0
        kx = 0
        if i + 1 < nx and not (walls and wall[j, i + 1] != 0):
            gx += ((phi[j, i + 1] if cnt[j, i + 1] >= EMPTY_COUNT else 0.0) - p) * inv
            kx += 1
        if i > 0 and not (walls and wall[j, i - 1] != 0):
            gx += (p - (phi[j, i - 1] if cnt[j, i - 1] >= EMPTY_COUNT else 0.0)) * inv
            kx += 1
        gy = 0.0
        ky = 0
        if j + 1 < ny and not (walls and wall[j + 1, i] != 0):
            if theta.shape[0] > 0 and theta[j, i] != 1.0:
                gy -= p * inv / theta[j, i]
            elif cnt[j + 1, i] >= EMPTY_COUNT:
                gy += (phi[j + 1, i] - p) * inv
            else:
                gy -= p * inv
            ky += 1
        if j > 0 and not (walls and wall[j - 1, i] != 0):
            gy += (p - (phi[j - 1, i] if cnt[j - 1, i] >= EMPTY_COUNT else 0.0)) * inv
            ky += 1
        grad[j, i, 0] = gx / kx if kx > 0 else 0.0
        grad[j, i, 1] = gy / ky if ky > 0 else 0.0


@njit(cache=True)
def converged_correction(phi, cnt, wall, a0, grad, rows=None, theta=NO_THETA):
    """Per-cell ``grad`` = mean of the face gradients of ``phi`` (the domain's border and wall
    cells excluded, air phi = 0); each particle's new velocity is ``v - grad[cell]``. With
    ``rows`` only those rows. With ``theta`` (:func:`.surface_ghost.surface_theta`) a top
    cell's upper face reaches the surface ``theta`` cells above its centre, and a thin cell
    takes the gradient of the face under it (its particles lie on the cell below)."""
    inv = 1.0 / a0
    for j in _all_rows(phi.shape[0], rows):
        _correction_row(j, phi, cnt, wall, inv, grad, theta)


@njit(cache=True, parallel=True)
def converged_correction_parallel(phi, cnt, wall, a0, grad, rows, theta=NO_THETA):
    """:func:`converged_correction` with the ``rows`` in parallel; identical results."""
    inv = 1.0 / a0
    for t in prange(len(rows)):
        _correction_row(rows[t], phi, cnt, wall, inv, grad, theta)


@njit(cache=True)
def apply_cell_shift(pos, n, cell_of, grad, nx, h):
    """Density correction as a pseudo-velocity: ``x -= grad[cell] h``, velocities untouched, so the
    correction moves particles back to rest density without feeding kinetic energy (the SRD
    collision conserves it and would keep any noise injected here)."""
    _correct_range(0, n, pos, cell_of, grad, nx, h)


@njit(cache=True, parallel=True)
def apply_cell_shift_parallel(pos, n, cell_of, grad, nx, h):
    """:func:`apply_cell_shift` over particle chunks in parallel; identical results."""
    chunk = 8192
    for t in prange((n + chunk - 1) // chunk):
        _correct_range(t * chunk, min(n, (t + 1) * chunk), pos, cell_of, grad, nx, h)


@njit(cache=True, parallel=True)
def apply_shift_and_correction_parallel(fluid, cell_of, grad_density, grad, nx, h):
    """:func:`apply_cell_shift_parallel` (``x -= grad_density[cell] h``) and
    :func:`.pressure.apply_cell_correction_parallel` (``v -= grad[cell]``) in one pass over
    ``fluid = (pos, vel, n)``, chunk by chunk; identical results (neither reads what the other
    writes)."""
    pos, vel, n = fluid
    chunk = 8192
    for t in prange((n + chunk - 1) // chunk):
        i0 = t * chunk
        i1 = min(n, i0 + chunk)
        _correct_range(i0, i1, pos, cell_of, grad_density, nx, h)
        _correct_range(i0, i1, vel, cell_of, grad, nx, 1.0)
