"""Stage ``local_repulsion``: paper Eq. 5-6, in Jacobi form, plus fluid-solid contact.

Why Jacobi: the paper's pair loop (Gauss-Seidel, i and j moved in turn) depends on the loop order
and races when run in parallel. Here all displacements of a pass are computed from the same
positions and applied at once. Each pair is evaluated once (half neighbour lists) and gives i and
j equal and opposite shares; stripes of grid rows make the parallel passes race-free and
bit-identical to the serial ones (the lists and the stripes: :mod:`.neighbour_lists`). That is
deterministic and converges as well in the paper's 3 passes.

Per pair (i, j) at distance ``l < R`` along unit ``n`` (from i to j), Eq. 6 gives
``d = R/2 (1 - l/R) n``: i moves by ``-d``, j by ``+d``, and their velocities change by
``-d * dv`` and ``+d * dv``. The paper's ``R`` is ``r_L``; here two fluid particles repel within
``R = FLUID_RADIUS * r_L`` (0.9) and solids at ``r_L``.

Solid particles (walls, bodies) never move. A fluid particle near solids gets the same Eq. 6
displacement and velocity change from each of them, and in addition loses the part of its velocity
relative to the solid that points into the solid (an inelastic contact, weighted over its solid
neighbours so that several contacts do not add up). The loop that gives the fluid a contact's
velocity change adds minus its momentum to the solid, so the momentum exchanged with bodies is
equal and opposite to round-off. A *still* solid (not of a dynamic body, at zero velocity: the
domain walls, static shapes, a kinematic body at rest) removes ``still`` of that velocity
(``FluidParams.wall_inelastic``; :func:`~fluidworld.fluid.params.wall_contact`): all of it
takes the gravity kick off the rows resting on the floor every substep, and the pressure stage,
which holds the column anyway, adds its upward correction on top, so shallow pools jiggle, and
that noise is what starts the overturn of an unstable layering. By default a fluid of one
material keeps the kick (the contact removes only the speed into a still solid beyond the
substep's gravity kick, ``kx, ky``), and one of several materials loses all of it
(``docs/architecture.md``, "Local repulsion").

Multiphase (materials of different masses or miscibility groups present; ``pair_*`` tables, see
:func:`pair_tables`): a pair's two shares are weighted by mass, i moving by ``-d 2 m_j / (m_i +
m_j)`` and j by ``+d 2 m_i / (m_i + m_j)``, so that momentum stays conserved between unequal
masses (the equal-mass case is the plain Eq. 6); and a pair of *immiscible* materials repels out
to a larger radius ``IMMISCIBLE_RADIUS * r_L``, which keeps their particles apart at an interface
(an unlike neighbour costs more room than a like one, so the two phases minimise their contact).

The pass kernels take grouped arguments (tuples, unpacked on their first lines):

* ``fluid = (pos, vel, mat, n)``: the sorted particles and their count (as in the other stages);
  ``mass_table`` (per material) goes beside it;
* ``grid = (n_start, nx, ny, bounds, nstripes, row_work)`` and
  ``lists = (nbr, nbr_count, s_nbr, s_nbr_count)``: the bins, stripes and half lists of
  :mod:`.neighbour_lists` (the same tuples its build takes);
* ``contacts = (s_pos, s_vel, s_dyn, touch, n_touch)``: the solid particles (``s_dyn``: those
  of dynamic bodies), and the fluid particles with solid neighbours (``touch[:n_touch]``, from
  ``neighbour_lists.list_stats``);
* ``consts = (iters, r_l, dv, still)``: Jacobi passes, repulsion radius, velocity change per unit
  displacement, and what of the inelastic contact a still solid takes, ``(share, kx, ky)``:
  ``share`` of the speed into it beyond the substep's gravity kick ``(kx, ky)`` (below);
* ``scratch = (disp, inel, wsum)``: per-particle displacement, inelastic velocity change and
  contact weight;
* ``out = (s_impulse, s_marked)``: what the solids received;
* ``pairs = (pair_half, pair_inv, pair_share)`` or ``None``: the multiphase tables
  (:func:`pair_tables`).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from .neighbour_lists import (
    N_STRIPES,
    _share,
    _stripe_work,
    build_half_lists,
    build_half_lists_parallel,
    list_stats,
    stripe_rows,
)
from .scan import any_other

__all__ = [
    "repulse_passes",
    "repulse_passes_parallel",
    "repulse_fluid",
    "repulse_fluid_parallel",
    "accumulate_solid_impulses",
    "apply_displacements",
    "IMMISCIBLE_RADIUS",
    "pair_tables",
    "material_mix",
]

#: Repulsion radius between particles of immiscible materials, in units of ``r_L``: at most the
#: neighbour lists' cutoff ``1 + skin`` (``FluidSystem.NEIGHBOUR_SKIN`` = 0.1).
IMMISCIBLE_RADIUS = 1.1
#: Repulsion radius between two fluid particles of miscible materials, in units of ``r_L``
#: (solids repel at ``r_L``). ``r_L`` is the spacing of the hexagonal lattice at the rest density
#: ``gamma``; a liquid at that density has half its near pairs closer than ``r_L``, so at ``r_L``
#: the repulsion pushed the fluid apart every substep and the density correction pulled it back:
#: particles moved ~0.3 units a substep in a pool at rest, and it jiggled at 1.3 % of
#: ``sqrt(g d)`` 50 deep (at 0.9: 0.73 %; see ``docs/architecture.md``, Local repulsion).
FLUID_RADIUS = 0.9


def pair_tables(mass, group, r_l):
    """Per-material-pair tables of the multiphase pass: ``(half, inv, share)``, each
    ``(n_materials, n_materials)``: ``half = R / 2`` and ``inv = 1 / R`` with ``R`` the pair's
    repulsion radius (``r_l``, or ``IMMISCIBLE_RADIUS * r_l`` between different ``group``), and
    ``share[a, b] = 2 m_b / (m_a + m_b)``, the part of the pair's displacement a particle of
    material a takes from a partner of material b."""
    mass = np.asarray(mass, np.float64)
    group = np.asarray(group)
    rad = np.where(group[:, None] == group[None, :], FLUID_RADIUS * r_l, IMMISCIBLE_RADIUS * r_l)
    share = 2.0 * mass[None, :] / (mass[:, None] + mass[None, :])
    return 0.5 * rad, 1.0 / rad, share


@njit(cache=True)
def _mix_others(mass, group, k0):
    """Per material, whether it differs from material ``k0`` in mass or group."""
    return (mass != mass[k0]) | (group != group[k0])


@njit(cache=True)
def material_mix(mat, n, mass, group):
    """Whether the first ``n`` particles hold materials of different masses or different
    miscibility groups (the multiphase pass is needed)."""
    if n == 0:
        return False
    return any_other(mat, 1, n, mat[0], _mix_others(mass, group, mat[0]))


@njit(cache=True, parallel=True)
def material_mix_parallel(mat, n, mass, group):
    """:func:`material_mix` over chunks in parallel (the same answer)."""
    if n == 0:
        return False
    chunk = 16384
    nchunk = (n + chunk - 1) // chunk
    found = np.zeros(nchunk, np.bool_)
    other = _mix_others(mass, group, mat[0])
    for t in prange(nchunk):
        found[t] = any_other(mat, t * chunk, min(n, (t + 1) * chunk), mat[0], other)
    return found.any()


@njit(cache=True, inline="always")
def _contact(xi, yi, vxi, vyi, sx, sy, svx, svy, r_l, wsum):
    """What one solid gives fluid particle i: the Eq. 6 displacement ``(ddx, ddy)`` and the
    inelastic velocity change ``(ix, iy)``; the full velocity change is ``dd * dv + i``."""
    rx = sx - xi
    ry = sy - yi
    l2 = rx * rx + ry * ry
    if l2 >= r_l * r_l or l2 <= 1e-24:
        return 0.0, 0.0, 0.0, 0.0, False
    ln = math.sqrt(l2)
    k = 0.5 * r_l * (1.0 - ln / r_l) / ln
    ddx = -k * rx
    ddy = -k * ry
    ix = 0.0
    iy = 0.0
    if wsum > 0.0:
        nx_ = rx / ln
        ny_ = ry / ln
        vn = (vxi - svx) * nx_ + (vyi - svy) * ny_
        if vn > 0.0:
            w = (1.0 - ln / r_l) / wsum
            ix = -w * vn * nx_
            iy = -w * vn * ny_
    return ddx, ddy, ix, iy, True


@njit(cache=True)
def apply_displacements(pos, vel, n, disp, dvel):
    """Apply one Jacobi pass: ``pos += disp``, ``vel += dvel``."""
    for i in range(n):
        pos[i, 0] += disp[i, 0]
        pos[i, 1] += disp[i, 1]
        vel[i, 0] += dvel[i, 0]
        vel[i, 1] += dvel[i, 1]


# ----------------------------------------------------------------------------- Jacobi passes
@njit(cache=True, fastmath=True)
def _rsqrt32(x):
    """Single-precision ``1/sqrt(x)`` (the CPU's estimate plus a Newton step, ~1e-7)."""
    return np.float32(1.0) / math.sqrt(np.float32(x))


@njit(cache=True, inline="always")
def _inv_length(l2):
    """``1/sqrt(l2)`` in single precision (:func:`_rsqrt32`, relative error below 1e-6).

    Eq. 6 needs ``1/l`` for every pair in every pass; a double ``sqrt`` and division cost about
    twice as much, and a double-precision Newton step on top of the estimate ~20 % of a pass.
    Single precision is ample here: the displacement it scales is accumulated in double, a
    pair's two shares stay exactly equal and opposite (momentum is conserved to round-off), and
    Eq. 6 is itself an approximate projection. The estimate is deterministic on a given CPU, but
    CPU models may round it differently, so runs are bit-identical per machine, not across
    machines.
    """
    return np.float64(_rsqrt32(l2))


@njit(cache=True, error_model="numpy")
def _fluid_pass(lo, hi, pos, nbr, nbr_count, half, inv_r, disp):
    """Eq. 6 over the half lists of particles ``lo..hi``: adds ``-d`` to i and ``+d`` to j."""
    # unsigned i (j is unsigned already): numba skips the negative-index wrap-around (-8 %)
    for i in range(np.uint64(lo), np.uint64(hi)):
        xi = pos[i, 0]
        yi = pos[i, 1]
        dx_sum = 0.0
        dy_sum = 0.0
        for q in range(nbr_count[i]):
            j = nbr[i, q]
            rx = pos[j, 0] - xi
            ry = pos[j, 1] - yi
            l2 = rx * rx + ry * ry
            if l2 < 1e-24:  # coincident: split along x, deterministically (j > i goes to +x)
                dx_sum -= 0.5 * half
                disp[j, 0] += 0.5 * half
                continue
            k = half * max(_inv_length(l2) - inv_r, 0.0)  # Eq. 6, zero beyond r_L
            fx = k * rx
            fy = k * ry
            dx_sum -= fx
            dy_sum -= fy
            disp[j, 0] += fx
            disp[j, 1] += fy
        disp[i, 0] += dx_sum
        disp[i, 1] += dy_sum


@njit(cache=True, error_model="numpy")
def _fluid_pass_mp(lo, hi, pos, mat, nbr, nbr_count, pairs, disp):
    """:func:`_fluid_pass` with the multiphase tables ``pairs`` (:func:`pair_tables`): each
    pair's radius and its mass-weighted shares."""
    pair_half, pair_inv, pair_share = pairs
    for i in range(np.uint64(lo), np.uint64(hi)):
        xi = pos[i, 0]
        yi = pos[i, 1]
        a = mat[i]
        half_a = pair_half[a]
        inv_a = pair_inv[a]
        share_a = pair_share[a]
        dx_sum = 0.0
        dy_sum = 0.0
        for q in range(nbr_count[i]):
            j = nbr[i, q]
            b = mat[j]
            rx = pos[j, 0] - xi
            ry = pos[j, 1] - yi
            l2 = rx * rx + ry * ry
            si = share_a[b]
            sj = pair_share[b, a]
            if l2 < 1e-24:  # coincident: split along x, deterministically (j > i goes to +x)
                dx_sum -= 0.5 * half_a[b] * si
                disp[j, 0] += 0.5 * half_a[b] * sj
                continue
            k = half_a[b] * max(_inv_length(l2) - inv_a[b], 0.0)  # Eq. 6, zero beyond R
            fx = k * rx
            fy = k * ry
            dx_sum -= fx * si
            dy_sum -= fy * si
            disp[j, 0] += fx * sj
            disp[j, 1] += fy * sj
        disp[i, 0] += dx_sum
        disp[i, 1] += dy_sum


@njit(cache=True, inline="always")
def _still_share(xi, yi, vxi, vyi, sx, sy, still):
    """The share of a particle's speed into a still solid at ``(sx, sy)`` that the inelastic
    contact removes: ``still = (share, kx, ky)``, ``share`` of the speed beyond the substep's
    gravity kick ``(kx, ky)`` along the contact's normal (a zero kick: ``share`` of all of it)."""
    share, kx, ky = still
    if kx == 0.0 and ky == 0.0:
        return share
    rx = sx - xi
    ry = sy - yi
    vn = vxi * rx + vyi * ry  # (both times the distance: only their ratio counts)
    if vn <= 0.0:
        return 0.0
    return share * max(vn - (kx * rx + ky * ry), 0.0) / vn


@njit(cache=True)
def _contact_pass(fluid, mass_table, lists, contacts, r_l, dv, still, scratch, out):
    """Fluid-solid contacts of the particles in ``touch``: adds the Eq. 6 displacement to
    ``disp``, sets the inelastic velocity change ``inel`` (from a still solid the part
    :func:`_still_share` says, ``still = (share, kx, ky)``) and the contact weight ``wsum``, and
    adds to each solid minus the momentum it gave (paper Sec. 3.3)."""
    pos, vel, mat, _ = fluid
    _, _, s_nbr, s_nbr_count = lists
    s_pos, s_vel, s_dyn, touch, n_touch = contacts
    disp, inel, wsum = scratch
    s_impulse, s_marked = out
    inv_r = 1.0 / r_l
    r_l2 = r_l * r_l
    for t in range(n_touch):
        i = touch[t]
        xi = pos[i, 0]
        yi = pos[i, 1]
        ns = s_nbr_count[i]
        w = 0.0
        for q in range(ns):
            s = s_nbr[i, q]
            rx = s_pos[s, 0] - xi
            ry = s_pos[s, 1] - yi
            l2 = rx * rx + ry * ry
            if l2 < r_l2 and l2 > 1e-24:
                w += 1.0 - math.sqrt(l2) * inv_r
        wsum[i] = w
        ix_sum = 0.0
        iy_sum = 0.0
        if w > 0.0:
            vxi = vel[i, 0]
            vyi = vel[i, 1]
            m = mass_table[mat[i]]
            dx_sum = 0.0
            dy_sum = 0.0
            for q in range(ns):
                s = s_nbr[i, q]
                ddx, ddy, ix, iy, hit = _contact(xi, yi, vxi, vyi, s_pos[s, 0], s_pos[s, 1],
                                                 s_vel[s, 0], s_vel[s, 1], r_l, w)
                if hit:
                    if not (s_dyn[s] or s_vel[s, 0] != 0.0 or s_vel[s, 1] != 0.0):
                        f = _still_share(xi, yi, vxi, vyi, s_pos[s, 0], s_pos[s, 1], still)
                        ix *= f
                        iy *= f
                    dx_sum += ddx
                    dy_sum += ddy
                    ix_sum += ix
                    iy_sum += iy
                    s_impulse[s, 0] -= m * (ddx * dv + ix)
                    s_impulse[s, 1] -= m * (ddy * dv + iy)
                    s_marked[s] = True
            disp[i, 0] += dx_sum
            disp[i, 1] += dy_sum
        inel[i, 0] = ix_sum
        inel[i, 1] = iy_sum


@njit(cache=True)
def _apply(lo, hi, pos, vel, disp, dv):
    for i in range(np.uint64(lo), np.uint64(hi)):
        dx = disp[i, 0]
        dy = disp[i, 1]
        pos[i, 0] += dx
        pos[i, 1] += dy
        vel[i, 0] += dx * dv
        vel[i, 1] += dy * dv
        disp[i, 0] = 0.0
        disp[i, 1] = 0.0


@njit(cache=True)
def _apply_inelastic(vel, touch, n_touch, inel):
    for t in range(n_touch):
        i = touch[t]
        vel[i, 0] += inel[i, 0]
        vel[i, 1] += inel[i, 1]


@njit(cache=True)
def repulse_passes(fluid, mass_table, grid, lists, contacts, consts, scratch, out, pairs=None):
    """``iters`` Jacobi passes of Eq. 5-6 over the half lists, applied in place (serial).

    The argument groups: see the module docstring.
    Each pass: fluid pairs stripe by stripe (even stripes, then odd), then the solid contacts,
    then ``pos += disp`` and ``vel += disp * dv + inel``. ``s_impulse``/``s_marked`` accumulate
    what the solids received. ``disp`` (n, 2) is scratch, left zeroed; ``inel`` (n, 2) and
    ``wsum`` (n) hold the last pass's values for the particles in ``touch``. ``row_work`` only
    balances the threads of the parallel variant. With the ``pairs`` tables
    (:func:`pair_tables`) the fluid pairs get the multiphase pass.
    """
    pos, vel, mat, n = fluid
    n_start, nx, _, bounds, nstripes, _ = grid
    nbr, nbr_count, _, _ = lists
    _, _, _, touch, n_touch = contacts
    iters, r_l, dv, still = consts
    disp, inel, _ = scratch
    half = 0.5 * FLUID_RADIUS * r_l
    inv_r = 1.0 / (FLUID_RADIUS * r_l)
    for i in range(n):
        disp[i, 0] = 0.0
        disp[i, 1] = 0.0
    for _ in range(iters):
        for color in range(2):
            for s in range(color, nstripes, 2):
                lo = n_start[bounds[s] * nx]
                hi = n_start[bounds[s + 1] * nx]
                if pairs is None:
                    _fluid_pass(lo, hi, pos, nbr, nbr_count, half, inv_r, disp)
                else:
                    _fluid_pass_mp(lo, hi, pos, mat, nbr, nbr_count, pairs, disp)
        _contact_pass(fluid, mass_table, lists, contacts, r_l, dv, still, scratch, out)
        _apply(0, n, pos, vel, disp, dv)
        _apply_inelastic(vel, touch, n_touch, inel)


@njit(cache=True, parallel=True)
def repulse_passes_parallel(fluid, mass_table, grid, lists, contacts, consts, scratch, out,
                            nthreads, pairs=None):
    """:func:`repulse_passes` with the stripes of one parity in parallel; bit-identical results.

    Each of ``nthreads`` threads takes a run of the parity's stripes of about equal work
    (particles plus the pairs of ``row_work``): a compressed bottom layer holds several times the
    pairs per particle of the rows above it. Which thread runs a stripe does not change the
    results. The solid contacts stay serial: only particles next to a solid take part, and their
    impulses scatter onto shared solid particles.
    """
    pos, vel, mat, n = fluid
    n_start, nx, _, bounds, nstripes, row_work = grid
    nbr, nbr_count, _, _ = lists
    _, _, _, touch, n_touch = contacts
    iters, r_l, dv, still = consts
    disp, inel, _ = scratch
    half = 0.5 * FLUID_RADIUS * r_l
    inv_r = 1.0 / (FLUID_RADIUS * r_l)
    nw = max(nthreads, 1)
    cum = np.empty((2, nstripes + 1), np.int64)
    m0 = _stripe_work(n_start, nx, bounds, nstripes, row_work, 0, 2, cum[0])
    m1 = _stripe_work(n_start, nx, bounds, nstripes, row_work, 1, 2, cum[1])
    # the particles each thread zeroes and applies: from its first even stripe to the next
    # thread's, the rows its passes write (the data stays in that core's cache)
    lo = np.empty(nw + 1, np.int64)
    for w in range(nw + 1):
        t = _share(cum[0], m0, nw, w)
        lo[w] = n if t >= m0 else n_start[bounds[2 * t] * nx]
    lo[0] = 0
    for w in prange(nw):
        for i in range(lo[w], lo[w + 1]):
            disp[i, 0] = 0.0
            disp[i, 1] = 0.0
    for _ in range(iters):
        for color in range(2):
            m = m1 if color else m0
            for w in prange(nw):
                for t in range(_share(cum[color], m, nw, w), _share(cum[color], m, nw, w + 1)):
                    s = color + 2 * t
                    lo_s = n_start[bounds[s] * nx]
                    hi_s = n_start[bounds[s + 1] * nx]
                    if pairs is None:
                        _fluid_pass(lo_s, hi_s, pos, nbr, nbr_count, half, inv_r, disp)
                    else:
                        _fluid_pass_mp(lo_s, hi_s, pos, mat, nbr, nbr_count, pairs, disp)
        _contact_pass(fluid, mass_table, lists, contacts, r_l, dv, still, scratch, out)
        for w in prange(nw):
            _apply(lo[w], lo[w + 1], pos, vel, disp, dv)
        _apply_inelastic(vel, touch, n_touch, inel)


# ----------------------------------------------------------------------------- one pass, for tests
@njit(cache=True)
def _one_pass_result(n, disp, inel, touch, n_touch, dv, dvel, wsum):
    for i in range(n):
        dvel[i, 0] = disp[i, 0] * dv
        dvel[i, 1] = disp[i, 1] * dv
        wsum[i] = 0.0
    for t in range(n_touch):
        i = touch[t]
        dvel[i, 0] += inel[i, 0]
        dvel[i, 1] += inel[i, 1]


def _still_tuple(still: object) -> tuple[float, float, float]:
    """``(share, kx, ky)`` from a share (no kick) or such a tuple."""
    if isinstance(still, tuple):
        share, kx, ky = still
        return float(share), float(kx), float(ky)
    return float(still), 0.0, 0.0  # type: ignore[arg-type]


def _one_pass(pos, vel, mat, mass_table, n_start, nx, ny, s_pos, s_vel, s_start, s_order, r_l, dv,
              disp, dvel, wsum, s_impulse, s_marked, parallel, s_dyn=None, still=1.0):
    """One pass of the code FluidSystem runs, *not applied*: fills ``disp`` (position change),
    ``dvel`` (velocity change) and ``wsum`` for the sorted particles; accumulates impulses.
    ``s_dyn``/``still``: see the module docstring (default: no dynamic solids, ``still`` 1)."""
    s_dyn = np.zeros(len(s_pos), np.bool_) if s_dyn is None else np.asarray(s_dyn, np.bool_)
    n = int(n_start[-1])
    cap = max(len(pos), 1)
    bounds = np.zeros(N_STRIPES + 1, np.int64)
    row_work = np.zeros(ny, np.int64)
    nst = stripe_rows(n_start, nx, ny, N_STRIPES, bounds, row_work)
    # cells with a solid in their 3x3 block, from the solids' bins
    has = np.pad((np.diff(s_start) > 0).reshape(ny, nx), 1)
    near = np.zeros((ny, nx), np.uint8)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            near |= has[dy: dy + ny, dx: dx + nx]
    near = near.ravel()
    touch = np.zeros(cap, np.int64)
    k, ks = 8, 8
    while True:
        nbr = np.zeros((cap, k), np.uint32)
        cnt = np.zeros(cap, np.int64)
        s_nbr = np.zeros((cap, ks), np.uint32)
        s_cnt = np.zeros(cap, np.int64)
        args = (pos, (n_start, nx, ny, bounds, nst, row_work), (s_pos, s_start, s_order, near),
                r_l, (nbr, cnt, s_nbr, s_cnt))
        if parallel:
            build_half_lists_parallel(*args, numba.get_num_threads())
        else:
            build_half_lists(*args)
        km, ksm, nt = list_stats(cnt, s_cnt, n, touch)
        if km < k and ksm <= ks:
            break
        k = max(k, km + 1)
        ks = max(ks, ksm)
    disp[:n] = 0.0
    inel = np.zeros((cap, 2))
    for color in range(2):
        for s in range(color, nst, 2):
            _fluid_pass(n_start[bounds[s] * nx], n_start[bounds[s + 1] * nx], pos, nbr, cnt,
                        0.5 * FLUID_RADIUS * r_l, 1.0 / (FLUID_RADIUS * r_l), disp)
    w = np.zeros(cap)
    _contact_pass((pos, vel, np.asarray(mat, np.uint8), n), np.asarray(mass_table, np.float64),
                  (nbr, cnt, s_nbr, s_cnt), (s_pos, s_vel, s_dyn, touch, nt), r_l, dv,
                  _still_tuple(still),
                  (disp, inel, w),
                  (s_impulse, s_marked))
    _one_pass_result(n, disp, inel, touch, nt, dv, dvel, wsum)
    wsum[touch[:nt]] = w[touch[:nt]]


def repulse_fluid(pos, vel, n_start, nx, ny, s_pos, s_vel, s_start, s_order, r_l, dv, disp, dvel,
                  wsum, still=1.0, s_dyn=None):
    """One Jacobi repulsion pass (Eq. 6) straight from the sorted bins, not applied (serial).

    Fills ``disp`` (position change), ``dvel`` (velocity change) and ``wsum`` (total solid contact
    weight, 0 where a particle touches no solid). A convenience entry point (tests, tools) over
    the kernels ``FluidSystem`` runs: half lists at cutoff ``r_L``, then one pass. ``still``,
    ``s_dyn``: the still solids' share of the inelastic contact (module docstring).
    """
    m = len(s_pos)
    _one_pass(pos, vel, np.zeros(len(pos), np.uint8), np.ones(1), n_start, nx, ny, s_pos, s_vel,
              s_start, s_order, r_l, dv, disp, dvel, wsum, np.zeros((m, 2)), np.zeros(m, bool),
              False, s_dyn, still)


def repulse_fluid_parallel(pos, vel, n_start, nx, ny, s_pos, s_vel, s_start, s_order, r_l, dv, disp,
                           dvel, wsum, still=1.0, s_dyn=None):
    """:func:`repulse_fluid` with the parallel list build; bit-identical results."""
    m = len(s_pos)
    _one_pass(pos, vel, np.zeros(len(pos), np.uint8), np.ones(1), n_start, nx, ny, s_pos, s_vel,
              s_start, s_order, r_l, dv, disp, dvel, wsum, np.zeros((m, 2)), np.zeros(m, bool),
              True, s_dyn, still)


def accumulate_solid_impulses(pos, vel, mat, mass_table, n_start, nx, ny, s_pos, s_vel, s_start,
                              s_order, r_l, dv, wsum, s_impulse, s_marked):
    """Add to ``s_impulse`` minus the momentum each solid particle gives the fluid in one pass from
    the current positions, and mark solids within ``r_L`` of fluid (paper Sec. 3.3).

    Convenience entry point from the sorted bins (``wsum`` is overwritten with the pass's
    contact weights): the contact kernel :func:`repulse_passes` runs.
    """
    cap = max(len(pos), 1)
    _one_pass(pos, vel, mat, mass_table, n_start, nx, ny, s_pos, s_vel, s_start, s_order, r_l, dv,
              np.zeros((cap, 2)), np.zeros((cap, 2)), wsum, s_impulse, s_marked, False)
