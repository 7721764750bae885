"""Every numba kernel stage against its slow numpy reference (``fluidworld.fluid.reference``).

Small random scenes (a few cells, 50-300 particles, several materials, wall and body solids, air
cells, particles on and just outside the walls, coincident pairs); the kernel must match the
reference to round-off, the sorts exactly, and the parallel variants the serial ones bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_scenes import (
    SEEDS,
    close,
    close_eq6,
    kernel_bin_solids,
    kernel_repulse,
    kernel_sort,
    make_scene,
    sorted_scene,
)

from fluidworld.fluid import binning, collision, repulsion
from fluidworld.fluid import reference as ref


# ----------------------------------------------------------------------------- binning
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("gamma", [2.0, 5.0, 20.0])
@pytest.mark.parametrize("grid", ["rl", "nested"])
def test_sort_particles_exact(seed, gamma, grid):
    sc = make_scene(seed, gamma=gamma, grid=grid)
    pos2, vel2, mat2, start, cell_of = kernel_sort(sc)
    rp, rv, rm, rstart, rcell = ref.sort_particles(sc.pos, sc.vel, sc.mat, sc.n, 1.0 / sc.nb_h,
                                                   sc.nb_nx, sc.nb_ny)
    n = sc.n
    np.testing.assert_array_equal(start, rstart)
    np.testing.assert_array_equal(cell_of[:n], rcell)
    np.testing.assert_array_equal(pos2[:n], rp)
    np.testing.assert_array_equal(vel2[:n], rv)
    np.testing.assert_array_equal(mat2[:n], rm)
    # the reference really is numpy's stable argsort of the clamped cell index
    cx = np.clip((sc.pos[:n, 0] * (1.0 / sc.nb_h)).astype(int), 0, sc.nb_nx - 1)
    assert np.array_equal(rp, sc.pos[:n][np.argsort(rcell, kind="stable")])
    assert rcell.max() < sc.nb_nx * sc.nb_ny and np.array_equal(rcell % sc.nb_nx, cx)


def test_sort_particles_reuses_its_span_exactly():
    """Successive sorts into the same ``cell_start`` touch only the occupied span (and the last
    one's), yet always give the full prefix array: bands moving up and down, growing, shrinking,
    a particle count that changes, and no particle at all."""
    rng = np.random.default_rng(11)
    nx, ny, h = 13, 40, 1.0
    ncell = nx * ny
    start = np.full(ncell + 1, -7, np.int64)
    span = np.array([0, ncell - 1, -1])
    cap = 300
    pos2, vel2, mat2 = np.zeros((cap, 2)), np.zeros((cap, 2)), np.zeros(cap, np.uint8)
    cell_of = np.zeros(cap, np.int64)
    bands = [(5, 9, 200), (20, 30, 200), (0, 3, 200), (0, 40, 150), (38, 40, 150), (10, 12, 0),
             (10, 12, 50), (-5, 45, 300), (17, 18, 300)]
    for k, (y0, y1, n) in enumerate(bands):
        keep = np.zeros((cap if k % 2 else 0, 2))  # kept start positions, or none
        pos = np.zeros((cap, 2))
        pos[:n] = rng.uniform([0.0, y0], [nx * h, y1], (n, 2))
        vel = rng.normal(0.0, 1.0, (cap, 2))
        mat = rng.integers(0, 3, cap).astype(np.uint8)
        binning.sort_particles((pos, vel, mat, n), 1.0 / h, nx, ny, (pos2, vel2, mat2), start,
                               cell_of, span, keep)
        if len(keep):
            np.testing.assert_array_equal(keep[:n], pos2[:n])
        rp, rv, rm, rstart, rcell = ref.sort_particles(pos, vel, mat, n, 1.0 / h, nx, ny)
        np.testing.assert_array_equal(start, rstart)
        np.testing.assert_array_equal(pos2[:n], rp)
        np.testing.assert_array_equal(vel2[:n], rv)
        np.testing.assert_array_equal(mat2[:n], rm)
        if n:
            assert (span[0], span[1], span[2]) == (rcell.min(), rcell.max(), n)


@pytest.mark.parametrize("seed", SEEDS)
def test_bin_points_exact(seed):
    sc = make_scene(seed)
    s_start, s_order = kernel_bin_solids(sc)
    rstart, rorder = ref.bin_points(sc.s_pos, len(sc.s_pos), 1.0 / sc.nb_h, sc.nb_nx, sc.nb_ny)
    np.testing.assert_array_equal(s_start, rstart)
    np.testing.assert_array_equal(s_order, rorder)


def test_bin_points_reuses_its_span_exactly():
    """Successive binnings into the same ``cell_start`` with a ``span`` touch only the occupied
    cells (and those of the last call), yet give the reference's full arrays every time: points
    that gather, spread, grow in number, shrink and vanish."""
    rng = np.random.default_rng(7)
    nx, ny, inv = 23, 17, 0.5
    start = np.full(nx * ny + 1, -7, np.int64)
    span = np.array([0, nx * ny - 1, -1])
    for m, (x0, x1) in ((40, (10, 20)), (40, (0, 45)), (90, (30, 44)), (5, (2, 4)), (0, (0, 1)),
                        (60, (0, 46))):
        pts = np.column_stack([rng.uniform(x0, x1, m), rng.uniform(0, 33, m)])
        order = np.full(m, -1, np.int64)
        binning.bin_points(pts, m, inv, nx, ny, start, order, span)
        rstart, rorder = ref.bin_points(pts, m, inv, nx, ny)
        np.testing.assert_array_equal(start, rstart)
        np.testing.assert_array_equal(order, rorder)


def test_bin_points_over_static_walls_gives_the_full_binning_every_call():
    """Walls binned once, moving points over them (:func:`binning.bin_points_over`): after each
    call the arrays equal the reference's binning of all points, while the moving points
    gather, spread, leave the grid's middle, change in number or vanish."""
    rng = np.random.default_rng(11)
    nx, ny, inv = 23, 17, 0.5
    walls = np.concatenate([np.column_stack([np.linspace(0, 45, 30), np.zeros(30)]),
                            np.column_stack([np.linspace(0, 45, 30), np.full(30, 33.5)]),
                            np.column_stack([np.zeros(12), np.linspace(0, 33, 12)])])
    nw = len(walls)
    w_start = np.zeros(nx * ny + 1, np.int64)
    w_order = np.zeros(nw, np.int64)
    binning.bin_points(walls, nw, inv, nx, ny, w_start, w_order)
    start = np.full(nx * ny + 1, -7, np.int64)
    span = np.array([0, nx * ny - 1, -1])
    order = None
    for mb, (y0, y1) in ((40, (10, 14)), (40, (12, 20)), (40, (0, 33)), (40, (30, 34)),
                         (90, (5, 9)), (90, (6, 9)), (0, (0, 1)), (0, (0, 1)), (25, (20, 21))):
        pts = np.concatenate([walls, np.column_stack([rng.uniform(0, 46, mb),
                                                      rng.uniform(y0, y1, mb)])])
        m = len(pts)
        if order is None or len(order) != m:
            order = np.full(m, -1, np.int64)
        binning.bin_points_over(pts, nw, m, inv, nx, ny, (w_start, w_order), start, order, span)
        rstart, rorder = ref.bin_points(pts, m, inv, nx, ny)
        np.testing.assert_array_equal(start, rstart)
        np.testing.assert_array_equal(order, rorder)


def test_mark_near_cells_over_static_flags_restores_them():
    """With ``base`` (the walls' flags) a call clears only back to the walls' flags: the result
    is the dilation of walls and moving points together, call after call."""
    rng = np.random.default_rng(5)
    nx, ny, h = 17, 11, 2.0
    walls = np.column_stack([np.linspace(0, nx * h - 0.1, 20), np.full(20, 0.5)])
    base = np.zeros(nx * ny, np.uint8)
    binning.mark_near_cells(walls, len(walls), 1.0 / h, nx, ny, base,
                            np.zeros(9 * len(walls), np.int64), 0)
    near = base.copy()
    marked = np.zeros(9 * 60, np.int64)
    k = 0
    for m in (40, 7, 0, 25):
        pts = np.concatenate([walls, rng.uniform(0.0, 1.0, (m, 2)) * [nx * h, ny * h]])
        k = binning.mark_near_cells(pts, len(pts), 1.0 / h, nx, ny, near, marked, k,
                                    len(walls), base)
        want = np.zeros(nx * ny, np.uint8)
        binning.mark_near_cells(pts, len(pts), 1.0 / h, nx, ny, want,
                                np.zeros(9 * len(pts), np.int64), 0)
        np.testing.assert_array_equal(near, want)


def test_gather_cells_matches_numpy_indexing():
    """The renderers' per-particle fields in one kernel pass: the same values as indexing the
    field with the clamped cell indices (points outside, on faces, NaN clamped alike)."""
    rng = np.random.default_rng(3)
    a0, nx, ny = 10.0, 7, 5
    pts = rng.uniform(-15.0, 85.0, (400, 2))
    pts[:20] = np.round(pts[:20] / a0) * a0  # on cell faces
    pts[20] = np.nan
    scalar = rng.normal(size=(ny, nx))
    vector = rng.normal(size=(ny, nx, 2))
    with np.errstate(invalid="ignore"):
        i = np.clip((pts[:, 0] / a0).astype(np.intp), 0, nx - 1)
        j = np.clip((pts[:, 1] / a0).astype(np.intp), 0, ny - 1)
    assert np.array_equal(binning.gather_cells(pts, a0, scalar), scalar[j, i])
    assert np.array_equal(binning.gather_cells(pts, a0, vector), vector[j, i])
    pts[21] = (np.inf, -np.inf)
    assert np.array_equal(binning.gather_cells(pts[21:22], a0, scalar), scalar[:1, -1])


def test_bin_points_zero_points():
    start = np.full(13, -1, np.int64)
    binning.bin_points(np.zeros((0, 2)), 0, 0.5, 3, 4, start, np.zeros(0, np.int64))
    np.testing.assert_array_equal(start, np.zeros(13, np.int64))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("gamma", [2.0, 5.0, 20.0])
@pytest.mark.parametrize("grid", ["rl", "nested"])
def test_repulse_fluid_matches_brute_force(seed, gamma, grid):
    sc, pos, vel, mat, start, s_start, s_order = sorted_scene(seed, gamma=gamma, grid=grid)
    dv = 0.37
    disp, dvel, wsum = kernel_repulse(repulsion.repulse_fluid, sc, pos, vel, start, s_start,
                                      s_order, dv)
    rdisp, rdvel, rwsum = ref.repulse_fluid(pos, vel, sc.n, sc.s_pos, sc.s_vel, sc.r_l, dv)
    n = sc.n
    # the scene exercises what it should: overlaps, solid contacts, approaching contacts
    assert (np.abs(rdisp).sum(axis=1) > 0).sum() > n // 2
    assert (rwsum > 0).sum() >= 10
    close(wsum[:n], rwsum)
    close_eq6(disp[:n], rdisp, sc.r_l)
    close_eq6(dvel[:n], rdvel, sc.r_l * dv)
    # the parallel variant is bit-identical to the serial one
    pd, pv, pw = kernel_repulse(repulsion.repulse_fluid_parallel, sc, pos, vel, start, s_start,
                                s_order, dv)
    assert np.array_equal(pd[:n], disp[:n])
    assert np.array_equal(pv[:n], dvel[:n])
    assert np.array_equal(pw[:n], wsum[:n])


def _still_kernel_against_reference(seed, dv, still):
    """The serial kernel's pass with the still solids' contact ``still`` (keyword arguments of
    both) checked against the reference; returns ``(disp, dvel, reference dvel, reference dvel
    with the plain contact)``."""
    sc, pos, vel, mat, start, s_start, s_order = sorted_scene(seed, gamma=5.0, grid="rl")
    n = sc.n
    disp, dvel, wsum = kernel_repulse(repulsion.repulse_fluid, sc, pos, vel, start, s_start,
                                      s_order, dv, **still)
    rdisp, rdvel, rwsum = ref.repulse_fluid(pos, vel, n, sc.s_pos, sc.s_vel, sc.r_l, dv, **still)
    close(wsum[:n], rwsum)
    close_eq6(disp[:n], rdisp, sc.r_l)
    close_eq6(dvel[:n], rdvel, sc.r_l * dv)
    _, full, _ = ref.repulse_fluid(pos, vel, n, sc.s_pos, sc.s_vel, sc.r_l, dv)
    return disp, dvel, rdvel, full


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_still_solids_take_their_share_of_the_inelastic_contact(seed):
    """``FluidParams.wall_inelastic``: the walls (at rest) remove ``still`` of a particle's
    velocity into them; solids of dynamic bodies (``s_dyn``, here a run of wall solids) and
    moving solids (the ring) all of it. Kernel against reference; and the share changes the
    result where particles press on the walls."""
    sc, pos, vel, mat, start, s_start, s_order = sorted_scene(seed, gamma=5.0, grid="rl")
    dv = 0.37
    s_dyn = np.zeros(len(sc.s_pos), bool)
    s_dyn[: len(sc.s_pos) // 8] = True
    still = {"still": 0.25, "s_dyn": s_dyn}
    n = sc.n
    disp, dvel, rdvel, full = _still_kernel_against_reference(seed, dv, still)
    _, none_dyn, _ = ref.repulse_fluid(pos, vel, n, sc.s_pos, sc.s_vel, sc.r_l, dv, still=0.25)
    assert np.abs(full - rdvel).max() > 1e-3  # the walls' share changed something
    assert np.abs(none_dyn - rdvel).max() > 1e-3  # and the dynamic run kept all of it
    pd, pv, pw = kernel_repulse(repulsion.repulse_fluid_parallel, sc, pos, vel, start, s_start,
                                s_order, dv, **still)
    assert np.array_equal(pv[:n], dvel[:n]) and np.array_equal(pd[:n], disp[:n])


@pytest.mark.parametrize("seed", SEEDS)
def test_still_solids_can_leave_the_gravity_kick(seed):
    """``params.wall_contact`` of a fluid of one material: a still solid removes the speed into
    it beyond the substep's gravity kick ``(kx, ky)`` (so a particle resting on the floor keeps
    the kick, as its cell-mates do). Kernel against reference, and it differs from removing
    all of it."""
    sc, pos, vel, mat, start, s_start, s_order = sorted_scene(seed, gamma=5.0, grid="rl")
    dv = 0.37
    n = sc.n
    _, _, rdvel, full = _still_kernel_against_reference(seed, dv, {"still": (1.0, 0.3, -0.6)})
    assert np.abs(full - rdvel).max() > 1e-3  # the kick left something
    _, nokick, _ = ref.repulse_fluid(pos, vel, n, sc.s_pos, sc.s_vel, sc.r_l, dv,
                                     still=(1.0, 0.0, 0.0))
    close_eq6(nokick, full, sc.r_l * dv)  # a zero kick is the plain share


def test_repulse_fluid_without_solids_and_coincident_split():
    sc, pos, vel, mat, start, _, _ = sorted_scene(5)
    no = np.zeros((0, 2))
    ncell = sc.nb_nx * sc.nb_ny
    empty_start = np.zeros(ncell + 1, np.int64)
    disp, dvel, wsum = kernel_repulse(repulsion.repulse_fluid, sc, pos, vel, start, empty_start,
                                      np.zeros(0, np.int64), 0.1, s_pos=no, s_vel=no)
    rdisp, rdvel, rwsum = ref.repulse_fluid(pos, vel, sc.n, no, no, sc.r_l, 0.1)
    close_eq6(disp[:sc.n], rdisp, sc.r_l)
    close_eq6(dvel[:sc.n], rdvel, sc.r_l * 0.1)
    assert np.all(wsum[:sc.n] == 0.0)
    # Fluid-fluid repulsion is antisymmetric: the displacements sum to zero (round-off).
    assert np.abs(disp[:sc.n].sum(axis=0)).max() < 1e-11
    # Two particles alone at the same point split along x by R/4 each (R = FLUID_RADIUS r_L),
    # lower index to -x.
    p2 = np.array([[12.0, 13.0], [12.0, 13.0]])
    st = np.zeros(ncell + 1, np.int64)
    c = int(13.0 / sc.nb_h) * sc.nb_nx + int(12.0 / sc.nb_h)
    st[c + 1:] = 2
    d2, _, _ = kernel_repulse(repulsion.repulse_fluid, sc, p2, np.zeros((2, 2)), st, empty_start,
                              np.zeros(0, np.int64), 0.1, s_pos=no, s_vel=no)
    rd2, _, _ = ref.repulse_fluid(p2, np.zeros((2, 2)), 2, no, no, sc.r_l, 0.1)
    close(d2, rd2)
    rad = repulsion.FLUID_RADIUS * sc.r_l
    close(rd2, [[-0.25 * rad, 0.0], [0.25 * rad, 0.0]])


def test_repulse_single_pair_is_eq6():
    """Eq. 6 by hand: two fluid particles at distance l move apart by R/2 (1 - l/R) each, with
    the fluid's radius R = FLUID_RADIUS r_L."""
    sc = make_scene(0)
    r_l, dv = sc.r_l, 0.25
    rad = repulsion.FLUID_RADIUS * r_l
    l = 0.3 * r_l
    p = np.array([[20.0, 15.0], [20.0 + l * 0.6, 15.0 + l * 0.8]])
    v = np.zeros((2, 2))
    no = np.zeros((0, 2))
    d, dvel, _ = ref.repulse_fluid(p, v, 2, no, no, r_l, dv)
    mag = 0.5 * rad * (1 - l / rad)
    close(d, [[-0.6 * mag, -0.8 * mag], [0.6 * mag, 0.8 * mag]])
    close(dvel, d * dv)
    ncell = sc.nb_nx * sc.nb_ny
    _, _, _, st, _ = ref.sort_particles(p, v, np.zeros(2, np.uint8), 2, 1 / sc.nb_h, sc.nb_nx,
                                        sc.nb_ny)
    kd, kv, _ = kernel_repulse(repulsion.repulse_fluid, sc, p, v, st, np.zeros(ncell + 1, np.int64),
                               np.zeros(0, np.int64), dv, s_pos=no, s_vel=no)
    close_eq6(kd, d, r_l)
    close_eq6(kv, dvel, r_l * dv)


def test_solid_contact_by_hand():
    """One particle moving into one solid: Eq. 6 push plus the full normal velocity removed."""
    r_l, dv = 4.0, 0.1
    p = np.array([[10.0, 10.0]])
    v = np.array([[3.0, 1.0]])
    s = np.array([[11.0, 10.0]])                 # at l = 1 along +x
    sv = np.array([[0.5, 0.0]])
    d, dvel, w = ref.repulse_fluid(p, v, 1, s, sv, r_l, dv)
    push = 0.5 * r_l * (1 - 1 / r_l)
    close(w, [1 - 1 / r_l])
    close(d, [[-push, 0.0]])
    close(dvel, [[-push * dv - (3.0 - 0.5), 0.0]])  # weight 1: relative normal speed removed
    imp, marked = ref.accumulate_solid_impulses(p, v, np.zeros(1, np.uint8), [2.0], 1, s, sv,
                                                r_l, dv)
    close(imp, -2.0 * dvel)
    assert marked.tolist() == [True]


@pytest.mark.parametrize("seed", SEEDS)
def test_accumulate_solid_impulses(seed):
    sc, pos, vel, mat, start, s_start, s_order = sorted_scene(seed)
    dv = 0.2
    _, _, wsum = kernel_repulse(repulsion.repulse_fluid, sc, pos, vel, start, s_start, s_order,
                                dv)
    rng = np.random.default_rng(100 + seed)
    m = len(sc.s_pos)
    imp0 = rng.normal(0.0, 1.0, (m, 2))           # the kernel adds to what is there
    marked0 = rng.random(m) < 0.1                 # ... and never unmarks
    imp, marked = imp0.copy(), marked0.copy()
    repulsion.accumulate_solid_impulses(pos, vel, mat, sc.mass, start, sc.nb_nx,
                                        sc.nb_ny, sc.s_pos, sc.s_vel, s_start, s_order, sc.r_l,
                                        dv, wsum, imp, marked)
    rimp, rmarked = ref.accumulate_solid_impulses(pos, vel, mat, sc.mass, sc.n, sc.s_pos,
                                                  sc.s_vel, sc.r_l, dv)
    assert rmarked.sum() >= 5 and np.abs(rimp).max() > 0.1
    close(imp, imp0 + rimp)
    np.testing.assert_array_equal(marked, marked0 | rmarked)


STALE_BINS = pytest.mark.xfail(strict=True, reason=(
    "known approximation: FluidSystem.repulse runs its Jacobi passes on neighbour lists built "
    "once per substep (cutoff 1.1 r_L); a particle that moves further than the skin in this "
    "random stress scene can miss a neighbour. Momentum exchange stays exact (same lists)"))


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("passes", [1, pytest.param(3, marks=STALE_BINS)])
def test_fluid_system_repulsion_passes(seed, passes):
    """The façade's ``repulse`` (binning + passes + apply) == ``passes`` brute-force Jacobi passes,
    each at the positions the previous one produced (repulsion.py's documented semantics)."""
    from fluidworld.fluid import FluidParams, FluidSystem, Material

    fs = FluidSystem(FluidParams(width=60.0, height=50.0, gravity=(0.0, 0.0), seed=seed,
                                 repulsion_iterations=passes),
                     materials=[Material("w"), Material("o", density=0.8)])
    rng = np.random.default_rng(seed)
    fs.add_particles(rng.uniform([0, 0], [60, 30], (150, 2)), rng.normal(0, 3, (150, 2)), 0)
    fs.add_particles(rng.uniform([0, 0], [60, 30], (60, 2)), rng.normal(0, 3, (60, 2)), 1)
    fs.bin_particles()
    p, v = fs.positions.copy(), fs.velocities.copy()
    p0, v0 = p.copy(), v.copy()
    fs.repulse(fs.params.h)
    for _ in range(passes):
        # the two materials' masses differ: the pairs' shares are mass-weighted
        d, dvel, _ = ref.repulse_fluid(p, v, len(p), fs.solid_pos, fs.solid_vel, fs.r_l,
                                       fs.params.repulsion_dv, fs.materials, fs._mass,
                                       fs._group)
        p, v = ref.apply_displacements(p, v, len(p), d, dvel)
    # compare the changes (the positions themselves are far larger than the tolerance scale)
    close_eq6(fs.positions - p0, p - p0, fs.r_l)
    assert np.abs(p - p0).max() > 0.1 * fs.r_l
    close_eq6(fs.velocities - v0, v - v0, fs.r_l * fs.params.repulsion_dv)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_apply_displacements(seed):
    sc, pos, vel, mat, start, s_start, s_order = sorted_scene(seed)
    disp, dvel, _ = kernel_repulse(repulsion.repulse_fluid, sc, pos, vel, start, s_start,
                                   s_order, 0.1)
    rp, rv = ref.apply_displacements(pos, vel, sc.n, disp, dvel)
    p2, v2 = pos.copy(), vel.copy()
    repulsion.apply_displacements(p2, v2, sc.n, disp, dvel)
    np.testing.assert_array_equal(p2[:sc.n], rp)
    np.testing.assert_array_equal(v2[:sc.n], rv)
    np.testing.assert_array_equal(p2[sc.n:], pos[sc.n:])


# ----------------------------------------------------------------------------- SRD collision
def kernel_srd(sc, vel, shift, signs, collide=collision.srd_collide):
    ncx, ncy = sc.nx + 1, sc.ny + 1
    nc = ncx * ncy
    v = vel.copy()
    collide((sc.pos, v, sc.mat, sc.n), (sc.mass, sc.alpha, sc.visc),
            (sc.a0, shift[0], shift[1], ncx, ncy),
            (signs, np.zeros(nc), np.zeros((nc, 2)), np.zeros(nc), np.zeros(nc), np.zeros((nc, 2))))
    return v


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("uniform", [False, True])
def test_srd_collide(seed, uniform):
    """Mixed materials, and materials sharing alpha and nu (the kernel's one-cos/sin path)."""
    sc = make_scene(seed)
    if uniform:
        sc.alpha = np.full(len(sc.alpha), 2.0)
        sc.visc = np.full(len(sc.visc), 0.1)
    rng = np.random.default_rng(200 + seed)
    ncx, ncy = sc.nx + 1, sc.ny + 1
    for shift in ((0.0, 0.0), tuple(rng.random(2) * sc.a0)):
        signs = (rng.integers(0, 2, ncx * ncy) * 2 - 1).astype(np.int8)
        v = kernel_srd(sc, sc.vel, shift, signs)
        rv = ref.srd_collide(sc.pos, sc.vel, sc.mat, sc.n, sc.mass, sc.alpha, sc.visc, sc.a0,
                             shift[0], shift[1], ncx, ncy, signs)
        assert np.abs(rv - sc.vel[:sc.n]).max() > 0.1     # it did something
        close(v[:sc.n], rv)
        np.testing.assert_array_equal(v[sc.n:], sc.vel[sc.n:])
        vp = kernel_srd(sc, sc.vel, shift, signs, collision.srd_collide_parallel)
        assert np.array_equal(vp, v)                         # parallel: bit-identical


