"""Stage ``srd_collision``: the Stochastic Rotation Dynamics collision, paper Eq. 3.

Particles are grouped in square cells of size ``a0`` on a grid translated by a random vector each
step (Ihle & Kroll's Galilean-invariance fix; one extra row and column of cells catch the shift).
In each cell the particles' velocities relative to the cell's centre-of-mass velocity ``u`` are
rotated by the same angle ``+-alpha`` (random sign per cell)::

    v_i <- u + (1 - nu) R(+-alpha) (v_i - u)                            (Eq. 3, nu = 0 in the paper)

Because every relative velocity in a cell turns by the same rotation, the cell's momentum is
unchanged and, with ``nu = 0``, so is its kinetic energy, exactly (tests check both to 1e-9).
``alpha`` and ``nu`` are the mass-weighted means of the cell's materials: ``nu > 0`` damps the
relative velocities (the viscosity knob the paper leaves to future work) and still conserves
momentum.

Immiscible materials (different ``Material.mix_group``) do not collide with each other: where
particles of several groups are present, each group is collided on its own (its own centre-of-mass
velocity per cell), so momentum and energy are conserved per group and cell. Oil does not get
water's velocity through the collision; the two meet through the cell pressure and the contacts.

The kernels take grouped arguments (tuples, unpacked on their first lines; :mod:`.viscosity`
takes the same ``fluid`` and ``grid``):

* ``fluid = (pos, vel, mat, n)``: the particles and their count;
* ``tables = (mass_table, alpha_table, visc_table)``: per-material mass, rotation angle and
  damping ``nu``;
* ``grid = (a0, shift_x, shift_y, ncx, ncy)``: the shifted grid (cell size, translation in
  ``[0, a0)``, and its size: one more cell than the domain's in each direction);
* ``cells = (signs, cell_m, cell_p, cell_a, cell_nu, cell_cs)``: per-cell rotation sign and
  scratch (see :func:`srd_collide`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .bands import BANDS, CHUNK, _chunk_range, band_bounds
from .scan import any_other

__all__ = ["srd_collide", "srd_collide_parallel", "random_signs"]


@njit(cache=True)
def random_signs(seed, signs, c0=0, c1=-1):
    """Fill ``signs[c0:c1]`` (int8; all of it by default) with +1/-1 from ``seed``: bit 63 of
    SplitMix64 of ``seed + k`` for cell k (Steele et al. 2014), so one random draw per substep
    decides every cell's rotation direction without a numpy call per cell. A cell's sign does not
    depend on the range filled."""
    if c1 < 0:
        c1 = len(signs)
    for k in range(c0, c1):
        z = np.uint64(seed) + np.uint64(k) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        signs[k] = 1 if (z >> np.uint64(63)) == np.uint64(0) else -1


# the kernels below call it under a private name, so that tools which wrap the public kernels
# (benchmarks/kernel_profile.py) do not hand them a Python function to compile against
_fill_signs = random_signs


@njit(cache=True)
def _others(tables, k0):
    """Per material, whether it differs from material ``k0`` in alpha, nu or group (``tables =
    (alpha_table, visc_table, group_table)``)."""
    alpha_table, visc_table, group_table = tables
    return ((alpha_table != alpha_table[k0]) | (visc_table != visc_table[k0])
            | (group_table != group_table[k0]))


@njit(cache=True)
def _uniform(alpha_table, visc_table, group_table, mat, n):
    """Whether the materials present among the ``n`` particles share alpha, nu and miscibility
    group (the usual case: one cos/sin per step), and the first particle's material (0 if
    none)."""
    if n == 0:
        return True, 0
    k0 = mat[0]
    return not any_other(mat, 1, n, k0, _others((alpha_table, visc_table, group_table), k0)), k0


@njit(cache=True)
def _groups_present(group_table, mat, n, present):
    """Mark in ``present`` (bool, 256) the miscibility groups of the ``n`` particles; returns
    how many there are."""
    present[:] = False
    k = 0
    for i in range(n):
        g = group_table[mat[i]]
        if not present[g]:
            present[g] = True
            k += 1
    return k


@njit(cache=True, inline="always")
def _srd_cell(x, y, inv, shift_x, shift_y, ncx, ncy):
    """The shifted-grid cell of a point, as an unsigned index (numba then skips the
    negative-index wrap-around on every access with it)."""
    cx = min(max(int((x + shift_x) * inv), 0), ncx - 1)
    cy = min(max(int((y + shift_y) * inv), 0), ncy - 1)
    return np.uint64(cy * ncx + cx)


@njit(cache=True)
def _y_range(pos, i0, i1):
    lo = np.inf
    hi = -np.inf
    for i in range(np.uint64(i0), np.uint64(i1)):
        y = pos[i, 1]
        lo = min(lo, y)
        hi = max(hi, y)
    return lo, hi


@njit(cache=True)
def _cell_span(lo, hi, inv, shift_y, ncx, ncy):
    """Cells ``c0..c1`` of the rows holding particles with ``lo <= y <= hi`` (the row of a
    particle is a monotonic function of its y)."""
    if lo > hi:  # no particle
        return 0, 0
    r0 = min(max(int((lo + shift_y) * inv), 0), ncy - 1)
    r1 = min(max(int((hi + shift_y) * inv), 0), ncy - 1)
    return r0 * ncx, (r1 + 1) * ncx


@njit(cache=True)
def _zero_cells(c0, c1, uniform, cell_m, cell_p, cell_a, cell_nu):
    for c in range(c0, c1):
        cell_m[c] = 0.0
        cell_p[c, 0] = 0.0
        cell_p[c, 1] = 0.0
        if not uniform:
            cell_a[c] = 0.0
            cell_nu[c] = 0.0


@njit(cache=True)
def _accumulate(fluid, tables, grid, cells, group_table, g):
    """Mass, momentum, and mass-weighted alpha and nu of every cell (mixed materials); only the
    particles of miscibility group ``g`` (all if ``g < 0``)."""
    pos, vel, mat, n = fluid
    mass_table, alpha_table, visc_table = tables
    a0, shift_x, shift_y, ncx, ncy = grid
    _, cell_m, cell_p, cell_a, cell_nu, _ = cells
    inv = 1.0 / a0
    for i in range(n):
        k = mat[i]
        if g >= 0 and group_table[k] != g:
            continue
        c = _srd_cell(pos[i, 0], pos[i, 1], inv, shift_x, shift_y, ncx, ncy)
        m = mass_table[k]
        cell_m[c] += m
        cell_p[c, 0] += m * vel[i, 0]
        cell_p[c, 1] += m * vel[i, 1]
        cell_a[c] += m * alpha_table[k]
        cell_nu[c] += m * visc_table[k]


@njit(cache=True)
def _finish_cells(c0, c1, signs, cell_m, cell_p, cell_a, cell_nu, cell_cs):
    """Mean velocity, rotation cos/sin and kept fraction ``1 - nu`` of cells ``c0..c1``."""
    for c in range(c0, c1):
        m = cell_m[c]
        if m > 0.0:
            cell_p[c, 0] /= m
            cell_p[c, 1] /= m
            a = signs[c] * cell_a[c] / m
            cell_cs[c, 0] = math.cos(a)
            cell_cs[c, 1] = math.sin(a)
            cell_nu[c] = 1.0 - cell_nu[c] / m


@njit(cache=True)
def _accumulate_uniform(fluid, tables, grid, cells, cell_of):
    """:func:`_accumulate` when all materials share alpha and nu; remembers each cell."""
    pos, vel, mat, n = fluid
    mass_table, _, _ = tables
    a0, shift_x, shift_y, ncx, ncy = grid
    _, cell_m, cell_p, _, _, _ = cells
    inv = 1.0 / a0
    for i in range(n):
        c = _srd_cell(pos[i, 0], pos[i, 1], inv, shift_x, shift_y, ncx, ncy)
        cell_of[i] = c
        m = mass_table[mat[i]]
        cell_m[c] += m
        cell_p[c, 0] += m * vel[i, 0]
        cell_p[c, 1] += m * vel[i, 1]


@njit(cache=True)
def _srd_cells_of(i0, i1, pos, grid, cell_of):
    a0, shift_x, shift_y, ncx, ncy = grid
    inv = 1.0 / a0
    for i in range(i0, i1):
        cell_of[i] = _srd_cell(pos[i, 0], pos[i, 1], inv, shift_x, shift_y, ncx, ncy)


@njit(cache=True)
def _accumulate_band(c0, c1, chunks, fluid, mass_table, cell_of, cell_m, cell_p):
    """The sums of :func:`_accumulate_uniform` for the cells ``c0:c1`` only, in particle order
    (a band of :mod:`.bands`)."""
    cmin, cmax = chunks
    _, vel, mat, n = fluid
    for t in range(len(cmin)):
        if cmax[t] < c0 or cmin[t] >= c1:
            continue
        for i in range(t * CHUNK, min(n, (t + 1) * CHUNK)):
            c = cell_of[i]
            if c < c0 or c >= c1:
                continue
            m = mass_table[mat[i]]
            cell_m[c] += m
            cell_p[c, 0] += m * vel[i, 0]
            cell_p[c, 1] += m * vel[i, 1]


@njit(cache=True)
def _mean_velocity(c0, c1, cell_m, cell_p):
    for c in range(c0, c1):
        m = cell_m[c]
        if m > 0.0:
            cell_p[c, 0] /= m
            cell_p[c, 1] /= m


@njit(cache=True)
def _rotate_uniform(i0, i1, vel, cell_of, cell_p, signs, ca, sa, keep):
    """Eq. 3 for particles ``i0..i1`` when every cell turns by the same ``+-alpha``."""
    for i in range(np.uint64(i0), np.uint64(i1)):
        c = np.uint64(cell_of[i])
        ux = cell_p[c, 0]
        uy = cell_p[c, 1]
        s = sa if signs[c] > 0 else -sa
        wx = vel[i, 0] - ux
        wy = vel[i, 1] - uy
        vel[i, 0] = ux + keep * (ca * wx - s * wy)
        vel[i, 1] = uy + keep * (s * wx + ca * wy)


@njit(cache=True)
def _rotate(i0, i1, fluid, grid, cells, group_table, g):
    """Eq. 3 for particles ``i0..i1`` (those of miscibility group ``g``; all if ``g < 0``)."""
    pos, vel, mat, _ = fluid
    a0, shift_x, shift_y, ncx, ncy = grid
    _, _, cell_p, _, cell_nu, cell_cs = cells
    inv = 1.0 / a0
    for i in range(np.uint64(i0), np.uint64(i1)):
        if g >= 0 and group_table[mat[i]] != g:
            continue
        c = _srd_cell(pos[i, 0], pos[i, 1], inv, shift_x, shift_y, ncx, ncy)
        ux = cell_p[c, 0]
        uy = cell_p[c, 1]
        ca = cell_cs[c, 0]
        sa = cell_cs[c, 1]
        keep = cell_nu[c]
        wx = vel[i, 0] - ux
        wy = vel[i, 1] - uy
        vel[i, 0] = ux + keep * (ca * wx - sa * wy)
        vel[i, 1] = uy + keep * (sa * wx + ca * wy)


@njit(cache=True)
def srd_collide(fluid, tables, grid, cells, seed=-1, cell_of=None, group_table=None,
                present=None):
    """Rotate relative velocities in every SRD cell (Eq. 3), in place.

    Args:
        fluid: ``(pos, vel, mat, n)``, particle arrays and count.
        tables: ``(mass_table, alpha_table, visc_table)``, per-material mass, rotation angle,
            damping.
        grid: ``(a0, shift_x, shift_y, ncx, ncy)``: cell size; grid translation in ``[0, a0)``;
            shifted-grid size (one more than the domain's cells in each direction).
        cells: ``(signs, cell_m, cell_p, cell_a, cell_nu, cell_cs)``: per-cell rotation sign
            (+1/-1), int8, length ``ncx*ncy``; cell_m, cell_a, cell_nu: scratch (``ncx*ncy``);
            cell_p, cell_cs: scratch (``ncx*ncy``, 2).
        seed: if ``>= 0``, the signs of the cells in use are first drawn from it
            (:func:`random_signs`); ``-1`` uses ``signs`` as given.
        cell_of: optional int64 scratch (``n``) for each particle's cell (else allocated).
        group_table: per-material miscibility group (uint8; default: all one group). Where
            several groups are present each is collided on its own.
        present: optional bool scratch (256) for the groups present (else allocated).

    Only the rows from the lowest to the highest particle are visited; the scratch of the other
    cells is left as it was.
    """
    pos, vel, mat, n = fluid
    _, alpha_table, visc_table = tables
    a0, _, shift_y, ncx, ncy = grid
    signs, cell_m, cell_p, cell_a, cell_nu, cell_cs = cells
    inv = 1.0 / a0
    lo, hi = _y_range(pos, 0, n)
    c0, c1 = _cell_span(lo, hi, inv, shift_y, ncx, ncy)
    if seed >= 0:
        _fill_signs(seed, signs, c0, c1)
    if group_table is None:
        group_table = np.zeros(len(alpha_table), np.uint8)
    uniform, k0 = _uniform(alpha_table, visc_table, group_table, mat, n)
    _zero_cells(c0, c1, uniform, cell_m, cell_p, cell_a, cell_nu)
    if uniform:  # one angle and one damping for all: no per-cell cos/sin, the cells remembered
        if cell_of is None:
            cell_of = np.empty(n, np.int64)
        _accumulate_uniform(fluid, tables, grid, cells, cell_of)
        _mean_velocity(c0, c1, cell_m, cell_p)
        _rotate_uniform(0, n, vel, cell_of, cell_p, signs, math.cos(alpha_table[k0]),
                        math.sin(alpha_table[k0]), 1.0 - visc_table[k0])
        return
    if present is None:
        present = np.zeros(256, np.bool_)
    several = _groups_present(group_table, mat, n, present) > 1
    for g in range(256 if several else 1):
        if several and not present[g]:
            continue
        gg = g if several else -1
        if several:
            _zero_cells(c0, c1, False, cell_m, cell_p, cell_a, cell_nu)
        _accumulate(fluid, tables, grid, cells, group_table, gg)
        _finish_cells(c0, c1, signs, cell_m, cell_p, cell_a, cell_nu, cell_cs)
        _rotate(0, n, fluid, grid, cells, group_table, gg)


@njit(cache=True, parallel=True)
def srd_collide_parallel(fluid, tables, grid, cells, seed=-1, cell_of=None, group_table=None,
                         present=None):
    """:func:`srd_collide` with the cell and rotation loops in parallel; bit-identical results
    (the sums into cells stay serial, in particle order)."""
    pos, vel, mat, n = fluid
    _, alpha_table, visc_table = tables
    ncx = grid[3]
    signs, cell_m, cell_p, cell_a, cell_nu, cell_cs = cells
    if group_table is None:
        group_table = np.zeros(len(alpha_table), np.uint8)
    if cell_of is None:
        cell_of = np.empty(n, np.int64)
    # one pass over the particles: their cells, each chunk's lowest and highest cell (for the
    # bands, and the rows in use) and whether all share the first one's material
    nchunk = (n + CHUNK - 1) // CHUNK
    cmin = np.empty(max(nchunk, 1), np.int64)
    cmax = np.empty(max(nchunk, 1), np.int64)
    same = np.ones(max(nchunk, 1), np.bool_)
    k0 = mat[0] if n > 0 else 0
    other = _others((alpha_table, visc_table, group_table), k0)
    for t in prange(nchunk):
        i0 = t * CHUNK
        i1 = min(n, i0 + CHUNK)
        _srd_cells_of(i0, i1, pos, grid, cell_of)
        cmin[t], cmax[t] = _chunk_range(i0, i1, cell_of)
        same[t] = not any_other(mat, i0, i1, k0, other)
    uniform = same.all()
    c0 = (cmin.min() // ncx) * ncx if n > 0 else 0  # the rows in use
    c1 = (cmax.max() // ncx + 1) * ncx if n > 0 else 0
    chunk = 8192
    ncc = (c1 - c0 + chunk - 1) // chunk
    for t in prange(ncc):
        if seed >= 0:
            _fill_signs(seed, signs, c0 + t * chunk, min(c1, c0 + (t + 1) * chunk))
        _zero_cells(c0 + t * chunk, min(c1, c0 + (t + 1) * chunk), uniform, cell_m, cell_p,
                    cell_a, cell_nu)
    if uniform:
        if n > 0:
            bounds = band_bounds(cell_of, n, cmin.min(), cmax.max(), BANDS)
            for k in prange(BANDS):  # a band owns its cells: it takes their means too
                _accumulate_band(bounds[k], bounds[k + 1], (cmin, cmax), fluid, tables[0],
                                 cell_of, cell_m, cell_p)
                _mean_velocity(bounds[k], bounds[k + 1], cell_m, cell_p)
        ca = math.cos(alpha_table[k0])
        sa = math.sin(alpha_table[k0])
        keep = 1.0 - visc_table[k0]
        for t in prange((n + chunk - 1) // chunk):
            _rotate_uniform(t * chunk, min(n, (t + 1) * chunk), vel, cell_of, cell_p, signs, ca, sa,
                            keep)
        return
    nchunk = (n + chunk - 1) // chunk
    if present is None:
        present = np.zeros(256, np.bool_)
    several = _groups_present(group_table, mat, n, present) > 1
    for g in range(256 if several else 1):
        if several and not present[g]:
            continue
        gg = g if several else -1
        if several:
            for t in prange(ncc):
                _zero_cells(c0 + t * chunk, min(c1, c0 + (t + 1) * chunk), False, cell_m, cell_p,
                            cell_a, cell_nu)
        _accumulate(fluid, tables, grid, cells, group_table, gg)
        for t in prange(ncc):
            _finish_cells(c0 + t * chunk, min(c1, c0 + (t + 1) * chunk), signs, cell_m, cell_p,
                          cell_a, cell_nu, cell_cs)
        for t in prange(nchunk):
            _rotate(t * chunk, min(n, (t + 1) * chunk), fluid, grid, cells, group_table, gg)
