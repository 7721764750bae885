"""Acceptance tests of the fluid-body coupling: Archimedes, momentum, torque, leaks, calm.

All scenes use the game preset (a0 = 10, gamma = 5, dt = 1/60, 2 substeps) on small domains.
"""

from __future__ import annotations

import math

import numpy as np
import pymunk
import pytest

from fluidworld.coupling import CouplingParams
from fluidworld.fidelity.buoyancy import surface_beside
from fluidworld.fluid import FluidParams
from fluidworld.world import World


# ---------------------------------------------------------------------------- helpers
def pool(width: float, height: float, depth: float, seed: int = 0, **fluid: object) -> World:
    world = World(width, height, params=FluidParams.game(width, height, seed=seed, **fluid))
    world.add_fluid_rect(0.0, 0.0, width, depth)
    return world


def polygon_area_below(pts: np.ndarray, level: float) -> float:
    """Area of a convex polygon below the line y = level (one Sutherland-Hodgman clip)."""
    out = []
    for i in range(len(pts)):
        p, q = pts[i], pts[(i + 1) % len(pts)]
        if p[1] < level:
            out.append(p)
        if (p[1] < level) != (q[1] < level):
            out.append(p + (level - p[1]) / (q[1] - p[1]) * (q - p))
    if len(out) < 3:
        return 0.0
    o = np.array(out)
    return 0.5 * abs(float(np.dot(o[:, 0], np.roll(o[:, 1], -1))
                           - np.dot(np.roll(o[:, 0], -1), o[:, 1])))


def submerged_fraction(body: pymunk.Body, shape: pymunk.Shape, level: float) -> float:
    """Geometric fraction of a box or ball below ``level``."""
    if isinstance(shape, pymunk.Circle):
        r = shape.radius
        h = min(max(level - (body.position.y - r), 0.0), 2.0 * r)
        seg = r * r * math.acos((r - h) / r) - (r - h) * math.sqrt(max(2 * r * h - h * h, 0.0))
        return seg / (math.pi * r * r)
    pts = np.array([tuple(body.local_to_world(v)) for v in shape.get_vertices()])
    return polygon_area_below(pts, level) / shape.area


# ---------------------------------------------------------------------------- Archimedes
@pytest.mark.parametrize("density", [0.3, 0.5, 0.7])
@pytest.mark.parametrize("kind", ["box", "ball"])
def test_archimedes_floating_fraction(kind: str, density: float) -> None:
    """A body of density rho (water = 1) settles with a submerged area fraction of rho +-0.05,
    measured geometrically from the water surface next to it (time-averaged)."""
    world = pool(320.0, 200.0, 100.0)
    if kind == "box":  # 3:1, hydrostatically stable flat at these densities
        e = world.add_box((160.0, 113.0), (72.0, 24.0), density=density)
    else:
        e = world.add_ball((160.0, 121.0), 20.0, density=density)
    fractions = []
    for i in range(700):
        world.step()
        if i >= 450 and i % 5 == 0:
            x0, _, x1, _ = world.coupler.body_box[0]
            level = surface_beside(world, x0, x1)
            fractions.append(submerged_fraction(e.body, e.shape, level))
    frac = float(np.mean(fractions))
    assert abs(frac - density) <= 0.05, f"{kind} {density}: submerged fraction {frac:.3f}"
    assert not np.isnan(world.fluid.positions).any()


@pytest.mark.parametrize("gap", [0.5, 10.0])
def test_a_neighbour_does_not_change_what_a_body_reports_submerged(gap: float) -> None:
    """Two 60 x 16 boxes of 0.4 side by side: each handle's ``submerged_area`` is its own
    fraction (0.40-0.43 over seconds 3-5). The level beside each was read partly from the
    water under the other box's bottom, and they reported 0.24-0.27 touching, 0.24-0.25
    10 apart, floating where a box alone does."""
    world = pool(400.0, 300.0, 120.0)
    boxes = [world.add_box((170.0, 129.0), (60.0, 16.0), density=0.4),
             world.add_box((230.0 + gap, 129.0), (60.0, 16.0), density=0.4)]
    fractions = []
    for i in range(300):
        world.step()
        if i >= 180:
            fractions.append([h.submerged_area / h.area for h in boxes])
    assert np.abs(np.mean(fractions, axis=0) - 0.4).max() < 0.05, np.mean(fractions, axis=0)


@pytest.mark.parametrize("solver", ["srd", "ddr", "constraint"])
def test_water_behind_a_wall_is_not_a_dry_bodys_level(solver: str) -> None:
    """A crate and a ball on the dry floor beside a walled-off tank 200 deep: the level search
    widened over the dry floor to the tank, the bodies read 1.00 submerged, and with SRD the
    crate was thrown to y 229 within 3 s. (In a lock, a box in the low pool beside the wall
    read the high pool's level, 202, and was shoved sideways at 1.9x its weight.) A box in a
    low pool beyond the dry floor floats at its own level: its centre within 3 units of that
    pool's surface (its submerged share read by the coupler: 0.50-0.53, since the calmer
    repulsion 0.56, the box against the wall at the surface's own height)."""
    w = World(500.0, 300.0, solver=solver)
    for x in (150.0, 320.0):
        w.add_static_segment((x, 0.0), (x, 250.0), radius=5.0)
    w.add_fluid_rect(0.0, 0.0, 145.0, 200.0)
    w.add_fluid_rect(325.0, 0.0, 500.0, 60.0)  # and a low pool right of the dry floor
    crate = w.add_box((230.0, 15.0), (30.0, 30.0), density=0.5)
    ball = w.add_ball((270.0, 15.0), 15.0, density=0.5)
    box = w.add_box((345.0, 76.0), (30.0, 30.0), density=0.5)
    fractions = []
    for i in range(300):
        w.step()
        assert crate.submerged_area == 0.0 and ball.submerged_area == 0.0
        if i >= 180:
            fractions.append(box.submerged_area / box.area)
    assert crate.body.position.y < 16.0 and ball.body.position.y < 16.0
    assert abs(np.mean(fractions) - 0.5) < 0.08, np.mean(fractions)
    low = w.fluid.positions[w.fluid.positions[:, 0] > 330.0, 1]
    assert abs(box.body.position.y - float(np.percentile(low, 99))) < 3.0


def test_a_container_with_dry_outsides_keeps_its_walls_solid() -> None:
    """A U of segments on a slab, water in it, a box of 0.5 dropped in: the walls have dry
    columns on both outer sides. Taken for a dry body, their cover stopped counting in the
    pressure stage: the water fell into the slab (98 deep -> 73 within 20 steps) and the box
    was trapped at the bottom. A wall with no level keeps its cover whole."""
    w = World(400.0, 300.0)
    w.add_static_poly([(96, 0), (304, 0), (304, 24), (96, 24)])
    for x in (100.0, 300.0):
        w.add_static_segment((x, 20.0), (x, 220.0), radius=4.0)
    w.add_fluid_rect(104.0, 24.0, 296.0, 124.0)
    box = w.add_box((124.0, 184.0), (24.0, 24.0), density=0.5)
    fractions = []
    for i in range(420):
        w.step()
        if i >= 300:
            fractions.append(box.submerged_area / box.area)
    depth = np.percentile(w.fluid.positions[:, 1], 98) - 24.0
    assert depth > 90.0, depth
    assert max(fractions) < 0.9 and box.body.position.y > 100.0  # afloat, settling to 0.5


def test_heavy_body_sinks_and_stays_on_the_floor() -> None:
    world = pool(240.0, 200.0, 100.0)
    e = world.add_box((120.0, 130.0), (40.0, 20.0), density=1.5, sprite="anvil")
    ys = []
    for i in range(500):
        world.step()
        if i >= 400:
            ys.append(e.body.position.y)
    # the floor is the pymunk boundary at y = 0: the box's centre rests at half its height; the
    # last water under it is squeezed out slowly (a fraction of a particle layer)
    assert max(ys) < 10.0 + 1.0, f"anvil not on the floor: y in [{min(ys):.2f}, {max(ys):.2f}]"
    assert min(ys) > 10.0 - 0.5
    # and it stays there: over the last 100 steps its centre moves by a few hundredths of a unit
    # (pymunk's contact velocity at any one step jitters by several units/s and says less)
    assert max(ys) - min(ys) < 0.5


# ---------------------------------------------------------------------------- momentum
@pytest.mark.parametrize(("solver", "kind"), [("converged", "ball"), ("none", "ball"),
                                              ("converged", "box")])
def test_momentum_of_fluid_plus_body_is_conserved(solver: str, kind: str) -> None:
    """Gravity off, a ball (or a tilted box) launched into a free blob of still water.

    Set-up with zero wall impulses: the blob floats in the middle of a closed box, and the test
    checks that no particle comes within a cell of a wall (the pressure stage's wall cells) and
    the ball not within reach of one during the window. (In a box 300 high the splash of the
    thinner water of 2026-12-01, ``srd_alpha`` pi/4, reached the top and bottom cells after
    4 s, and those cells' correction moved 2 % of the momentum.) Runs with the default pressure
    solver (whose correction is made drift-free for water that touches no wall) and without a
    pressure stage (the exchange with the body alone: contacts, containment, drag). The tilted
    box's samples alias with the pressure grid (up to 1.11 of a cell's area in one cell, whose
    cover is capped at 1 in the solve): the coupling pushes all of it, 7 % more than the
    free-drift fix counted, and 1.4 % of the momentum was lost; that fix now weighs the cover
    past the cap too (``FluidSystem.cover_excess``).
    """
    w, h = 400.0, 400.0
    params = FluidParams.game(w, h, gravity=(0.0, 0.0), pressure_solver=solver)
    world = World(w, h, params=params)
    world.add_fluid_rect(125.0, 125.0, 275.0, 275.0)
    if kind == "ball":
        ball = world.add_ball((90.0, 200.0), 15.0, density=1.0)
    else:
        ball = world.add_box((90.0, 200.0), (36.0, 28.0), density=0.9, angle=0.3)
    ball.body.velocity = (250.0, 0.0)

    def total() -> np.ndarray:
        return world.fluid.momentum() + ball.body.mass * np.array(ball.body.velocity)

    p0 = total()
    reach = world.fluid.params.a0  # a cell: the pressure stage's wall cells stay empty
    for _ in range(300):
        world.step()
        pos = world.fluid.positions
        assert pos[:, 0].min() > reach and pos[:, 1].min() > reach
        assert pos[:, 0].max() < w - reach and pos[:, 1].max() < h - reach
        bx, by = ball.body.position
        half = 15.0 if kind == "ball" else 23.0  # the box's half diagonal
        assert half + reach < bx < w - half - reach and half + reach < by < h - half - reach
    p1 = total()
    assert np.linalg.norm(p1 - p0) <= 0.01 * np.linalg.norm(p0), (p0, p1)
    # and the ball really gave its momentum to the water
    assert ball.body.velocity.x < 0.5 * 250.0


# ---------------------------------------------------------------------------- torque
@pytest.mark.parametrize("side", [1.0, -1.0])
def test_jet_turns_a_pinned_plank_the_right_way(side: float) -> None:
    """A jet from below hitting a plank pinned at its centre, right of the pin, turns it
    counter-clockwise (positive angle); left of the pin, clockwise."""
    w, h = 240.0, 200.0
    world = World(w, h, params=FluidParams.game(w, h, gravity=(0.0, 0.0)))
    plank = world.add_box((120.0, 120.0), (120.0, 10.0), density=0.5, sprite="plank")
    world.space.add(pymunk.PivotJoint(world.space.static_body, plank.body, (120.0, 120.0)))
    world.add_emitter((120.0 + side * 35.0, 40.0), (0.0, 1.0), speed=300.0, rate=900.0,
                      width=12.0)
    for _ in range(60):
        world.step()
    assert side * plank.body.angle > math.radians(20.0)
    assert side * plank.body.angular_velocity > 0.0


@pytest.mark.parametrize("tilt", [30.0, -30.0])
def test_tipped_floating_box_rights_itself(tilt: float) -> None:
    """A 3:1 box (density 0.3) laid on the water tipped by 30 degrees turns back to flat."""
    world = pool(320.0, 200.0, 100.0)
    box = world.add_box((160.0, 108.0), (72.0, 24.0), density=0.3, angle=math.radians(tilt))
    angles = []
    for i in range(400):
        world.step()
        if i == 20:  # it starts turning back at once
            assert abs(math.degrees(box.body.angle)) < abs(tilt) - 5.0
        if i >= 300:
            angles.append(math.degrees(box.body.angle))
    assert max(abs(a) for a in angles) < 6.0, angles[-1]


# ---------------------------------------------------------------------------- no leaks
def test_no_particle_crosses_a_thin_static_wall() -> None:
    """Fluid sloshed hard against a 4-unit-thick static segment for 2,000 steps."""
    w, h = 200.0, 120.0
    world = World(w, h)
    world.add_static_segment((100.0, -10.0), (100.0, 130.0), radius=2.0)
    world.add_fluid_rect(0.0, 0.0, 96.0, 90.0)
    fluid = world.fluid
    n0 = fluid.count
    for i in range(2000):
        fluid.material_accelerations[0] = (1500.0 * math.sin(2.0 * math.pi * i / 120.0), 0.0)
        world.step()
        assert (fluid.positions[:, 0] > 98.0).sum() == 0, f"crossed at step {i}"
    assert fluid.count == n0
    assert np.isfinite(fluid.positions).all() and np.isfinite(fluid.velocities).all()


def test_fast_ball_leaves_no_particle_inside() -> None:
    world = pool(300.0, 200.0, 100.0)
    ball = world.add_ball((150.0, 170.0), 15.0, density=0.8)
    ball.body.velocity = (0.0, -1500.0)
    fluid = world.fluid
    for _ in range(90):
        world.step()
        d = np.hypot(*(fluid.positions - np.array(ball.body.position)).T)
        assert (d < 15.0).sum() == 0
    assert np.isfinite(fluid.positions).all() and np.isfinite(fluid.velocities).all()
    assert math.isfinite(ball.body.position.y)


# ---------------------------------------------------------------------------- calm
def test_floating_crate_on_a_calm_pool_stays_put() -> None:
    """Laid on the water at its resting depth, a crate drifts less than one cell (a0 = 10) in
    1,000 steps."""
    w = 320.0
    world = pool(w, 160.0, 80.0)
    level = 80.0 + 0.5 * 48.0 * 24.0 * 0.5 / w
    crate = world.add_box((160.0, level), (48.0, 24.0), density=0.5)
    p0 = np.array(crate.body.position)
    worst = 0.0
    for _ in range(1000):
        world.step()
        worst = max(worst, float(np.linalg.norm(np.array(crate.body.position) - p0)))
    assert worst < world.fluid.params.a0, worst


def test_coupling_params_validate() -> None:
    with pytest.raises(ValueError, match="drag"):
        CouplingParams(drag=-1.0)
    with pytest.raises(TypeError, match="interior_spacing"):
        CouplingParams(interior_spacing="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level_columns"):
        CouplingParams(level_columns=0)


def test_batch_body_reader_matches_the_public_pymunk_api(monkeypatch) -> None:
    """The coupler reads poses and writes velocities through ``pymunk.batch`` (pymunk's bulk
    API); a world stepped that way is bit-identical to one that uses ``Body.position`` & co."""
    from fluidworld.coupling import body_io as C

    def run() -> tuple[str, list[tuple[float, float, float]]]:
        world = pool(240.0, 200.0, 80.0)
        world.add_box((80.0, 120.0), (30.0, 20.0), density=0.5)
        world.add_ball((160.0, 130.0), 12.0, density=0.7)
        for _ in range(40):
            world.step()
        bodies = [(b.position.x, b.position.y, b.angle) for b in world.coupler.bodies]
        return world.fluid.state_hash(), bodies

    assert C._BATCH is not None  # pymunk 6.9 and 7.x both have pymunk.batch
    fast = run()
    monkeypatch.setattr(C, "_BATCH", None)  # public properties only
    assert run() == fast


def test_impulses_are_written_back_in_one_batch_and_match_the_body_by_body_write(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``v += J/m`` and ``w += tau/I`` go straight into the bodies' structs, or to the whole
    space in one ``pymunk.batch`` write: the coupled dynamic bodies get exactly what the
    body-by-body write gives them, the space's other bodies (uncoupled, kinematic, static) keep
    their velocities. A space that lets bodies sleep is written body by body, and an uncoupled
    sleeping body stays asleep."""

    world = pool(240.0, 200.0, 80.0)
    box = world.add_box((80.0, 120.0), (30.0, 20.0), density=0.5).body
    ball = world.add_ball((160.0, 130.0), 12.0, density=0.7).body
    stranger = pymunk.Body(1.0, 1.0)  # in the space, not coupled
    stranger.position, stranger.velocity, stranger.angular_velocity = (5.0, 190.0), (3.0, -1.0), 2.0
    kin = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    kin.position, kin.velocity = (220.0, 190.0), (-1.0, 0.5)
    world.space.add(stranger, pymunk.Circle(stranger, 2.0), kin, pymunk.Circle(kin, 3.0))
    for _ in range(3):
        world.step()
    c = world.coupler
    c.read_bodies(True)
    J = np.array([[0.4, -1.5], [-2.0, 0.25]]) * np.array([[box.mass], [ball.mass]])
    tau = np.array([0.3 * box.moment, -0.7 * ball.moment])
    others = [(b.velocity, b.angular_velocity) for b in (stranger, kin)]

    def write(how: str) -> list[tuple[float, float, float]]:
        saved = [(b.velocity, b.angular_velocity) for b in (box, ball)]
        if how == "batch":
            assert c._apply_batch(J, tau)
        else:
            with monkeypatch.context() as m:
                m.setattr(c, "_batch_out", None)  # neither: body by body
                c._apply(J, tau)
        got = [(b.velocity.x, b.velocity.y, b.angular_velocity) for b in (box, ball)]
        for b, (v, w) in zip((box, ball), saved, strict=True):
            b.velocity, b.angular_velocity = v, w
        return got

    batched, one_by_one = write("batch"), write("one by one")
    assert batched == one_by_one
    vx, vy, w = batched[0]
    assert vx == pytest.approx(box.velocity.x + 0.4) and vy == pytest.approx(box.velocity.y - 1.5)
    assert w == pytest.approx(box.angular_velocity + 0.3)
    c._apply_batch(J, tau)
    assert [(b.velocity, b.angular_velocity) for b in (stranger, kin)] == others
    # sleeping allowed: body by body, and a body that gets nothing is not woken
    world.space.sleep_time_threshold = 0.5
    world.space.remove(stranger, *stranger.shapes)
    world.space.add(stranger, *stranger.shapes)
    stranger.velocity, stranger.angular_velocity = (0.0, 0.0), 0.0
    stranger.sleep()
    assert stranger.is_sleeping
    assert not c._apply_batch(J, tau)
    c._apply(J, tau)
    assert stranger.is_sleeping


def test_batch_read_falls_back_when_a_body_leaves_the_space() -> None:
    """Poses come from one ``pymunk.batch`` call over the bodies' space; the space's other
    bodies are skipped, a reordered space is found again, and a coupled body that is not in the
    space makes the coupler read body by body: the state is the same every way."""
    world = pool(240.0, 200.0, 80.0)
    box = world.add_box((80.0, 120.0), (30.0, 20.0), density=0.5).body
    ball = world.add_ball((160.0, 130.0), 12.0, density=0.7).body
    stranger = pymunk.Body(1.0, 1.0)  # in the space, not coupled
    stranger.position = (5.0, 190.0)
    world.space.add(stranger, pymunk.Circle(stranger, 2.0))
    for _ in range(5):
        world.step()
    c = world.coupler

    def state_by_getters() -> np.ndarray:
        buf, c._batch_buf = c._batch_buf, None
        c.read_bodies(False)
        c._batch_buf = buf
        return c.state.copy()

    assert c._read_batch()
    c.read_bodies(False)
    np.testing.assert_array_equal(c.state, state_by_getters())
    # the space's order changes: a body removed and added again goes to the end
    world.space.remove(box, *box.shapes)
    world.space.add(box, *box.shapes)
    assert c._read_batch()
    c.read_bodies(False)
    np.testing.assert_array_equal(c.state, state_by_getters())
    # a coupled body outside the space: no batch read, the getters give its state
    world.space.remove(ball, *ball.shapes)
    ball.position = (150.0, 60.0)
    assert not c._read_batch()
    c.read_bodies(False)
    np.testing.assert_array_equal(c.state, state_by_getters())
    assert c.state[c.bodies.index(ball), :2].tolist() == [150.0, 60.0]


def test_mass_changes_mid_game_are_seen_by_the_coupling() -> None:
    """The coupler re-reads mass and moment every step, and the centre of gravity when they
    change: a heavier shape, a body turned kinematic, a body back to dynamic."""
    world = pool(240.0, 200.0, 80.0)
    handle = world.add_box((120.0, 120.0), (30.0, 20.0), density=0.5)
    body, shape = handle.body, handle.shapes[0]
    world.step()
    c = world.coupler
    k = c.body_index(body)
    assert c._inv_mass[k] == pytest.approx(1.0 / body.mass)
    shape.density = 1.5
    body.center_of_gravity = (3.0, 0.0)  # with a new mass: read again
    world.step()
    assert c._inv_mass[k] == pytest.approx(1.0 / body.mass) and body.mass > 400
    assert tuple(c._cog_local[k]) == (3.0, 0.0)
    body.body_type = pymunk.Body.KINEMATIC
    world.step()
    assert not c.dynamic[k] and c._inv_mass[k] == 0.0
    body.body_type = pymunk.Body.DYNAMIC
    world.step()
    assert c.dynamic[k]


def test_a_sleeping_body_wakes_when_water_reaches_it_and_floats() -> None:
    """A space that lets bodies sleep: a light crate asleep on a dry floor wakes when water is
    poured over it and floats up; the coupling writes body by body there (a batch write would
    wake every body of the space)."""
    world = World(240.0, 200.0)
    world.space.sleep_time_threshold = 0.3
    crate = world.add_box((120.0, 15.0), (30.0, 30.0), density=0.4).body
    for _ in range(90):
        world.step()
    assert crate.is_sleeping
    world.add_fluid_rect(0.0, 0.0, 240.0, 80.0)
    for _ in range(180):
        world.step()
    assert not crate.is_sleeping
    assert crate.position.y > 40.0  # floats near the surface (80), not on the floor (15)
    assert world.check().ok


def test_custom_velocity_and_position_functions_keep_working() -> None:
    """A body with its own velocity_func (no gravity: a balloon) and position_func: the coupling
    adds its impulses to the velocity, pymunk then calls the functions as usual."""
    world = pool(240.0, 200.0, 100.0)
    calls = {"velocity": 0, "position": 0}

    def no_gravity(body: pymunk.Body, gravity: tuple[float, float], damping: float,
                   dt: float) -> None:
        calls["velocity"] += 1
        pymunk.Body.update_velocity(body, (0.0, 0.0), damping, dt)

    def counted(body: pymunk.Body, dt: float) -> None:
        calls["position"] += 1
        pymunk.Body.update_position(body, dt)

    balloon = world.add_box((120.0, 40.0), (20.0, 20.0), density=2.0).body  # would sink
    balloon.velocity_func = no_gravity
    balloon.position_func = counted
    for _ in range(60):
        world.step()
    assert calls["velocity"] >= 60 and calls["position"] >= 60
    assert balloon.position.y > 60.0  # buoyancy without gravity lifts even a heavy body
    assert world.check().ok


@pytest.mark.parametrize("water_elsewhere", [False, True])
def test_a_body_falls_at_g_through_air(water_elsewhere: bool) -> None:
    """In air a body falls as pymunk says, whether or not the world holds any water (a world
    without a single particle once gave bodies a second g: the cover's gravity kick with no
    pressure stage to cancel it)."""
    world = World(400.0, 800.0)
    if water_elsewhere:
        world.add_fluid_rect(0.0, 0.0, 50.0, 50.0)
    crate = world.add_box((200.0, 700.0), (30.0, 30.0), density=0.4).body
    world.step()
    v1 = crate.velocity.y
    # the first step's exchange has no water level for the body yet (with water in the world,
    # a one-off extra ~10 units/s downward): less than two substeps of gravity
    assert -15.0 - 2 * 7.5 < v1 <= -15.0 + 1e-9
    for _ in range(29):
        world.step()
    assert crate.velocity.y - v1 == pytest.approx(-900.0 * 29 / 60, rel=1e-6)  # then exactly g
    fell = 700.0 - crate.position.y
    assert fell == pytest.approx(0.5 * 900.0 * 0.5**2, rel=0.03)


def _floating_pair(world: World) -> list:
    world.add_fluid_rect(0.0, 0.0, 320.0, 100.0)
    return [world.add_box((100.0, 110.0), (72.0, 24.0), density=0.5),
            world.add_ball((220.0, 113.0), 15.0, density=0.8)]


def test_a_floating_body_reports_the_velocity_it_moves_with() -> None:
    """After each step, a box and a ball floating in still water have the velocity they move
    with: its mean over a step matches their displacement within 0.5 units/s (rms). Before,
    pymunk's gravity kick of the last substep was still in it, which the fluid's next impulse
    takes out: 7.5 units/s down (rms error 7.50) while they floated at rest."""
    w = World(320.0, 220.0)
    bodies = _floating_pair(w)
    for _ in range(240):
        w.step()
    ys, vs = [], []
    for _ in range(121):
        w.step()
        ys.append([e.body.position.y for e in bodies])
        vs.append([e.body.velocity.y for e in bodies])
    y, v = np.array(ys), np.array(vs)
    moved = np.diff(y, axis=0) * 60.0
    err = 0.5 * (v[1:] + v[:-1]) - moved
    assert np.sqrt((err**2).mean(axis=0)).max() < 0.5, np.sqrt((err**2).mean(axis=0))
    assert np.abs(v.mean(axis=0)).max() < 1.0, v.mean(axis=0)


def test_reporting_the_motion_leaves_the_steps_unchanged(monkeypatch) -> None:
    """The velocity reported between steps is taken back before the next one: a run with the
    report and one without end in the same state, to the bit."""
    from fluidworld.coupling.body_io import BodyIO

    def run() -> bytes:
        w = World(320.0, 220.0)
        bodies = _floating_pair(w)
        for _ in range(150):
            w.step()
        poses = np.array([[*e.body.position, e.body.angle] for e in bodies])
        return w.fluid.positions.tobytes() + w.fluid.velocities.tobytes() + poses.tobytes()

    reported = run()
    monkeypatch.setattr(BodyIO, "report_motion", lambda self, gravity: None)
    assert run() == reported
