"""Buoyancy in the fluid a body sits in: Archimedes in water, oil and honey, calm water,
displacement, and the paper preset by a wall. The scenes are those of
``fluidworld.fidelity.buoyancy`` (game preset unless said; pools 100 deep)."""

from __future__ import annotations

import math

import numpy as np
import pymunk
import pytest

from fluidworld.coupling import CouplingParams
from fluidworld.entities import BodyHandle
from fluidworld.fidelity import buoyancy as B
from fluidworld.fluid import FluidParams
from fluidworld.world import World


@pytest.mark.parametrize(("material", "ratio"), [
    (m, r) for m in ("water", "oil", "honey") for r in (0.6, 0.9, 1.1)])
@pytest.mark.parametrize("kind", ["box", "ball"])
def test_archimedes_in_each_fluid(material: str, kind: str, ratio: float) -> None:
    """A body of ``ratio x`` the fluid's density dropped onto a pool of that fluid floats with
    a submerged fraction of ``ratio`` +-0.05; at 1.1x it sinks: wholly under, its bottom two
    body heights below the surface or on the floor after 8 s, in honey after 30 s.

    Honey is ~11x water's viscosity, so a body 0.1 heavier sinks through it at a viscous
    speed, in proportion to its excess density (measured 2026-12-01, seed 0: a ball of radius
    20 at ~3.2 units/s, two heights under by ~15 s and on the floor by 30 s; the 72 x 24 box
    two heights under by ~20 s). With the honey of ~22x water's viscosity before it: 45 and
    75 s, given 90 s; before that the test asked honey for the 8 s of water and was marked
    xfail."""
    if ratio < 1.0:
        res = B.float_fraction(kind, material, ratio, seconds=8.0, average=3.0)
        assert abs(res.fraction - ratio) <= 0.05, f"submerged fraction {res.fraction:.3f}"
    else:
        ok, res = B.sinks(kind, material, ratio)
        assert ok, res
    assert math.isfinite(res.max_speed)


def test_a_ball_sinks_through_honey_in_proportion_to_its_excess_density() -> None:
    """Stokes drag: a ball of radius 20 sinking through honey goes at a speed in proportion
    to ``rho_b / rho - 1``, so a 1.2x ball is twice as fast as a 1.1x one (measured 1.99:
    3.69 / 1.86 units/s); a yield stress would hold the lighter one back more."""
    v1, v2 = B.sinking_speed(1.1), B.sinking_speed(1.2)
    assert v1 > 0.5 and 1.6 <= v2 / v1 <= 2.5, (v1, v2)


@pytest.mark.parametrize(("shape", "ratio"), [("box", 0.8), ("ball", 0.6)])
def test_archimedes_in_honey_whatever_the_pool_depth(shape: str, ratio: float) -> None:
    """Honey 120 deep (its top row of pressure cells partly filled, where 100 fills it): a box
    40 x 40 of 0.8 and a ball of radius 15 of 0.6 x honey's density float within 0.05 of
    Archimedes. (The density correction used to pull particles up into that top row every
    substep; honey cannot diffuse them back, so a flow ran up beside the body and lifted it:
    -0.073 and +0.077, seed 1.)"""
    w = World(400.0, 220.0, params=FluidParams.game(400.0, 220.0, seed=1))
    w.add_fluid_rect(0.0, 0.0, 400.0, 120.0, material="honey")
    rho = ratio * B.fluid_density(w, "honey")
    if shape == "box":
        e = w.add_box((170.0, 141.0), (40.0, 40.0), density=rho)
    else:
        e = w.add_ball((170.0, 136.0), 15.0, density=rho)
    f = B.mean_fraction(w, e, 720, 480)
    assert abs(f - ratio) <= 0.05, f"submerged fraction {f:.3f}"


@pytest.mark.parametrize(("material", "depth"), [("water", 70.0), ("oil", 150.0)])
def test_a_wide_near_neutral_box_is_not_held_under_at_the_waterline(material: str,
                                                                      depth: float) -> None:
    """A box 100 x 30 of 0.9 x the fluid's density dropped onto a pool floats at 0.9 +-0.05
    (seconds 8-12). Its drop takes it under; once its deck came level with the water, the
    pressure stage's push held it there (0.994 and 0.981): the sliver of solid cover over the
    deck made a partly filled cell that is not air, and the push under it fell short of
    hydrostatic by 10-14 % of the box's weight, all of its spare buoyancy. An awash body now
    gets no push under such a cell. With a tenth of its weight to spare it comes back from its
    dive slowly: in the oil, 2-s means from 2 to 24 s of 0.96 / 0.96 / 0.96 / 0.93 / 0.96 /
    0.92, then 0.91-0.93 (2026-11-30), so the window starts at 8 s (it was the last 3 of 8 s,
    which caught the return: 0.959 once the box no longer took a push at its first step)."""
    w = World(320.0, depth + 120.0)
    w.add_fluid_rect(0.0, 0.0, 320.0, depth, material=material)
    e = w.add_box((160.0, depth + 16.0), (100.0, 30.0),
                  density=0.9 * B.fluid_density(w, material))
    f = B.mean_fraction(w, e, 720, 480)
    assert abs(f - 0.9) <= 0.05, f"submerged fraction {f:.3f}"


def test_body_floats_at_an_oil_water_interface() -> None:
    """A box 72 x 24 of density 0.9 dropped on water (80 deep) under oil (40): the part in
    the oil gets rho_oil g, the part in the water rho_water g. Theory: fully under the oil's
    surface, d_w in the water with 0.8 (24 - d_w) + d_w = 0.9 * 24, so d_w = 12: its centre on
    the interface (~80-85 once the box's volume has raised it). Water's density everywhere
    would float it high in the oil (centre ~115), oil's would sink it to the floor (12)."""
    w = World(320.0, 240.0, params=FluidParams.game(320.0, 240.0))
    w.add_fluid_rect(0.0, 0.0, 320.0, 80.0, material="water")
    w.add_fluid_rect(0.0, 80.0, 320.0, 120.0, material="oil")
    e = w.add_box((160.0, 125.0), (72.0, 24.0), density=0.9)
    ys = []
    for i in range(480):
        w.step()
        if i >= 360:
            ys.append(e.body.position.y)
    prof = w.coupler.density_profile[0]  # rows of 10 units beside the box
    assert np.all(np.abs(prof[9:12] - 0.8) < 0.05), prof
    assert np.all(prof[2:7] > 0.9), prof
    assert 72.0 < min(ys) and max(ys) < 92.0, (min(ys), max(ys))


def test_fixed_fluid_density_overrides_the_local_one() -> None:
    """``CouplingParams.fluid_density`` fixes the buoyancy's density: a box of density 0.5 in an
    oil pool with the override 1.0 floats as if on water (submerged fraction 0.5, not 0.625)."""
    w = World(320.0, 200.0, params=FluidParams.game(320.0, 200.0),
              coupling=CouplingParams(fluid_density=1.0))
    w.add_fluid_rect(0.0, 0.0, 320.0, 100.0, material="oil")
    e = w.add_box((160.0, 113.0), (72.0, 24.0), density=0.5)
    f = B.mean_fraction(w, e, 420, 240)
    assert np.all(w.coupler.density_profile == 1.0)
    assert abs(f - 0.5) <= 0.05


@pytest.mark.parametrize("offset", [3.0, 2.2])
@pytest.mark.parametrize(("kind", "density"), [
    ("box", 0.5), ("box", 0.8), ("ball", 0.8), ("ball", 0.5)])
def test_calm_water_leaves_a_floating_body_calm(kind: str, density: float, offset: float) -> None:
    """At its Archimedes draft in still water, a body turns by less than 30 degrees and its
    centre drifts by less than a quarter of its size in 10 s, wherever it lies on the pressure
    grid (centred ``offset`` units off a cell face). (Balls of 0.8 turned by 4-57 degrees over
    four seeds while the drag took the pressure correction's part along the surface for fluid
    velocity, 1.3-6 since; 2.2 units off the face, by 41 on seed 0 while the drag took the
    cell's fluid velocity, which carried the ball's own spin: 1.6 with the particles'. A ball of
    0.5 turned 32-42 degrees here with the water around it until fluid particles repelled
    within 0.9 r_L, 2026-11-28: 1.7-1.9 since.)"""
    turn, drift = B.calm_motion(kind, density, offset=offset)
    assert turn < 30.0 and drift < 0.25, f"turn {turn:.1f} deg, drift {drift:.3f} of size"


@pytest.mark.parametrize("x", [200.0, 137.0])
@pytest.mark.parametrize("density", [0.5, 0.8])
def test_a_ball_put_into_a_settled_pool_stays_calm(density: float, x: float) -> None:
    """The way a script sets it up: a pool, a second to settle, then a ball (radius 20) put at
    its Archimedes draft. It turns by less than 30 degrees in 10 s. (While the pressure push
    gave a circle a torque of grid noise: 29-92 degrees for 0.5, 12-36 for 0.8; measured
    4.9-19.1 since.)"""
    world = B.pool(400.0, 300.0)
    for _ in range(60):
        world.step()
    r = B.BALL
    ball = world.add_ball((x, B.DEPTH - B._draft("ball", density) + r), r, density=density)
    a0 = ball.body.angle
    turn = 0.0
    for _ in range(600):
        world.step()
        turn = max(turn, abs(math.degrees(ball.body.angle - a0)))
    assert turn < 30.0, f"turn {turn:.1f} deg"


@pytest.mark.parametrize("kind", ["box", "ball"])
@pytest.mark.parametrize("material", ["water", "oil", "honey"])
def test_displacement_raises_the_level(material: str, kind: str) -> None:
    """A floating body (0.8x the fluid's density) raises the level far from it by at least
    90 % of its submerged area / the pool's width (the same pool without it as reference),
    averaged over seconds 4-12. (Over seeds 0-3, 2026-11-28: boxes 0.91-0.98 in water and oil,
    0.97-1.02 in honey; balls 0.93-1.02, honey 1.05-1.11.)"""
    ratio = B.displacement_ratio(kind, material)
    assert ratio >= 0.9, f"rise / (A_sub / W) = {ratio:.3f}"


def test_a_cell_with_cover_corrects_its_own_compression() -> None:
    """``correct_covered_cells``: a cell holding part of a moving body's cover and more fluid
    than its share gets the density correction of its own count at ``COVERED_SHARE`` of the
    rate (where that is stronger than its block's); cells without cover, fully covered, under
    their share, wall cells or cells with a wall's cover keep theirs."""
    from fluidworld.fluid import pressure_converged as pc

    gamma, a0, beta, h = 5.0, 10.0, 0.3, 1.0 / 120.0
    cnt = np.full((3, 5), gamma)
    solid = np.zeros_like(cnt)
    solid[1, :] = (0.2, 0.2, 1.0, 0.2, 0.0)
    cnt[1, :] = (6.0, 4.5, 5.0, 6.0, 6.0)  # 5 particles + 0.2 cover; under its share; ...
    cnt[2, 1] = 7.0
    wall = np.zeros((3, 5), np.uint8)
    wall[1, 3] = 1
    static = np.zeros((3, 5), np.uint8)
    rhs = np.full_like(cnt, -1.0)
    pc.correct_covered_cells(cnt, solid, wall, static, gamma, a0, beta, h, np.arange(3), rhs)
    k = a0 * a0 * beta * pc.COVERED_SHARE / h
    assert rhs[1, 0] == pytest.approx(-k * 0.2)
    assert (rhs[1, 1:] == -1.0).all() and (rhs[0] == -1.0).all() and (rhs[2] == -1.0).all()
    rhs[:] = -1e9  # a block's stronger correction stays
    pc.correct_covered_cells(cnt, solid, wall, static, gamma, a0, beta, h, np.arange(3), rhs)
    assert (rhs == -1e9).all()
    rhs[:] = -1.0  # a wall's cover (a static shape's) keeps its block's
    static[1, 0] = 1
    pc.correct_covered_cells(cnt, solid, wall, static, gamma, a0, beta, h, np.arange(3), rhs)
    assert (rhs == -1.0).all()


def test_a_box_of_the_standard_size_raises_the_level_by_what_it_displaces() -> None:
    """The test above's bodies are 1.5x the standard size; a smaller body loses more of its
    displacement to the rows of water that pack against its outline. A 72 x 24 box of 0.8 in
    water, seeds 0-1: the cells that hold part of its cover correct their own compression
    (``pressure_converged.correct_covered_cells``). Before, the rows next to the body held
    ~1.2x their share and the box raised the level by 0.885 / 0.875 of its submerged area over
    the width (seeds 0-5: 0.875-1.006, mean 0.920); since, 1.008 / 1.028. With the thinner
    water of 2026-12-01 (``srd_alpha`` pi/4) seeds 0-5 read 0.987 / 0.912 / 0.965 / 0.958 /
    0.946 / 0.921 (mean 0.948; water at pi/2 0.918-1.009, mean 0.971): issue 13's bound is
    0.9."""
    ratios = [B.displacement_ratio("box", "water", seed=s, size=1.0) for s in (0, 1, 2, 3)]
    assert min(ratios) >= 0.9, ratios
    assert sum(ratios) / len(ratios) >= 0.93, ratios


def test_paper_preset_ball_dropped_by_a_wall() -> None:
    """Paper preset: a ball dropped into a pool beside a wall: no NaN, and neither the ball nor
    any particle gets faster than 10x the ball's impact speed."""
    impact, vmax, nan = B.paper_wall_drop()
    assert not nan and impact > 0.0
    assert vmax < 10.0 * impact, f"{vmax:.1f} against an impact at {impact:.1f}"


def test_surface_quadrature_integrates_the_pressure_exactly() -> None:
    """The surface integral of a hydrostatic pressure over a fully submerged box, ball,
    rounded box and capsule is Archimedes' rho g A exactly, with no torque; half submerged it
    gives the exact half, and a circle gets no torque at any angle or level."""
    import pymunk

    from fluidworld.coupling.buoyancy import surface_buoyancy, surface_quadrature
    from fluidworld.coupling.sampling import geometry_of

    body = pymunk.Body(1.0, 1.0)
    shapes = [pymunk.Poly.create_box(body, (72.0, 24.0)), pymunk.Circle(body, 20.0),
              pymunk.Segment(body, (-20.0, 0.0), (20.0, 0.0), 5.0)]
    for shape in shapes:
        g = geometry_of(shape)
        pts, nrm, lens = surface_quadrature(g, 2.5)
        owner = np.zeros(len(lens), np.int64)
        for level, angle in ((300.0, 0.0), (50.0, 0.0), (53.0, 0.7), (45.0, 1.3)):
            st = np.array([[0.0, 50.0, math.cos(angle), math.sin(angle), 0, 0, 0, 0.0, 50.0]])
            levels = np.array([[-50.0, level, 50.0, level]])
            prof = np.full((1, 40), 0.8)
            J = np.zeros((1, 2))
            tau = np.zeros(1)
            surface_buoyancy(pts, nrm, lens, owner, st, levels, prof, 10.0, 2.0, J, tau)
            if level == 300.0:  # fully submerged: 0.8 * 2 * area, no torque
                assert J[0, 1] == pytest.approx(1.6 * shape.area, rel=1e-9)
                assert abs(tau[0]) < 1e-6 * shape.area
            elif level == 50.0 and angle == 0.0:  # the centre line: half of it
                assert J[0, 1] == pytest.approx(0.8 * shape.area, rel=1e-9)
            if isinstance(shape, pymunk.Circle):
                assert abs(tau[0]) < 1e-9 * shape.area
            assert J[0, 0] == 0.0  # the net force is kept vertical


@pytest.mark.parametrize(("shape", "density"), [("ball", 0.1), ("ball", 0.05), ("box", 0.05)])
def test_a_body_lighter_than_its_mass_floor_floats_at_its_own_draft(shape: str,
                                                                     density: float) -> None:
    """A ball of radius 10 and a 40 x 40 crate lighter than their mass floor (``MASS_FLOOR``,
    density 0.22 and 0.11) float within 0.05 of Archimedes. They answer to the fluid with the
    floor's inertia and to gravity with their own weight; with the floor's weight too they had
    floated as deep as the floor (the ball of 0.1 with 0.22 of its area under)."""
    w = World(500.0, 300.0, params=FluidParams.game(500.0, 300.0))
    w.add_fluid_rect(0.0, 0.0, 500.0, 120.0)
    if shape == "ball":
        e = w.add_ball((250.0, 132.0), 10.0, density=density)
    else:
        e = w.add_box((250.0, 142.0), (40.0, 40.0), density=density)
    f = B.mean_fraction(w, e, 480, 300)
    assert abs(f - density) <= 0.05, f"submerged fraction {f:.3f}"


@pytest.mark.parametrize("seed", [0, 1])
def test_a_light_crate_let_go_under_water_rises_without_being_flung(seed: int) -> None:
    """A 40 x 40 crate of 0.05 let go 40 under the surface: it rises and floats. It answers to
    the fluid with at least a quarter of the water it displaces (``ADDED_MASS``): with only its
    mass floor it rose at ~8 g and was flung until pymunk overflowed."""
    w = World(500.0, 300.0, params=FluidParams.game(500.0, 300.0, seed=seed))
    n = w.add_fluid_rect(0.0, 0.0, 500.0, 120.0)
    e = w.add_box((250.0, 80.0), (40.0, 40.0), density=0.05)
    fastest = 0.0
    for _ in range(360):
        w.step()
        fastest = max(fastest, abs(e.body.velocity.x) + abs(e.body.velocity.y))
    assert fastest < 500.0, fastest
    assert 130.0 < e.body.position.y < 150.0, e.body.position  # afloat: ~139 at 0.05
    assert w.fluid.count == n and w.check().ok


def test_the_surface_beside_a_body_leaves_the_walls_column_out() -> None:
    """``surface_beside`` in a pool 120 wide whose bands reach the side walls: the box of 0.6
    floats at 0.6 there (the coupler's levels say so), but the band's last column, 4 units of
    it against the wall, read 75.7 where the water stood at ~84, and the fraction 0.26."""
    w = World(120.0, 230.0, params=FluidParams.game(120.0, 230.0, seed=2))
    w.add_fluid_rect(0.0, 0.0, 120.0, 80.0)
    e = w.add_box((60.0, 96.0), (40.0, 30.0), density=0.6)
    for _ in range(600):
        w.step()
    x0, _, x1, _ = w.coupler.body_box[w.coupler.body_index(e.body)]
    level = B.surface_beside(w, x0, x1)
    assert abs(level - float(np.mean(w.coupler.levels[0, [1, 3]]))) < 2.0, level
    assert abs(B.submerged_fraction(e, level) - 0.6) <= 0.05


def _fraction_left_of(w: World, e: BodyHandle) -> float:
    """Seconds 8-16: the body's submerged fraction against the level on its left (open) side."""
    fr = []
    for i in range(960):
        w.step()
        if i >= 480 and i % 3 == 0:
            x0 = w.coupler.body_box[w.coupler.body_index(e.body)][0]
            fr.append(B.submerged_fraction(e, B.surface_beside(w, x0, 1e9)))
    return float(np.mean(fr))


@pytest.mark.parametrize("density", [0.4, 0.8])
def test_a_box_by_a_side_wall_floats_at_its_draft(density: float) -> None:
    """A 72 x 24 box floating 12 units from the right wall of a pool 320 wide: the coupler
    reads no level in the column by the wall (the fluid stacks against a wall in columns of
    its own, whose tops stand 3-7 units under the surface; when it did, that column was the
    box's whole level on the wall's side and the box of 0.4 floated at 0.342), nor in the one
    column left between the box and that one where its open side has more (the water climbs
    the box in so narrow a gap: the box of 0.8 floated at 0.69, 0.110 high, 2026-11-30)."""
    w = World(320.0, 220.0)
    w.add_fluid_rect(0.0, 0.0, 320.0, 100.0)
    e = w.add_box((320.0 - 12.0 - 36.0, 113.0), (72.0, 24.0), density=density)
    f = _fraction_left_of(w, e)
    assert abs(f - density) <= 0.03, f


def test_a_box_by_a_static_wall_floats_at_its_draft() -> None:
    """The same by a vertical segment (radius 2) standing in the pool: the column beside the
    wall gives no level (``surface.cap_wall_columns``). When it did, it was the box's whole
    level on that side and read 94.4 where the water stood at ~100: the box floated at 0.340."""
    w = World(420.0, 220.0)
    w.space.add(pymunk.Segment(w.space.static_body, (327.0, 0.0), (327.0, 200.0), 2.0))
    w.add_fluid_rect(0.0, 0.0, 325.0, 100.0)
    e = w.add_box((325.0 - 12.0 - 36.0, 113.0), (72.0, 24.0), density=0.4)
    f = _fraction_left_of(w, e)
    assert abs(f - 0.4) <= 0.03, f


@pytest.mark.parametrize("angle", [0.0, 0.7])
def test_the_submerged_fraction_counts_a_boxs_rounding(angle: float) -> None:
    """A box 72 x 24 with corners rounded by 6 (pymunk's radius adds to the shape): below the
    level of its core's bottom edge lie the strip under it and two quarter discs, and a level
    through its centre halves it (the fraction used to leave the rounding out of the area
    below the level and count it in the whole: 0.395 for a box floating at 0.6)."""
    w = World(320.0, 200.0)
    box_w, box_h, r = 72.0, 24.0, 6.0
    e = w.add_box((160.0, 100.0), (box_w, box_h), density=0.5, radius=r, angle=angle)
    whole = box_w * box_h + 2.0 * (box_w + box_h) * r + math.pi * r * r
    assert B.submerged_fraction(e, e.body.position.y) == pytest.approx(0.5, abs=1e-9)
    assert B.submerged_fraction(e, 1e6) == pytest.approx(1.0)
    if angle == 0.0:
        below = box_w * r + 0.5 * math.pi * r * r
        assert B.submerged_fraction(e, 100.0 - 0.5 * box_h) == pytest.approx(below / whole,
                                                                             rel=1e-4)
    assert B.submerged_area(e, 1e6) == pytest.approx(whole, rel=1e-4)
