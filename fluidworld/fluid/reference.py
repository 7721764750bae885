"""Slow, obviously-correct numpy references for every fluid kernel stage (tests only).

Each function here is written from the *documented* semantics of a numba kernel (its docstring,
its module's docstring and Crespin et al. 2020), not by transliterating the kernel, so that a test
comparing the two can catch a kernel bug. Nothing here is on the hot path: neighbour searches are
brute force O(N^2), grids are padded with explicit ghost cells, and clarity beats speed.

Conventions: every reference takes the same *meaningful* inputs as its kernel (arrays may be longer
than ``n``; only the first ``n`` rows are used) but drops scratch arrays, and it *returns* fresh
outputs instead of writing into arrays passed in. Kernel -> reference:

===========================================  ====================================================
kernel (``fluidworld.fluid.*``)              reference
===========================================  ====================================================
``binning.sort_particles``                   :func:`sort_particles`
``binning.bin_points``                       :func:`bin_points`
``repulsion.repulse_fluid[_parallel]``       :func:`repulse_fluid`
``repulsion.accumulate_solid_impulses``      :func:`accumulate_solid_impulses`
``repulsion.apply_displacements``            :func:`apply_displacements`
``collision.srd_collide``                    :func:`srd_collide`
``pressure.deposit_cells``                   :func:`deposit_cells`
``pressure.paper_pressure``                  :func:`paper_pressure`
``pressure_converged.converged_rhs``         :func:`converged_rhs`
``pressure.row_spans``                       :func:`row_spans`
``pressure_converged.solve_rbgs``            :func:`solve_rbgs` (with or without ``spans``)
``pressure_converged.converged_correction``  :func:`converged_correction`
``pressure.apply_cell_correction``           :func:`apply_cell_correction`
``pressure_converged.apply_cell_shift``      :func:`apply_cell_shift`
``advection.advect_and_contain``             :func:`advect_and_contain`
===========================================  ====================================================
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "EMPTY_COUNT",
    "grid_cell",
    "sort_particles",
    "bin_points",
    "repulse_fluid",
    "solid_contacts",
    "accumulate_solid_impulses",
    "apply_displacements",
    "srd_cells",
    "srd_collide",
    "deposit_cells",
    "paper_pressure",
    "converged_rhs",
    "row_spans",
    "solve_rbgs",
    "poisson_residual",
    "converged_correction",
    "apply_cell_correction",
    "apply_cell_shift",
    "advect_and_contain",
]

#: A pressure cell holding fewer particle-equivalents than this is air (pressure.py).
EMPTY_COUNT = 0.5

#: A cell below this share of the rest density is surface for the density correction
#: (pressure_converged.py).
SPARSE_RATIO = 0.5

#: Squared distance under which two points count as coincident (no direction for Eq. 6).
_COINCIDENT_L2 = 1e-24

F64 = NDArray[np.float64]


# ============================================================================ binning
def grid_cell(pos: F64, inv_h: float, nx: int, ny: int) -> NDArray[np.int64]:
    """Flat index ``cy * nx + cx`` of the grid cell of each point, ``c = floor(x * inv_h)``
    clamped into the grid (points outside the grid belong to the nearest edge cell)."""
    pos = np.asarray(pos, dtype=np.float64).reshape(-1, 2)
    cx = np.clip(np.floor(pos[:, 0] * inv_h), 0, nx - 1).astype(np.int64)
    cy = np.clip(np.floor(pos[:, 1] * inv_h), 0, ny - 1).astype(np.int64)
    return cy * nx + cx


def _cell_start(cells: NDArray[np.int64], ncell: int) -> NDArray[np.int64]:
    start = np.zeros(ncell + 1, np.int64)
    start[1:] = np.cumsum(np.bincount(cells, minlength=ncell))
    return start


def sort_particles(pos, vel, mat, n, inv_h, nx, ny):
    """Stable sort of the first ``n`` particles by neighbour-grid cell.

    Returns ``(pos_out, vel_out, mat_out, cell_start, cell_of)``: the sorted copies (``n`` rows),
    the first sorted index of each cell (``nx*ny + 1``; ``cell_start[-1] == n``) and the cell of
    each particle in the *input* order.
    """
    cells = grid_cell(pos[:n], inv_h, nx, ny)
    order = np.argsort(cells, kind="stable")
    return (pos[:n][order].copy(), vel[:n][order].copy(), mat[:n][order].copy(),
            _cell_start(cells, nx * ny), cells)


def bin_points(pos, m, inv_h, nx, ny):
    """Bin ``m`` points without moving them. Returns ``(cell_start, order)``: ``order`` lists the
    point indices cell by cell (input order within a cell), ``cell_start`` indexes into it."""
    cells = grid_cell(pos[:m], inv_h, nx, ny)
    return _cell_start(cells, nx * ny), np.argsort(cells, kind="stable").astype(np.int64)


# ============================================================================ repulsion
def _eq6(rvec: F64, l2: F64, r_l: float) -> F64:
    """Paper Eq. 6: ``d = r_L/2 (1 - l/r_L) n`` for separation vectors ``rvec`` (..., 2) from i
    to its neighbour, valid where ``l2 > 0``; zero elsewhere."""
    ok = l2 > _COINCIDENT_L2
    ln = np.sqrt(np.where(ok, l2, 1.0))
    mag = np.where(ok, 0.5 * r_l * (1.0 - ln / r_l), 0.0)
    return mag[..., None] * rvec / ln[..., None]


def solid_contacts(pos, vel, n, s_pos, s_vel, r_l, dv, still=1.0, s_dyn=None):
    """Brute-force fluid-solid contacts of one pass, per (fluid i, solid s) pair.

    Returns ``(disp, dvel, wsum)`` with ``disp`` and ``dvel`` of shape (n, m, 2) -- the position
    and velocity change solid ``s`` gives fluid particle ``i`` -- and ``wsum`` (n,).

    Semantics (repulsion.py): a solid at distance ``0 < l < r_L`` along unit ``n_is`` pushes the
    fluid particle like a fluid neighbour (Eq. 6: displacement ``-d``, velocity ``-d dv``) and in
    addition removes the part of the particle's velocity relative to the solid that points into
    the solid, weighted ``w_s = (1 - l_s/r_L) / sum_s' (1 - l_s'/r_L)`` over the particle's solid
    contacts (the weights of one particle sum to 1, so several contacts do not add up). A still
    solid (at zero velocity and not marked in ``s_dyn``, the solids of dynamic bodies) removes
    ``still`` of that part (``FluidParams.wall_inelastic``), or, with ``still = (share, kx,
    ky)``, ``share`` of the part beyond the gravity kick ``(kx, ky)`` along the normal
    (``params.wall_contact``).
    """
    share, kx, ky = still if isinstance(still, tuple) else (still, 0.0, 0.0)
    p = np.asarray(pos[:n], dtype=np.float64)
    v = np.asarray(vel[:n], dtype=np.float64)
    sp = np.asarray(s_pos, dtype=np.float64).reshape(-1, 2)
    sv = np.asarray(s_vel, dtype=np.float64).reshape(-1, 2)
    rvec = sp[None, :, :] - p[:, None, :]                       # from i to s
    l2 = rvec[..., 0] * rvec[..., 0] + rvec[..., 1] * rvec[..., 1]
    touch = (l2 < r_l * r_l) & (l2 > _COINCIDENT_L2)
    ln = np.sqrt(np.where(touch, l2, 1.0))
    weight = np.where(touch, 1.0 - ln / r_l, 0.0)
    wsum = weight.sum(axis=1)
    d = np.where(touch[..., None], _eq6(rvec, l2, r_l), 0.0)
    disp = -d
    dvel = -d * dv
    unit = rvec / ln[..., None]
    vrel = v[:, None, :] - sv[None, :, :]
    vn = (vrel * unit).sum(axis=-1)                              # > 0: moving into the solid
    safe_wsum = np.where(wsum > 0.0, wsum, 1.0)[:, None]
    is_still = (sv == 0.0).all(axis=1)
    if s_dyn is not None:
        is_still &= ~np.asarray(s_dyn, dtype=bool)
    inelastic = np.where(touch & (vn > 0.0), weight / safe_wsum * vn, 0.0)
    kn = unit[..., 0] * kx + unit[..., 1] * ky                   # the kick into the solid
    beyond = np.where(vn > 0.0, np.maximum(vn - kn, 0.0) / np.where(vn > 0.0, vn, 1.0), 0.0)
    inelastic = inelastic * np.where(is_still[None, :], share * beyond, 1.0)
    dvel = dvel - inelastic[..., None] * unit
    return disp, dvel, wsum


def repulse_fluid(pos, vel, n, s_pos, s_vel, r_l, dv, mat=None, mass_table=None,
                  group_table=None, immiscible_radius=1.1, fluid_radius=0.9, still=1.0,
                  s_dyn=None):
    """One Jacobi repulsion pass (Eq. 5-6) by brute force over all fluid pairs and all solids.

    Returns ``(disp, dvel, wsum)`` for the first ``n`` particles. Every particle gathers, at the
    positions the pass starts from, ``-d`` (Eq. 6, radius ``R = fluid_radius * r_L``) from each
    fluid neighbour closer than ``R`` and the contact of :func:`solid_contacts` (radius ``r_L``)
    from each solid (``still``, ``s_dyn``: as there); ``dvel = disp * dv`` for the fluid part.
    Two coincident fluid particles (no direction) split along x by ``R/4`` each, the one with
    the lower index going to -x.

    Multiphase (``mat``, ``mass_table`` and ``group_table`` given): a pair of different groups
    uses the radius ``R = immiscible_radius * r_L`` instead of ``r_L`` (``d = R/2 (1 - l/R) n``,
    coincident split ``R/4``), and particle i takes ``2 m_j / (m_i + m_j)`` of each pair's share.
    """
    p = np.asarray(pos[:n], dtype=np.float64)
    rvec = p[None, :, :] - p[:, None, :]                         # rvec[i, j] = x_j - x_i
    l2 = rvec[..., 0] * rvec[..., 0] + rvec[..., 1] * rvec[..., 1]
    idx = np.arange(n)
    rad = np.full((n, n), fluid_radius * r_l)
    share = np.ones((n, n))
    if mat is not None:
        k = np.asarray(mat[:n], dtype=np.int64)
        m = np.asarray(mass_table, dtype=np.float64)[k]
        g = np.asarray(group_table)[k]
        rad = np.where(g[:, None] == g[None, :], fluid_radius * r_l, immiscible_radius * r_l)
        share = 2.0 * m[None, :] / (m[:, None] + m[None, :])
    near = (l2 < rad * rad) & (idx[:, None] != idx[None, :])
    ok = l2 > _COINCIDENT_L2
    ln = np.sqrt(np.where(ok, l2, 1.0))
    mag = np.where(ok & near, 0.5 * (rad - ln), 0.0) * share
    disp = -(mag[..., None] * rvec / ln[..., None]).sum(axis=1)
    coincident = near & ~ok
    side = np.where(idx[None, :] > idx[:, None], -1.0, 1.0)      # j above i: i goes to -x
    disp[:, 0] += (0.25 * rad * share * side * coincident).sum(axis=1)
    dvel = disp * dv
    s_disp, s_dvel, wsum = solid_contacts(pos, vel, n, s_pos, s_vel, r_l, dv, still, s_dyn)
    return disp + s_disp.sum(axis=1), dvel + s_dvel.sum(axis=1), wsum


def accumulate_solid_impulses(pos, vel, mat, mass_table, n, s_pos, s_vel, r_l, dv):
    """Momentum the solids receive in one pass: ``(impulse (m, 2), marked (m,))``.

    Each solid receives minus the momentum ``m_i * dvel_is`` it gave every fluid particle it
    touches (:func:`solid_contacts`), and is marked if any fluid particle is within ``r_L``. The
    kernel *adds* this to its ``s_impulse`` and *ors* it into ``s_marked``.
    """
    _, dvel, _ = solid_contacts(pos, vel, n, s_pos, s_vel, r_l, dv)
    mass = np.asarray(mass_table, dtype=np.float64)[np.asarray(mat[:n], dtype=np.int64)]
    impulse = -(mass[:, None, None] * dvel).sum(axis=0)
    sp = np.asarray(s_pos, dtype=np.float64).reshape(-1, 2)
    rvec = sp[None, :, :] - np.asarray(pos[:n], dtype=np.float64)[:, None, :]
    l2 = rvec[..., 0] * rvec[..., 0] + rvec[..., 1] * rvec[..., 1]
    marked = ((l2 < r_l * r_l) & (l2 > _COINCIDENT_L2)).any(axis=0)
    return impulse, marked


def apply_displacements(pos, vel, n, disp, dvel):
    """Returns ``(pos + disp, vel + dvel)`` for the first ``n`` particles."""
    return pos[:n] + disp[:n], vel[:n] + dvel[:n]


# ============================================================================ SRD collision
def srd_cells(pos, n, a0, shift_x, shift_y, ncx, ncy) -> NDArray[np.int64]:
    """SRD cell of each particle on the grid translated by ``(shift_x, shift_y)``: cell
    ``floor((x + shift) / a0)`` clamped into the ``ncx x ncy`` grid, flat index ``cy*ncx + cx``."""
    p = np.asarray(pos[:n], dtype=np.float64)
    cx = np.clip(np.floor((p[:, 0] + shift_x) / a0), 0, ncx - 1).astype(np.int64)
    cy = np.clip(np.floor((p[:, 1] + shift_y) / a0), 0, ncy - 1).astype(np.int64)
    return cy * ncx + cx


def srd_collide(pos, vel, mat, n, mass_table, alpha_table, visc_table, a0, shift_x, shift_y,
                ncx, ncy, signs, group_table=None):
    """Paper Eq. 3 with damping: returns the new velocities of the first ``n`` particles.

    In each shifted cell, and separately for each miscibility group (``group_table``, per
    material; default all one group): ``u`` = centre-of-mass velocity; ``alpha``, ``nu`` =
    mass-weighted means of the materials' angle and viscosity; then
    ``v <- u + (1 - nu) R(sign_c * alpha) (v - u)``.
    """
    k = np.asarray(mat[:n], dtype=np.int64)
    cell_only = srd_cells(pos, n, a0, shift_x, shift_y, ncx, ncy)
    grp = np.zeros(len(alpha_table), np.int64) if group_table is None else group_table
    cells = cell_only * 256 + np.asarray(grp, dtype=np.int64)[k]
    m = np.asarray(mass_table, dtype=np.float64)[k]
    v = np.asarray(vel[:n], dtype=np.float64)
    out = np.empty_like(v)
    for c in np.unique(cells):
        sel = cells == c
        mc = m[sel]
        mtot = mc.sum()
        u = (mc[:, None] * v[sel]).sum(axis=0) / mtot
        alpha = float(signs[c // 256]) * (mc * np.asarray(alpha_table)[k[sel]]).sum() / mtot
        keep = 1.0 - (mc * np.asarray(visc_table)[k[sel]]).sum() / mtot
        rot = np.array([[math.cos(alpha), -math.sin(alpha)],
                        [math.sin(alpha), math.cos(alpha)]])
        out[sel] = u + keep * (v[sel] - u) @ rot.T
    return out


# ============================================================================ cell pressure
def deposit_cells(pos, vel, n, a0, nx, ny, gamma, solid_frac, solid_vel):
    """Returns ``(cnt (ny, nx), vel_c (ny, nx, 2), cell_of (n,))``.

    ``cnt`` = fluid particles in the cell + ``solid_frac * gamma``; ``vel_c`` = the mean velocity
    of those particle-equivalents (solid cover moving at ``solid_vel``), 0 where ``cnt == 0``;
    ``cell_of`` = flat cell ``j*nx + i`` of each particle, ``i = floor(x / a0)`` clamped.
    """
    p = np.asarray(pos[:n], dtype=np.float64)
    v = np.asarray(vel[:n], dtype=np.float64)
    i = np.clip(np.floor(p[:, 0] / a0), 0, nx - 1).astype(np.int64)
    j = np.clip(np.floor(p[:, 1] / a0), 0, ny - 1).astype(np.int64)
    cell_of = j * nx + i
    f = np.asarray(solid_frac, dtype=np.float64) * gamma
    cnt = f + np.bincount(cell_of, minlength=nx * ny).reshape(ny, nx)
    mom = f[..., None] * np.asarray(solid_vel, dtype=np.float64)
    for comp in range(2):
        summed = np.bincount(cell_of, weights=v[:, comp], minlength=nx * ny)
        mom[..., comp] += summed.reshape(ny, nx)
    safe = np.where(cnt > 0.0, cnt, 1.0)
    vel_c = np.where((cnt > 0.0)[..., None], mom / safe[..., None], 0.0)
    return cnt, vel_c, cell_of


def _ghost_pad(a: F64, g: int) -> F64:
    """Pad a (ny, nx[, k]) grid by ``g`` ghost cells per side, each ghost mirroring the inside
    cell at the same distance from the wall (cell -1 mirrors 0, cell -2 mirrors 1, ...)."""
    width = [(g, g), (g, g)] + [(0, 0)] * (a.ndim - 2)
    return np.pad(a, width, mode="symmetric")


def paper_pressure(cnt, vel_c, a0, gamma, h, iters, r_clamp):
    """Paper Eq. 7-9 with the rules of pressure.py. Returns ``(div, p, grad)``.

    ``r = min(cnt/gamma, r_clamp)``; a cell with ``cnt < 0.5`` is empty: its divergence and
    pressure are 0, and as a neighbour it has velocity 0 and pressure 0. Beyond a wall the
    (2-deep) ghost cells mirror the inside: same emptiness and pressure, normal velocity negated.

    * Eq. 7: ``div = -2 a0 r / h (u[i+1] - u[i-1] + v[j+1] - v[j-1])``;
    * Eq. 8: ``iters`` Jacobi sweeps from ``p = 0``, ``p = (div + p[i+-2] + p[j+-2]) / 4``;
    * Eq. 9-10: ``grad = r * h / (2 a0 r) * (p[i+1] - p[i-1], p[j+1] - p[j-1])`` (the velocity
      change is ``-grad``), 0 in empty cells.
    """
    cnt = np.asarray(cnt, dtype=np.float64)
    ny, nx = cnt.shape
    g = 2
    empty = cnt < EMPTY_COUNT
    empty_g = _ghost_pad(empty, g)
    vel_g = _ghost_pad(np.asarray(vel_c, dtype=np.float64), g).copy()
    vel_g[:, :g, 0] *= -1.0          # x ghosts: normal (x) velocity negated
    vel_g[:, g + nx:, 0] *= -1.0
    vel_g[:g, :, 1] *= -1.0          # y ghosts: normal (y) velocity negated
    vel_g[g + ny:, :, 1] *= -1.0
    vel_g[empty_g] = 0.0

    def at(a, dj, di):
        """Neighbour (j + dj, i + di) of every inside cell, from a padded array."""
        return a[g + dj: g + dj + ny, g + di: g + di + nx]

    r = np.minimum(cnt / gamma, r_clamp)
    s = (at(vel_g, 0, 1)[..., 0] - at(vel_g, 0, -1)[..., 0]
         + at(vel_g, 1, 0)[..., 1] - at(vel_g, -1, 0)[..., 1])
    div = np.where(empty, 0.0, -2.0 * a0 * r / h * s)
    p = np.zeros((ny, nx))
    for _ in range(iters):
        pg = np.where(empty_g, 0.0, _ghost_pad(p, g))
        new = 0.25 * (div + at(pg, 0, 2) + at(pg, 0, -2) + at(pg, 2, 0) + at(pg, -2, 0))
        p = np.where(empty, 0.0, new)
    pg = np.where(empty_g, 0.0, _ghost_pad(p, g))
    r_safe = np.where(empty, 1.0, r)
    k = h / (2.0 * a0 * r_safe)
    grad = np.stack([k * (at(pg, 0, 1) - at(pg, 0, -1)), k * (at(pg, 1, 0) - at(pg, -1, 0))], -1)
    grad = np.where(empty[..., None], 0.0, r_safe[..., None] * grad)
    return div, p, grad


def _shift(a: F64, dj: int, di: int, fill) -> F64:
    """``out[j, i] = a[j + dj, i + di]``, ``fill`` where that lies outside the grid."""
    ny, nx = a.shape[:2]
    out = np.full_like(a, fill)
    js, je = max(0, -dj), min(ny, ny - dj)
    is_, ie = max(0, -di), min(nx, nx - di)
    out[js:je, is_:ie] = a[js + dj: je + dj, is_ + di: ie + di]
    return out


def _inside(shape, dj: int, di: int) -> NDArray[np.bool_]:
    """Whether neighbour (j + dj, i + di) of each cell lies inside the grid."""
    return _shift(np.ones(shape, bool), dj, di, False).astype(bool)


def _walls(wall, shape) -> NDArray[np.bool_]:
    """The wall cells as booleans (none if ``wall`` is None)."""
    return np.zeros(shape, bool) if wall is None else np.asarray(wall) != 0


def _open(shape, wall, dj: int, di: int) -> NDArray[np.bool_]:
    """Whether neighbour (j + dj, i + di) of each cell is in the grid and not a wall cell."""
    return _inside(shape, dj, di) & (_shift(wall, dj, di, True) == 0)


def converged_rhs(cnt, vel_c, a0, gamma, h, beta, wall=None):
    """Right-hand sides of the compact Poisson problems. Returns ``(rhs, rhs_density)``.

    Faces: normal velocity 0 on a wall face (the border, or towards a ``wall`` cell), the
    cell's own velocity on a face to an air cell, else the mean of the two cells.
    ``rhs = a0^2 * (face divergence / a0)``. ``r_s`` = (sum of ``cnt`` over the in-domain 3x3
    block, a wall cell counting ``gamma``) / (cells in that block * gamma);
    ``rhs_density = -a0^2 beta (r_s - 1) / h`` where ``r_s > 1`` or no cell of the 3x3 block is
    sparse (``cnt < SPARSE_RATIO * gamma``, wall cells never), else 0; for a cell on a wall
    (the grid's bottom or top edge, or a wall cell under or over it), whose block holds two rows
    of fluid, the sparse test takes the 3 cells of the row after those too (two rows up from a
    floor, two down from a ceiling). Both are 0 in air and wall cells.
    """
    cnt = np.asarray(cnt, dtype=np.float64)
    vel_c = np.asarray(vel_c, dtype=np.float64)
    shape = cnt.shape
    empty = cnt < EMPTY_COUNT
    wall = _walls(wall, shape)

    def face(dj, di, comp):
        own = vel_c[..., comp]
        nb = _shift(own, dj, di, 0.0)
        nb_air = _shift(empty, dj, di, True)
        v = np.where(nb_air, own, 0.5 * (own + nb))
        return np.where(_open(shape, wall, dj, di), v, 0.0)

    d = (face(0, 1, 0) - face(0, -1, 0) + face(1, 0, 1) - face(-1, 0, 1)) / a0
    total = np.zeros(shape)
    ncells = np.zeros(shape)
    sparse = (cnt < SPARSE_RATIO * gamma) & ~wall
    any_sparse = np.zeros(shape, bool)
    for dj in (-1, 0, 1):
        for di in (-1, 0, 1):
            total += _shift(np.where(wall, gamma, cnt), dj, di, 0.0)
            ncells += _inside(shape, dj, di)
            any_sparse |= _shift(sparse, dj, di, False)
    # on a wall (the grid's edge or a wall cell) a block holds two rows of fluid: its sparse
    # test takes the row after them too
    on_floor = _shift(wall, -1, 0, True)
    under_ceiling = _shift(wall, 1, 0, True)
    for di in (-1, 0, 1):
        any_sparse |= on_floor & _shift(sparse, 2, di, False)
        any_sparse |= under_ceiling & _shift(sparse, -2, di, False)
    excess = total / (ncells * gamma) - 1.0
    rhs = np.where(empty | wall, 0.0, a0 * a0 * d)
    correct = ~empty & ~wall & ((excess > 0.0) | ~any_sparse)
    rhs_density = np.where(correct, -a0 * a0 * beta * excess / h, 0.0)
    return rhs, rhs_density


_NEIGHBOURS = ((0, 1), (0, -1), (1, 0), (-1, 0))


def _neighbour_sum_and_count(phi: F64, empty: NDArray[np.bool_],
                             wall: NDArray[np.bool_]) -> tuple[F64, F64]:
    """Per cell: sum of the in-domain neighbours' phi (air counts 0) and their number (the
    border and wall cells excluded: Neumann; air included: Dirichlet phi = 0)."""
    s = np.zeros(phi.shape)
    k = np.zeros(phi.shape)
    phi_eff = np.where(empty | wall, 0.0, phi)
    for dj, di in _NEIGHBOURS:
        s += _shift(phi_eff, dj, di, 0.0)
        k += _open(phi.shape, wall, dj, di)
    return s, k


def row_spans(cnt) -> NDArray[np.int64]:
    """(ny, 2): first and one-past-last non-air column of each row; (0, 0) for an all-air row."""
    solid = np.asarray(cnt) >= EMPTY_COUNT
    spans = np.zeros((solid.shape[0], 2), np.int64)
    for j, row in enumerate(solid):
        cols = np.flatnonzero(row)
        if len(cols):
            spans[j] = cols[0], cols[-1] + 1
    return spans


def solve_rbgs(phi, rhs, cnt, iters, omega, wall=None):
    """``iters`` red-black SOR sweeps on ``sum_nb (phi_nb - phi) = rhs``, warm-started from
    ``phi``; returns the new ``phi``.

    Each sweep updates the cells with ``(i + j)`` even, then those with ``(i + j)`` odd: a cell of
    one colour has neighbours of the other colour only, so a colour is a Jacobi update of its
    cells: ``phi += omega * ((sum_nb - rhs) / k - phi)``. Air cells are set to 0 when their colour
    is swept; neighbours beyond the border do not count (Neumann), air neighbours count as 0.
    Wall cells (``wall``) are held at 0 and do not count as neighbours (Neumann); a cell whose
    neighbours all are walls has ``1 / k`` = 0. The kernel's optional ``spans`` (:func:`row_spans`)
    only skips air, so it changes nothing.
    """
    phi = np.array(phi, dtype=np.float64)
    cnt = np.asarray(cnt, dtype=np.float64)
    wall = _walls(wall, phi.shape)
    phi[wall] = 0.0
    empty = (cnt < EMPTY_COUNT) | wall
    jj, ii = np.indices(phi.shape)
    colour = (jj + ii) % 2
    for _ in range(iters):
        for c in (0, 1):
            s, k = _neighbour_sum_and_count(phi, empty, wall)
            invk = np.where(k > 0, 1.0 / np.maximum(k, 1), 0.0)
            new = phi + omega * ((s - rhs) * invk - phi)
            sel = colour == c
            phi[sel & empty] = 0.0
            phi[sel & ~empty] = new[sel & ~empty]
    return phi


def poisson_residual(phi, rhs, cnt, wall=None):
    """``sum_nb (phi_nb - phi) - rhs`` in every non-air cell (0 in air and wall cells)."""
    wall = _walls(wall, np.shape(cnt))
    empty = (np.asarray(cnt) < EMPTY_COUNT) | wall
    s, k = _neighbour_sum_and_count(np.asarray(phi, dtype=np.float64), empty, wall)
    return np.where(empty, 0.0, s - k * phi - rhs)


def converged_correction(phi, cnt, a0, wall=None):
    """Per-cell velocity correction ``grad`` (ny, nx, 2): along each axis, the mean of the face
    gradients ``(phi_nb - phi) / a0`` (forward face) and ``(phi - phi_nb) / a0`` (backward face)
    that do not lie on a wall (the border, or towards a ``wall`` cell); air phi counts 0; 0 in
    air and wall cells and along an axis with no such face."""
    phi = np.asarray(phi, dtype=np.float64)
    shape = phi.shape
    wall = _walls(wall, shape)
    empty = np.asarray(cnt) < EMPTY_COUNT
    pe = np.where(empty, 0.0, phi)
    grad = np.zeros((*shape, 2))
    for comp, (dj, di) in enumerate(((0, 1), (1, 0))):
        fwd_ok = _open(shape, wall, dj, di)
        bwd_ok = _open(shape, wall, -dj, -di)
        fwd = np.where(fwd_ok, (_shift(pe, dj, di, 0.0) - phi) / a0, 0.0)
        bwd = np.where(bwd_ok, (phi - _shift(pe, -dj, -di, 0.0)) / a0, 0.0)
        nfaces = fwd_ok.astype(float) + bwd_ok
        g = np.where(nfaces > 0, (fwd + bwd) / np.maximum(nfaces, 1), 0.0)
        grad[..., comp] = np.where(empty | wall, 0.0, g)
    return grad


def apply_cell_correction(vel, n, cell_of, grad, nx):
    """Eq. 10: returns ``vel[:n] - grad[cell of each particle]``."""
    g = np.asarray(grad).reshape(-1, 2)
    return vel[:n] - g[np.asarray(cell_of[:n])]


def apply_cell_shift(pos, n, cell_of, grad, nx, h):
    """Density correction as a pseudo-velocity: returns ``pos[:n] - grad[cell] * h``."""
    g = np.asarray(grad).reshape(-1, 2)
    return pos[:n] - g[np.asarray(cell_of[:n])] * h


# ============================================================================ advection
def advect_and_contain(pos, vel, mat, n, h, width, height, margin, bounce_table, rest_table,
                       keep_table, max_speed=math.inf):
    """Paper Eq. 4 and containment. Returns ``(pos, vel, put_back)``.

    A non-finite velocity is zeroed first, one faster than ``max_speed`` scaled down to it,
    then ``x += v h``. A particle that ends outside
    ``[margin, width - margin] x [margin, height - margin]`` is put back (counted once), per its
    material:

    * ``bounce`` (restitution ``e``): on each axis where it is out, its overshoot past the wall
      is reflected and scaled by ``e`` (it travels back ``e`` times as far as it went through),
      staying in the box; the normal velocity, if it points out of the box, becomes ``-e`` times
      itself.
    * ``adhere`` (``keep = 1 - adhesion``): it is clamped onto the wall, its velocity into the
      wall is removed, and it keeps ``keep`` of the rest of its velocity ("keeps only
      ``1 - adhesion`` of the velocity", params.Material) -- *including* the component along the
      wall.
    """
    lo = np.array([margin, margin], dtype=np.float64)
    hi = np.array([width - margin, height - margin], dtype=np.float64)
    p_out = np.array(pos[:n], dtype=np.float64)
    v_out = np.array(vel[:n], dtype=np.float64)
    put_back = 0
    for q in range(n):
        v = v_out[q].copy()
        if not np.isfinite(v).all():
            v[:] = 0.0
        if v @ v > max_speed * max_speed:
            v = v * (max_speed / math.sqrt(v @ v))
        x = p_out[q] + v * h
        out_lo = x < lo
        out_hi = x > hi
        if out_lo.any() or out_hi.any():
            put_back += 1
            k = int(mat[q])
            if bounce_table[k]:
                e = rest_table[k]
                for a in range(2):
                    if out_lo[a]:
                        x[a] = min(lo[a] + e * (lo[a] - x[a]), hi[a])
                        if v[a] < 0.0:
                            v[a] = -e * v[a]
                    elif out_hi[a]:
                        x[a] = max(hi[a] - e * (x[a] - hi[a]), lo[a])
                        if v[a] > 0.0:
                            v[a] = -e * v[a]
            else:
                for a in range(2):
                    if out_lo[a]:
                        x[a] = lo[a]
                        v[a] = max(v[a], 0.0)
                    elif out_hi[a]:
                        x[a] = hi[a]
                        v[a] = min(v[a], 0.0)
                v = v * keep_table[k]
        p_out[q] = x
        v_out[q] = v
    return p_out, v_out, put_back
