"""Kernels of double density relaxation (Clavet, Beaudoin and Poulin 2005, "Particle-based
Viscoelastic Fluid Simulation"), with the seeds' notes (``shared/seeds``).

Density and near density with Clavet's ``(1 - r/H)^2``, ``(1 - r/H)^3`` kernels or Madams'
``(1 - r/H)^3``, ``(1 - r/H)^4`` (``cubic``, a stiffer fluid for the same knobs); pressure
``P = k mu (rho - rho0)`` and near pressure ``P_near = k_near mu rho_near``.

Why Jacobi and not Clavet's sequential loop: the sequential form moves particle ``j`` while
particle ``i`` is being relaxed, so the result depends on the visiting order and cannot be
split over threads without races. Here every pass reads the state of the previous pass and each
particle writes only its own density, displacement or velocity change; a pair's contribution is
computed with the same arithmetic from both sides (``(P_i + P_j)``, symmetric weights), so the
pair's momentum cancels and results are bit-identical for any thread count. A particle gets the
sum of its pairs' shares, which is what a sequential sweep gives to first order.

Why several passes a substep (``relax_positions(passes=...)``, the stiffness split among them):
the velocity comes from the move of a predicted position, so a mode whose per-pass displacement
Jacobian has eigenvalue ``lambda`` is stable only for ``lambda > -4/3`` (one pass). The most
negative eigenvalue, a checkerboard mode dominated by the near pressure, grows with compression
(-0.6 at the fill lattice, -1.3 at 0.9 of its spacing, -2.5 at 0.8): one pass held a 100-deep
pool at the limit and blew up a 200-deep one or water under a heavy layer. ``n`` passes at
``1/n`` of the stiffness each are stable down to ``-2n`` (even ``n``) at the same rest state.

Multiphase (Madams' notes; Solenthaler and Pajarola's density contrast): densities count
neighbours (number density), the pressure of a particle of material density ``mu`` is ``mu``
times that of water at the same compression (per-material rest density ``mu rho0``), and a pair's
displacement is split as ``1 / mu`` of each side: a heavy fluid has the same compressibility
as a light one, takes the same momentum and moves less, so under gravity it sinks.

Solid particles (walls, bodies) count in the density like fluid, push the fluid and take the
opposite momentum into ``solid_impulse``, gathered per solid particle (no scattered
sums). Neighbours come from cells of ``nb_h``: the viscosity searches the particle store's sort
(particles in cell order, one index range per row of a block); the relaxation searches the
predicted positions binned without moving them (an index list per cell, ``order``), and bins
them again between passes once they have moved past :data:`REBIN_REACH`; ``reach`` is the
interaction radius plus how far any particle moved since its binning.

Wetting: where a fluid particle is in tension (the pair's displacement weight is a pull), a
solid of a moving body pulls it by ``solid_pull`` of what a fluid neighbour there would, and
walls do not pull at all. A solid that never pulls is not wetted: the meniscus bends down at it
and the surface tension holds small light bodies up (a ball of radius 15 at 0.4 x water's
density floated 0.10 too high; fully wetted, 0.16 too deep). Walls stay unwetted: a wetted wall
anchored the fluid's lattice along it, and a heavy layer laid over a light one then stayed on top
for 20 s (the overturn starts where the fluid slides along the walls).

The kernels take their arrays in groups (tuples, unpacked on the kernel's first lines):

* ``fluid`` = ``(pos, vel, mat, mass, mu, n)``: the store's positions, velocities, material ids,
  the materials' particle masses and densities (water 1), the particle count;
* ``grid`` = ``(nb_start, nb_nx, nb_ny, inv_nb)``: the store's sort (first particle of each
  cell, cells across and up, ``1 / nb_h``); the relaxation's adds ``order``, the particle
  indices cell by cell that ``nb_start`` indexes (``binning.bin_points``);
* ``solids`` = ``(solid_pos, s_start, s_order, solid_imp, solid_marked, solid_wet)``: the solid
  particles, their sort, the impulses and contact flags they record, and which of them the fluid
  wets (those of moving bodies: ``solid_pull`` applies to them only);
* ``consts``: the scalars of a stage, ``(radius, lin, quad, h)`` for the viscosity and
  ``(radius, cubic, rho0, k, k_near, h, h2, solid_push, solid_pull, cohere, coh)`` for the
  relaxation kernels (:func:`relax_positions` takes the first eight without ``h2`` and adds
  it and the cohesion flag and table);
* ``work``: scratch, ``(wsum, dv)`` for the viscosity and ``(rho, rho_near, disp)`` for the
  relaxation (``rho``, ``rho_near`` receive each particle's pressure and near pressure).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, prange
from numba.core.cpu_options import ParallelOptions

__all__ = ["viscosity_impulses", "relax_positions", "anti_stick", "column_height",
           "lattice_sums", "rest_density", "CHUNK", "REBIN_REACH"]

#: Particles per parallel work item.
CHUNK = 512

#: How far past the radius the relaxation's search may reach before ``relax_positions`` bins
#: the moved particles again (its ``rebin``), as a share of the radius.
REBIN_REACH = 0.05

#: ``parallel=True`` less loop fusion, for the kernels with several ``prange`` loops. Numba keeps
#: a loop that passes an array to a call apart from the next, but it does not look into tuples:
#: with the groups it fused the density loop into the displacement loop (and the viscosity's
#: two passes), which then read densities other chunks had not yet written. An instance, not a
#: dict: numba pops a dict's keys at the first compile, and the next signature got fusion back.
#: (``Any``: numba's annotations of ``njit`` say ``parallel: bool``.)
PARALLEL: Any = ParallelOptions({"fusion": False})


@njit(cache=True, inline="always")
def _cell(x, inv, n):
    return min(max(int(x * inv), 0), n - 1)


@njit(cache=True, inline="always")
def _weights(q, cubic):
    """Density weight, near-density weight and their displacement weights at ``q = 1 - r/H``."""
    if cubic:
        q2 = q * q
        return q2 * q, q2 * q2, q2, q2 * q
    return q * q, q * q * q, q, q * q


# ----------------------------------------------------------------------------- viscosity
@njit(cache=True)
def _visc_range(lo, hi, fluid, grid, consts, work, apply):
    """``apply`` False: ``wsum[i]`` = the fraction of closing speeds particle ``i``'s pairs would
    remove. True: ``out[i]`` = its velocity change, each pair's impulse scaled by
    ``1 / max(1, wsum_i, wsum_j)`` so that no particle's closing speed is overshot."""
    pos, vel, mat, mass, _, n = fluid
    nb_start, nb_nx, nb_ny, inv_nb = grid
    radius, lin, quad, h = consts
    wsum, out = work
    inv_r = 1.0 / radius
    r2max = radius * radius
    for i in range(lo, hi):
        xi = pos[i, 0]
        yi = pos[i, 1]
        x0 = _cell(xi - radius, inv_nb, nb_nx)
        x1 = _cell(xi + radius, inv_nb, nb_nx)
        mi = mass[mat[i]]
        acc = 0.0
        dvx = 0.0
        dvy = 0.0
        for yy in range(_cell(yi - radius, inv_nb, nb_ny), _cell(yi + radius, inv_nb, nb_ny) + 1):
            a = nb_start[yy * nb_nx + x0]
            b = min(nb_start[yy * nb_nx + x1 + 1], n)
            for j in range(a, b):
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 >= r2max or r2 == 0.0:
                    continue
                r = math.sqrt(r2)
                nx = dx / r
                ny = dy / r
                # the closing speed along the pair's axis; a pair that parts adds 0 (selects,
                # not a branch, which the processor mispredicted for every other pair)
                u = (vel[i, 0] - vel[j, 0]) * nx + (vel[i, 1] - vel[j, 1]) * ny
                up = max(u, 0.0)
                c = min(h * (1.0 - r * inv_r) * (lin + quad * up), 1.0)
                if not apply:
                    acc += c if u > 0.0 else 0.0
                    continue
                mj = mass[mat[j]]
                imp = c * up / max(1.0, wsum[i], wsum[j]) * mj / (mi + mj)
                dvx -= imp * nx
                dvy -= imp * ny
        if apply:
            out[i, 0] = dvx
            out[i, 1] = dvy
        else:
            wsum[i] = acc


@njit(cache=True)
def _visc_serial(fluid, grid, consts, work):
    _, vel, _, _, _, n = fluid
    dv = work[1]
    _visc_range(0, n, fluid, grid, consts, work, False)
    _visc_range(0, n, fluid, grid, consts, work, True)
    for i in range(n):
        vel[i, 0] += dv[i, 0]
        vel[i, 1] += dv[i, 1]


@njit(cache=True, parallel=PARALLEL)
def _visc_parallel(fluid, grid, consts, work):
    # by index, not unpacked: numba's parallel dead-code removal does not follow arrays
    # unpacked from a tuple, and can drop a loop's writes to them
    vel = fluid[1]
    n = fluid[5]
    dv = work[1]
    nc = (n + CHUNK - 1) // CHUNK
    for t in prange(nc):
        _visc_range(t * CHUNK, min(n, (t + 1) * CHUNK), fluid, grid, consts, work, False)
    for t in prange(nc):
        _visc_range(t * CHUNK, min(n, (t + 1) * CHUNK), fluid, grid, consts, work, True)
    for t in prange(nc):
        for i in range(t * CHUNK, min(n, (t + 1) * CHUNK)):
            vel[i, 0] += dv[i, 0]
            vel[i, 1] += dv[i, 1]


def viscosity_impulses(fluid, grid, consts, work, parallel=False):
    """Clavet's viscosity (Jacobi): for each pair closing in at speed ``u`` along its axis the
    impulse ``h (1 - r/H) (lin + quad u) u``, at most ``u``, scaled down where a particle's pairs
    together would remove more than its closing speeds, split by mass (momentum conserved).
    Positions must be those of the sort. ``consts`` = ``(radius, lin, quad, h)``, ``work`` =
    ``(wsum, dv)`` (scratch of the capacity); ``fluid``, ``grid``: see the module docstring."""
    fn = _visc_parallel if parallel and fluid[5] > CHUNK else _visc_serial
    fn(fluid, grid, consts, work)


# ----------------------------------------------------------------------------- relaxation
@njit(cache=True)
def _density_range(lo, hi, fluid, grid, reach, solids, consts, work):
    """``rho[i]``, ``rho_near[i]``: particle ``i``'s pressure and near pressure (from its
    density and near density: what the displacements read of each neighbour)."""
    pos, _, mat, _, mu, n = fluid
    nb_start, nb_nx, nb_ny, inv_nb, order = grid
    solid_pos, s_start, s_order, _, _, _ = solids
    radius, cubic, rho0, k, k_near, _, _, _, _, _, _ = consts
    rho, rho_near, _ = work
    inv_r = 1.0 / radius
    r2max = radius * radius
    for i in range(lo, hi):
        xi = pos[i, 0]
        yi = pos[i, 1]
        d = 0.0
        dn = 0.0
        x0 = _cell(xi - reach, inv_nb, nb_nx)
        x1 = _cell(xi + reach, inv_nb, nb_nx)
        for yy in range(_cell(yi - reach, inv_nb, nb_ny), _cell(yi + reach, inv_nb, nb_ny) + 1):
            a = nb_start[yy * nb_nx + x0]
            b = min(nb_start[yy * nb_nx + x1 + 1], n)
            for t in range(a, b):
                j = order[t]
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 < r2max and j != i:
                    w, wn, _, _ = _weights(1.0 - math.sqrt(r2) * inv_r, cubic)
                    d += w
                    dn += wn
        s0 = _cell(xi - radius, inv_nb, nb_nx)
        s1 = _cell(xi + radius, inv_nb, nb_nx)
        for yy in range(_cell(yi - radius, inv_nb, nb_ny), _cell(yi + radius, inv_nb, nb_ny) + 1):
            for t in range(s_start[yy * nb_nx + s0], s_start[yy * nb_nx + s1 + 1]):
                s = s_order[t]
                dx = solid_pos[s, 0] - xi
                dy = solid_pos[s, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 < r2max:
                    w, wn, _, _ = _weights(1.0 - math.sqrt(r2) * inv_r, cubic)
                    d += w
                    dn += wn
        mi = mu[mat[i]]
        rho[i] = k * mi * (d - rho0)
        rho_near[i] = k_near * mi * dn


@njit(cache=True)
def _displace_range(lo, hi, fluid, grid, reach, solids, consts, work):
    """``disp[i]``: the sum of particle ``i``'s shares of its pairs' displacements."""
    pos, _, mat, _, mu, n = fluid
    nb_start, nb_nx, nb_ny, inv_nb, order = grid
    solid_pos, s_start, s_order, _, _, solid_wet = solids
    radius, cubic, rho0, k, k_near, _, h2, solid_push, solid_pull, cohere, coh = consts
    rho, rho_near, disp = work
    inv_r = 1.0 / radius
    r2max = radius * radius
    for i in range(lo, hi):
        xi = pos[i, 0]
        yi = pos[i, 1]
        mi = mu[mat[i]]
        pi = rho[i]  # the pressures (see _density_range)
        pni = rho_near[i]
        ddx = 0.0
        ddy = 0.0
        x0 = _cell(xi - reach, inv_nb, nb_nx)
        x1 = _cell(xi + reach, inv_nb, nb_nx)
        for yy in range(_cell(yi - reach, inv_nb, nb_ny), _cell(yi + reach, inv_nb, nb_ny) + 1):
            a = nb_start[yy * nb_nx + x0]
            b = min(nb_start[yy * nb_nx + x1 + 1], n)
            for t in range(a, b):
                j = order[t]
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 >= r2max or r2 == 0.0:
                    continue
                r = math.sqrt(r2)
                _, _, g, gn = _weights(1.0 - r * inv_r, cubic)
                pair = (pi + rho[j]) * g + (pni + rho_near[j]) * gn
                if cohere:  # Madams' pull between particles of one mix group
                    pair -= k * coh[mat[i], mat[j]] * g
                d = 0.5 * h2 * pair / (r * mi)
                ddx -= d * dx
                ddy -= d * dy
        s0 = _cell(xi - radius, inv_nb, nb_nx)
        s1 = _cell(xi + radius, inv_nb, nb_nx)
        for yy in range(_cell(yi - radius, inv_nb, nb_ny), _cell(yi + radius, inv_nb, nb_ny) + 1):
            for t in range(s_start[yy * nb_nx + s0], s_start[yy * nb_nx + s1 + 1]):
                s = s_order[t]
                dx = solid_pos[s, 0] - xi
                dy = solid_pos[s, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 >= r2max or r2 == 0.0:
                    continue
                r = math.sqrt(r2)
                _, _, g, gn = _weights(1.0 - r * inv_r, cubic)
                d = h2 * (pi * g + pni * gn) / (r * mi)
                d *= solid_push if d > 0.0 else (solid_pull if solid_wet[s] else 0.0)
                ddx -= d * dx
                ddy -= d * dy
        disp[i, 0] = ddx
        disp[i, 1] = ddy


@njit(cache=True)
def _solid_range(lo, hi, fluid, grid, reach, solids, consts, work, first):
    """Per solid particle: minus the momentum it gave the fluid (its body's share), added to
    what the earlier passes of the substep gave (``first``: the first pass, overwrite)."""
    pos, _, mat, mass, mu, n = fluid
    nb_start, nb_nx, nb_ny, inv_nb, order = grid
    solid_pos, _, _, solid_imp, solid_marked, solid_wet = solids
    radius, cubic, rho0, k, k_near, h, h2, solid_push, solid_pull, _, _ = consts
    rho, rho_near, _ = work
    inv_r = 1.0 / radius
    r2max = radius * radius
    touching = 0
    for s in range(lo, hi):
        xs = solid_pos[s, 0]
        ys = solid_pos[s, 1]
        jx = 0.0
        jy = 0.0
        hit = False
        x0 = _cell(xs - reach, inv_nb, nb_nx)
        x1 = _cell(xs + reach, inv_nb, nb_nx)
        for yy in range(_cell(ys - reach, inv_nb, nb_ny), _cell(ys + reach, inv_nb, nb_ny) + 1):
            a = nb_start[yy * nb_nx + x0]
            b = min(nb_start[yy * nb_nx + x1 + 1], n)
            for t in range(a, b):
                i = order[t]
                dx = xs - pos[i, 0]
                dy = ys - pos[i, 1]
                r2 = dx * dx + dy * dy
                if r2 >= r2max or r2 == 0.0:
                    continue
                r = math.sqrt(r2)
                _, _, g, gn = _weights(1.0 - r * inv_r, cubic)
                mi = mu[mat[i]]
                d = h2 * (rho[i] * g + rho_near[i] * gn) / (r * mi)
                d *= solid_push if d > 0.0 else (solid_pull if solid_wet[s] else 0.0)
                m = mass[mat[i]] / h
                jx += m * d * dx
                jy += m * d * dy
                if d > 0.0:
                    hit = True
                    touching += 1
        if first:
            solid_imp[s, 0] = jx
            solid_imp[s, 1] = jy
            solid_marked[s] = hit
        else:
            solid_imp[s, 0] += jx
            solid_imp[s, 1] += jy
            solid_marked[s] = solid_marked[s] or hit
    return touching


@njit(cache=True)
def _relax_serial(fluid, grid, reach, solids, consts, work):
    n = fluid[5]
    _density_range(0, n, fluid, grid, reach, solids, consts, work)
    _displace_range(0, n, fluid, grid, reach, solids, consts, work)


@njit(cache=True, parallel=PARALLEL)
def _relax_parallel(fluid, grid, reach, solids, consts, work):
    n = fluid[5]
    nc = (n + CHUNK - 1) // CHUNK
    for t in prange(nc):
        _density_range(t * CHUNK, min(n, (t + 1) * CHUNK), fluid, grid, reach, solids, consts,
                       work)
    for t in prange(nc):
        _displace_range(t * CHUNK, min(n, (t + 1) * CHUNK), fluid, grid, reach, solids, consts,
                        work)


#: The cohesion table of a fluid without cohesion (never read: the kernels check the flag).
_NO_COHESION = np.zeros((1, 1))


@njit(cache=True)
def _add_disp(pos, disp, n):
    """``pos += disp``; returns the largest displacement component (how much further the
    next pass's searches must reach)."""
    big = 0.0
    for i in range(n):
        pos[i, 0] += disp[i, 0]
        pos[i, 1] += disp[i, 1]
        big = max(big, abs(disp[i, 0]), abs(disp[i, 1]))
    return big


def relax_positions(fluid, grid, reach, solids, solid_first, consts, work, parallel=False,
                    passes=1, cohesion=None, rebin=None):
    """Double density relaxation in ``passes`` Jacobi passes, each: densities (``rho``,
    ``rho_near``), each particle's displacement ``disp`` (``h^2 (P q + P_near q^2)`` per pair
    with Clavet's kernels, ``P`` the pair's summed pressures, ``1/(2 mu)`` of it per side; a
    solid pushes the whole ``solid_push h^2 (P_i q + P_near_i q^2) / mu_i`` where that is a
    push, ``solid_pull`` times it where it is a pull), the solids' impulses, then ``pos +=
    disp``. ``consts`` = ``(radius, cubic, rho0, k, k_near, h, solid_push, solid_pull)``
    (``h2`` is added here), ``work`` = ``(rho, rho_near, disp)``; ``fluid``,
    ``grid``, ``solids``: see the module docstring. ``k`` and ``k_near`` are those of one pass
    (the caller splits the substep's stiffness among the passes).

    ``k`` and ``k_near`` are in length per time squared per unit density; ``mu`` the material
    densities (water 1), ``mass`` the particle masses; ``reach`` the radius plus the largest move
    since the binning of ``grid``. ``solid_imp``/``solid_marked`` of the solids from
    ``solid_first`` on (the domain walls before it are zeroed: nothing reads them) get, per
    solid, minus the fluid's momentum change over the passes (its body's share). Returns the
    number of fluid-solid contacts (summed over the passes).

    ``cohesion``: ``None``, or per pair of material ids the tension (in density units, times
    the two material densities summed) by which two such particles pull each other on top of
    their pressures (Madams' surface-tension term; ``Material.cohesion``, zero between mix
    groups): the pair's push gets ``- k cohesion[a, b]`` times the density weight's gradient.

    ``rebin``: ``None``, or a function that bins the current positions and returns the new
    ``grid``; it is called before a pass when the passes so far have moved some particle by
    more than :data:`REBIN_REACH` of the radius, and the search then reaches the radius again
    (a pass costs as the square of its reach, a binning ~1/15 of a pass).
    """
    pos, n = fluid[0], fluid[5]
    solid_pos, _, _, solid_imp, solid_marked, _ = solids
    radius, cubic, rho0, k, k_near, h, solid_push, solid_pull = consts
    cohere = cohesion is not None
    coh = cohesion if cohere else _NO_COHESION
    consts = (radius, cubic, rho0, k, k_near, h, h * h, solid_push, solid_pull, cohere, coh)
    disp = work[2]
    fn = _relax_parallel if parallel and n > CHUNK else _relax_serial
    solid_imp[:solid_first] = 0.0
    solid_marked[:solid_first] = False
    touching = 0
    base = reach
    for it in range(passes):
        if rebin is not None and reach > base * (1.0 + REBIN_REACH):
            grid = rebin()
            reach = base
        fn(fluid, grid, reach, solids, consts, work)
        touching += _solid_range(solid_first, len(solid_pos), fluid, grid, reach, solids, consts,
                                 work, it == 0)
        # the next pass's neighbours moved by up to this much more since the sort
        reach += _add_disp(pos, disp, n)
    return touching


# ----------------------------------------------------------------------------- walls
@njit(cache=True)
def anti_stick(pos, vel, n, lo_x, hi_x, lo_y, hi_y, band, speed):
    """The blog's anti-stick containment: a particle that containment left within ``band`` of a
    side of the domain box leaves that side at ``speed`` at least. (Velocities from moves put a
    particle held at a wall to rest, and with no fluid beyond the wall nothing pushes it off.)
    Returns how many were released."""
    released = 0
    for i in range(n):
        x = pos[i, 0]
        y = pos[i, 1]
        hit = False
        if x < lo_x + band and vel[i, 0] < speed:
            vel[i, 0] = speed
            hit = True
        elif x > hi_x - band and vel[i, 0] > -speed:
            vel[i, 0] = -speed
            hit = True
        if y < lo_y + band and vel[i, 1] < speed:
            vel[i, 1] = speed
            hit = True
        elif y > hi_y - band and vel[i, 1] > -speed:
            vel[i, 1] = -speed
            hit = True
        released += hit
    return released


# ----------------------------------------------------------------------------- load
@njit(cache=True)
def column_height(pos, mat, mu, n, gx, gy, bin_w, area, acc):
    """The height of fluid the most loaded column holds up: the particles binned across gravity
    ``(gx, gy)`` in bins ``bin_w`` wide, each bin's sum of ``area`` times its particles'
    material densities ``mu`` over the lightest one's and over ``bin_w``; the largest bin's.
    For one material that is the depth of fluid in the column (``area``: a particle's share of
    the fill), for a heavy layer over a light one the depth of light fluid as heavy. 0 without
    particles or gravity. ``acc``: the bins' scratch (the domain's diagonal over ``bin_w``
    plus two is enough; a shorter one is replaced by a new array)."""
    g = math.sqrt(gx * gx + gy * gy)
    if n == 0 or g == 0.0:
        return 0.0
    ux = -gy / g  # across gravity
    uy = gx / g
    lo = math.inf
    hi = -math.inf
    mu_min = math.inf
    for i in range(n):
        s = pos[i, 0] * ux + pos[i, 1] * uy
        lo = min(lo, s)
        hi = max(hi, s)
        mu_min = min(mu_min, mu[mat[i]])
    m = int((hi - lo) / bin_w) + 1
    if len(acc) < m:
        acc = np.zeros(m)
    acc[:m] = 0.0
    for i in range(n):
        acc[int((pos[i, 0] * ux + pos[i, 1] * uy - lo) / bin_w)] += mu[mat[i]]
    return acc[:m].max() * area / (bin_w * mu_min)


# ----------------------------------------------------------------------------- rest state
def lattice_sums(spacing: float, radius: float, cubic: bool = False) -> tuple[float, float,
                                                                               float, float]:
    """Sums over the neighbours of a particle inside a hexagonal lattice at ``spacing``: density,
    near density, and the virials ``sum g(q) r``, ``sum g_near(q) r`` of the two displacement
    weights (the momentum flux of the two pressures across a line)."""
    m = int(math.ceil(radius / spacing)) + 2
    dy = spacing * math.sqrt(3.0) / 2.0
    rho = rho_n = v1 = v2 = 0.0
    for row in range(-2 * m, 2 * m + 1):
        off = 0.5 * spacing if row % 2 else 0.0
        for col in range(-m, m + 1):
            r = math.hypot(col * spacing + off, row * dy)
            if 0.0 < r < radius:
                q = 1.0 - r / radius
                w, wn, g, gn = (q**3, q**4, q**2, q**3) if cubic else (q**2, q**3, q, q**2)
                rho += w
                rho_n += wn
                v1 += g * r
                v2 += gn * r
    return rho, rho_n, v1, v2


def rest_density(spacing: float, radius: float, near_ratio: float = 0.0,
                 cubic: bool = False) -> float:
    """The rest density ``rho0`` at which the fill lattice at ``spacing`` is at zero pressure:
    ``k (rho - rho0) V1 + k_near rho_near V2 = 0`` with ``near_ratio = k_near / k``
    (:func:`lattice_sums`). With ``rho0`` the lattice's own density, the near pressure alone
    would push a free surface out: the top of a pool expanded and bodies floated too low."""
    rho, rho_n, v1, v2 = lattice_sums(spacing, radius, cubic)
    return rho + near_ratio * rho_n * v2 / v1

