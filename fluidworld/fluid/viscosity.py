"""Stage ``viscosity``: a shear viscosity per material, in world units^2 per time unit.

SRD has a viscosity of its own (collisional, ~ ``a0^2 (1 - cos alpha) / (12 h)``: about
1,300 units^2/s for water at the game preset), the same for every material of the same rotation
angle, and it cannot be dialled without changing the time step. This stage adds
``Material.viscosity`` (a kinematic viscosity ``nu``) on top, as momentum diffusion between the
cells of the SRD collision's randomly shifted grid (``a0`` cells, so the grid leaves no imprint):

1. cells: each cell's mass ``M`` and mean velocity ``u`` are the SRD collision's (its rotation
   keeps them, so they are not summed twice; where several miscibility groups are present the
   collision sums each apart, and the stage sums the cells itself), plus the mass-weighted ``nu``
   where materials of different ``nu`` are present;
2. faces: between two occupied neighbour cells ``c, d`` a coupling ``K = nu_f rho_f`` (force per
   unit velocity difference: the dynamic viscosity), with ``rho_f = 2 M_c M_d / (M_c + M_d) /
   a0^2`` (harmonic: a face's relaxation rate then does not depend on how many particles the two
   cells happen to hold, and a splash cell moves the bulk by its own small mass only) and
   ``nu_f`` the harmonic mean of the two cells' ``nu`` (stresses in series: honey slides over
   water, the interface takes the thinner fluid's viscosity); empty cells and the walls take no
   stress here (the walls' no-slip hold on viscous materials is :mod:`.wall_shear`'s);
3. relax: the pair ``c, d`` obeys ``dw/dt = -K (1/M_c + 1/M_d) w = -2 nu_f / a0^2 w`` for its
   velocity difference ``w``; a relaxation over ``tau`` removes the fraction
   ``kappa = x = 2 tau nu_f / a0^2`` of ``w`` by an equal and opposite impulse (a row of cells
   then follows ``du/dt = nu d^2u/dx^2`` to first order). Faces are relaxed in four colours
   (even/odd x faces, even/odd y faces): faces of a colour share no cell, so the order within a
   colour does not matter. The substep is split into ``s`` sweeps of ``tau = h / s`` with ``s``
   chosen so that ``x <= X_MAX`` (at most ``max_sweeps``; beyond that ``kappa`` is capped at 1,
   a pair fully equalised, and the stage gives less viscosity than asked). Measured, the added
   viscosity is then ~1.1-1.25x the knob from 1,000 to 40,000 px^2/s at the game preset
   (``kappa = x / (1 + x)``, the pair's implicit Euler, fell from 1.05x to 0.73x over that
   range; ``X_MAX = 0.25`` gave 1.06-1.23x for twice the sweeps);
4. apply: every particle gets its cell's velocity change (the sub-cell velocities, which the SRD
   rotation owns, are kept).

Why this form: every face impulse is equal and opposite, so momentum is conserved to round-off
whatever the number of sweeps, and every impulse shrinks a velocity difference by a factor in
``[0, 1]``, so kinetic energy never grows: the stage is unconditionally stable (a stiff honey at
a large ``h`` gets at most ``max_sweeps`` sweeps and then less viscosity than asked, never
blows up) and a fluid at rest stays at rest. The walls hold a viscous material by
:mod:`.wall_shear`, in the solvers' ``advect`` stage (water and oil slide along them).

The kernels take grouped arguments (tuples, unpacked on their first lines; ``fluid`` and
``grid`` as in :mod:`.collision`):

* ``fluid = (pos, vel, mat, n)``: the particles and their count;
* ``tables = (mass_table, nu_table, group_table)``: per-material mass, kinematic viscosity and
  miscibility group;
* ``grid = (a0, shift_x, shift_y, ncx, ncy)``: the SRD collision's shifted grid;
* ``means = (cell_m, cell_u0)``: each cell's mass and mean velocity (inputs);
* ``scratch = (cell_nu, cell_u, face_x, face_y, span, own_m, own_u0)``: :func:`cell_buffers`;
* ``cells = (cell_m, cell_u0, cell_nu, cell_u, face_x, face_y, span)``: what the relaxation
  reads and writes (internal: the kernels pick ``cell_m, cell_u0`` from ``means`` or ``own_*``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .collision import _srd_cell
from .scan import any_other

__all__ = [
    "X_MAX",
    "MAX_SWEEPS",
    "any_viscous",
    "diffuse_cell_velocities",
    "diffuse_cell_velocities_parallel",
    "cell_means",
    "cell_buffers",
]

#: Largest per-sweep relaxation exponent ``x`` before the substep is split into more sweeps.
X_MAX = 0.5
#: Default cap on sweeps per substep.
MAX_SWEEPS = 16


@njit(cache=True)
def any_viscous(mat, n, nu_table):
    """Whether one of the ``n`` particles has a material with ``nu > 0`` (stops at the first).
    Blocks of one inviscid material are passed over by a vector scan (:func:`.scan.any_other`):
    a water-only fluid with honey in the table cost a table lookup per particle (0.12 ms a
    call at 200k particles)."""
    top = 0.0
    for k in range(len(nu_table)):
        top = max(top, nu_table[k])
    if top == 0.0 or n == 0:
        return False
    k0 = mat[0]
    if nu_table[k0] > 0.0:
        return True
    return any_other(mat, 0, n, k0, nu_table)  # nu >= 0: nonzero is viscous; no allocation


# the kernels below call it under a private name, so that tools which wrap the public kernels
# (benchmarks/kernel_profile.py) do not hand them a Python function to compile against
_any_viscous = any_viscous


@njit(cache=True)
def _cells(pos, mat, i0, i1, nu_table, group_table, inv, shift_x, shift_y, ncx, ncy, cell_of):
    """Each particle's cell (into ``cell_of``) for particles ``i0..i1``; returns whether they all
    share one ``nu``, the largest ``nu``, whether they all share one miscibility group (its id,
    -1 if not) and the lowest and highest cell."""
    same = True
    nu0 = nu_table[mat[i0]] if i1 > i0 else 0.0
    top = nu0
    g0 = np.int64(group_table[mat[i0]]) if i1 > i0 else np.int64(0)
    lo = ncx * ncy
    hi = -1
    for i in range(np.uint64(i0), np.uint64(i1)):
        c = np.int64(_srd_cell(pos[i, 0], pos[i, 1], inv, shift_x, shift_y, ncx, ncy))
        cell_of[i] = c
        lo = min(lo, c)
        hi = max(hi, c)
        k = mat[i]
        nu = nu_table[k]
        if nu != nu0:
            same = False
            top = max(top, nu)
        if group_table[k] != g0:
            g0 = -1
    return same, top, g0, lo, hi


@njit(cache=True)
def _deposit(vel, mat, n, mass_table, cell_of, c0, c1, cell_m, cell_u0):
    """Mass and mean velocity of cells c0..c1 over all particles (the collision's sums are per
    miscibility group where several are present)."""
    for c in range(c0, c1):
        cell_m[c] = 0.0
        cell_u0[c, 0] = 0.0
        cell_u0[c, 1] = 0.0
    for i in range(n):
        c = cell_of[i]
        m = mass_table[mat[i]]
        cell_m[c] += m
        cell_u0[c, 0] += m * vel[i, 0]
        cell_u0[c, 1] += m * vel[i, 1]
    for c in range(c0, c1):
        m = cell_m[c]
        if m > 0.0:
            cell_u0[c, 0] /= m
            cell_u0[c, 1] /= m


@njit(cache=True)
def _cell_nu(mat, n, mass_table, nu_table, cell_of, c0, c1, cell_m, cell_nu):
    """Mass-weighted ``nu`` of cells c0..c1 (mixed materials)."""
    for c in range(c0, c1):
        cell_nu[c] = 0.0
    for i in range(n):
        k = mat[i]
        cell_nu[cell_of[i]] += mass_table[k] * nu_table[k]
    for c in range(c0, c1):
        m = cell_m[c]
        if m > 0.0:
            cell_nu[c] /= m


@njit(cache=True, inline="always")
def _face_kappa(mc, md, nuc, nud, scale):
    """``kappa = min(scale nu_f, 1)`` of a face, ``nu_f`` the harmonic mean of the two cells'
    ``nu`` (0 if a side is empty or inviscid)."""
    if md <= 0.0 or nud <= 0.0:
        return 0.0
    nu_f = nuc if nuc == nud else 2.0 * nuc * nud / (nuc + nud)
    return min(scale * nu_f, 1.0)


@njit(cache=True)
def _row_span(cell_m, base, ncx):
    """First and one past the last occupied column of the row starting at cell ``base``
    ((0, 0) if none)."""
    first = ncx
    last = -1
    for cx in range(ncx):
        if cell_m[base + np.uint64(cx)] > 0.0:
            first = min(first, cx)
            last = cx
    return min(first, last + 1), last + 1


@njit(cache=True)
def _faces(r0, r1, ncx, uniform, nu0, scale, cells):
    """Per row of r0..r1: ``span[r]``, its first and one past its last occupied column (the
    sweeps skip the rest); the mean velocities of that span copied into ``cell_u``; and the
    shares of the faces to the right (``face_x[c]``) and above (``face_y[c]``) of its cells:
    ``(kappa M_d, kappa M_c) / (M_c + M_d)``, the fractions of the velocity difference that one
    relaxation moves c and d by, ``kappa = min(scale nu_f, 1)``. With ``uniform`` every occupied
    cell has ``nu0`` (one ``kappa``, ``cell_nu`` not read)."""
    _faces_rows(r0, r1, r1, ncx, uniform, nu0, scale, cells)


@njit(cache=True)
def _faces_rows(ra, rb, r1, ncx, uniform, nu0, scale, cells):
    """:func:`_faces` for the rows ``ra..rb`` of ``r0..r1`` (rows are independent)."""
    cell_m, cell_u0, cell_nu, cell_u, face_x, face_y, span = cells
    one = np.uint64(1)
    up_step = np.uint64(ncx)
    kappa0 = min(scale * nu0, 1.0)
    for r in range(ra, rb):
        base = np.uint64(r * ncx)  # unsigned: no negative-index wrap-around on every access
        first, end = _row_span(cell_m, base, ncx)
        span[r, 0] = first
        span[r, 1] = end
        up = r + 1 < r1
        for cx in range(first, end):
            c = base + np.uint64(cx)
            cell_u[c, 0] = cell_u0[c, 0]
            cell_u[c, 1] = cell_u0[c, 1]
            mc = cell_m[c]
            kx = 0.0
            ky = 0.0
            mx = 0.0
            my = 0.0
            if mc > 0.0:
                mx = cell_m[c + one] if cx + 1 < ncx else 0.0
                my = cell_m[c + up_step] if up else 0.0
                if uniform:
                    kx = kappa0 if mx > 0.0 else 0.0
                    ky = kappa0 if my > 0.0 else 0.0
                else:
                    nuc = cell_nu[c]
                    if nuc > 0.0:
                        kx = _face_kappa(mc, mx, nuc, cell_nu[c + one] if mx > 0.0 else 0.0,
                                         scale)
                        ky = _face_kappa(mc, my, nuc, cell_nu[c + up_step] if my > 0.0
                                         else 0.0, scale)
            if kx > 0.0:
                k = kx / (mc + mx)
                face_x[c, 0] = k * mx
                face_x[c, 1] = k * mc
            else:
                face_x[c, 0] = 0.0
            if ky > 0.0:
                k = ky / (mc + my)
                face_y[c, 0] = k * my
                face_y[c, 1] = k * mc
            else:
                face_y[c, 0] = 0.0


@njit(cache=True, inline="always")
def _relax(c, d, share, cell_u):
    """Equal and opposite impulse on cells c, d (``share`` from :func:`_faces`)."""
    a = share[c, 0]
    if a == 0.0:
        return
    b = share[c, 1]
    wx = cell_u[d, 0] - cell_u[c, 0]
    wy = cell_u[d, 1] - cell_u[c, 1]
    cell_u[c, 0] += a * wx
    cell_u[c, 1] += a * wy
    cell_u[d, 0] -= b * wx
    cell_u[d, 1] -= b * wy


@njit(cache=True)
def _sweep(r0, r1, ncx, face_x, face_y, cell_u, span):
    """One sweep over rows r0..r1: even then odd x faces, even then odd y faces (a face's colour
    is its column's or row's parity), each row within its occupied ``span``."""
    for parity in range(2):
        _x_faces(r0, r1, parity, ncx, face_x, cell_u, span)
    for parity in range(2):
        for r in range(r0 + parity, r1 - 1, 2):
            _y_faces(r, ncx, face_y, cell_u, span)


@njit(cache=True, parallel=True)
def _sweep_parallel(r0, r1, ncx, face_x, face_y, cell_u, span):
    """:func:`_sweep` with the rows of each colour in parallel: the faces of a colour share no
    cell, so every cell gets the same updates in the same order (bit-identical)."""
    for parity in range(2):
        for r in prange(r0, r1):
            _x_faces(r, r + 1, parity, ncx, face_x, cell_u, span)
    for parity in range(2):
        for k in prange((r1 - 1 - r0 - parity + 1) // 2):
            _y_faces(r0 + parity + 2 * k, ncx, face_y, cell_u, span)


@njit(cache=True)
def _x_faces(ra, rb, parity, ncx, face_x, cell_u, span):
    """The x faces of colour ``parity`` in rows ``ra..rb``."""
    one = np.uint64(1)
    for r in range(ra, rb):
        base = np.uint64(r * ncx)
        a = span[r, 0]
        for cx in range(a + (a + parity) % 2, span[r, 1] - 1, 2):
            c = base + np.uint64(cx)
            _relax(c, c + one, face_x, cell_u)


@njit(cache=True)
def _y_faces(r, ncx, face_y, cell_u, span):
    """The y faces between rows ``r`` and ``r + 1``."""
    up = np.uint64(ncx)
    base = np.uint64(r * ncx)
    for cx in range(max(span[r, 0], span[r + 1, 0]), min(span[r, 1], span[r + 1, 1])):
        c = base + np.uint64(cx)
        _relax(c, c + up, face_y, cell_u)


@njit(cache=True)
def _apply(i0, i1, vel, cell_of, cell_u, cell_u0):
    """Each particle of ``i0..i1`` gets its cell's velocity change."""
    for i in range(np.uint64(i0), np.uint64(i1)):
        c = np.uint64(cell_of[i])
        vel[i, 0] += cell_u[c, 0] - cell_u0[c, 0]
        vel[i, 1] += cell_u[c, 1] - cell_u0[c, 1]


@njit(cache=True)
def _relax_cells(r0, r1, ncx, h, inv, max_sweeps, uniform, top, cells):
    """Copy the mean velocities of rows r0..r1 into ``cell_u`` and relax them; returns the
    sweeps."""
    _, _, _, cell_u, face_x, face_y, span = cells
    sweeps = _sweep_count(h, inv, max_sweeps, top)
    _faces(r0, r1, ncx, uniform, top, 2.0 * h * inv * inv / sweeps, cells)
    for _ in range(sweeps):
        _sweep(r0, r1, ncx, face_x, face_y, cell_u, span)
    return sweeps


@njit(cache=True, parallel=True)
def _relax_cells_parallel(r0, r1, ncx, h, inv, max_sweeps, uniform, top, cells):
    """:func:`_relax_cells` with the rows in parallel; bit-identical."""
    _, _, _, cell_u, face_x, face_y, span = cells
    sweeps = _sweep_count(h, inv, max_sweeps, top)
    scale = 2.0 * h * inv * inv / sweeps
    for r in prange(r0, r1):
        _faces_rows(r, r + 1, r1, ncx, uniform, top, scale, cells)
    for _ in range(sweeps):
        _sweep_parallel(r0, r1, ncx, face_x, face_y, cell_u, span)
    return sweeps


@njit(cache=True)
def _sweep_count(h, inv, max_sweeps, top):
    """Sweeps for the stiffest face over the whole substep (harmonic means never exceed the top
    nu): enough that ``x <= X_MAX``, at most ``max_sweeps``."""
    x_top = 2.0 * h * inv * inv * top
    return min(max(int(math.ceil(x_top / X_MAX)), 1), max_sweeps)


@njit(cache=True)
def diffuse_cell_velocities(fluid, tables, grid, h, max_sweeps, means, cell_of, scratch):
    """Momentum diffusion with each material's kinematic viscosity ``nu``, in place.

    Args:
        fluid: ``(pos, vel, mat, n)``, particle arrays and count.
        tables: ``(mass_table, nu_table, group_table)``, per-material particle mass, kinematic
            viscosity and miscibility group (uint8).
        grid: ``(a0, shift_x, shift_y, ncx, ncy)``: cell size; grid translation in ``[0, a0)``
            (the SRD collision's); shifted-grid size (one more than the domain's cells in each
            direction).
        h: substep length; max_sweeps: cap on relaxation sweeps (>= 1).
        means: ``(cell_m, cell_u0)``, inputs, each cell's mass and mean velocity on that grid
            (``ncx*ncy`` and ``(ncx*ncy, 2)``) for the rows between the lowest and the highest
            particle: what ``collision.srd_collide`` leaves in its ``cell_m`` and ``cell_p``
            (the rotation keeps every cell's mean velocity); :func:`cell_means` computes them
            otherwise. Read only when all particles share one miscibility group (else the
            collision's sums are per group and the kernel sums the cells itself into
            ``own_m``, ``own_u0``).
        cell_of: int64 scratch (>= n).
        scratch: ``(cell_nu, cell_u, face_x, face_y, span, own_m, own_u0)``
            (:func:`cell_buffers`): cell_nu, own_m: ``ncx*ncy``; cell_u, face_x, face_y,
            own_u0: (``ncx*ncy``, 2); span: int64 (``ncy``, 2).

    Returns:
        The number of sweeps run (0 when no particle is viscous: nothing is touched).
    """
    pos, vel, mat, n = fluid
    mass_table, nu_table, group_table = tables
    a0, shift_x, shift_y, ncx, ncy = grid
    cell_m, cell_u0 = means
    cell_nu, cell_u, face_x, face_y, span, own_m, own_u0 = scratch
    if n == 0 or not _any_viscous(mat, n, nu_table):
        return 0
    inv = 1.0 / a0
    uniform, top, group, lo, hi = _cells(pos, mat, 0, n, nu_table, group_table, inv, shift_x,
                                         shift_y, ncx, ncy, cell_of)
    # the rows from the lowest to the highest particle: those the collision summed
    r0 = lo // ncx
    r1 = hi // ncx + 1
    if group < 0:  # the collision summed each miscibility group apart: sum all particles
        cell_m = own_m
        cell_u0 = own_u0
        _deposit(vel, mat, n, mass_table, cell_of, r0 * ncx, r1 * ncx, cell_m, cell_u0)
    if not uniform:
        _cell_nu(mat, n, mass_table, nu_table, cell_of, r0 * ncx, r1 * ncx, cell_m, cell_nu)
    cells = (cell_m, cell_u0, cell_nu, cell_u, face_x, face_y, span)
    sweeps = _relax_cells(r0, r1, ncx, h, inv, max_sweeps, uniform, top, cells)
    _apply(0, n, vel, cell_of, cell_u, cell_u0)
    return sweeps


@njit(cache=True, parallel=True)
def diffuse_cell_velocities_parallel(fluid, tables, grid, h, max_sweeps, means, cell_of,
                                     scratch):
    """:func:`diffuse_cell_velocities` with the per-particle loops over chunks in parallel;
    bit-identical (the sums into cells stay serial; the sweeps run the rows of each face colour
    in parallel)."""
    pos, vel, mat, n = fluid
    mass_table, nu_table, group_table = tables
    a0, shift_x, shift_y, ncx, ncy = grid
    cell_m, cell_u0 = means
    cell_nu, cell_u, face_x, face_y, span, own_m, own_u0 = scratch
    if n == 0 or not _any_viscous(mat, n, nu_table):
        return 0
    inv = 1.0 / a0
    chunk = 8192
    nchunk = (n + chunk - 1) // chunk
    los = np.empty(nchunk, np.int64)
    his = np.empty(nchunk, np.int64)
    same = np.empty(nchunk, np.bool_)
    tops = np.empty(nchunk)
    groups = np.empty(nchunk, np.int64)
    for t in prange(nchunk):
        i0 = t * chunk
        i1 = min(n, i0 + chunk)
        same[t], tops[t], groups[t], los[t], his[t] = _cells(
            pos, mat, i0, i1, nu_table, group_table, inv, shift_x, shift_y, ncx, ncy, cell_of)
    uniform = True
    top = tops[0]
    one_group = True
    for t in range(nchunk):
        uniform = uniform and same[t] and tops[t] == tops[0]
        top = max(top, tops[t])
        one_group = one_group and groups[t] >= 0 and groups[t] == groups[0]
    r0 = los.min() // ncx
    r1 = his.max() // ncx + 1
    if not one_group:  # the collision summed each miscibility group apart: sum all particles
        cell_m = own_m
        cell_u0 = own_u0
        _deposit(vel, mat, n, mass_table, cell_of, r0 * ncx, r1 * ncx, cell_m, cell_u0)
    if not uniform:
        _cell_nu(mat, n, mass_table, nu_table, cell_of, r0 * ncx, r1 * ncx, cell_m, cell_nu)
    cells = (cell_m, cell_u0, cell_nu, cell_u, face_x, face_y, span)
    sweeps = _relax_cells_parallel(r0, r1, ncx, h, inv, max_sweeps, uniform, top, cells)
    for t in prange(nchunk):
        _apply(t * chunk, min(n, (t + 1) * chunk), vel, cell_of, cell_u, cell_u0)
    return sweeps


@njit(cache=True)
def cell_means(pos, vel, mat, n, mass_table, a0, shift_x, shift_y, ncx, ncy, cell_m, cell_u0):
    """Each cell's mass and mean velocity on the shifted grid (what the SRD collision leaves):
    for callers of :func:`diffuse_cell_velocities` that did not just run it."""
    inv = 1.0 / a0
    cell_m[:] = 0.0
    cell_u0[:] = 0.0
    for i in range(n):
        c = _srd_cell(pos[i, 0], pos[i, 1], inv, shift_x, shift_y, ncx, ncy)
        m = mass_table[mat[i]]
        cell_m[c] += m
        cell_u0[c, 0] += m * vel[i, 0]
        cell_u0[c, 1] += m * vel[i, 1]
    for c in range(len(cell_m)):
        if cell_m[c] > 0.0:
            cell_u0[c, 0] /= cell_m[c]
            cell_u0[c, 1] /= cell_m[c]


def cell_buffers(ncx: int, ncy: int) -> tuple[np.ndarray, ...]:
    """Scratch for :func:`diffuse_cell_velocities` on an ``ncx`` x ``ncy`` grid (its ``scratch``
    group): ``(cell_nu, cell_u, face_x, face_y, span, own_m, own_u0)``."""
    ncell = ncx * ncy
    return (np.zeros(ncell), np.zeros((ncell, 2)), np.zeros((ncell, 2)), np.zeros((ncell, 2)),
            np.zeros((ncy, 2), np.int64), np.zeros(ncell), np.zeros((ncell, 2)))
