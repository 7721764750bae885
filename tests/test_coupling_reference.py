"""The coupling's numba kernels against their numpy references (``coupling.reference``).

Small random scenes, several seeds (a 6 x 5 grid of cells of 10; four bodies, one static, one
without samples; levels missing on one side or both; air cells, solid cover; samples and
particles on cell faces, on and past the grid's edges; garbage rows past ``n``) and hand-made
edge cases (empty inputs, points exactly on a boundary): every kernel must match its reference
to round-off. The shape tests are also held to pymunk's own point and segment queries, and a
few identities (Archimedes for a box, momentum shared exactly) to kernel and reference alike.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pymunk
import pytest
from coupling_checks import BODY, SEEDS, close

from fluidworld.coupling import buoyancy, containment, fluid_forces, kernels, surface
from fluidworld.coupling import reference as ref
from fluidworld.coupling.sampling import geometry_of

A0, NX, NY, GAMMA = 10.0, 6, 5, 6.0
SPACING = 2.0
NAN = math.nan


def cells_of(pos: np.ndarray) -> np.ndarray:
    """Flat pressure cell of each point, clamped into the grid (the pressure stage's deposit)."""
    i = np.clip(np.floor(pos[:, 0] / A0), 0, NX - 1).astype(np.int64)
    j = np.clip(np.floor(pos[:, 1] / A0), 0, NY - 1).astype(np.int64)
    return j * NX + i


def scene(seed: int) -> SimpleNamespace:
    """Bodies 0, 1 dynamic, 2 static, 3 dynamic without samples; body 1 has no left level, body
    3 none; body 1 has no kick level either (its cover counts whole)."""
    rng = np.random.default_rng(seed)
    nb = 4
    raw = np.column_stack([rng.uniform(12, 48, nb), rng.uniform(12, 38, nb),
                           rng.uniform(-3, 3, nb), rng.normal(0, 5, (nb, 3))])
    cog = rng.normal(0, 1.5, (nb, 2))
    state = ref.body_state(raw, cog)
    dynamic = np.array([True, True, False, True])
    up = rng.uniform(-3, 6, (2, nb))  # the levels from a little below the bodies to above
    levels = np.column_stack([raw[:, 0] - rng.uniform(8, 15, nb), raw[:, 1] + up[0],
                              raw[:, 0] + rng.uniform(8, 15, nb), raw[:, 1] + up[1]])
    levels[1, 1] = levels[3, 1] = levels[3, 3] = NAN
    kick_levels = levels + rng.normal(0, 1, levels.shape)
    kick_levels[1] = NAN
    prof = rng.uniform(0.7, 1.5, (nb, NY))
    # interior samples; some on cell faces, on the grid's edges and outside it
    in_owner = rng.integers(0, 3, 80)
    in_local = rng.uniform(-8, 8, (80, 2))
    in_area = rng.uniform(0.5, 4.0, 80)
    in_pos, in_vel = ref.pose_points(in_local, in_owner, state)
    in_arm = in_local.copy()  # where each push acts for the torque: some at a circle's centre
    in_arm[::3] = [1.5, -2.0]
    in_pos[:5] = [[20.0, 10.0], [0.0, 0.0], [60.0, 25.0], [-1.0, 30.0], [30.0, 50.0]]
    # outline samples: unit normals, some zero; some zero impulses
    out_owner = rng.integers(0, 3, 70)
    out_local = rng.uniform(-8, 8, (70, 2))
    ang = rng.uniform(0, 2 * math.pi, 70)
    out_normal = np.column_stack([np.cos(ang), np.sin(ang)])
    out_normal[::9] = 0.0
    out_pos, out_vel = ref.pose_points(out_local, out_owner, state)
    out_pos[:3] = [[20.0, 20.0], [60.0, 5.0], [30.0, -0.5]]
    out_imp = rng.normal(0, 2, (70, 2))
    out_imp[::7] = 0.0
    # pressure grid: air cells (count < 0.5), partial solid cover
    count = rng.integers(1, 14, (NY, NX)).astype(np.float64)
    count[rng.random((NY, NX)) < 0.12] = 0.3
    frac = np.where(rng.random((NY, NX)) < 0.3, rng.uniform(0, 1, (NY, NX)), 0.0)
    cell_vel, grad, cover_vel = rng.normal(0, 2, (3, NY, NX, 2))
    # fluid: 150 live particles, garbage after them
    n = 150
    f_pos = rng.uniform([-1.0, -1.0], [61.0, 51.0], (n + 10, 2))
    f_pos[:7] = [[0, 0], [10, 10], [60, 50], [30, 20], [60, 0], [25, 50], [-0.5, 10]]
    f_vel = rng.normal(0, 3, (n + 10, 2))
    f_vel[n:] = 1e6
    f_mat = rng.integers(0, 3, n + 10).astype(np.uint8)
    out_inset = rng.uniform(0, 3, 70)  # how far inside the surface each outline sample sits
    return SimpleNamespace(**locals(), cell_of=cells_of(f_pos), rho_table=np.array([1.0, 0.8, 1.3]),
                           mass_table=np.array([2.0, 1.6, 2.6]))


def groups(s: SimpleNamespace) -> tuple[tuple, tuple, tuple, tuple]:
    """The kernels' ``outline``, ``interior``, ``bodies`` and ``cells`` tuples (fresh
    accumulators)."""
    outline = (s.out_local, s.out_owner, s.out_normal, s.out_pos, s.out_vel, s.out_imp,
               s.out_inset)
    interior = (s.in_local, s.in_owner, s.in_area, s.in_pos, s.in_vel, np.zeros(80), s.in_arm)
    bodies = (s.state, s.dynamic, s.levels, s.kick_levels, np.zeros((s.nb, 4)), s.prof,
              np.zeros((s.nb, 2)), np.zeros(s.nb), np.zeros(s.nb))
    cells = (s.count, s.cell_vel, s.grad, s.frac, s.cover_vel, np.zeros(s.frac.shape, np.uint8))
    return outline, interior, bodies, cells


# ============================================================================ bodies, samples
@pytest.mark.parametrize("seed", SEEDS)
def test_body_state_pose_points_and_impulse_velocities(seed: int) -> None:
    s = scene(seed)
    st = np.zeros((s.nb, 9))
    kernels.body_state(s.raw, s.cog, st)
    close(st, ref.body_state(s.raw, s.cog))
    for k in range(s.nb):  # and pymunk's own transform, independently
        b = pymunk.Body(1.0, 1.0)
        b.position, b.angle = (s.raw[k, 0], s.raw[k, 1]), s.raw[k, 2]
        close(st[k, 7:9], tuple(b.local_to_world(tuple(s.cog[k]))))
    pos, vel = np.zeros((80, 2)), np.zeros((80, 2))
    kernels.pose_points(s.in_local, s.in_owner, st, pos, vel)
    close((pos, vel), ref.pose_points(s.in_local, s.in_owner, st))
    rows = s.rng.permutation(s.nb + 2)[:s.nb]  # coupled bodies among others of the space
    args = (s.rng.normal(0, 3, (s.nb + 2, 6)), rows, s.dynamic, s.rng.normal(0, 1, (s.nb, 2)),
            s.rng.normal(0, 1, s.nb), s.rng.uniform(0, 2, s.nb), s.rng.uniform(0, 2, s.nb))
    out = np.zeros((s.nb + 2, 3))
    kernels.impulse_velocities(*args, out)
    np.testing.assert_array_equal(out, ref.impulse_velocities(*args))


def test_empty_inputs() -> None:
    """No bodies, samples or particles: the kernels write the references' empty answers."""
    e2, e1, eo, st2 = np.zeros((0, 2)), np.zeros(0), np.zeros(0, np.int64), np.ones((2, 9))
    st = np.zeros((0, 9))
    kernels.body_state(np.zeros((0, 6)), e2, st)
    assert ref.body_state(np.zeros((0, 6)), e2).shape == (0, 9)
    pos, vel = np.zeros((0, 2)), np.zeros((0, 2))
    kernels.pose_points(e2, eo, st2, pos, vel)
    assert ref.pose_points(e2, eo, st2)[0].shape == (0, 2)
    box, j, tau, sub = np.zeros((3, 4)), np.zeros((2, 2)), np.zeros(2), np.zeros(2)
    surface.sample_bounds(e2, eo, 3, 1.0, box)
    close(box, ref.sample_bounds(e2, eo, 3, 1.0))  # NaN: no samples
    fluid_forces.sum_point_impulses(e2, e2, eo, st2, 1.0, j, tau)
    buoyancy.sum_contact_impulses(e2, e2, e2, eo, st2, j, tau)
    close((j, tau), ref.sum_point_impulses(e2, e2, eo, st2, 1.0))
    surface.submerged_areas(e2, e1, eo, 0, np.zeros((2, 4)), 1.0, sub)
    close(sub, ref.submerged_areas(e2, e1, eo, 0, np.zeros((2, 4)), 1.0))
    frac, cvel, (rho, cnt) = np.ones((NY, NX)), np.ones((NY, NX, 2)), np.ones((2, NY, NX))
    kernels.rasterise_cover(e2, e2, e1, 0, A0, frac, cvel)
    close((frac, cvel), ref.rasterise_cover(e2, e2, e1, 0, A0, NX, NY))
    buoyancy.cell_densities(e2, np.zeros(0, np.uint8), 0, np.ones(3), A0, rho, cnt)
    close((rho, cnt), ref.cell_densities(e2, np.zeros(0, np.uint8), 0, np.ones(3), A0, NX, NY))


@pytest.mark.parametrize("seed", SEEDS)
def test_cover_areas_and_bounds(seed: int) -> None:
    s = scene(seed)
    area, vel = np.zeros(80), s.in_vel.copy()
    kernels.submerged_cover(s.in_pos, s.in_owner, 80, s.dynamic, s.kick_levels, SPACING,
                            s.in_area, 3.0, -4.0, vel, area)
    close((area, vel), ref.submerged_cover(s.in_pos, s.in_owner, 80, s.dynamic, s.kick_levels,
                                           SPACING, s.in_area, 3.0, -4.0, s.in_vel))
    assert 0.0 < (area / s.in_area).mean() < 1.0  # some samples part-submerged or dry
    area[5:7] = 120.0  # their cells are full
    frac, cvel = np.zeros((NY, NX)), np.zeros((NY, NX, 2))
    kernels.rasterise_cover(s.in_pos, vel, area, 70, A0, frac, cvel)
    close((frac, cvel), ref.rasterise_cover(s.in_pos, vel, area, 70, A0, NX, NY))
    assert (frac == 1.0).any() and ((frac > 0) & (frac < 1)).any()
    sub = np.full(s.nb, 0.25)  # the kernel adds
    surface.submerged_areas(s.in_pos, s.in_area, s.in_owner, 75, s.levels, SPACING, sub)
    close(sub, 0.25 + ref.submerged_areas(s.in_pos, s.in_area, s.in_owner, 75, s.levels,
                                          SPACING))
    assert sub[3] == 0.25 and (sub[:3] > 0.25).any()
    box = np.zeros((s.nb, 4))
    surface.sample_bounds(s.in_pos, s.in_owner, s.nb, 1.0, box)
    close(box, ref.sample_bounds(s.in_pos, s.in_owner, s.nb, 1.0))
    assert np.isnan(box[3]).all() and np.isfinite(box[:3]).all()


def test_rasterise_cover_on_cell_faces_by_hand() -> None:
    """A sample on a cell's lower face belongs to that cell; one on the grid's far edges or
    below zero covers nothing; velocities are area-weighted; the cover is capped at 1."""
    pos = np.array([[10.0, 0.0], [10.0, 0.0], [0.0, 20.0], [60.0, 5.0], [5.0, 50.0],
                    [-1e-9, 5.0], [99.0, 99.0]])
    vel = np.array([[1.0, 0.0], [4.0, 2.0], [0.0, -3.0], [9.0, 9.0], [9.0, 9.0], [9.0, 9.0],
                    [9.0, 9.0]])
    area = np.array([60.0, 80.0, 25.0, 50.0, 50.0, 50.0, 50.0])
    want_frac = np.zeros((NY, NX))
    want_frac[0, 1], want_frac[2, 0] = 1.0, 0.25
    want_vel = np.zeros((NY, NX, 2))
    want_vel[0, 1] = ((60 * 1.0 + 80 * 4.0) / 140, 80 * 2.0 / 140)
    want_vel[2, 0] = (0.0, -3.0)
    frac, cvel = np.zeros((NY, NX)), np.zeros((NY, NX, 2))
    kernels.rasterise_cover(pos, vel, area, 6, A0, frac, cvel)  # the last sample is past n
    for got in ((frac, cvel), ref.rasterise_cover(pos, vel, area, 6, A0, NX, NY)):
        close(got[0], want_frac)
        close(got[1], want_vel)


def test_submerged_area_of_a_box_is_exact() -> None:
    """The docstring's promise: a box sampled at ``spacing`` gets its submerged area exactly."""
    xs, ys = np.meshgrid(np.arange(11.0, 30.0, 2.0), np.arange(11.0, 20.0, 2.0))
    pos = np.column_stack([xs.ravel(), ys.ravel()])
    area = np.full(len(pos), 4.0)
    owner = np.zeros(len(pos), np.int64)
    for level in (9.0, 10.0, 13.0, 15.3, 20.0, 25.0):
        levels = np.array([[0.0, level, 40.0, level]])
        want = 20.0 * min(max(level - 10.0, 0.0), 10.0)
        sub = np.zeros(1)
        surface.submerged_areas(pos, area, owner, len(pos), levels, 2.0, sub)
        close(sub, [want])
        close(ref.submerged_areas(pos, area, owner, len(pos), levels, 2.0), [want])


# ============================================================================ water levels
def level_scene(seed: int) -> tuple[SimpleNamespace, np.ndarray, float]:
    s = scene(seed)
    s.count[0] = np.maximum(s.count[0], 1.0)  # fluid at the bottom: some columns get a top
    col_w = 5.0
    tops = np.zeros(12)
    kernels.column_tops(s.f_pos, s.f_vel, s.n, A0, s.count, s.frac, GAMMA, col_w, tops)
    return s, tops, col_w


@pytest.mark.parametrize("seed", SEEDS)
def test_column_tops(seed: int) -> None:
    s, tops, col_w = level_scene(seed)
    r_tops, r_vmax = ref.column_tops(s.f_pos, s.f_vel, s.n, A0, s.count, s.frac, GAMMA, col_w,
                                     12)
    np.testing.assert_array_equal(tops, r_tops)
    assert np.isfinite(tops).any() and (tops < 49.0).any()  # droplets over air were left out
    par = np.zeros(12)
    vmax = surface.column_tops_parallel(s.f_pos, s.f_vel, s.n, A0, s.count, s.frac, GAMMA,
                                        col_w, par)
    np.testing.assert_array_equal(par, r_tops)
    assert vmax == r_vmax == kernels.column_tops(s.f_pos, s.f_vel, s.n, A0, s.count, s.frac,
                                                 GAMMA, col_w, tops) < 1e6


def test_column_tops_edge_cases() -> None:
    """On the floor a particle always counts; a row up, only over gamma/4 fluid particles (a
    particle exactly on a cell face is in the upper cell); x = width is the last column."""
    count = np.zeros((NY, NX))
    count[0, 0], count[0, 1] = 1.0, 2.0  # gamma / 4 = 1.5
    frac = np.zeros((NY, NX))
    frac[0, 1] = 0.2                     # 2 - 0.2 * 6 = 0.8 fluid particles: not enough
    pos = np.array([[2.0, 3.0], [4.0, 10.0], [12.0, 10.0], [60.0, 4.0], [22.0, 9.99]])
    vel = np.array([[1.0, -2.0], [0.0, 0.0], [3.0, 0.0], [0.0, 0.5], [0.0, 0.0]])
    tops = np.zeros(12)
    vmax = kernels.column_tops(pos, vel, 5, A0, count, frac, GAMMA, 5.0, tops)
    want = np.full(12, -np.inf)
    want[0], want[11], want[4] = 3.0, 4.0, 9.99
    for got, v in ((tops, vmax), ref.column_tops(pos, vel, 5, A0, count, frac, GAMMA, 5.0, 12)):
        np.testing.assert_array_equal(got, want)
        assert v == 3.0
    count[0, 0] = 1.5  # exactly gamma / 4: enough
    kernels.column_tops(pos, vel, 5, A0, count, frac, GAMMA, 5.0, tops)
    assert tops[0] == 10.0 == ref.column_tops(pos, vel, 5, A0, count, frac, GAMMA, 5.0, 12)[0][0]
    assert kernels.column_tops(pos, vel, 0, A0, count, frac, GAMMA, 5.0, tops) == 0.0
    assert np.isneginf(tops).all() and np.isneginf(ref.column_tops(
        pos, vel, 0, A0, count, frac, GAMMA, 5.0, 12)[0]).all()


def test_cap_columns_skips_the_water_under_a_solid() -> None:
    """A column's top with an outline sample above it by at most ``reach`` is no free surface
    (NaN: water, but no level); one further up, one below the top, one beside the domain and
    an empty column change nothing."""
    tops = np.array([10.0, 10.0, 10.0, -np.inf, 10.0])
    out = np.array([[2.0, 14.0], [7.0, 25.0], [12.0, 9.0], [17.0, 12.0], [-3.0, 12.0],
                    [30.0, 12.0], [NAN, 12.0], [22.0, 20.0]])
    kernels.cap_columns(out, len(out), tops, 5.0, 10.0)
    np.testing.assert_array_equal(tops, [NAN, 10.0, 10.0, -np.inf, NAN])


@pytest.mark.parametrize("seed", SEEDS)
def test_water_levels(seed: int) -> None:
    s, tops, col_w = level_scene(seed)
    box = ref.sample_bounds(s.in_pos[5:], s.in_owner[5:], s.nb, 1.0)
    box[0, 0] = box[0, 2] = 30.0  # a body narrower than a column
    tops[s.rng.random(12) < 0.3] = -np.inf
    args = (box, tops, col_w, s.frac, A0, 0.7, 2.5, 12.0, 0.4)
    out = np.zeros((s.nb, 4))
    kernels.water_levels(*args, out)
    close(out, ref.water_levels(*args))
    assert np.isfinite(out).any() and np.isnan(out[3]).all()


def test_water_levels_widen_the_band_then_give_up() -> None:
    """One clean column, [0, 5), 20 to 25 left of the body, the water between under a solid
    (NaN tops): ``far`` 2.5 reaches it at its fourth doubling (40), 1.5 not (24); a covered top
    cell, or a body without samples, gets NaN."""
    tops = np.full(12, NAN)
    tops[0] = 30.0
    frac = np.zeros((NY, NX))
    box = np.array([[25.0, 10.0, 35.0, 20.0], [NAN] * 4])
    for far, cover, want in ((2.5, 0.0, [2.5, 30.7, NAN, NAN]), (1.5, 0.0, [NAN] * 4),
                             (2.5, 0.5, [NAN] * 4)):
        frac[3, 0] = cover  # the column's top cell
        args = (box, tops, 5.0, frac, A0, 0.7, 1.0, far, 0.4)
        out = np.zeros((2, 4))
        kernels.water_levels(*args, out)
        for got in (out, ref.water_levels(*args)):
            close(got, [want, [NAN] * 4])


def test_water_levels_stop_at_the_first_column_without_water() -> None:
    """Water beyond a dry column is not the body's: the walk outward from each side stops
    there, and no widening looks past it (a dry crate beside a walled-off tank took the
    tank's level); with none beside it on either side, it is dry. The body spans [25, 35]."""
    frac = np.zeros((NY, NX))
    box = np.array([[25.0, 10.0, 35.0, 20.0]])
    for dry, want in ((None, [2.5, 30.7, 57.5, 20.7]), (3, [NAN, NAN, 57.5, 20.7]),
                      (8, [2.5, 30.7, NAN, NAN])):
        tops = np.full(12, NAN)
        tops[0], tops[11] = 30.0, 20.0
        if dry is not None:
            tops[dry] = -np.inf
        args = (box, tops, 5.0, frac, A0, 0.7, 1.0, 2.5, 0.4)
        out = np.zeros((1, 4))
        kernels.water_levels(*args, out)
        for got in (out, ref.water_levels(*args)):
            close(got, [want])
    tops = np.full(12, -np.inf)  # no water beside it at all: dry, nothing of it under water
    tops[0] = 30.0
    args = (box, tops, 5.0, frac, A0, 0.7, 1.0, 2.5, 0.4)
    out = np.zeros((1, 4))
    kernels.water_levels(*args, out)
    for got in (out, ref.water_levels(*args)):
        close(got, [[25.0, surface.DRY_LEVEL, 35.0, surface.DRY_LEVEL]])


def test_water_levels_take_no_single_column_in_a_gap() -> None:
    """A side with one clean column where the other side has two or more gives no level (the
    water climbs a body in a gap a column wide: a 72 x 24 box of 0.8 12 units from the
    domain's wall read 106.5 there against 103.4 on its open side and floated at 0.73); one
    column on both sides stays a level on both. The body spans [25, 35]."""
    frac = np.zeros((NY, NX))
    box = np.array([[25.0, 10.0, 35.0, 20.0]])
    for left, right, want in (([3], [8, 9, 10], [NAN, NAN, 47.5, 20.7]),
                              ([2, 3], [8], [15.0, 30.7, NAN, NAN]),
                              ([3], [8], [17.5, 30.7, 42.5, 20.7])):
        tops = np.full(12, NAN)
        tops[left], tops[right] = 30.0, 20.0
        args = (box, tops, 5.0, frac, A0, 0.7, 1.0, 25.0, 0.4)
        out = np.zeros((1, 4))
        kernels.water_levels(*args, out)
        for got in (out, ref.water_levels(*args)):
            close(got, [want])


@pytest.mark.parametrize("seed", SEEDS)
def test_cell_densities_and_profiles(seed: int) -> None:
    s = scene(seed)
    rho, cnt = np.zeros((NY, NX)), np.zeros((NY, NX))
    buoyancy.cell_densities(s.f_pos, s.f_mat, s.n, s.rho_table, A0, rho, cnt)
    r_rho, r_cnt = ref.cell_densities(s.f_pos, s.f_mat, s.n, s.rho_table, A0, NX, NY)
    close(rho, r_rho)
    np.testing.assert_array_equal(cnt, r_cnt)
    assert cnt.sum() == s.n
    cnt[2:4] = rho[2:4] = 0.0  # rows without fluid: filled from below, or above
    cnt[0, :3] = rho[0, :3] = 0.0
    box = ref.sample_bounds(s.in_pos[5:], s.in_owner[5:], s.nb, 1.0)
    prof = np.zeros((s.nb, NY))
    buoyancy.density_profiles(box, rho, cnt, A0, 2.5, 8.0, 1.1, prof, np.zeros(NY), np.zeros(NY))
    close(prof, ref.density_profiles(box, rho, cnt, A0, 2.5, 8.0, 1.1))
    assert (prof[3] == 1.1).all() and (prof[:3] != 1.1).any()


def test_density_profile_of_a_body_narrower_than_a_cell() -> None:
    """Both bands of a body inside one cell touch that cell: it is one cell of the mean."""
    rho = np.zeros((NY, NX))
    cnt = np.zeros((NY, NX))
    rho[1, 2], cnt[1, 2] = 2.0, 2.0   # the body's own cell: density 1
    rho[1, 3], cnt[1, 3] = 6.0, 3.0   # the next one: density 2
    box = np.array([[24.0, 10.0, 26.0, 16.0]])
    want = (2.0 + 6.0) / (2.0 + 3.0)
    close(ref.density_profiles(box, rho, cnt, A0, 1.0, 10.0, 1.0), [[want] * NY])
    prof = np.zeros((1, NY))
    buoyancy.density_profiles(box, rho, cnt, A0, 1.0, 10.0, 1.0, prof, np.zeros(NY),
                              np.zeros(NY))
    close(prof, [[want] * NY])


# ============================================================================ forces
@pytest.mark.parametrize("seed", SEEDS)
def test_contact_and_point_impulses(seed: int) -> None:
    s = scene(seed)
    j, tau = np.zeros((s.nb, 2)), np.zeros(s.nb)
    buoyancy.sum_contact_impulses(s.out_pos, s.out_imp, s.out_normal, s.out_owner, s.state, j,
                                  tau)
    close((j, tau), ref.sum_contact_impulses(s.out_pos, s.out_imp, s.out_normal, s.out_owner,
                                             s.state))
    j0, tau0 = s.rng.normal(0, 1, (s.nb, 2)), s.rng.normal(0, 1, s.nb)  # the kernel adds
    j, tau = j0.copy(), tau0.copy()
    fluid_forces.sum_point_impulses(s.in_pos, s.in_vel, s.in_owner, s.state, 0.37, j, tau)
    r_j, r_tau = ref.sum_point_impulses(s.in_pos, s.in_vel, s.in_owner, s.state, 0.37)
    close(j, j0 + r_j)
    close(tau, tau0 + r_tau)
    assert (r_j[3] == 0).all() and r_tau[3] == 0 and np.abs(r_tau[:3]).min() > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_surface_buoyancy(seed: int) -> None:
    s = scene(seed)
    j, tau = np.zeros((s.nb, 2)), np.zeros(s.nb)
    length = s.rng.uniform(0.2, 2.0, 70)
    args = (s.out_local, s.out_normal, length, s.out_owner, s.state, s.levels, s.prof, A0, 9.0)
    buoyancy.surface_buoyancy(*args, j, tau)
    close((j, tau), ref.surface_buoyancy(*args))
    assert (j[:, 0] == 0).all() and np.abs(j[:3, 1]).max() > 0


@pytest.mark.parametrize("angle", [0.0, 0.4])
def test_surface_buoyancy_of_a_submerged_box_is_archimedes(angle: float) -> None:
    """Uniform density: the lift is ``g_h rho A`` and, about the box's centre, no torque."""
    g = geometry_of(pymunk.Poly.create_box(BODY, (8.0, 6.0)))
    local, normal, length = buoyancy.surface_quadrature(g, 0.5)
    state = ref.body_state(np.array([[30.0, 15.0, angle, 0.0, 0.0, 0.0]]), np.zeros((1, 2)))
    levels = np.array([[0.0, 40.0, 60.0, 40.0]])
    prof = np.full((1, NY), 1.2)
    owner = np.zeros(len(local), np.int64)
    j, tau = np.zeros((1, 2)), np.zeros(1)
    buoyancy.surface_buoyancy(local, normal, length, owner, state, levels, prof, A0, 0.5, j, tau)
    for got in ((j, tau), ref.surface_buoyancy(local, normal, length, owner, state, levels, prof,
                                               A0, 0.5)):
        close(got[0], [[0.0, 0.5 * 1.2 * 48.0]], 1e-9)
        close(got[1], [0.0], 1e-9)


def sorted_fluid(s: SimpleNamespace, h: float) -> tuple[tuple, tuple]:
    """The scene's live particles sorted by cell of a neighbour grid of cell size ``h`` (clamped
    into it, as the ``bin`` stage sorts), as ``(pos, vel, mat, n)``, and that grid as the
    kernels' ``bins``."""
    nx, ny = math.ceil(60.0 / h), math.ceil(50.0 / h)
    ci = np.clip(np.floor(s.f_pos[:s.n] / h).astype(np.int64), 0, [nx - 1, ny - 1])
    order = np.argsort(ci[:, 1] * nx + ci[:, 0], kind="stable")
    start = np.zeros(nx * ny + 1, np.int64)
    start[1:] = np.cumsum(np.bincount(ci[order, 1] * nx + ci[order, 0], minlength=nx * ny))
    fluid = (s.f_pos[order].copy(), s.f_vel[order].copy(), s.f_mat[order].copy(), s.n)
    return fluid, (start, 1.0 / h, nx, ny)


@pytest.mark.parametrize("h", [3.3, 8.0])
@pytest.mark.parametrize("seed", SEEDS)
def test_drag_impulses(seed: int, h: float) -> None:
    s = scene(seed)
    outline, _, bodies, _ = groups(s)
    fluid, bins = sorted_fluid(s, h)
    vel0 = fluid[1].copy()
    scratch = (np.full(len(s.out_pos), 7.0), np.zeros(len(s.out_pos)))  # stale values: reset
    fluid_forces.drag_impulses(outline, bodies, fluid, s.mass_table, bins, A0, 3.0, 1.5, scratch)
    r_j, r_tau, r_vel = ref.drag_impulses(outline, bodies, fluid[0], vel0, fluid[2], s.n,
                                          s.mass_table, A0, 3.0, 1.5)
    close((bodies[6], bodies[7], fluid[1]), (r_j, r_tau, r_vel))
    # momentum conserved; the impulses lie along the surface; static and sample-less: none
    dp = (s.mass_table[fluid[2]][:, None] * (r_vel - vel0)).sum(axis=0)
    close(r_j.sum(axis=0) + dp, [0.0, 0.0])
    assert np.abs(r_j[:2]).max() > 0 and (r_j[2:] == 0).all()


@pytest.mark.parametrize("awash", [(0.0, 0.0), (0.5 * GAMMA, 1e9)])
@pytest.mark.parametrize("seed", SEEDS)
def test_pressure_impulses(seed: int, awash: tuple[float, float]) -> None:
    s = scene(seed)
    _, interior, bodies, cells = groups(s)
    fluid_forces.pressure_impulses(interior, bodies, cells, A0, SPACING, 0.3, -2.5, awash)
    r_j, r_tau = ref.pressure_impulses(interior, bodies, cells, A0, SPACING, 0.3, -2.5, awash)
    close((bodies[6], bodies[7]), (r_j, r_tau))
    assert np.abs(r_j[:2]).max() > 0 and (r_j[2:] == 0).all()


def test_an_awash_body_gets_no_push_under_a_partly_filled_cell() -> None:
    """On cells all a third full under a top row of air: body 0 gets pushes while its top is
    well above its level and none once awash (its box top within ``awash[1]`` of its level:
    every sample lies under a partly filled cell or beside the air). Body 1 has no kick level,
    so it is never awash and keeps its push; the kernel agrees with the reference."""
    s = scene(0)
    s.count[:] = GAMMA / 3.0
    s.count[-1] = 0.3
    _, interior, bodies, cells = groups(s)
    box, awash = bodies[4], (3.0, 2.0)
    box[:, 3] = 1e6  # far above any level: not awash
    high, _ = ref.pressure_impulses(interior, bodies, cells, A0, SPACING, 0.3, -2.5, awash)
    assert np.abs(high[0]).max() > 0 and np.abs(high[1]).max() > 0
    box[:, 3] = -1e6  # under every level: awash
    j, tau = ref.pressure_impulses(interior, bodies, cells, A0, SPACING, 0.3, -2.5, awash)
    assert (j[0] == 0).all() and tau[0] == 0
    assert (j[1] == high[1]).all()
    fluid_forces.pressure_impulses(interior, bodies, cells, A0, SPACING, 0.3, -2.5, awash)
    close((bodies[6], bodies[7]), (j, tau))


# ============================================================================ containment
@pytest.mark.parametrize("seed", SEEDS)
def test_max_displacement(seed: int) -> None:
    s = scene(seed)
    start = s.f_pos + s.rng.normal(0, 2, s.f_pos.shape)
    start[s.n:] = 1e9  # past n: ignored
    for n in (0, 1, s.n):
        want = ref.max_displacement(s.f_pos, start, n)
        assert containment.max_displacement(s.f_pos, start, n) == want
        assert containment.max_displacement_parallel(s.f_pos, start, n) == want
    assert 0.0 < want < 1e3


def test_cap_side_columns_leaves_the_walls_columns_without_a_level() -> None:
    """Columns not wholly a column's width inside the domain's sides get NaN (passable, no
    level); dry ones stay dry. Width 32 in 5-unit columns: [0, 5) by the left wall, and
    [25, 30) and the part-column [30, 32) by the right one."""
    tops = np.array([10.0, 11.0, 12.0, -np.inf, 13.0, 14.0, 15.0])
    surface.cap_side_columns(tops, 5.0, 32.0)
    np.testing.assert_array_equal(tops, [NAN, 11.0, 12.0, -np.inf, 13.0, NAN, NAN])
    dry = np.array([-np.inf, 1.0, 2.0, -np.inf])  # width 20: [5, 15) is inside
    surface.cap_side_columns(dry, 5.0, 20.0)
    np.testing.assert_array_equal(dry, [-np.inf, 1.0, 2.0, -np.inf])


def test_cap_wall_columns_leaves_the_columns_beside_a_wall_without_a_level() -> None:
    """The columns either side of an outline sample of a shape that is not dynamic, the sample
    above their top by at most ``reach``, get NaN; a dynamic body's sample, one too high, one
    under the top and a dry column change nothing."""
    tops = np.array([10.0, 10.0, 10.0, 10.0, -np.inf, 10.0, 10.0, 10.0])
    out = np.array([[12.0, 15.0],   # wall, column 2: columns 1 and 3
                    [27.0, 14.0],   # wall, column 5: column 6 (4 is dry)
                    [37.0, 30.0],   # wall, too high above column 7's neighbours
                    [2.0, 5.0],     # wall, under the tops
                    [32.0, 12.0]])  # a dynamic body's, column 6: nothing
    owner = np.array([0, 0, 0, 0, 1])
    dynamic = np.array([False, True])
    surface.cap_wall_columns(out, owner, dynamic, len(out), tops, 5.0, 10.0)
    np.testing.assert_array_equal(tops, [10.0, NAN, 10.0, NAN, -np.inf, 10.0, NAN, 10.0])
