"""Unit tests of the coupling's sampling and numba kernels against plain pymunk/numpy."""

from __future__ import annotations

import math
import re

import numba
import numpy as np
import pymunk
import pytest

from fluidworld.coupling import coupler as coupler_module
from fluidworld.coupling import kernels as K
from fluidworld.coupling import per_body as PB
from fluidworld.coupling import sampling
from fluidworld.coupling.buoyancy import (
    cell_densities,
    density_profiles,
    sum_contact_impulses,
    surface_buoyancy,
)
from fluidworld.coupling.coupler import Coupler
from fluidworld.coupling.sampling import (
    contains,
    geometry_of,
    interior_points,
    max_inset,
    outline_points,
    shape_area,
)
from fluidworld.fluid.threads import ThreadPolicy
from fluidworld.world import World


def shapes() -> list[pymunk.Shape]:
    b = pymunk.Body(1.0, 1.0)
    return [
        pymunk.Circle(b, 12.0, offset=(3.0, -2.0)),
        pymunk.Segment(b, (-20.0, 0.0), (25.0, 10.0), 2.0),
        pymunk.Poly.create_box(b, (40.0, 16.0), radius=1.5),
        pymunk.Poly(b, [(0.0, 0.0), (30.0, 5.0), (10.0, 25.0)]),
    ]


@pytest.mark.parametrize(("radius", "inset", "rows"), [(0.0, 3.0, 1), (1.0, 3.0, 1), (2.0, 3.0, 1),
                                                    (4.0, 3.0, 1), (5.0, 3.0, 2), (2.0, 0.0, 2)])
def test_a_thin_segment_has_one_row_of_solids(radius: float, inset: float, rows: int) -> None:
    """A segment whose sides' rows would come within a spacing of each other (radius 2 moved in
    by 3 put both on the centre line) gets one row there: twice the solids of a face shot water
    filled against it off at 1,800 units/s with double density relaxation."""
    b = pymunk.Body(body_type=pymunk.Body.STATIC)
    g = geometry_of(pymunk.Segment(b, (0.0, 0.0), (48.0, 0.0), radius))
    pts = outline_points(g, 2.4, inset=inset)
    along = pts[np.abs(pts[:, 0] - 24.0) < 20.0]  # away from the end caps
    heights = np.unique(np.round(along[:, 1], 9))
    assert len(heights) == rows, heights
    if rows == 1:
        assert heights[0] == 0.0 and len(pts) == 21  # 0, 2.4, ..., 48: no point twice
        assert len(np.unique(np.round(pts, 9), axis=0)) == len(pts)


@pytest.mark.parametrize("shape", shapes(), ids=["circle", "segment", "rounded box", "tri"])
def test_outline_spacing_area_and_inset(shape: pymunk.Shape) -> None:
    g = geometry_of(shape)
    spacing = 2.4
    surf = outline_points(g, spacing)
    gaps = np.linalg.norm(np.diff(np.vstack([surf, surf[:1]]), axis=0), axis=1)
    assert gaps.max() <= spacing + 1e-9
    inset = outline_points(g, spacing, inset=3.0)
    # the thin segment (radius 2 < the inset) keeps one row on its centre line, not two
    assert len(inset) >= len(surf) // (3 if isinstance(shape, pymunk.Segment) else 2)
    assert contains(g, inset).all()  # moved inside, even for the thin segment
    pts, area = interior_points(g, 2.5)
    assert contains(g, pts).all()
    assert area.sum() == pytest.approx(shape_area(g))
    if not isinstance(shape, pymunk.Segment):  # pymunk's Segment.area ignores the end caps
        assert shape_area(g) == pytest.approx(shape.area, rel=1e-9)


def test_arcs_of_solids_are_counted_for_the_rest_distance() -> None:
    """With the fluid's rest distance ``D`` (the constraint solver's), an arc of solids whose
    row lies at radius ``rho`` gets the count of one of radius ``rho + D / 2`` (so it sums like
    a straight row from ``D`` off it), and a sharp corner the count of one of radius ``D / 2``
    at its vertex; without it the surface's own count and one point a corner."""
    b = pymunk.Body(1.0, 1.0)
    spacing, inset, rest = 2.4, 4.2, 5.76
    ball = geometry_of(pymunk.Circle(b, 12.0))
    assert len(outline_points(ball, spacing, inset)) == math.ceil(2 * math.pi * 12.0 / spacing)
    pts = outline_points(ball, spacing, inset, rest)
    assert len(pts) == math.ceil(2 * math.pi * (12.0 - inset + rest / 2) / spacing)  # 28, not 32
    assert np.hypot(*pts.T) == pytest.approx(12.0 - inset)
    box = geometry_of(pymunk.Poly.create_box(b, (30.0, 16.0)))
    corner = np.array([15.0 - inset, 8.0 - inset])
    for kw, at_vertex in (({}, 1), ({"rest": rest}, math.ceil(0.5 * math.pi * rest / 2 / spacing))):
        pts = outline_points(box, spacing, inset, **kw)
        assert (np.hypot(*(pts - corner).T) < 1e-9).sum() == at_vertex
        assert (np.abs(pts) <= corner + 1e-9).all()
    # a rounded corner is an arc: its row radius 1 gets the count of radius 1 + D / 2
    rounded = geometry_of(pymunk.Poly.create_box(b, (30.0, 16.0), radius=5.2))
    plain, counted = (len(outline_points(rounded, spacing, inset, r)) for r in (None, rest))
    assert counted - plain == 4 * (math.ceil(0.5 * math.pi * (1.0 + rest / 2) / spacing)
                                   - math.ceil(0.5 * math.pi * 5.2 / spacing))


def test_arcs_counted_by_the_kernel_sum_like_a_straight_row() -> None:
    """``kernel_arc_count`` gives a ring the points whose mean weight at ``rest`` outside it
    matches a straight row's: close to the first-order ``row + rest / 2`` for large rings,
    fewer for small ones (a ring of radius 1.8: 8 where that rule gives 12), a quarter of a
    full ring for a quarter turn; and the constraint solver's coupler uses it."""
    spacing, rest, reach = 2.403, 5.767, 12.015

    def weight(d: np.ndarray) -> np.ndarray:
        return np.maximum(1.0 - (d / reach) ** 2, 0.0) ** 3

    count = sampling.kernel_arc_count(weight, reach, rest, spacing)
    for row in (40.0, 95.8):
        first_order = 2 * math.pi * sampling.arc_count_radius(row, rest, 0.0) / spacing
        assert count(row, 2 * math.pi) == pytest.approx(first_order, rel=0.01)
    assert round(count(1.795, 2 * math.pi)) == 8
    assert count(7.8, 0.5 * math.pi) == pytest.approx(0.25 * count(7.8, 2 * math.pi))
    w = World(320.0, 200.0, solver="constraint")
    ball = w.add_ball((160.0, 150.0), 6.0, density=0.5)
    assert len(w.coupler._records[ball.shape].outline) == 8  # a ball of radius 6
    w.set_solver("srd")  # no kernel named: the surface's own count
    assert len(w.coupler._records[ball.shape].outline) == math.ceil(2 * math.pi * 6.0 / 2.403)


@pytest.mark.parametrize(("size", "rest", "rows"), [((80.0, 8.0), 5.76, 1), ((80.0, 8.0), None, 2),
                                                  ((90.0, 9.0), 5.76, 2), ((24.0, 8.0), 5.76, 1)])
def test_a_polygon_thinner_than_twice_the_inset_has_one_row(size: tuple[float, float],
                                                            rest: float | None,
                                                            rows: int) -> None:
    """With the fluid's rest distance (the constraint solver's), a box no thicker than twice the
    inset (4.2) gets one row of solids on its centre line, spanning its core, no point twice;
    a thicker one, or any without ``rest``, keeps a row along each face."""
    b = pymunk.Body(1.0, 1.0)
    g = geometry_of(pymunk.Poly.create_box(b, size, radius=0.0))
    pts = outline_points(g, 2.4, 4.2, rest)
    heights = np.unique(np.round(pts[np.abs(pts[:, 0]) < 20.0, 1], 9))
    assert len(heights) == rows, heights
    if rows == 1:
        assert heights[0] == pytest.approx(0.0, abs=1e-9)
        assert len(np.unique(np.round(pts, 9), axis=0)) == len(pts)
        inward = max_inset(g)
        assert pts[:, 0].min() == pytest.approx(-0.5 * size[0] + inward)
        assert pts[:, 0].max() == pytest.approx(0.5 * size[0] - inward)


def test_pose_points_matches_pymunk() -> None:
    b = pymunk.Body(2.0, 50.0)
    b.position = (30.0, -4.0)
    b.angle = 0.7
    b.velocity = (5.0, -3.0)
    b.angular_velocity = 1.3
    b.center_of_gravity = (2.0, 1.0)
    local = np.array([[1.0, 2.0], [-5.0, 3.0], [0.0, 0.0]])
    cog = b.local_to_world(b.center_of_gravity)
    st = np.array([[b.position.x, b.position.y, math.cos(b.angle), math.sin(b.angle),
                    b.velocity.x, b.velocity.y, b.angular_velocity, cog.x, cog.y]])
    pos = np.zeros_like(local)
    vel = np.zeros_like(local)
    K.pose_points(local, np.zeros(3, np.int64), st, pos, vel)
    for k, p in enumerate(local):
        w = b.local_to_world(tuple(p))
        assert pos[k] == pytest.approx((w.x, w.y))
        v = b.velocity_at_world_point(w)
        assert vel[k] == pytest.approx((v.x, v.y))


def test_containment_pushes_out_of_every_shape_and_balances_momentum() -> None:
    """Particles dropped inside each kind of shape end outside, their inward velocity removed,
    and the bodies take minus the momentum the particles got."""
    world = World(200.0, 200.0)
    world.add_ball((50.0, 150.0), 15.0, density=1.0)
    world.add_box((150.0, 150.0), (40.0, 20.0), density=1.0, radius=2.0)
    world.add_static_segment((20.0, 50.0), (180.0, 60.0), radius=3.0)
    rng = np.random.default_rng(0)
    pts = np.concatenate([
        rng.uniform((38, 138), (62, 162), (60, 2)),
        rng.uniform((128, 140), (172, 160), (60, 2)),
        rng.uniform((25, 52), (175, 58), (60, 2)),
    ])
    world.fluid.add_particles(pts, (0.0, -50.0))
    cp = world.coupler
    f = world.fluid
    f.bin_particles()  # the neighbour grid is the containment's broad phase
    cp.remember_positions()
    # not a step's first sync (full): that one puts particles found inside the shapes of
    # bodies just added out at once (Coupler.contain_placed), before any stage could move them
    cp.sync(f.params.h, full=False)
    p0 = f.momentum()
    moved = cp.contain()
    assert moved >= len(pts) // 2
    inside = np.zeros(f.count, bool)
    for s in cp.shapes:
        g = geometry_of(s)
        b = s.body
        c, sn = math.cos(b.angle), math.sin(b.angle)
        d = f.positions - (b.position.x, b.position.y)
        local = np.column_stack([c * d[:, 0] + sn * d[:, 1], -sn * d[:, 0] + c * d[:, 1]])
        inside |= contains(g, local)
    assert not inside.any()
    dp = f.momentum() - p0
    dyn = cp.dynamic
    assert cp.impulse[dyn].sum(axis=0) + dp == pytest.approx(
        -cp.impulse[~dyn].sum(axis=0), abs=1e-6)
    assert np.abs(cp.impulse[dyn]).sum() > 0


def test_segment_is_not_tunnelled_through() -> None:
    """A particle that went more than halfway through a thin wall in one substep comes back
    out on the side it came from."""
    world = World(100.0, 100.0)
    world.add_static_segment((50.0, 0.0), (50.0, 100.0), radius=2.0)
    f = world.fluid
    f.add_particles([[47.5, 40.0]], (120.0, 0.0))
    f.bin_particles()
    world.coupler.remember_positions()  # start of the substep: left of the wall
    f.pos[0, 0] = 50.8  # pushed and advected past the wall's centre line in one substep
    world.coupler.sync(f.params.h)
    world.coupler.contain()
    assert f.positions[0, 0] < 48.0
    assert f.velocities[0, 0] <= 0.0


@pytest.mark.parametrize("make", ["segment", "plank", "pin"])
def test_particle_that_jumped_right_through_a_shape_is_put_back(make: str) -> None:
    """Repulsion and advection together can move a particle further than a thin shape is wide
    in one substep: outside at both ends of the move, it still comes back on its own side."""
    world = World(100.0, 100.0)
    if make == "segment":
        world.add_static_segment((50.0, 0.0), (50.0, 100.0), radius=2.0)
    elif make == "plank":
        world.add_static_poly([(48.0, 10.0), (52.0, 10.0), (52.0, 90.0), (48.0, 90.0)])
    else:
        world.attach(pymunk.Circle(world.space.static_body, 2.5, offset=(50.0, 40.0)))
    f = world.fluid
    f.add_particles([[45.0, 40.0]], (300.0, 0.0))
    f.bin_particles()
    world.coupler.remember_positions()
    f.pos[0, 0] = 55.5  # 10.5 units in one substep, past the far side
    world.coupler.sync(f.params.h)
    world.coupler.contain()
    assert f.positions[0, 0] < 48.0
    assert f.velocities[0, 0] <= 0.0


def test_containment_broad_phase_skips_only_particles_that_cannot_be_inside() -> None:
    """Particles outside a shape's own box skip the inside test; the result is exactly that of
    testing every particle of the grown box (``margin = 0`` turns the shortcut off)."""
    world = World(300.0, 200.0)
    world.add_fluid_rect(0.0, 0.0, 300.0, 90.0)
    box = world.add_box((60.0, 95.0), (40.0, 24.0), density=0.9, angle=0.4)
    ball = world.add_ball((150.0, 80.0), 16.0, density=0.6)
    world.add_static_segment((200.0, 40.0), (280.0, 110.0), radius=2.0)
    for _ in range(20):
        world.step()
    c, f = world.coupler, world.fluid
    # shake the particles so that some are inside the shapes, and put 12 well inside each
    # (how many the shake alone puts in depends on the run: 9 once without the JIT)
    rng = np.random.default_rng(4)
    f.pos[: f.count] += rng.normal(0.0, 3.0, (f.count, 2))
    t = np.linspace(0.2, 0.8, 12)[:, None]
    f.pos[:12] = np.array(box.body.position) + rng.uniform(-6.0, 6.0, (12, 2))
    f.pos[12:24] = np.array(ball.body.position) + rng.uniform(-8.0, 8.0, (12, 2))
    f.pos[24:36] = (1.0 - t) * np.array([200.0, 40.0]) + t * np.array([280.0, 110.0])
    start = (f.pos.copy(), f.vel.copy())
    results = []
    for margin in (c._margin, 0.0):
        f.pos[:], f.vel[:] = start[0].copy(), start[1].copy()
        c.impulse[:] = 0.0
        c.angular_impulse[:] = 0.0
        c._margin = margin
        moved = c.contain()
        results.append((moved, f.pos.copy(), f.vel.copy(), c.impulse.copy(),
                        c.angular_impulse.copy()))
    assert c._margin == 0.0 and results[0][0] >= 36
    for a, b in zip(results[0], results[1], strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("per_body", [False, True])
@pytest.mark.parametrize("measure", [True, False])
def test_exchange_driver_runs_the_stage_kernels_in_order(measure: bool, per_body: bool) -> None:
    """``exchange_impulses`` (the exchange stage in one call) gives exactly what its kernels
    called one by one give: impulses, levels, submerged areas and the drag reaction on the
    fluid; with ``per_body`` (its sums one body per parallel task) the same bits."""
    world = World(300.0, 260.0)
    world.add_fluid_rect(0.0, 0.0, 300.0, 150.0)
    world.add_box((90.0, 155.0), (40.0, 20.0), density=0.5)
    world.add_ball((200.0, 160.0), 12.0, density=0.7).body.velocity = (30.0, -20.0)
    # a body of two shapes, attached between the others' (its samples are grouped all the same)
    two = pymunk.Body(1.0, 100.0)
    two.position = (150.0, 152.0)
    world.attach(pymunk.Circle(two, 8.0, (-6.0, 0.0)))
    world.add_box((250.0, 155.0), (20.0, 20.0), density=0.6)
    world.attach(pymunk.Poly.create_box(two, (10.0, 10.0)))
    for _ in range(4):
        world.step()
    c, f = world.coupler, world.fluid
    f.bin_particles()
    c.sync(f.params.h)
    f.repulse(f.params.h)
    f.collide(f.params.h)
    f.solve_pressure(f.params.h)
    nw, h, prm = c._n_wall, f.params.h, c.params
    gy = f.params.gravity[1]
    layer = c.spacing_outline * 0.5 * c.a0
    half_layer = f.r_l * math.sqrt(3.0) / 4.0
    near, far = 0.5 * c._col_w, c.a0 * (0.5 + prm.level_columns)
    c.levels[:] = 110.0  # known levels: measured again only if asked

    def fresh() -> dict[str, np.ndarray]:
        nb = len(c.bodies)
        return {"vel": f.vel.copy(), "J": np.zeros((nb, 2)), "tau": np.zeros(nb),
                "box": np.zeros((nb, 4)), "tops": c._tops.copy(), "levels": c.levels.copy(),
                "sub": np.zeros(nb), "prof": c.density_profile.copy(),
                "crho": np.zeros_like(c._cell_rho), "cn": np.zeros_like(c._cell_n),
                "psum": np.zeros_like(c._prof_sum), "pn": np.zeros_like(c._prof_n),
                "djt": np.zeros_like(c._drag_jt), "dm": np.zeros_like(c._drag_m)}

    def bodies(d: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
        return (c.state, c.dynamic, d["levels"], c._kick_levels, d["box"], d["prof"], d["J"],
                d["tau"], d["sub"])

    cells = c._cells_group()
    a = fresh()
    params = (f.params.gamma, c.a0, half_layer, c.spacing_interior, True, c._kick[0],
              c._kick[1], measure, c._col_w, near, far, 0.5, True, -gy * h,
              prm.drag * layer * h, f.r_l, 0.0, per_body, f.params.width)
    vmax_a = K.exchange_impulses(
        (f.pos, a["vel"], f.mat, f.count, f._start_pos, f._cell_of), c._mats_group(), cells,
        c._bins_group(), bodies(a), c._outline_group(), c._interior, c._surface, c._starts,
        (a["tops"], a["crho"], a["cn"], a["psum"], a["pn"], a["djt"], a["dm"]),
        params, -1.0)

    b = fresh()
    sum_contact_impulses(f.solid_pos[nw:], f.solid_impulse[nw:], c._out_normal, c._out_owner,
                         c.state, b["J"], b["tau"])
    K.pressure_impulses(c._interior, bodies(b), cells, c.a0, c.spacing_interior, c._kick[0],
                        c._kick[1], (K.SPARSE_RATIO * f.params.gamma, f.r_l * 3 ** 0.5 / 4))
    K.sample_bounds(c._in_pos, c._in_owner, len(c.bodies), 0.5 * c.spacing_interior, b["box"])
    vmax_b = -1.0
    if measure:
        vmax_b = K.column_tops(f.pos, b["vel"], f.count, c.a0, f.cell_count, f.solid_fraction,
                               f.params.gamma, c._col_w, b["tops"])
        K.cap_columns(f.solid_pos[nw:], len(f.solid_pos) - nw, b["tops"], c._col_w, c.a0)
        K.cap_side_columns(b["tops"], c._col_w, f.params.width)
        K.cap_wall_columns(f.solid_pos[nw:], c._out_owner, c.dynamic, len(f.solid_pos) - nw,
                           b["tops"], c._col_w, c.a0)
    K.water_levels(b["box"], b["tops"], c._col_w, f.solid_fraction, c.a0, half_layer, near, far,
                   0.5, b["levels"])
    b["levels"][~c.dynamic & (b["levels"][:, 1] == K.DRY_LEVEL)] = np.nan
    if measure:
        lo, hi = K.body_rows_range(b["box"], b["levels"], c.a0, f._nb_start, 1.0 / f.nb_h,
                                   f.nb_nx, f.nb_ny)
        hi = min(hi, f.count)
        cell_densities(f.pos[lo:hi], f.mat[lo:hi], hi - lo, c._rho_table, c.a0, b["crho"],
                       b["cn"])
        density_profiles(b["box"], b["crho"], b["cn"], c.a0, near, far, 1.0, b["prof"],
                         b["psum"], b["pn"])
    K.submerged_areas(c._in_pos, c._in_area, c._in_owner, len(c._in_pos), b["levels"],
                      c.spacing_interior, b["sub"])
    surface_buoyancy(c._surf_local, c._surf_normal, c._surf_len, c._surf_owner, c.state,
                     b["levels"], b["prof"], c.a0, -gy * h, b["J"], b["tau"])
    K.drag_impulses(c._outline_group(), bodies(b), (f.pos, b["vel"], f.mat, f.count), f._mass,
                    c._bins_group(), c.a0, f.r_l, prm.drag * layer * h, (b["djt"], b["dm"]))

    assert vmax_a == vmax_b and (vmax_a > 0.0) == measure
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert np.abs(a["J"]).sum() > 0 and a["sub"].sum() > 0
    assert not np.array_equal(a["vel"], f.vel[: len(a["vel"])])  # the drag reaction moved fluid


def test_body_runs_of_grouped_samples() -> None:
    """Each body's run of samples (the per-body parallel sums' ranges), empty bodies included;
    an owner array that is not grouped is refused by the coupler."""
    out = np.zeros(5, np.int64)
    owner = np.array([0, 0, 1, 1, 1, 3], np.int64)
    PB.body_starts(owner, 4, out)
    assert out.tolist() == [0, 2, 5, 5, 6]
    assert PB.grouped(owner) and not PB.grouped(np.array([0, 1, 0], np.int64))
    with pytest.raises(AssertionError, match="grouped"):
        Coupler._body_runs(np.array([1, 0], np.int64), 2)


def test_many_bodies_step_alike_with_one_and_two_threads_and_per_body_sums() -> None:
    """From ``PARALLEL_BODIES`` bodies the exchange sums each body's samples in a parallel
    task of its own: a pool with a dozen floating bodies (one of them of two shapes) ends
    bit-identical with one thread, with two, and with two but the per-body path off."""
    def run(threads: int, per_body: bool, monkeypatch: pytest.MonkeyPatch) -> str:
        monkeypatch.setattr(coupler_module, "PARALLEL_BODIES", 8 if per_body else 10**9)
        numba.set_num_threads(threads)
        world = World(480.0, 200.0)
        world.fluid.threads = ThreadPolicy(mode="fixed")
        world.add_fluid_rect(0.0, 0.0, 480.0, 80.0)
        for k in range(11):
            add = world.add_box if k % 2 else world.add_ball
            size = (24.0, 18.0) if k % 2 else 10.0
            add((24.0 + 42.0 * k, 100.0 + 8.0 * (k % 3)), size, density=0.3 + 0.05 * k)
        two = pymunk.Body(1.0, 100.0)
        two.position = (240.0, 130.0)
        world.attach(pymunk.Poly.create_box(two, (30.0, 8.0)))
        world.attach(pymunk.Circle(two, 6.0, (0.0, 6.0)))
        for _ in range(40):
            world.step()
        assert len(world.coupler.bodies) == 12
        assert numba.get_num_threads() == threads
        return world.state_hash()

    cap = numba.get_num_threads()
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two numba threads")
    with pytest.MonkeyPatch.context() as mp:
        try:
            hashes = {run(1, True, mp), run(2, True, mp), run(2, False, mp)}
        finally:
            numba.set_num_threads(cap)
    assert len(hashes) == 1


@pytest.mark.parametrize("gravity", [True, False])
def test_sync_driver_runs_the_stage_kernels_in_order(gravity: bool) -> None:
    """``sync_geometry`` (the sync stage in one call) poses the samples and shapes, builds the
    solid cover and zeroes the impulses exactly as its kernels called one by one."""
    world = World(300.0, 200.0)
    world.add_fluid_rect(0.0, 0.0, 300.0, 90.0)
    world.add_static_segment((20.0, 150.0), (280.0, 160.0), radius=3.0)  # wall cover
    world.add_box((90.0, 95.0), (40.0, 20.0), density=0.5).body.angle = 0.3
    world.add_ball((200.0, 100.0), 12.0, density=0.7).body.angular_velocity = 2.0
    for _ in range(3):
        world.step()
    c, f = world.coupler, world.fluid
    c.read_bodies(True)
    kick = (0.0, -9.81 / 120.0)
    margin = c._box_margin(1.0 / 120.0)

    def arrays() -> dict[str, np.ndarray]:
        return {"out_pos": np.zeros_like(c._out_local), "out_vel": np.zeros_like(c._out_local),
                "in_pos": np.zeros_like(c._in_local), "in_vel": np.zeros_like(c._in_local),
                "kick": np.zeros_like(c.levels), "cover": np.zeros_like(c._in_area),
                "frac": np.zeros_like(f.solid_fraction),
                "cvel": np.zeros_like(f.solid_cell_velocity),
                "walls": np.full_like(f.wall_cover, 7),
                "verts": np.zeros_like(c._shape_verts), "vvel": np.zeros_like(c._shape_vvel),
                "box": np.zeros_like(c._shape_box), "J": np.ones_like(c.impulse),
                "tau": np.ones_like(c.angular_impulse), "sub": np.ones_like(c.submerged_area)}

    a = arrays()
    n_walls = K.sync_geometry(
        (c.state, c.dynamic, c.levels, a["kick"], c.body_box, c.density_profile, a["J"],
         a["tau"], a["sub"]),
        (c._out_local, c._out_owner, c._out_normal, a["out_pos"], a["out_vel"],
         np.zeros_like(c._out_local), c._out_inset),
        (c._in_local, c._in_owner, c._in_area, a["in_pos"], a["in_vel"], a["cover"], c._in_arm),
        (c._shape_kind, c._shape_vstart, a["verts"], c._shape_radius, c._shape_thick,
         c._shape_body, a["box"], c._shape_active, c._shape_wall, c._shape_vlocal,
         c._shape_vowner, a["vvel"]),
        (f.cell_count, f.cell_velocity, f.cell_grad, a["frac"], a["cvel"], a["walls"]),
        (gravity, c.spacing_interior, kick[0], kick[1], c.a0, margin))
    b = arrays()
    K.pose_points(c._out_local, c._out_owner, c.state, b["out_pos"], b["out_vel"])
    K.pose_points(c._in_local, c._in_owner, c.state, b["in_pos"], b["in_vel"])
    b["kick"][:] = c.levels if gravity else np.nan
    K.submerged_cover(b["in_pos"], c._in_owner, len(c._in_local), c.dynamic, b["kick"],
                      c.spacing_interior, c._in_area, kick[0], kick[1], b["in_vel"], b["cover"])
    K.rasterise_cover(b["in_pos"], b["in_vel"], b["cover"], len(c._in_local), c.a0, b["frac"],
                      b["cvel"])
    walls = K.rasterise_walls(b["in_pos"], c._in_owner, len(c._in_local), c.dynamic, c.state,
                              c.a0, b["walls"])
    K.pose_points(c._shape_vlocal, c._shape_vowner, c.state, b["verts"], b["vvel"])
    walls += K.rasterise_wall_surfaces(
        (c._shape_kind, c._shape_vstart, b["verts"], c._shape_radius, c._shape_thick,
         c._shape_body, b["box"], c._shape_active, c._shape_wall, c._shape_vlocal,
         c._shape_vowner, b["vvel"]), c.dynamic, c.state, c.a0, b["walls"])
    K.rasterise_wall_faces(
        (c._shape_kind, c._shape_vstart, b["verts"], c._shape_radius, c._shape_thick,
         c._shape_body, b["box"], c._shape_active, c._shape_wall, c._shape_vlocal,
         c._shape_vowner, b["vvel"]), c.dynamic, c.state, c.a0, b["walls"])
    assert n_walls == walls
    K.shape_bounds(c._shape_kind, c._shape_vstart, b["verts"], c._shape_radius, margin,
                   b["box"])
    b["J"][:], b["tau"][:], b["sub"][:] = 0.0, 0.0, 0.0
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert a["frac"].sum() > 0 and np.abs(a["out_vel"]).sum() > 0
    # the wall's cells (bit 0), and only its: one to three rows of the 26-27 columns from x 20
    # to 280; the faces it stands across (bits 1 and 2) in and next to them
    rows, cols = np.nonzero(a["walls"] & 1)
    assert n_walls == len(rows) and 26 <= n_walls <= 3 * 28
    assert set(rows) <= {14, 15, 16} and cols.min() >= 1 and cols.max() <= 28
    up_rows, up_cols = np.nonzero(a["walls"] & 4)
    assert set(up_rows) <= {13, 14, 15, 16} and len(up_cols) >= 26


def test_the_simulation_uses_only_pymunks_public_api() -> None:
    """No private pymunk modules, cffi handles or struct layouts anywhere in the package: bodies
    are read and written through ``pymunk.batch`` and ``Body``'s properties."""
    from pathlib import Path

    import fluidworld

    root = Path(fluidworld.__file__).parent
    private = re.compile(r"pymunk\._|\._body\b|\._space\b|cffi|ffi\.|_chipmunk")
    hits = [f"{p.relative_to(root)}:{n}: {line.strip()}"
            for p in sorted(root.rglob("*.py"))
            for n, line in enumerate(p.read_text().splitlines(), 1)
            if private.search(line) and not line.lstrip().startswith("#")]
    assert hits == []


def test_a_coupler_saved_before_the_body_runs_rebuilds_them() -> None:
    """A World pickled by a build without the per-body runs (no ``_starts``) loads and steps:
    the coupler builds its arrays again (as for any save older than its layout), grouping the
    samples by body and finding each body's run."""
    import pickle

    world = World(400.0, 200.0)
    world.add_fluid_rect(0.0, 0.0, 400.0, 80.0)
    for k in range(9):
        world.add_box((20.0 + 42.0 * k, 100.0), (20.0, 16.0), density=0.5)
    for _ in range(5):
        world.step()
    copy = pickle.loads(pickle.dumps(world))
    del world.coupler._starts
    old = pickle.loads(pickle.dumps(world))
    for _ in range(5):
        copy.step()
        old.step()
    assert old.check().ok and old.fluid.count == copy.fluid.count
    assert old.coupler._starts[1].tolist() == copy.coupler._starts[1].tolist()
    assert len(old.coupler._starts[1]) == 10


def test_limit_speeds_cuts_only_what_passes_the_limit() -> None:
    """Body 0 would leave at 500 units/s: cut to 210 (its speed 10 plus a slack of 200) along
    its new direction; body 1 stays under the limit; body 2 has no inverse mass; body 3 spins
    too fast for its radius of gyration (2: a cap of 200 / 2); the fastest speed allowed
    anyway, 100, is under each."""
    state = np.zeros((4, 9))
    state[:, 4] = [10.0, 0.0, 0.0, 0.0]
    J = np.array([[0.0, 490.0], [30.0, 40.0], [1e9, 0.0], [0.0, 0.0]])
    tau = np.array([0.0, 0.0, 0.0, 1000.0])
    inv_mass = np.array([1.0, 1.0, 0.0, 1.0])
    inv_moment = np.array([1.0, 1.0, 1.0, 0.25])
    K.limit_speeds(state, J, tau, inv_mass, inv_moment, 100.0, 200.0)
    v0 = state[0, 4:6] + J[0]
    assert np.hypot(*v0) == pytest.approx(210.0) and v0[1] / v0[0] == pytest.approx(49.0)
    np.testing.assert_array_equal(J[1:3], [[30.0, 40.0], [1e9, 0.0]])
    assert tau[:3].tolist() == [0.0, 0.0, 0.0]
    assert tau[3] * 0.25 == pytest.approx(200.0 / 2.0)
