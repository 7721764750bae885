"""Advection, neighbour lists, stripes, signs and material scans: their numba kernels against
the slow numpy references; see ``test_kernels_reference.py`` (the cell pressure's:
``test_kernels_reference_grid.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_scenes import (
    SEEDS,
    close,
    kernel_repulse,
    make_scene,
    sorted_scene,
)

from fluidworld.fluid import advection, binning, collision, repulsion
from fluidworld.fluid import neighbour_lists as nbl
from fluidworld.fluid import reference as ref


# ----------------------------------------------------------------------------- advection
def advect_scene(seed, keep_adhere: float):
    sc = make_scene(seed)
    rng = np.random.default_rng(500 + seed)
    vel = sc.vel.copy()
    vel[: sc.n] = rng.normal(0.0, 40.0, (sc.n, 2))   # h = 0.1: moves up to ~10, many leave
    vel[5] = [np.nan, 1.0]
    vel[6] = [np.inf, -np.inf]
    pos = sc.pos.copy()
    pos[8] = [0.0, 0.0]                                # corners, exactly
    pos[9] = [sc.width, sc.height]
    vel[8] = [-3.0, -4.0]
    vel[9] = [2.0, 7.0]
    bounce = np.array([True, False, True, False])
    rest = np.array([0.0, 0.3, 0.6, 1.0])
    keep = np.array([1.0, keep_adhere, 1.0, keep_adhere])
    return sc, pos, vel, bounce, rest, keep


def kernel_advect(sc, pos, vel, bounce, rest, keep, h, margin):
    p, v = pos.copy(), vel.copy()
    k = advection.advect_and_contain(p, v, sc.mat, sc.n, h, sc.width, sc.height, margin, bounce,
                                     rest, keep)
    return p, v, k


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("margin", [0.0, 1e-5])
@pytest.mark.parametrize("keep_adhere", [1.0, 0.5])
def test_advect_and_contain(seed, margin, keep_adhere):
    """Bounce materials with several restitutions, adhere materials with adhesion 0 and 0.5."""
    sc, pos, vel, bounce, rest, keep = advect_scene(seed, keep_adhere=keep_adhere)
    h = 0.1
    p, v, k = kernel_advect(sc, pos, vel, bounce, rest, keep, h, margin)
    rp, rv, rk = ref.advect_and_contain(pos, vel, sc.mat, sc.n, h, sc.width, sc.height, margin,
                                        bounce, rest, keep)
    assert rk >= 20
    assert k == rk
    close(p[:sc.n], rp)
    close(v[:sc.n], rv)
    assert np.isfinite(v[:sc.n]).all()
    assert (rp[:, 0] >= margin).all() and (rp[:, 0] <= sc.width - margin).all()
    assert (rp[:, 1] >= margin).all() and (rp[:, 1] <= sc.height - margin).all()
    np.testing.assert_array_equal(p[sc.n:], pos[sc.n:])


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_advect_cuts_speeds_to_the_limit(seed):
    """Particles faster than ``max_speed`` are slowed to it along their own direction before
    they move (the serial and parallel kernels and the reference alike); slower ones keep
    their velocity exactly."""
    sc, pos, vel, bounce, rest, keep = advect_scene(seed, keep_adhere=1.0)
    vel[: sc.n] *= 3.0
    cap = 60.0
    got = []
    for kern in (advection.advect_and_contain, advection.advect_and_contain_parallel):
        p, v = pos.copy(), vel.copy()
        kern(p, v, sc.mat, sc.n, 0.1, sc.width, sc.height, 0.0, bounce, rest, keep, cap)
        got.append((p, v))
    rp, rv, _ = ref.advect_and_contain(pos, vel, sc.mat, sc.n, 0.1, sc.width, sc.height, 0.0,
                                       bounce, rest, keep, cap)
    for p, v in got:
        close(p[: sc.n], rp)
        close(v[: sc.n], rv)
    speed = np.hypot(*vel[: sc.n].T)
    fast = np.isfinite(speed) & (speed > cap)
    assert fast.sum() > 20 and (np.hypot(*rv.T) <= cap * (1 + 1e-12)).all()
    inside = (rp > 1.0).all(axis=1) & (rp < [sc.width - 1.0, sc.height - 1.0]).all(axis=1)
    slow = ~fast & np.isfinite(speed) & inside
    np.testing.assert_array_equal(rv[slow], vel[: sc.n][slow])


@pytest.mark.parametrize("bounce", [False, True])
def test_advect_wall_contact_by_hand(bounce):
    """A particle sliding along the floor (vx = 10) and through it (vy = -5), h = 0.1, from
    y = 0.2: it would end at y = -0.3.

    * adhere, adhesion 0.5 (Material: keeps only ``1 - adhesion`` of the velocity): clamped to
      y = 0, the velocity into the floor removed, the rest halved, *along the wall too*: (5, 0).
    * bounce, restitution 0.5: the 0.3 overshoot comes back as 0.15, vy = +2.5, vx untouched.
    """
    pos = np.array([[20.0, 0.2]])
    vel = np.array([[10.0, -5.0]])
    mat = np.zeros(1, np.uint8)
    args = (mat, 1, 0.1, 40.0, 40.0, 0.0, np.array([bounce]), np.array([0.5]), np.array([0.5]))
    rp, rv, rk = ref.advect_and_contain(pos, vel, *args)
    if bounce:
        close(rp, [[21.0, 0.15]])
        close(rv, [[10.0, 2.5]])
    else:
        close(rp, [[21.0, 0.0]])
        close(rv, [[5.0, 0.0]])
    p, v = pos.copy(), vel.copy()
    assert advection.advect_and_contain(p, v, *args) == rk == 1
    close(p, rp)
    close(v, rv)


def _half_lists(sc, pos, start, s_start, s_order, k, ks, parallel=0):
    """The half lists of a scene, serial or (``parallel`` > 0) with that many threads' shares."""
    cap = len(pos)
    bounds = np.zeros(nbl.N_STRIPES + 1, np.int64)
    work = np.zeros(sc.nb_ny, np.int64)
    nst = nbl.stripe_rows(start, sc.nb_nx, sc.nb_ny, nbl.N_STRIPES, bounds, work)
    nbr, cnt = np.zeros((cap, k), np.int32), np.zeros(cap, np.int64)
    s_nbr, s_cnt = np.zeros((cap, ks), np.int32), np.zeros(cap, np.int64)
    near = np.zeros(sc.nb_nx * sc.nb_ny, np.uint8)
    m = len(sc.s_pos)
    binning.mark_near_cells(sc.s_pos, m, 1.0 / sc.nb_h, sc.nb_nx, sc.nb_ny, near,
                            np.zeros(9 * m, np.int64), 0)
    args = (pos, (start, sc.nb_nx, sc.nb_ny, bounds, nst, work), (sc.s_pos, s_start, s_order, near),
            sc.r_l, (nbr, cnt, s_nbr, s_cnt))
    if parallel:  # any thread count gives the same lists
        nbl.build_half_lists_parallel(*args, parallel)
    else:
        nbl.build_half_lists(*args)
    return bounds, nst, nbr, cnt, s_nbr, s_cnt


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("gamma", [2.0, 5.0, 20.0])
def test_half_lists_and_fused_passes(seed, gamma):
    """The half neighbour lists hold every pair within the cutoff exactly once (under the lower
    index); the fused passes FluidSystem runs apply the one-pass result checked against the
    brute-force reference above; serial and parallel are bit-identical; impulses balance."""
    sc, pos, vel, mat, start, s_start, s_order = sorted_scene(seed, gamma=gamma)
    n = sc.n
    cap = len(pos)
    # stripes: at least one row each, about equal particle counts, covering every row
    bounds = np.zeros(nbl.N_STRIPES + 1, np.int64)
    nst = nbl.stripe_rows(start, sc.nb_nx, sc.nb_ny, nbl.N_STRIPES, bounds,
                          np.zeros(sc.nb_ny, np.int64))
    assert 2 <= nst <= nbl.N_STRIPES
    assert bounds[0] == 0 and bounds[nst] == sc.nb_ny and np.all(np.diff(bounds[: nst + 1]) > 0)
    # too-narrow lists report the true counts, so the caller can widen them
    _, _, _, cnt, _, s_cnt = _half_lists(sc, pos, start, s_start, s_order, 2, 2)
    k, ks = int(cnt[:n].max()), int(s_cnt[:n].max())
    assert k > 2 and ks > 2
    bounds, nst, nbr, cnt2, s_nbr, s_cnt2 = _half_lists(sc, pos, start, s_start, s_order, k + 1, ks)
    np.testing.assert_array_equal(cnt2[:n], cnt[:n])
    listed = {(i, int(j)) for i in range(n) for j in nbr[i, : cnt[i]]}
    d2 = ((pos[:n, None, :] - pos[None, :n, :]) ** 2).sum(axis=2)
    ii, jj = np.nonzero(np.triu(d2 < sc.r_l ** 2, k=1))
    assert listed == set(zip(ii.tolist(), jj.tolist(), strict=True))
    sd2 = ((pos[:n, None, :] - sc.s_pos[None, :, :]) ** 2).sum(axis=2)
    for i in range(n):
        assert sorted(s_nbr[i, : s_cnt[i]]) == np.nonzero(sd2[i] < sc.r_l ** 2)[0].tolist()
    for nthreads in (1, 2, 5):
        _, _, nbr_p, cnt_p, s_nbr_p, s_cnt_p = _half_lists(sc, pos, start, s_start, s_order,
                                                           k + 1, ks, parallel=nthreads)
        np.testing.assert_array_equal(cnt_p[:n], cnt[:n])
        np.testing.assert_array_equal(nbr_p[:n], nbr[:n])
        np.testing.assert_array_equal(s_nbr_p[:n], s_nbr[:n])
    touch = np.zeros(cap, np.int64)
    km, ksm, nt = nbl.list_stats(cnt, s_cnt, n, touch)
    assert (km, ksm) == (k, ks) and list(touch[:nt]) == np.nonzero(s_cnt[:n])[0].tolist()

    dv = 0.2
    disp, dvel, wsum = kernel_repulse(repulsion.repulse_fluid, sc, pos, vel, start, s_start,
                                      s_order, dv)
    # stripes balanced by the pairs just listed, as FluidSystem cuts them
    work = np.zeros(sc.nb_ny, np.int64)
    nbl.row_pairs(start, sc.nb_nx, sc.nb_ny, cnt, s_cnt, work)
    assert work.sum() == cnt[:n].sum() + s_cnt[:n].sum()
    # the fused pass FluidSystem takes gives the same stats, touch list and row pairs
    work2, touch2 = np.full(sc.nb_ny, -1, np.int64), np.zeros(cap, np.int64)
    assert nbl.list_stats_rows(start, sc.nb_nx, sc.nb_ny, cnt, s_cnt, n, touch2,
                               work2) == (km, ksm, nt)
    assert np.array_equal(work2, work) and np.array_equal(touch2[:nt], touch[:nt])
    nst = nbl.stripe_rows(start, sc.nb_nx, sc.nb_ny, nbl.N_STRIPES, bounds, work)
    results = []
    # serial with 1 and 3 passes; parallel split into 1, 2 and 5 threads' shares
    for iters, nthreads in ((1, 0), (3, 0), (3, 1), (3, 2), (3, 5)):
        p2, v2 = pos.copy(), vel.copy()
        imp, marked = np.zeros((len(sc.s_pos), 2)), np.zeros(len(sc.s_pos), bool)
        w2 = np.zeros(cap)
        args = ((p2, v2, mat, n), sc.mass, (start, sc.nb_nx, sc.nb_ny, bounds, nst, work),
                (nbr, cnt, s_nbr, s_cnt),
                (sc.s_pos, sc.s_vel, np.zeros(len(sc.s_pos), bool), touch, nt),
                (iters, sc.r_l, dv, (1.0, 0.0, 0.0)),  # still: (share, kick)
                (np.zeros((cap, 2)), np.zeros((cap, 2)), w2), (imp, marked))
        if nthreads:
            repulsion.repulse_passes_parallel(*args, nthreads)
        else:
            repulsion.repulse_passes(*args)
        results.append((p2, v2, imp, marked))
        if iters == 1:
            close(p2[:n], pos[:n] + disp[:n])
            close(v2[:n], vel[:n] + dvel[:n])
            close(w2[touch[:nt]], wsum[touch[:nt]])
            rimp, rmarked = ref.accumulate_solid_impulses(pos, vel, mat, sc.mass, n, sc.s_pos,
                                                          sc.s_vel, sc.r_l, dv)
            close(imp, rimp)
            np.testing.assert_array_equal(marked, rmarked)
    for other in results[2:]:  # parallel, with any thread count: bit-identical to serial
        for a, b in zip(results[1], other, strict=True):
            assert np.array_equal(a, b)


def test_stripes_balance_the_work_of_the_rows():
    """Stripes cover every row once, each at least one row, and split the rows' work (particles
    plus listed pairs) evenly: a dense bottom band gets more, thinner stripes than sparse rows."""
    nx, ny = 4, 64
    per_row = np.where(np.arange(ny) < 16, 40, 10)  # particles per row: a dense bottom band
    start = np.zeros(nx * ny + 1, np.int64)
    start[1:] = np.repeat(per_row, nx).cumsum() // nx
    start[-1] = per_row.sum()
    pairs = np.zeros(ny, np.int64)
    nbr_count = np.where(np.repeat(np.arange(ny), per_row) < 16, 6, 1)  # dense rows: more pairs
    nbl.row_pairs(start, nx, ny, nbr_count, np.ones(len(nbr_count), np.int64), pairs)
    np.testing.assert_array_equal(pairs, np.where(np.arange(ny) < 16, 280, 20))
    work = per_row + pairs
    for weights, rows_work in ((np.zeros(ny, np.int64), per_row), (pairs, work)):
        bounds = np.zeros(9, np.int64)
        nst = nbl.stripe_rows(start, nx, ny, 8, bounds, weights)
        assert nst == 8 and bounds[0] == 0 and bounds[nst] == ny
        assert np.all(np.diff(bounds[: nst + 1]) >= 1)
        shares = [rows_work[bounds[s]: bounds[s + 1]].sum() for s in range(nst)]
        # every stripe within one row's work of the ideal share
        assert max(abs(x - rows_work.sum() / nst) for x in shares) <= rows_work.max()
    # balanced by pairs, the dense band (16 rows) is cut into more stripes than by particles
    by_particles = np.zeros(9, np.int64)
    nbl.stripe_rows(start, nx, ny, 8, by_particles, np.zeros(ny, np.int64))
    assert (bounds[:nst] < 16).sum() > (by_particles[:nst] < 16).sum()


def test_mark_near_cells_is_the_3x3_dilation_of_occupied_cells():
    """Flags match a numpy dilation; a second call clears the first call's flags itself."""
    rng = np.random.default_rng(3)
    nx, ny, h = 17, 11, 2.0
    near = np.zeros(nx * ny, np.uint8)
    marked = np.zeros(9 * 40, np.int64)
    k = 0
    for m in (40, 7, 0, 25):
        pts = rng.uniform(0.0, 1.0, (m, 2)) * [nx * h, ny * h]
        k = binning.mark_near_cells(pts, m, 1.0 / h, nx, ny, near, marked, k)
        occ = np.zeros((ny + 2, nx + 2), bool)
        occ[1 + (pts[:, 1] / h).astype(int), 1 + (pts[:, 0] / h).astype(int)] = True
        want = np.zeros((ny, nx), bool)
        for dy in range(3):
            for dx in range(3):
                want |= occ[dy: dy + ny, dx: dx + nx]
        np.testing.assert_array_equal(near.reshape(ny, nx).astype(bool), want)
        assert k == want.sum()


def test_inverse_length_is_accurate_over_the_whole_range():
    """Eq. 6's ``1/l`` is computed in single precision: it must stay within 1e-6 of ``1/sqrt``
    from coincident-pair distances to huge worlds (and not be exact: else this test is moot)."""
    from numba import njit

    @njit
    def inv(a, out):
        for i in range(len(a)):
            out[i] = repulsion._inv_length(a[i])

    l2 = np.geomspace(1e-24, 1e12, 20001)
    out = np.empty_like(l2)
    inv(l2, out)
    rel = np.abs(out * np.sqrt(l2) - 1.0)
    assert rel.max() < 1e-6
    assert rel.max() > 1e-12


def test_random_signs_are_balanced_deterministic_and_uncorrelated():
    a = np.zeros(100_000, np.int8)
    b = np.zeros_like(a)
    collision.random_signs(2024, a)
    collision.random_signs(2024, b)
    assert np.array_equal(a, b)
    assert set(np.unique(a)) == {-1, 1}
    assert abs(a.astype(float).mean()) < 0.01                      # balanced
    assert abs((a[1:] * a[:-1]).astype(float).mean()) < 0.01       # neighbours independent
    collision.random_signs(2025, b)
    assert abs((a * b).astype(float).mean()) < 0.01                # another seed, other signs
    # a sub-range gets the same signs as the full fill and leaves the rest alone
    c = np.zeros_like(a)
    collision.random_signs(2024, c, 500, 7000)
    assert np.array_equal(c[500:7000], a[500:7000])
    assert not c[:500].any() and not c[7000:].any()


@pytest.mark.parametrize("parallel", [False, True])
def test_srd_collide_draws_the_signs_of_the_rows_in_use(parallel):
    """With a seed, the kernel fills the signs of the rows from the lowest to the highest
    particle only, and the result equals a run on signs drawn for every cell beforehand."""
    sc = make_scene(4)
    ncx, ncy = sc.nx + 1, sc.ny + 1
    nc = ncx * ncy
    pos = sc.pos.copy()
    pos[: sc.n, 1] = 10.0 + (pos[: sc.n, 1] % 9.0)   # every particle in rows 1..2 (shift 3.5)
    collide = collision.srd_collide_parallel if parallel else collision.srd_collide
    full = np.zeros(nc, np.int8)
    collision.random_signs(77, full)
    results = []
    for seed, signs in ((-1, full.copy()), (77, np.zeros(nc, np.int8))):
        v = sc.vel.copy()
        collide((pos, v, sc.mat, sc.n), (sc.mass, sc.alpha, sc.visc), (sc.a0, 1.0, 3.5, ncx, ncy),
                (signs, np.zeros(nc), np.zeros((nc, 2)), np.zeros(nc), np.zeros(nc),
                 np.zeros((nc, 2))), seed)
        results.append((v, signs))
    assert np.array_equal(results[0][0], results[1][0])
    drawn = results[1][1]
    rows = np.nonzero(drawn.reshape(ncy, ncx).any(axis=1))[0]
    assert rows.tolist() == [1, 2]
    assert np.array_equal(drawn[ncx: 3 * ncx], full[ncx: 3 * ncx])


# ----------------------------------------------------------------------------- material scans
@pytest.mark.parametrize("at", [None, 1, "block-1", "block", "2block+5", "last"])
def test_material_checks_find_one_odd_particle_anywhere(at: object) -> None:
    """The stages' "more than one material?" checks skip blocks of one material by a vector
    scan (``fluid.scan``): one particle of another mass, group, density or rotation angle is
    found wherever it sits, at block edges too, and a fluid of one material is uniform."""
    from fluidworld.fluid import pressure_variable as pv
    from fluidworld.fluid.scan import BLOCK

    n = 3 * BLOCK + 17
    mat = np.full(n + 50, 2, np.uint8)
    mat[n:] = 0  # garbage past the live particles is not looked at
    idx = {None: None, 1: 1, "block-1": BLOCK - 1, "block": BLOCK, "2block+5": 2 * BLOCK + 5,
           "last": n - 1}[at]
    odd = idx is not None
    mass = np.array([1.0, 1.0, 1.0, 1.0])
    group = np.array([0, 0, 0, 0], np.uint8)
    inv_rho = np.array([1.0, 1.0, 1.0, 1.0])
    alpha = np.array([2.0, 2.0, 2.0, 2.0])
    for table in (mass, group, inv_rho, alpha):
        table[3] = table[2] + 1
    if odd:
        mat[idx] = 3
    assert repulsion.material_mix(mat, n, mass, group) == odd
    assert repulsion.material_mix_parallel(mat, n, mass, group) == odd
    assert pv.mixed_densities(mat, n, inv_rho) == odd
    assert pv.mixed_densities_parallel(mat, n, inv_rho) == odd
    assert collision._uniform(alpha, np.zeros(4), group, mat, n) == (not odd, 2)
    # another material with the same tables' values is no mix
    if odd:
        mat[idx] = 1
        assert not repulsion.material_mix(mat, n, mass, group)
        assert not pv.mixed_densities_parallel(mat, n, inv_rho)
