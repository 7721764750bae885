"""Kernels of the velocity-constraint fluid (Dennis Gustafsson, "Sprinkle: fluid as constraints",
the talk in ``shared/seeds``): each particle is a density constraint on the velocities of its
neighbours, solved like rigid-body contacts with sequential impulses.

Per particle ``i`` with neighbours ``j`` at ``d = r / H < 1``:

* weight ``w = (1 - d^2)^3``, density ``rho_i = 1 + sum w`` (solids count, scaled by ``ws``);
* compression rate ``c_i = -sum w e_ij . (v_j - v_i)`` (``e_ij`` the unit vector from ``i`` to
  ``j``: positive when the neighbours close in);
* bias ``b_i``: in the velocity sweeps ``(rho_i - rho0) r_L / 2h`` where the particle is
  under-dense (its neighbours may close in by the gap, a contact's speculative margin; without
  it a loosened region never closed again, and a body pushed up by a wave stayed up), 0 else;
  in the position sweeps the Baumgarte ``beta (rho_i - rho0) r_L / h``;
* a surface particle's density counts the neighbours missing beyond the surface, estimated
  from the kernel's first moment (see :func:`surface_fill`): else the top rows cluster until
  each reaches ``rho0`` and the water weighs more than its level says (bodies floated a
  tenth of their height too high);
* impulse ``d lambda = (c_i + b_i) / A_i`` with ``A_i = sum w^2 (1/m_i + 1/m_j)``; the
  accumulated ``lambda_i`` is clamped at 0 (pressure only pushes), and the change goes to
  ``v_j += e_ij w d lambda / m_j``, ``v_i -= e_ij w d lambda / m_i`` (equal and opposite; a
  heavy particle gives way less, so heavier fluid sinks under lighter).

Solids (walls, bodies) are neighbours (walls of infinite mass) that mirror the particle's pressure
(their rows carry ``2 ws w``: the particle's own push and the equal one a fluid neighbour in
the solid's place would give back; with ``w`` alone a layer by the floor has to compress by a
third before its neighbours' geometry holds the column's weight). Their velocity enters
``c_i``, the impulse they would get is recorded in ``solid_imp`` (the momentum the body
receives: minus what the fluid got from it).

Bodies' solids move inside the solve: a body's velocity changes by the impulses its solids
have recorded so far over its mass (``b_inv``, from the coupler), so a light body pushed by the
fluid gives way in the same sweeps; the coupler applies the same impulses after the solve.

Lists are built once per substep, capped at ``max_nbr`` fluid and ``max_solid`` solid
neighbours (the density counts all of them), from the cells within the radius of each particle;
the solver stores them as int32 indices and float32 weights and directions, half the bytes each
of a substep's ~9 sweeps streams (a 50k dam break: 229 ms/step with float64, 154-165 with
these). The sweeps are Gauss-Seidel inside blocks of neighbour cells at least ``2 H`` wide, the
blocks in four colours (:func:`block_layout`): the blocks of a colour share no particle's
neighbourhood, so they run in parallel with the same results as one after the other (each
particle's writes reach only its own neighbourhood), and the bodies' velocity changes are
summed after each colour in block order. Deterministic for any thread count.

The kernels take their arrays in groups (tuples, unpacked on the kernel's first lines):

* ``lists`` = ``(nbr, w, ex, ey, cnt, rho)`` and ``s_lists`` = ``(s_nbr, s_w, s_ex, s_ey,
  s_cnt)``: the fluid and solid neighbour lists (:func:`build_lists`);
* ``fluid`` = ``(vel, mat, inv_mass, n)``: the velocities solved for (the fluid's, or the
  position sweeps' pseudo-velocities), material ids, the materials' inverse particle masses, the
  particle count;
* ``bodies`` = ``(s_vel, solid_imp, s_owner, b_inv, b_dv)``: the solids' velocities, the
  impulses they record, their owners (body ids, -1 for none), the owners' inverse masses and
  their velocity changes so far in the solve;
* ``rows`` = ``(lam, bias, a_inv)``: each constraint's accumulated impulse, bias and ``1 / A``;
* ``layout`` = ``(blocks, col_start, nb_start, nb_nx)`` and ``scratch`` = ``(b_loc, b_hit,
  worst_blk)``: the coloured blocks (:func:`block_layout`) over the store's sort, and the sweeps'
  per-block scratch.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

# the lattice's rest density and the surface and wall corrections the list build applies
from .constraint_lattice import rest_density, solid_weight, surface_fill

__all__ = [
    "build_lists",
    "build_lists_parallel",
    "sweeps",
    "sweeps_parallel",
    "block_layout",
    "store_warm_start",
    "read_warm_start",
    "follow_sort",
    "seed_hydrostatic",
    "setup_rows",
    "rest_density",
    "solid_weight",
    "surface_fill",
]


@njit(cache=True, inline="always")
def _cell(x, inv, n):
    return min(max(int(x * inv), 0), n - 1)


@njit(cache=True, inline="always")
def _cell_at(x, y, inv, nx, ny):
    """Row-major index of the grid cell (``1 / inv`` wide, ``nx x ny``) holding ``(x, y)``."""
    return _cell(y, inv, ny) * nx + _cell(x, inv, nx)


@njit(cache=True)
def _build_one(i, pos, n, grid, solids, radius, lists, s_lists):
    """Lists, density, mass term of particle ``i`` (writes row ``i`` only)."""
    nb_start, nb_nx, nb_ny, inv_nb = grid
    s_pos, s_start, s_order, ws, fill, m0 = solids
    nbr, w_, ex, ey, cnt, rho = lists
    s_nbr, s_w, s_ex, s_ey, s_cnt = s_lists
    inv_h2 = 1.0 / (radius * radius)
    kmax = nbr.shape[1]
    ksmax = s_nbr.shape[1]
    xi = pos[i, 0]
    yi = pos[i, 1]
    # the cells within the radius of the particle (it sits where the sort binned it): a third
    # fewer candidates than the blocks' ``kb`` cells around its cell, the same ones, same order
    x0 = _cell(xi - radius, inv_nb, nb_nx)
    x1 = _cell(xi + radius, inv_nb, nb_nx)
    k = 0
    ks = 0
    dens = 1.0
    mx = 0.0
    my = 0.0
    for yy in range(_cell(yi - radius, inv_nb, nb_ny), _cell(yi + radius, inv_nb, nb_ny) + 1):
        a = nb_start[yy * nb_nx + x0]
        b = min(nb_start[yy * nb_nx + x1 + 1], n)
        for j in range(a, b):
            dx = pos[j, 0] - xi
            dy = pos[j, 1] - yi
            r2 = dx * dx + dy * dy
            q = 1.0 - r2 * inv_h2
            if q <= 0.0 or j == i:
                continue
            w = q * q * q
            dens += w
            if r2 > 0.0:
                r = math.sqrt(r2)
                mx += w * dx / r
                my += w * dy / r
            if k < kmax and r2 > 0.0:
                nbr[i, k] = j
                w_[i, k] = w
                ex[i, k] = dx / r
                ey[i, k] = dy / r
                k += 1
        for c in range(yy * nb_nx + x0, yy * nb_nx + x1 + 1):
            for t in range(s_start[c], s_start[c + 1]):
                s = s_order[t]
                dx = s_pos[s, 0] - xi
                dy = s_pos[s, 1] - yi
                r2 = dx * dx + dy * dy
                q = 1.0 - r2 * inv_h2
                if q <= 0.0:
                    continue
                w = q * q * q * ws
                dens += w
                if r2 > 0.0:
                    r = math.sqrt(r2)
                    mx += w * dx / r
                    my += w * dy / r
                if ks < ksmax and r2 > 0.0:
                    s_nbr[i, ks] = s
                    s_w[i, ks] = 2.0 * w  # mirrored: the solid pushes back with i's pressure
                    s_ex[i, ks] = dx / r
                    s_ey[i, ks] = dy / r
                    ks += 1
    cnt[i] = k
    s_cnt[i] = ks
    # the neighbours missing beyond a free surface, from the kernel's first moment (small in
    # the bulk, below ``m0``, and by a wall whose solids stand in for the fluid): a surface
    # particle is full at a lower density, and its constraint acts there (else the top rows
    # cluster, and the water is heavier than its level says)
    rho[i] = dens + fill * max(math.sqrt(mx * mx + my * my) - m0, 0.0)


@njit(cache=True)
def build_lists(pos, n, grid, solids, radius, lists, s_lists):
    """Neighbour lists, weights, unit directions and densities of the first ``n`` particles.

    ``grid`` = ``(nb_start, nb_nx, nb_ny, inv_nb)`` (the store's sort; a particle's search
    covers the cells within ``radius`` of it); ``solids`` = ``(s_pos, s_start, s_order, ws)``
    (their weights scaled by ``ws``, see :func:`solid_weight`); ``lists`` =
    ``(nbr, w, ex, ey, cnt, rho)`` and ``s_lists`` = ``(s_nbr, s_w, s_ex, s_ey, s_cnt)`` are
    the outputs (rows of ``max_nbr`` / ``max_solid`` columns).
    """
    for i in range(n):
        _build_one(i, pos, n, grid, solids, radius, lists, s_lists)


@njit(cache=True, parallel=True)
def build_lists_parallel(pos, n, grid, solids, radius, lists, s_lists):
    """:func:`build_lists` with the particles in parallel (each writes its own row: the same
    lists)."""
    for i in prange(n):
        _build_one(i, pos, n, grid, solids, radius, lists, s_lists)


@njit(cache=True, parallel=True)
def setup_rows(fluid, lists, s_lists, bodies, consts, out):
    """Per particle: the bias ``bias_scale (rho - rho0)``, at most ``bias_max``, the speculative
    bias ``spec_scale min(rho - rho0, 0)``, and ``1 / A`` (0 where ``A`` is 0); the solid
    weights' mass term counts the particle's side only. ``consts`` = ``(rho0, bias_scale,
    bias_max, spec_scale)``, ``out`` = ``(lam, bias, spec, a_inv)`` (``lam`` is zeroed where
    ``A`` is 0)."""
    _, mat, inv_mass, n = fluid
    nbr, w_, _, _, cnt, rho = lists
    s_nbr, s_w, s_ex, s_ey, s_cnt = s_lists
    _, _, s_owner, b_inv, _ = bodies
    rho0, bias_scale, bias_max, spec_scale = consts
    # by index, not unpacked: numba's parallel dead-code removal does not follow arrays
    # unpacked from a tuple, and dropped the loop's writes to them
    lam = out[0]
    bias = out[1]
    spec = out[2]
    a_inv = out[3]
    for i in prange(n):
        mi = inv_mass[mat[i]]
        a = 0.0
        for k in range(cnt[i]):
            w = w_[i, k]
            a += w * w * (mi + inv_mass[mat[nbr[i, k]]])
        for k in range(s_cnt[i]):
            w = s_w[i, k]
            a += w * w * mi
        for k in range(s_cnt[i]):  # each body once: |sum of its rows|^2 / M
            b = s_owner[s_nbr[i, k]]
            if b < 0 or b_inv[b] == 0.0:
                continue
            first = True
            for k2 in range(k):
                if s_owner[s_nbr[i, k2]] == b:
                    first = False
            if not first:
                continue
            jx = 0.0
            jy = 0.0
            for k2 in range(k, s_cnt[i]):
                if s_owner[s_nbr[i, k2]] == b:
                    jx += s_w[i, k2] * s_ex[i, k2]
                    jy += s_w[i, k2] * s_ey[i, k2]
            a += (jx * jx + jy * jy) * b_inv[b]
        a_inv[i] = 1.0 / a if a > 0.0 else 0.0
        bias[i] = min(bias_scale * (rho[i] - rho0), bias_max)
        spec[i] = spec_scale * min(rho[i] - rho0, 0.0)
        if a == 0.0:
            lam[i] = 0.0


@njit(cache=True, inline="always")
def _apply(i, dl, fluid, lists, s_lists, bodies, b_loc):
    """Give particle ``i``'s constraint the impulse ``dl``: its neighbours pushed away, itself
    back, the solids' share recorded (and a body's velocity change added to its block's
    ``b_loc`` row)."""
    vel, mat, inv_mass, _ = fluid
    nbr, w_, ex, ey, cnt, _ = lists
    s_nbr, s_w, s_ex, s_ey, s_cnt = s_lists
    _, solid_imp, s_owner, b_inv, _ = bodies
    mi = inv_mass[mat[i]]
    dvx = 0.0
    dvy = 0.0
    for k in range(cnt[i]):
        j = nbr[i, k]
        p = dl * w_[i, k]
        px = p * ex[i, k]
        py = p * ey[i, k]
        mj = inv_mass[mat[j]]
        vel[j, 0] += px * mj
        vel[j, 1] += py * mj
        dvx -= px
        dvy -= py
    for k in range(s_cnt[i]):
        s = s_nbr[i, k]
        p = dl * s_w[i, k]
        px = p * s_ex[i, k]
        py = p * s_ey[i, k]
        solid_imp[s, 0] += px
        solid_imp[s, 1] += py
        b = s_owner[s]
        if b >= 0:
            b_loc[b, 0] += px * b_inv[b]
            b_loc[b, 1] += py * b_inv[b]
        dvx -= px
        dvy -= py
    vel[i, 0] += dvx * mi
    vel[i, 1] += dvy * mi


@njit(cache=True, inline="always")
def _block_range(blk, rr, forward, blocks, nb_start, nb_nx, n):
    """Particle range of the ``rr``-th cell row of block ``blk`` (from the top if not
    ``forward``)."""
    cy = blocks[blk, 2] + rr if forward else blocks[blk, 3] - rr
    a = nb_start[cy * nb_nx + blocks[blk, 0]]
    b = min(nb_start[cy * nb_nx + blocks[blk, 1] + 1], n)
    return a, b


@njit(cache=True, inline="always")
def _empty(blk, layout, n):
    """Whether block ``blk`` holds no particle (its sweep would do nothing)."""
    blocks, _, nb_start, nb_nx = layout
    for rr in range(blocks[blk, 3] - blocks[blk, 2] + 1):
        a, b = _block_range(blk, rr, True, blocks, nb_start, nb_nx, n)
        if b > a:
            return False
    return True


@njit(cache=True)
def _block(blk, slot, mode, forward, layout, fluid, lists, s_lists, rows, bodies, coefs, scratch):
    """One block's particles in sorted order (reversed if not ``forward``): ``mode`` 0 applies
    the warm start ``lam``, 1 is a sweep of the constraints, 2 the viscosity (``coefs`` =
    ``(use_bias, rate)``). Returns the largest impulse change (mode 1)."""
    blocks, _, nb_start, nb_nx = layout
    vel, mat, inv_mass, n = fluid
    nbr, w_, ex, ey, cnt, _ = lists
    s_nbr, s_w, s_ex, s_ey, s_cnt = s_lists
    lam, bias, a_inv = rows
    s_vel, _, s_owner, _, b_dv = bodies
    use_bias, rate = coefs
    b_loc, b_hit, _ = scratch
    loc = b_loc[slot]
    worst = 0.0
    hit = False
    for rr in range(blocks[blk, 3] - blocks[blk, 2] + 1):
        a, b = _block_range(blk, rr, forward, blocks, nb_start, nb_nx, n)
        for t in range(b - a):
            i = a + t if forward else b - 1 - t
            if mode == 2:  # viscosity: each listed pair i < j once, momentum conserving
                mi = inv_mass[mat[i]]
                for k in range(cnt[i]):
                    j = nbr[i, k]
                    if j <= i:
                        continue
                    mj = inv_mass[mat[j]]
                    f = rate * w_[i, k] / (mi + mj)
                    px = f * (vel[j, 0] - vel[i, 0])
                    py = f * (vel[j, 1] - vel[i, 1])
                    vel[i, 0] += px * mi
                    vel[i, 1] += py * mi
                    vel[j, 0] -= px * mj
                    vel[j, 1] -= py * mj
                continue
            if mode == 0:
                if lam[i] > 0.0:
                    _apply(i, lam[i], fluid, lists, s_lists, bodies, loc)
                    hit = hit or s_cnt[i] > 0
                continue
            if a_inv[i] == 0.0:
                continue
            vix = vel[i, 0]
            viy = vel[i, 1]
            c = 0.0
            for k in range(cnt[i]):
                j = nbr[i, k]
                c -= w_[i, k] * (ex[i, k] * (vel[j, 0] - vix) + ey[i, k] * (vel[j, 1] - viy))
            for k in range(s_cnt[i]):
                s = s_nbr[i, k]
                svx = s_vel[s, 0]
                svy = s_vel[s, 1]
                o = s_owner[s]
                if o >= 0:  # a body's velocity as the solve has changed it so far
                    svx += b_dv[o, 0] + loc[o, 0]
                    svy += b_dv[o, 1] + loc[o, 1]
                c -= s_w[i, k] * (s_ex[i, k] * (svx - vix) + s_ey[i, k] * (svy - viy))
            new = max(0.0, lam[i] + (c + use_bias * bias[i]) * a_inv[i])
            dl = new - lam[i]
            if dl == 0.0:
                continue
            lam[i] = new
            worst = max(worst, abs(dl))
            _apply(i, dl, fluid, lists, s_lists, bodies, loc)
            hit = hit or s_cnt[i] > 0
    if hit:
        b_hit[slot] = 1
    return worst


@njit(cache=True)
def _gather_bodies(n_slots, b_loc, b_hit, b_dv):
    """Add the blocks' body velocity changes to ``b_dv`` in block order (deterministic)."""
    for k in range(n_slots):
        if b_hit[k]:
            b_dv[:, :] += b_loc[k]
            b_loc[k, :, :] = 0.0
            b_hit[k] = 0


@njit(cache=True)
def sweeps(mode, iters, layout, fluid, lists, s_lists, rows, bodies, coefs, scratch):
    """Sweeps over the blocks of :func:`block_layout`, colour after colour: ``mode`` 0 applies
    the warm start ``lam`` (``iters`` 1), 1 is ``iters`` symmetric Gauss-Seidel sweeps of the
    density constraints (``lam`` accumulates, clamped at 0; the bias times ``use_bias``), 2 is
    ``iters`` passes of the viscosity ``rate`` (``coefs`` = ``(use_bias, rate)``). Blocks of a
    colour are ``2 H`` apart, so a constraint of one never reads or writes what another's does:
    :func:`sweeps_parallel` runs them in parallel, with bit-identical results. Bodies' velocity
    changes (``b_dv``, by solid owner; ``b_inv`` their inverse masses, 0 for none) are gathered
    after each colour, in block order. The groups: see the module docstring. Returns the last
    sweep's largest impulse change."""
    col_start = layout[1]
    b_dv = bodies[4]
    b_loc, b_hit, worst_blk = scratch
    for it in range(iters):
        forward = it % 2 == 0
        for cc in range(4):
            col = cc if forward else 3 - cc
            s0 = col_start[col]
            m = col_start[col + 1] - s0
            for k in range(m):
                if _empty(s0 + k, layout, fluid[3]):  # the call alone costs more than it
                    worst_blk[s0 + k] = 0.0  # (most blocks of a sparse scene are empty)
                    continue
                worst_blk[s0 + k] = _block(s0 + k, k, mode, forward, layout, fluid, lists,
                                           s_lists, rows, bodies, coefs, scratch)
            _gather_bodies(m, b_loc, b_hit, b_dv)
    return worst_blk.max() if len(worst_blk) else 0.0


@njit(cache=True, parallel=True)
def sweeps_parallel(mode, iters, layout, fluid, lists, s_lists, rows, bodies, coefs, scratch):
    """:func:`sweeps` with the blocks of each colour in parallel (the same results)."""
    col_start = layout[1]
    b_dv = bodies[4]
    b_loc, b_hit, worst_blk = scratch
    for it in range(iters):
        forward = it % 2 == 0
        for cc in range(4):
            col = cc if forward else 3 - cc
            s0 = col_start[col]
            m = col_start[col + 1] - s0
            for k in prange(m):
                if _empty(s0 + k, layout, fluid[3]):  # the call alone costs more than it
                    worst_blk[s0 + k] = 0.0  # (most blocks of a sparse scene are empty)
                    continue
                worst_blk[s0 + k] = _block(s0 + k, k, mode, forward, layout, fluid, lists,
                                           s_lists, rows, bodies, coefs, scratch)
            _gather_bodies(m, b_loc, b_hit, b_dv)
    return worst_blk.max() if len(worst_blk) else 0.0


def block_layout(nb_nx: int, nb_ny: int, kb: int) -> tuple[np.ndarray, np.ndarray]:
    """Blocks of ``2 kb x 2 kb`` neighbour cells (at least twice the kernel radius), four
    colours by the parity of their column and row: ``blocks`` (rows ``cx0, cx1, cy0, cy1``,
    colour after colour) and ``col_start`` (5,), where each colour's blocks begin."""
    bk = 2 * kb
    out: list[list[tuple[int, int, int, int]]] = [[], [], [], []]
    for by in range((nb_ny + bk - 1) // bk):
        for bx in range((nb_nx + bk - 1) // bk):
            out[(bx % 2) + 2 * (by % 2)].append(
                (bx * bk, min(bx * bk + bk, nb_nx) - 1, by * bk, min(by * bk + bk, nb_ny) - 1))
    blocks = np.array([b for col in out for b in col], np.int64).reshape(-1, 4)
    col_start = np.cumsum([0] + [len(c) for c in out]).astype(np.int64)
    return blocks, col_start


@njit(cache=True)
def store_warm_start(pos, n, lam, inv_g, gx, gy, g_sum, g_n):
    """Average ``lam`` per cell of a ``gx x gy`` grid of cells ``1 / inv_g`` at the particles'
    positions: ``g_sum`` (overwritten) holds the averages (-1 where empty), ``g_n`` the counts
    (scratch); the
    next substep reads them at its sorted positions (:func:`read_warm_start`)."""
    g_sum[:] = 0.0
    g_n[:] = 0.0
    for i in range(n):
        c = _cell_at(pos[i, 0], pos[i, 1], inv_g, gx, gy)
        g_sum[c] += lam[i]
        g_n[c] += 1.0
    for c in range(gx * gy):
        g_sum[c] = g_sum[c] / g_n[c] if g_n[c] > 0.0 else -1.0


@njit(cache=True)
def read_warm_start(pos, n, inv_g, gx, gy, g_avg, scale, lam):
    """``lam[i] = scale x`` the cell average that :func:`store_warm_start` left at ``pos[i]``,
    -1 where that cell held no particle."""
    for i in range(n):
        c = _cell_at(pos[i, 0], pos[i, 1], inv_g, gx, gy)
        lam[i] = scale * g_avg[c] if g_avg[c] >= 0.0 else -1.0


@njit(cache=True)
def _columns(pos, n, mat, mass, solid_pos, a0, nx, ny, columns):
    """Over the ``a0`` cells: each cell's fluid run top (the highest particle of the unbroken
    stack of occupied cells from it up), the mean particle mass of that stack down to the cell,
    and whether the cell is supported (occupied, and its stack reaches down through occupied
    cells to the floor row or a cell holding solids)."""
    cell_top, occ, solid, run_top, sup, cell_m, run_m = columns
    inv = 1.0 / a0
    cell_top[:] = -np.inf
    occ[:] = 0
    cell_m[:] = 0.0
    solid[:] = False
    for i in range(n):
        k = _cell_at(pos[i, 0], pos[i, 1], inv, nx, ny)
        cell_top[k] = max(cell_top[k], pos[i, 1])
        occ[k] += 1
        cell_m[k] += mass[mat[i]]
    for t in range(len(solid_pos)):
        x = solid_pos[t, 0]
        y = solid_pos[t, 1]
        if 0.0 <= x <= nx * a0 and 0.0 <= y <= ny * a0:  # (the box walls' solids lie outside)
            solid[_cell_at(x, y, inv, nx, ny)] = True
    for xx in range(nx):
        top = -np.inf
        m = 0.0
        c = 0
        for yy in range(ny - 1, -1, -1):
            k = yy * nx + xx
            if occ[k] > 0:
                top = max(top, cell_top[k])
                m += cell_m[k]
                c += occ[k]
            else:
                top = -np.inf
                m = 0.0
                c = 0
            run_top[k] = top
            run_m[k] = m / c if c > 0 else 0.0
        held = True
        for yy in range(ny):
            k = yy * nx + xx
            held = solid[k] or yy == 0 or (held and occ[k] > 0)
            sup[k] = held and occ[k] > 0


@njit(cache=True)
def seed_hydrostatic(pos, n, mat, mass, solid_pos, grid, per_depth, floor, columns, lam):
    """The impulse of the fluid above a particle, ``per_depth x m x`` (the top of its
    unbroken stack of occupied ``a0`` cells - its height), ``m`` the stack's mean particle mass
    down to the particle's cell (:func:`_columns`; honey under water feels the water's
    weight, not its own over the whole depth): where ``lam`` is
    unknown (< 0) it starts there (a freshly filled pool near its hydrostatic pressure instead
    of falling in on itself while the sweeps carry the weight down); where the particle's stack
    stands on the floor or a solid, ``lam`` is raised to at least ``floor`` times it. The
    velocity sweeps see no uniform fall (it changes no density), so the warm start alone
    carried ~57 % of a column's weight and the position correction the rest from its
    compression: a 300-deep pool's surface settled at 285, and pools rested at ~1 % of
    ``sqrt(g d)``. A stack not standing on anything (a falling blob, a jet's drops) gets no
    floor: it is in free fall. ``grid`` = ``(a0, nx, ny)``; ``columns``: scratch of ``nx x
    ny`` (``cell_top``, ``occ``, ``solid``, ``run_top``, ``sup``, ``cell_m``, ``run_m``)."""
    a0, nx, ny = grid
    _columns(pos, n, mat, mass, solid_pos, a0, nx, ny, columns)
    run_top, sup, run_m = columns[3], columns[4], columns[6]
    inv = 1.0 / a0
    for i in range(n):
        k = _cell_at(pos[i, 0], pos[i, 1], inv, nx, ny)
        hyd = per_depth * run_m[k] * max(run_top[k] - pos[i, 1], 0.0)
        if lam[i] < 0.0:
            lam[i] = hyd
        elif sup[k] and lam[i] < floor * hyd:
            lam[i] = floor * hyd


@njit(cache=True)
def follow_sort(cell_of, n_old, nb_start, cursor, scale, lam_old, lam):
    """Carry the impulses of the ``n_old`` particles through the store's last counting sort:
    ``cell_of`` holds each one's cell before the sort (the sort is stable, so the ``k``-th of
    a cell lands at ``nb_start[cell] + k``); ``lam[new] = scale x lam_old[old]``. ``cursor``
    is scratch over the cells."""
    for i in range(n_old):
        cursor[cell_of[i]] = nb_start[cell_of[i]]
    for i in range(n_old):
        c = cell_of[i]
        lam[cursor[c]] = scale * lam_old[i]
        cursor[c] += 1
