"""Stage ``cell_pressure``, variable density: the converged projection for fluids of several
densities (oil over water, honey under it).

The pressure correction acts per unit mass: a particle of material density ``rho_i`` (relative
to water) gets ``v_i -= grad[cell] / rho_i``, where ``grad`` (``FluidSystem.cell_grad``) is the
correction of a particle of density 1, ``h grad p`` per unit reference density. The cell pressure
solves the matching variable-coefficient problem ``div(beta grad phi) = div u*`` with ``beta`` the
specific volume ``1 / rho``:

* ``beta`` of a cell is the mean of ``1 / rho_i`` over its fluid particles and its solid cover,
  the cover counting as density 1 (the coupling pushes a body's cover with ``-A grad``, mass per
  area 1; it stands for the water a body displaces). It is exactly the factor by which the
  cell's mean velocity (``deposit_cells``: particles and cover, by count) changes per unit of
  ``grad``.
* A face between two non-empty cells has ``beta_f`` = the mean of the two cells' ``beta`` (the
  harmonic mean of the densities); a face towards air has the cell's own ``beta`` (phi = 0 in
  the air); a wall face (the domain's border, a wall cell of :mod:`.pressure_walls`) has 0
  (no flux: Neumann). The 5-point equation of a cell is
  ``sum_f beta_f (phi_nb - phi) = a0^2 div u*``, solved by the same warm-started red-black SOR
  as the single-density solver (:mod:`.pressure_converged`).
* The cell's velocity change is the mean of its faces' velocity changes ``beta_f dphi / a0``
  (walls left out), and ``grad`` = that / ``beta`` of the cell. A stratified column at rest is
  then exactly hydrostatic even where the density jumps: both faces of every cell carry the
  same flux, and ``grad`` = ``rho g h`` in every layer.

The density correction stays volumetric (a position shift, the same for every particle, from the
constant-coefficient solve of :mod:`.pressure_converged`): incompressibility is per particle
volume.
With one density present ``FluidSystem`` runs the single-density kernels, bit-identical to
before.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .pressure import EMPTY_COUNT, _all_rows, is_wall
from .pressure_converged import _rows_around, _zero_air
from .scan import any_other

__all__ = [
    "mixed_densities",
    "mixed_densities_parallel",
    "cell_specific_volume",
    "face_coefficients",
    "solve_padded_var",
    "solve_padded_var_parallel",
    "converged_correction_var",
    "apply_cell_correction_var",
    "apply_cell_correction_var_parallel",
]


@njit(cache=True)
def mixed_densities(mat, n, inv_rho):
    """Whether the first ``n`` particles' materials have more than one density."""
    if n == 0:
        return False
    return any_other(mat, 1, n, mat[0], inv_rho != inv_rho[mat[0]])


@njit(cache=True, parallel=True)
def mixed_densities_parallel(mat, n, inv_rho):
    """:func:`mixed_densities` over chunks in parallel (the same answer)."""
    if n == 0:
        return False
    chunk = 16384
    nchunk = (n + chunk - 1) // chunk
    found = np.zeros(nchunk, np.bool_)
    other = inv_rho != inv_rho[mat[0]]
    for t in prange(nchunk):
        found[t] = any_other(mat, t * chunk, min(n, (t + 1) * chunk), mat[0], other)
    return found.any()


@njit(cache=True)
def cell_specific_volume(mat, n, cell_of, inv_rho, cnt, solid_frac, gamma, beta, rows):
    """``beta`` (ny, nx): mean ``1 / rho`` of each cell's fluid particles and solid cover (the
    cover at density 1), in the ``rows`` given (:func:`pressure.active_rows`); 1 in air cells.
    ``cell_of`` is each particle's cell from ``deposit_cells``."""
    nx = cnt.shape[1]
    for j in rows:
        for i in range(nx):
            beta[j, i] = solid_frac[j, i] * gamma
    flat = beta.reshape(-1)
    for p in range(np.uint64(0), np.uint64(n)):
        flat[np.uint64(cell_of[p])] += inv_rho[mat[p]]
    for j in rows:
        for i in range(nx):
            c = cnt[j, i]
            beta[j, i] = beta[j, i] / c if c >= EMPTY_COUNT else 1.0


@njit(cache=True, inline="always")
def _face(cnt, wall, beta, ja, ia, jb, ib):
    """Coefficient of the face between in-domain cells a and b: the mean ``beta`` of two
    non-empty cells, the non-empty one's towards air, 0 between two air cells and beside a
    wall cell."""
    if is_wall(wall, ja, ia) or is_wall(wall, jb, ib):
        return 0.0
    fa = cnt[ja, ia] >= EMPTY_COUNT
    fb = cnt[jb, ib] >= EMPTY_COUNT
    if fa and fb:
        return 0.5 * (beta[ja, ia] + beta[jb, ib])
    if fa:
        return beta[ja, ia]
    if fb:
        return beta[jb, ib]
    return 0.0


@njit(cache=True)
def face_coefficients(cnt, wall, beta, cx, cy, invd, rows):
    """Face coefficients of the variable-density operator in the ``rows`` given.

    ``cx`` (ny, nx + 1): face between cells (j, i - 1) and (j, i); ``cy`` (ny + 1, nx): face
    between (j - 1, i) and (j, i); wall faces 0. ``invd`` (ny, nx): 1 / the sum of a non-empty
    cell's four faces, 0 for air and wall cells (so that a sweep keeps them at phi = 0).
    """
    ny, nx = cnt.shape
    for j in rows:
        cx[j, 0] = 0.0
        cx[j, nx] = 0.0
        for i in range(1, nx):
            cx[j, i] = _face(cnt, wall, beta, j, i - 1, j, i)
        for jj in range(j, j + 2):  # the faces below and above the row
            for i in range(nx):
                if jj == 0 or jj == ny:
                    cy[jj, i] = 0.0
                else:
                    cy[jj, i] = _face(cnt, wall, beta, jj - 1, i, jj, i)
    for j in rows:
        for i in range(nx):
            d = cx[j, i] + cx[j, i + 1] + cy[j, i] + cy[j + 1, i]
            ok = cnt[j, i] >= EMPTY_COUNT and not is_wall(wall, j, i)
            invd[j, i] = 1.0 / d if ok and d > 0.0 else 0.0


@njit(cache=True)
def _sweep_row_var(j, color, phi_pad, rhs, cx, cy, invd, omega, spans):
    """One colour of one row: ``phi += omega * ((sum_f beta_f phi_nb - rhs) * invd - phi)``."""
    lo = spans[j, 0]
    hi = spans[j, 1]
    if hi <= lo:
        return
    up, mid, down = _rows_around(phi_pad, j)
    rr = rhs[j]
    kk = invd[j]
    fx = cx[j]
    fs = cy[j]
    fn = cy[j + 1]
    one = np.uint64(1)  # unsigned i, as in pressure._sweep_row
    two = np.uint64(2)
    for i in range(np.uint64(lo + ((j + color + lo) & 1)), np.uint64(hi), two):
        s = (fx[i + one] * mid[i + two] + fx[i] * mid[i] + fn[i] * up[i + one]
             + fs[i] * down[i + one])
        p = mid[i + one]
        mid[i + one] = p + omega * ((s - rr[i]) * kk[i] - p)


@njit(cache=True)
def solve_padded_var(phi_pad, rhs, cnt, cx, cy, invd, iters, omega, spans, rows):
    """Red-black SOR on the variable-coefficient equation (``pressure_converged.solve_padded``
    with the face coefficients of :func:`face_coefficients`), warm-started from ``phi_pad``."""
    if iters <= 0:
        return
    for j in rows:
        _zero_air(j, cnt, phi_pad)
    for _ in range(iters):
        for color in range(2):
            for j in rows:
                _sweep_row_var(j, color, phi_pad, rhs, cx, cy, invd, omega, spans)


@njit(cache=True, parallel=True)
def solve_padded_var_parallel(phi_pad, rhs, cnt, cx, cy, invd, iters, omega, spans, rows):
    """:func:`solve_padded_var` with the rows of one colour in parallel; bit-identical."""
    if iters <= 0:
        return
    for t in prange(len(rows)):
        _zero_air(rows[t], cnt, phi_pad)
    for _ in range(iters):
        for color in range(2):
            for t in prange(len(rows)):
                _sweep_row_var(rows[t], color, phi_pad, rhs, cx, cy, invd, omega, spans)


@njit(cache=True)
def converged_correction_var(phi, cnt, wall, a0, cx, cy, beta, grad, rows=None):
    """Per-cell ``grad`` = (mean of the face velocity changes ``beta_f dphi / a0``, walls -- the
    border and wall cells -- left out, air phi = 0) / ``beta`` of the cell: the velocity
    correction of a particle of density 1.
    """
    ny, nx = phi.shape
    inv = 1.0 / a0
    for j in _all_rows(ny, rows):
        for i in range(nx):
            if cnt[j, i] < EMPTY_COUNT or is_wall(wall, j, i):
                grad[j, i, 0] = 0.0
                grad[j, i, 1] = 0.0
                continue
            p = phi[j, i]
            gx = 0.0
            kx = 0
            if i + 1 < nx and not is_wall(wall, j, i + 1):
                q = phi[j, i + 1] if cnt[j, i + 1] >= EMPTY_COUNT else 0.0
                gx += cx[j, i + 1] * (q - p) * inv
                kx += 1
            if i > 0 and not is_wall(wall, j, i - 1):
                q = phi[j, i - 1] if cnt[j, i - 1] >= EMPTY_COUNT else 0.0
                gx += cx[j, i] * (p - q) * inv
                kx += 1
            gy = 0.0
            ky = 0
            if j + 1 < ny and not is_wall(wall, j + 1, i):
                q = phi[j + 1, i] if cnt[j + 1, i] >= EMPTY_COUNT else 0.0
                gy += cy[j + 1, i] * (q - p) * inv
                ky += 1
            if j > 0 and not is_wall(wall, j - 1, i):
                q = phi[j - 1, i] if cnt[j - 1, i] >= EMPTY_COUNT else 0.0
                gy += cy[j, i] * (p - q) * inv
                ky += 1
            b = beta[j, i]
            grad[j, i, 0] = gx / (kx * b) if kx > 0 else 0.0
            grad[j, i, 1] = gy / (ky * b) if ky > 0 else 0.0


@njit(cache=True)
def _correct_range_var(i0, i1, vel, mat, cell_of, grad, inv_rho):
    g = grad.reshape(-1, 2)
    for p in range(np.uint64(i0), np.uint64(i1)):
        c = np.uint64(cell_of[p])
        b = inv_rho[mat[p]]
        vel[p, 0] -= g[c, 0] * b
        vel[p, 1] -= g[c, 1] * b


@njit(cache=True)
def apply_cell_correction_var(vel, mat, n, cell_of, grad, inv_rho):
    """Per unit mass: ``v -= grad[cell] / rho`` (``inv_rho`` per material)."""
    _correct_range_var(0, n, vel, mat, cell_of, grad, inv_rho)


@njit(cache=True, parallel=True)
def apply_cell_correction_var_parallel(vel, mat, n, cell_of, grad, inv_rho):
    """:func:`apply_cell_correction_var` over particle chunks in parallel; identical results."""
    chunk = 8192
    for t in prange((n + chunk - 1) // chunk):
        _correct_range_var(t * chunk, min(n, (t + 1) * chunk), vel, mat, cell_of, grad, inv_rho)
