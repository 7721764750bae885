"""Kernels of double density relaxation (Clavet, Beaudoin and Poulin 2005, "Particle-based
Viscoelastic Fluid Simulation"), with the seeds' notes (``shared/seeds``): density and near
density with the ``(1 - r/H)^2`` and ``(1 - r/H)^3`` kernels, pressure ``k (rho - rho0)`` and
near pressure ``k_near rho_near``, symmetric pair displacements, and Clavet's linear and
quadratic viscosity impulses.

Neighbours come from the particle store's sort (cells of ``nb_h``, particles in cell order):
the cells of one row of a block are one contiguous index range. Pairs are visited in index
order, one particle after the other (Clavet's sequential form): deterministic, serial.

Multiphase (Madams): a pair's displacement or impulse is split by the inverse of the two masses,
so a heavy particle gives way less than a light one, and under gravity the heavy fluid sinks.
Solid particles (walls, bodies) count in the density like fluid and push the fluid the whole
displacement; the momentum each gives is recorded for the coupling.
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["viscosity_impulses", "relax_positions", "rest_density"]


@njit(cache=True, inline="always")
def _cell(x, inv, n):
    return min(max(int(x * inv), 0), n - 1)


@njit(cache=True)
def viscosity_impulses(pos, vel, mat, mass, n, nb_start, nb_nx, nb_ny, inv_nb, kb, radius,
                       lin, quad, h):
    """Clavet's viscosity: for each pair closing in at speed ``u`` along their axis, the impulse
    ``h (1 - r/H) (lin u + quad u^2)`` (at most ``u``, never a reversal), split by mass."""
    inv_r = 1.0 / radius
    r2max = radius * radius
    for i in range(n):
        xi = pos[i, 0]
        yi = pos[i, 1]
        cx = _cell(xi, inv_nb, nb_nx)
        cy = _cell(yi, inv_nb, nb_ny)
        x0 = max(cx - kb, 0)
        x1 = min(cx + kb, nb_nx - 1)
        mi = mass[mat[i]]
        for yy in range(max(cy - kb, 0), min(cy + kb, nb_ny - 1) + 1):
            a = nb_start[yy * nb_nx + x0]
            b = min(nb_start[yy * nb_nx + x1 + 1], n)
            for j in range(max(a, i + 1), b):
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 >= r2max or r2 == 0.0:
                    continue
                r = math.sqrt(r2)
                nx = dx / r
                ny = dy / r
                u = (vel[i, 0] - vel[j, 0]) * nx + (vel[i, 1] - vel[j, 1]) * ny
                if u <= 0.0:
                    continue
                q = 1.0 - r * inv_r
                imp = min(h * q * (lin * u + quad * u * u), u)
                mj = mass[mat[j]]
                fi = mj / (mi + mj)
                fj = mi / (mi + mj)
                vel[i, 0] -= imp * fi * nx
                vel[i, 1] -= imp * fi * ny
                vel[j, 0] += imp * fj * nx
                vel[j, 1] += imp * fj * ny


@njit(cache=True)
def relax_positions(pos, mat, mass, n, nb_start, nb_nx, nb_ny, inv_nb, kb, solid_pos, s_start,
                    s_order, radius, rho0, k, k_near, h, solid_imp, solid_marked):
    """Double density relaxation, one particle after the other (Clavet's Algorithm 2).

    ``k`` and ``k_near`` are in length per time squared: a pair's displacement is
    ``h^2 (P q + P_near q^2)`` with ``q = 1 - r/H``. Returns the number of fluid-solid pairs.
    """
    inv_r = 1.0 / radius
    r2max = radius * radius
    h2 = h * h
    touching = 0
    for i in range(n):
        xi = pos[i, 0]
        yi = pos[i, 1]
        cx = _cell(xi, inv_nb, nb_nx)
        cy = _cell(yi, inv_nb, nb_ny)
        x0 = max(cx - kb, 0)
        x1 = min(cx + kb, nb_nx - 1)
        y0 = max(cy - kb, 0)
        y1 = min(cy + kb, nb_ny - 1)
        rho = 0.0
        rho_near = 0.0
        for yy in range(y0, y1 + 1):
            a = nb_start[yy * nb_nx + x0]
            b = min(nb_start[yy * nb_nx + x1 + 1], n)
            for j in range(a, b):
                if j == i:
                    continue
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 < r2max:
                    q = 1.0 - math.sqrt(r2) * inv_r
                    rho += q * q
                    rho_near += q * q * q
            for c in range(yy * nb_nx + x0, yy * nb_nx + x1 + 1):
                for t in range(s_start[c], s_start[c + 1]):
                    s = s_order[t]
                    dx = solid_pos[s, 0] - xi
                    dy = solid_pos[s, 1] - yi
                    r2 = dx * dx + dy * dy
                    if r2 < r2max:
                        q = 1.0 - math.sqrt(r2) * inv_r
                        rho += q * q
                        rho_near += q * q * q
        p = k * (rho - rho0)
        p_near = k_near * rho_near
        mi = mass[mat[i]]
        ddx = 0.0
        ddy = 0.0
        for yy in range(y0, y1 + 1):
            a = nb_start[yy * nb_nx + x0]
            b = min(nb_start[yy * nb_nx + x1 + 1], n)
            for j in range(a, b):
                if j == i:
                    continue
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 >= r2max or r2 == 0.0:
                    continue
                r = math.sqrt(r2)
                q = 1.0 - r * inv_r
                d = h2 * (p * q + p_near * q * q) / r
                mj = mass[mat[j]]
                fj = mi / (mi + mj)
                pos[j, 0] += d * dx * fj
                pos[j, 1] += d * dy * fj
                ddx -= d * dx * (1.0 - fj)
                ddy -= d * dy * (1.0 - fj)
            for c in range(yy * nb_nx + x0, yy * nb_nx + x1 + 1):
                for t in range(s_start[c], s_start[c + 1]):
                    s = s_order[t]
                    dx = solid_pos[s, 0] - xi
                    dy = solid_pos[s, 1] - yi
                    r2 = dx * dx + dy * dy
                    if r2 >= r2max or r2 == 0.0:
                        continue
                    r = math.sqrt(r2)
                    q = 1.0 - r * inv_r
                    d = h2 * (p * q + p_near * q * q) / r
                    if d <= 0.0:
                        continue  # a solid pushes, never pulls
                    ddx -= d * dx
                    ddy -= d * dy
                    # the fluid's momentum change from this solid over the substep
                    solid_imp[s, 0] -= mi * d * dx / h
                    solid_imp[s, 1] -= mi * d * dy / h
                    solid_marked[s] = True
                    touching += 1
        pos[i, 0] = xi + ddx
        pos[i, 1] = yi + ddy
    return touching


def rest_density(spacing: float, radius: float) -> float:
    """``sum (1 - r/H)^2`` over the neighbours of a particle inside a hexagonal lattice at
    ``spacing`` (the density of the fluid at rest, as the lattice fills place it)."""
    m = int(math.ceil(radius / spacing)) + 2
    dy = spacing * math.sqrt(3.0) / 2.0
    total = 0.0
    for row in range(-2 * m, 2 * m + 1):
        off = 0.5 * spacing if row % 2 else 0.0
        for col in range(-m, m + 1):
            x = col * spacing + off
            y = row * dy
            r = math.hypot(x, y)
            if 0.0 < r < radius:
                total += (1.0 - r / radius) ** 2
    return total

