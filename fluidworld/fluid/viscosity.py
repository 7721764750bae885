"""Stage ``viscosity``: a shear viscosity per material, in world units^2 per time unit.

SRD has a viscosity of its own (collisional, ~ ``a0^2 (1 - cos alpha) / (12 h)``: about
1,300 units^2/s for water at the game preset), the same for every material of the same rotation
angle, and it cannot be dialled without changing the time step. This stage adds
``Material.viscosity`` (a kinematic viscosity ``nu``) on top, as momentum diffusion between the
cells of the SRD collision's randomly shifted grid (``a0`` cells, so the grid leaves no imprint):

1. deposit: each cell's mass ``M``, mean velocity ``u`` and mass-weighted ``nu``;
2. faces: between two occupied neighbour cells ``c, d`` a coupling ``K = nu_f rho_f`` (force per
   unit velocity difference: the dynamic viscosity), with ``rho_f = min(M_c, M_d) / a0^2`` (a
   splash cell is not glued to the bulk by a full face) and ``nu_f`` the harmonic mean of the
   two cells' ``nu`` (stresses in series: honey slides over water, the interface takes the
   thinner fluid's viscosity); empty cells and the walls take no stress (free slip);
3. relax: the pair ``c, d`` in isolation obeys ``dw/dt = -K (1/M_c + 1/M_d) w`` for its velocity
   difference ``w``; over ``tau`` its implicit-Euler solution removes the fraction
   ``kappa = x / (1 + x)``, ``x = tau K (1/M_c + 1/M_d)``, of ``w`` by an equal and opposite
   impulse. Faces are relaxed in four colours (even/odd x faces, even/odd y faces): faces of a
   colour share no cell, so the order within a colour does not matter. The substep is split
   into ``s`` sweeps of ``tau = h / s`` with ``s`` chosen so that ``x <= X_MAX``
   (at most ``max_sweeps``): operator splitting stays close to the diffusion equation;
4. apply: every particle gets its cell's velocity change (the sub-cell velocities, which the SRD
   rotation owns, are kept).

Why this form: every face impulse is equal and opposite, so momentum is conserved to round-off
whatever the number of sweeps, and every impulse shrinks a velocity difference by a factor in
``[0, 1)``, so kinetic energy never grows: the stage is unconditionally stable (a stiff honey at
a large ``h`` gets at most ``max_sweeps`` sweeps and then less viscosity than asked, never
blows up) and a fluid at rest stays at rest. In the continuum limit a row of cells obeys
``du/dt = nu d^2u/dx^2``. Walls are free slip (the SRD fluid slides along them too).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .collision import _cell_span, _srd_cell, _y_range

__all__ = ["X_MAX", "MAX_SWEEPS", "max_viscosity", "diffuse_cell_velocities", "cell_buffers"]

#: Largest per-sweep relaxation exponent ``x`` before the substep is split into more sweeps.
X_MAX = 0.5
#: Default cap on sweeps per substep.
MAX_SWEEPS = 16


@njit(cache=True)
def max_viscosity(mat, n, nu_table):
    """The largest ``nu`` among the materials of the ``n`` particles (0.0 if none is viscous)."""
    top = 0.0
    for k in range(len(nu_table)):
        top = max(top, nu_table[k])
    if top == 0.0:
        return 0.0
    best = 0.0
    for i in range(n):
        best = max(best, nu_table[mat[i]])
        if best == top:
            break
    return best


@njit(cache=True)
def _deposit(pos, vel, mat, n, mass_table, nu_table, inv, shift_x, shift_y, ncx, ncy, c0, c1,
             cell_of, cell_m, cell_u, cell_u0, cell_nu):
    """Mass, mean velocity (also kept in ``cell_u0``) and mass-weighted nu of cells c0..c1."""
    for c in range(c0, c1):
        cell_m[c] = 0.0
        cell_u[c, 0] = 0.0
        cell_u[c, 1] = 0.0
        cell_nu[c] = 0.0
    for i in range(n):
        c = _srd_cell(pos[i, 0], pos[i, 1], inv, shift_x, shift_y, ncx, ncy)
        cell_of[i] = c
        k = mat[i]
        m = mass_table[k]
        cell_m[c] += m
        cell_u[c, 0] += m * vel[i, 0]
        cell_u[c, 1] += m * vel[i, 1]
        cell_nu[c] += m * nu_table[k]
    for c in range(c0, c1):
        m = cell_m[c]
        if m > 0.0:
            cell_u[c, 0] /= m
            cell_u[c, 1] /= m
            cell_nu[c] /= m
        cell_u0[c, 0] = cell_u[c, 0]
        cell_u0[c, 1] = cell_u[c, 1]


@njit(cache=True, inline="always")
def _face_x(mc, md, nuc, nud, h_over_a2):
    """``x = h K (1/M_c + 1/M_d)`` of one face (0 if a side is empty or not viscous)."""
    if mc <= 0.0 or md <= 0.0 or nuc <= 0.0 or nud <= 0.0:
        return 0.0
    nu_f = 2.0 * nuc * nud / (nuc + nud)
    return h_over_a2 * nu_f * min(mc, md) * (mc + md) / (mc * md)


@njit(cache=True)
def _faces(c0, c1, ncx, cell_m, cell_nu, h_over_a2, face_x, face_y):
    """``x`` of the face to the right (``face_x[c]``) and above (``face_y[c]``) of every cell of
    rows c0..c1 (the last row's upper faces stay 0); returns the largest."""
    top = 0.0
    for c in range(c0, c1):
        fx = 0.0
        if (c + 1) % ncx != 0:
            fx = _face_x(cell_m[c], cell_m[c + 1], cell_nu[c], cell_nu[c + 1], h_over_a2)
        fy = 0.0
        if c + ncx < c1:
            fy = _face_x(cell_m[c], cell_m[c + ncx], cell_nu[c], cell_nu[c + ncx], h_over_a2)
        face_x[c] = fx
        face_y[c] = fy
        top = max(top, fx, fy)
    return top


@njit(cache=True)
def _to_kappa(c0, c1, sweeps, face_x, face_y):
    """Turn each face's ``x`` into the fraction ``kappa = x' / (1 + x')`` (``x' = x / sweeps``)."""
    for c in range(c0, c1):
        x = face_x[c] / sweeps
        face_x[c] = x / (1.0 + x)
        y = face_y[c] / sweeps
        face_y[c] = y / (1.0 + y)


@njit(cache=True, inline="always")
def _relax(c, d, kappa, cell_m, cell_u):
    """Equal and opposite impulse removing ``kappa`` of the velocity difference of cells c, d."""
    if kappa == 0.0:
        return
    mc = cell_m[c]
    md = cell_m[d]
    mu = kappa * mc * md / (mc + md)
    jx = mu * (cell_u[d, 0] - cell_u[c, 0])
    jy = mu * (cell_u[d, 1] - cell_u[c, 1])
    cell_u[c, 0] += jx / mc
    cell_u[c, 1] += jy / mc
    cell_u[d, 0] -= jx / md
    cell_u[d, 1] -= jy / md


@njit(cache=True)
def _sweep(r0, r1, ncx, face_x, face_y, cell_m, cell_u):
    """One sweep over rows r0..r1: even then odd x faces, even then odd y faces."""
    for parity in range(2):
        for r in range(r0, r1):
            base = r * ncx
            for cx in range(parity, ncx - 1, 2):
                c = base + cx
                _relax(c, c + 1, face_x[c], cell_m, cell_u)
    for parity in range(2):
        for r in range(r0 + parity, r1 - 1, 2):
            base = r * ncx
            for cx in range(ncx):
                c = base + cx
                _relax(c, c + ncx, face_y[c], cell_m, cell_u)


@njit(cache=True)
def _apply(vel, n, cell_of, cell_u, cell_u0):
    for i in range(n):
        c = cell_of[i]
        vel[i, 0] += cell_u[c, 0] - cell_u0[c, 0]
        vel[i, 1] += cell_u[c, 1] - cell_u0[c, 1]


@njit(cache=True)
def diffuse_cell_velocities(pos, vel, mat, n, mass_table, nu_table, a0, shift_x, shift_y, ncx,
                            ncy, h, max_sweeps, cell_of, cell_m, cell_u, cell_u0, cell_nu, face_x,
                            face_y):
    """Momentum diffusion with each material's kinematic viscosity ``nu``, in place.

    Args:
        pos, vel, mat, n: particle arrays and count.
        mass_table, nu_table: per-material particle mass and kinematic viscosity.
        a0: cell size; shift_x, shift_y: grid translation in ``[0, a0)`` (the SRD collision's).
        ncx, ncy: shifted-grid size (one more than the domain's cells in each direction).
        h: substep length; max_sweeps: cap on relaxation sweeps (>= 1).
        cell_of: int64 scratch (>= n); cell_m, cell_nu, face_x, face_y: scratch (``ncx*ncy``);
            cell_u, cell_u0: scratch (``ncx*ncy``, 2).

    Returns:
        The number of sweeps run (0 when no particle is viscous: nothing is touched).
    """
    if n == 0 or max_viscosity(mat, n, nu_table) == 0.0:
        return 0
    inv = 1.0 / a0
    lo, hi = _y_range(pos, 0, n)
    c0, c1 = _cell_span(lo, hi, inv, shift_y, ncx, ncy)
    _deposit(pos, vel, mat, n, mass_table, nu_table, inv, shift_x, shift_y, ncx, ncy, c0, c1,
             cell_of, cell_m, cell_u, cell_u0, cell_nu)
    top = _faces(c0, c1, ncx, cell_m, cell_nu, h * inv * inv, face_x, face_y)
    if top == 0.0:
        return 0
    sweeps = min(max(int(math.ceil(top / X_MAX)), 1), max_sweeps)
    _to_kappa(c0, c1, float(sweeps), face_x, face_y)
    r0 = c0 // ncx
    r1 = c1 // ncx
    for _ in range(sweeps):
        _sweep(r0, r1, ncx, face_x, face_y, cell_m, cell_u)
    _apply(vel, n, cell_of, cell_u, cell_u0)
    return sweeps


def cell_buffers(ncell: int) -> tuple[np.ndarray, ...]:
    """Scratch for :func:`diffuse_cell_velocities` on ``ncell`` cells:
    ``(cell_m, cell_u, cell_u0, cell_nu, face_x, face_y)``."""
    return (np.zeros(ncell), np.zeros((ncell, 2)), np.zeros((ncell, 2)), np.zeros(ncell),
            np.zeros(ncell), np.zeros(ncell))
