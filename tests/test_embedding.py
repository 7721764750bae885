"""A World on the game's own pymunk Space: its static shapes hold water, its gravity drives the
water, and nothing is added to it unasked."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pymunk
import pytest

from fluidworld import World
from fluidworld.world import BodyHandle


def _shelf_space(gravity: tuple[float, float]) -> tuple[pymunk.Space, pymunk.Segment]:
    """A game's Space with a floor and a shelf 120 units up: a static segment with a lip at
    each end (a tray 200 wide, 60 deep)."""
    space = pymunk.Space()
    space.gravity = gravity
    floor = pymunk.Segment(space.static_body, (0, 0), (400, 0), 3)
    shelf = pymunk.Segment(space.static_body, (100, 120), (300, 120), 4)
    lips = [pymunk.Segment(space.static_body, (x, 120), (x, 180), 4) for x in (100, 300)]
    space.add(floor, shelf, *lips)
    return space, shelf


def _on_shelf(world: World) -> int:
    pos = world.fluid.positions
    return int(((pos[:, 0] > 100) & (pos[:, 0] < 300) & (pos[:, 1] > 120)).sum())


def test_static_shapes_already_in_the_users_space_hold_water() -> None:
    space, shelf = _shelf_space((0.0, -900.0))
    world = World(400, 300, space=space)
    assert shelf in world.coupler.shapes  # seen without attach()
    world.add_fluid_rect(130, 126, 270, 170)
    start = _on_shelf(world)
    assert start > 300
    for _ in range(120):  # 2 s
        world.step()
    assert world.fluid.count == start
    assert _on_shelf(world) == start  # not one particle through the shelf
    assert (world.fluid.positions[:, 1] < 110).sum() == 0


def test_without_attach_static_the_shelf_holds_nothing() -> None:
    space, shelf = _shelf_space((0.0, -900.0))
    world = World(400, 300, space=space, attach_static=False)
    assert shelf not in world.coupler.shapes
    world.add_fluid_rect(130, 126, 270, 170)
    for _ in range(60):
        world.step()
    assert _on_shelf(world) < 0.2 * world.fluid.count


def test_static_shapes_added_later_are_picked_up_at_the_next_step() -> None:
    space = pymunk.Space()
    space.gravity = (0.0, -900.0)
    world = World(400, 300, space=space)
    shelf = pymunk.Segment(space.static_body, (100, 120), (300, 120), 4)
    sensor = pymunk.Segment(space.static_body, (0, 200), (400, 200), 2)
    sensor.sensor = True
    space.add(shelf, sensor)
    world.step()
    assert shelf in world.coupler.shapes and sensor not in world.coupler.shapes


@pytest.mark.parametrize("gravity", [(0.0, -900.0), (600.0, 0.0)])
def test_the_spaces_gravity_drives_the_water(gravity: tuple[float, float]) -> None:
    space = pymunk.Space()
    space.gravity = gravity
    world = World(400, 300, space=space)
    world.add_fluid_rect(150, 100, 250, 200)
    start = world.fluid.positions.mean(axis=0)
    for _ in range(20):
        world.step()
    moved = world.fluid.positions.mean(axis=0) - start
    g = np.array(gravity) / np.hypot(*gravity)
    along = float(moved @ g)
    across = float(abs(moved @ np.array([-g[1], g[0]])))
    assert along > 20.0 and across < 0.1 * along
    # the Space's gravity changes mid-game: the water follows at the next step
    space.gravity = (0.0, 0.0)
    world.step()
    assert world.fluid.params.gravity == (0.0, 0.0)


@pytest.mark.parametrize("gravity", [(0.0, 900.0), (600.0, 0.0)])
def test_a_body_in_a_world_whose_gravity_is_not_down_y_warns_once(
        gravity: tuple[float, float]) -> None:
    """Water levels are heights along +y: a y-down Space (pygame style) or sideways gravity
    gives bodies no buoyancy, and the World says so at the first step, once."""
    space = pymunk.Space()
    space.gravity = gravity
    world = World(400, 300, space=space, bounds=True)
    world.add_fluid_rect(0, 200, 400, 300)
    world.step()  # no body yet: nothing to say
    world.add_box((200, 190), (40, 20), density=0.6)
    expected = r"no buoyancy.*'srd' solver needs gravity along -y"
    with pytest.warns(RuntimeWarning, match=expected) as caught:
        world.step()
    assert caught[0].filename == __file__  # points at the caller's step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        world.step()


@pytest.mark.parametrize(("gravity", "solver"), [
    ((0.0, -900.0), "srd"), ((0.0, 0.0), "srd"), ((300.0, -900.0), "srd"),
    ((0.0, 900.0), "ddr"), ((0.0, 900.0), "constraint")])
def test_a_body_under_downward_or_no_gravity_does_not_warn(gravity: tuple[float, float],
                                                          solver: str) -> None:
    """Nor under y-down gravity with a solver whose contacts carry the pressure: those float
    bodies in any direction (a box of 0.6 floated with 0.56-0.64 of it under in a y-down Space)."""
    space = pymunk.Space()
    space.gravity = gravity
    world = World(400, 300, space=space, bounds=True, solver=solver)
    world.add_fluid_rect(0, 0, 400, 100)
    world.add_box((200, 110), (40, 20), density=0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        world.step()


def test_no_walls_are_added_to_the_users_space_unless_asked() -> None:
    space = pymunk.Space()
    World(400, 300, space=space)
    assert list(space.shapes) == []
    World(400, 300, space=space, bounds=True)
    assert len(space.shapes) == 4


@pytest.mark.parametrize("where", [(900.0, 300.0), (-300.0, 300.0), (200.0, -300.0)])
def test_a_body_outside_the_waters_domain_feels_no_water(where: tuple[float, float]) -> None:
    """A game's world is larger than its pool: a ball beside the fluid's domain (right, left)
    or under its floor falls past the pool's level onto its own ledge. (Before, the water level
    beside the domain's edge applied to it: it floated at the pool's level, 500 units away,
    and under the floor the pool's whole weight pushed it up.)"""
    space = pymunk.Space()
    space.gravity = (0.0, -900.0)
    world = World(400.0, 300.0, space=space, attach_static=False)
    n = world.add_fluid_rect(0.0, 0.0, 400.0, 100.0)
    x, y = where
    ledge = y - 300.0
    space.add(pymunk.Segment(space.static_body, (x - 100.0, ledge), (x + 100.0, ledge), 2.0))
    body = pymunk.Body(1.0, 100.0)
    body.position = where
    ball = pymunk.Circle(body, 15.0)
    ball.density = 0.5
    space.add(body, ball)
    world.attach(body)
    for _ in range(180):
        world.step()
    assert abs(body.position.y - (ledge + 17.0)) < 1.0, body.position
    assert world.fluid.count == n and world.check().ok


@pytest.mark.parametrize("kind", ["tutorial ball", "thin plank", "point"])
def test_a_games_light_body_falls_into_water_and_floats_without_blowing_up(kind: str) -> None:
    """Bodies a game makes with pymunk directly can be far lighter than the particles they
    touch: pymunk's tutorial ball (mass 1, radius 14, density 0.0016), a plank that is a bare
    segment (mass 2, no area) and a point (a circle of radius 0). Dropped onto water, they stay
    finite and slow and no particle goes NaN; the ball comes to rest afloat and the plank rests
    on the surface (its contacts hold its weight), the point has nothing to rest on and sinks
    slowly. (Before the coupling's mass floor, the ball made pymunk overflow, the plank turned
    2,389 of 2,407 particles NaN and the point was flung at ~2,000 units/s; with the floor but
    the body's own gravity, the plank sank slowly from the surface and, once under, was flung
    out at 8 s and overflowed.)"""
    world = World(400.0, 300.0)
    world.add_fluid_rect(0.0, 0.0, 400.0, 120.0)
    if kind == "tutorial ball":
        body = pymunk.Body(1.0, pymunk.moment_for_circle(1.0, 0.0, 14.0))
        shape: pymunk.Shape = pymunk.Circle(body, 14.0)
    elif kind == "thin plank":
        body = pymunk.Body(2.0, 50.0)
        shape = pymunk.Segment(body, (-20.0, 0.0), (20.0, 0.0), 0.0)
    else:
        body = pymunk.Body(5.0, 500.0)
        shape = pymunk.Circle(body, 0.0)
    body.position = (200.0, 160.0)
    world.space.add(body)
    world.attach(shape)
    fastest = 0.0
    for _ in range(300):
        world.step()
        fastest = max(fastest, body.velocity.length, 14.0 * abs(body.angular_velocity))
    check = world.check()
    assert check.ok, check
    assert fastest < 400.0, fastest  # it falls at ~165-255; the fluid never flings it
    assert abs(body.velocity.y) < 60.0
    if kind != "point":
        assert 115.0 < body.position.y < 150.0, body.position  # afloat at the surface (~122)
    else:  # no volume to float on: under the surface, sinking
        assert body.position.y < 120.0 and body.velocity.y < 1.0, body.position


@pytest.mark.parametrize("shape", ["segment", "point"])
def test_a_body_without_area_let_go_deep_under_water_stays_calm(shape: str) -> None:
    """A bare segment (radius 0, 40 long, mass 2) or a point let go 60 deep: fluid lies on both
    sides of its solid particles. At the floor of bodies with area (a quarter layer) the
    segment was flung to an overflowing velocity within 9 steps; at a full layer
    (``MASS_FLOOR_BARE``) it stays calm, and with no volume to float on it does not rise."""
    world = World(400.0, 300.0)
    n = world.add_fluid_rect(0.0, 0.0, 400.0, 120.0)
    body = pymunk.Body(2.0, 100.0)
    s: pymunk.Shape = (pymunk.Segment(body, (-20.0, 0.0), (20.0, 0.0), 0.0) if shape == "segment"
                       else pymunk.Circle(body, 0.0))
    body.position = (200.0, 60.0)
    world.space.add(body, s)
    world.attach(body)
    fastest = 0.0
    for _ in range(300):
        world.step()
        fastest = max(fastest, abs(body.velocity.x) + abs(body.velocity.y))
    assert fastest < 120.0, fastest
    assert body.position.y < 62.0, body.position
    assert world.fluid.count == n and world.check().ok


@pytest.mark.parametrize("in_space", [True, False])
def test_attaching_a_point_mass_without_a_moment_is_refused(in_space: bool) -> None:
    """A circle of radius 0 given a mass has moment 0, and pymunk turns its spin NaN at the
    next step: ``attach`` says so instead of a non-finite body mid-game."""
    world = World(400.0, 300.0)
    body = pymunk.Body()
    point = pymunk.Circle(body, 0.0)
    point.mass = 2.0
    if in_space:
        world.space.add(body, point)
    with pytest.raises(ValueError, match="moment"):
        world.attach(body)
    if in_space:  # the game's own Space would fail with it (pymunk 7 asserts at its step)
        world.space.remove(body, point)
    world.step()
    assert world.check().ok


def _pool_with_crate(y: float) -> tuple[World, pymunk.Body, pymunk.Poly]:
    """A pool 120 deep (400 x 300) and a 40 x 40 crate of 0.5 at ``(200, y)``, in no Space."""
    world = World(400.0, 300.0)
    world.add_fluid_rect(0.0, 0.0, 400.0, 120.0)
    body = pymunk.Body()
    body.position = (200.0, y)
    box = pymunk.Poly.create_box(body, (40.0, 40.0))
    box.density = 0.5
    return world, body, box


def _crate(sensor: bool) -> tuple[World, BodyHandle, tuple[pymunk.Shape, ...]]:
    """A 40 x 40 crate of 0.5 (with a sensor circle of radius 60 if ``sensor``), not in the
    Space: ``attach`` adds it; 4 s on a 120-deep pool."""
    world, body, box = _pool_with_crate(140.0)
    shapes: tuple[pymunk.Shape, ...] = (box,)
    if sensor:
        reach = pymunk.Circle(body, 60.0)
        reach.sensor = True
        shapes = (box, reach)
    handle = world.attach(body)
    assert handle.shapes == (box,) and all(s in world.space.shapes for s in shapes)
    for _ in range(240):
        world.step()
    return world, handle, shapes


def test_a_bodys_sensor_shape_holds_no_water() -> None:
    """A game's crate with a sensor circle (a pickup radius) floats as the crate alone and the
    water fills the sensor's circle (coupled, the sensor cleared every particle within 55 of
    the crate and floated it 46 units higher); a sensor that attach added leaves with it."""
    _, plain, _ = _crate(False)
    world, crate, shapes = _crate(True)
    y, y0 = crate.position[1], plain.position[1]
    assert abs(y - y0) < 3.0, (y, y0)
    pos = world.fluid.positions
    near = np.hypot(pos[:, 0] - crate.position[0], pos[:, 1] - y) < 55.0
    assert near.sum() > 100, near.sum()
    world.remove(crate)
    assert not any(s in world.space.shapes for s in shapes)
    assert crate.body not in world.space.bodies


@pytest.mark.parametrize("lone", [True, False])
def test_attaching_only_sensors_is_refused(lone: bool) -> None:
    world = World(400.0, 300.0)
    body = pymunk.Body()
    trigger = pymunk.Circle(body, 20.0)
    trigger.sensor = True
    trigger.density = 1.0
    world.space.add(body, trigger)
    with pytest.raises(ValueError, match="sensor"):
        world.attach(trigger if lone else body)


def test_removing_a_games_attached_body_takes_it_out_whole_and_it_can_come_back() -> None:
    """``world.remove`` takes a handle's shapes out of the Space; a body the game had added
    itself stayed there without them, and pymunk turned it NaN at the next step (mass 0), so
    attaching it again failed. Now it leaves with its shapes and comes back with ``attach``."""
    world, body, box = _pool_with_crate(130.0)
    world.space.add(body, box)
    handle = world.attach(body)
    for _ in range(30):
        world.step()
    world.remove(handle)
    assert body not in world.space.bodies and box not in world.space.shapes
    world.step()
    again = world.attach(body)
    for _ in range(60):
        world.step()
    assert world.check().ok and again.submerged_area > 0
    assert all(math.isfinite(v) for v in (*body.position, *body.velocity))


@pytest.mark.parametrize("explicit_mass", [False, True])
def test_removing_a_games_body_that_keeps_a_sensor_leaves_nothing_massless(
        explicit_mass: bool) -> None:
    """A crate with a pickup sensor, added by the game and attached: ``world.remove`` left the
    body in the Space with only its sensor, mass 0, and pymunk turned it NaN at the next step
    (jointed, the NaN then spread to its partner). Now such a body leaves with its sensor; a
    body with a mass of its own keeps its sensor and stays."""
    world, body, box = _pool_with_crate(130.0)
    if explicit_mass:
        box.density = 0.0
        body.mass, body.moment = 800.0, 2e5
    pickup = pymunk.Circle(body, 40.0)
    pickup.sensor = True
    world.space.add(body, box, pickup)
    handle = world.attach(body)
    for _ in range(10):
        world.step()
    world.remove(handle)
    for _ in range(10):
        world.step()
    assert world.check().ok and world.check().bodies_nan == 0
    assert (body in world.space.bodies) == (pickup in world.space.shapes) == explicit_mass
    assert all(math.isfinite(v) for v in body.position)


def test_a_shape_attached_twice_or_from_another_space_is_refused() -> None:
    """A second ``attach`` of the same body gave a second handle on one coupling; removing one
    left the body shapeless in the Space (NaN at the next step). A body in another Space made
    pymunk fail an assertion (under ``python -O``: abort the process)."""
    world, body, box = _pool_with_crate(130.0)
    handle = world.attach(body)
    with pytest.raises(ValueError, match=f"attached already \\(entity {handle.id}\\)"):
        world.attach(body)
    with pytest.raises(ValueError, match="attached already"):
        world.attach(box)
    other = pymunk.Space()
    ball = pymunk.Body()
    circle = pymunk.Circle(ball, 10.0)
    circle.density = 0.5
    other.add(ball, circle)
    with pytest.raises(ValueError, match="in another pymunk Space"):
        world.attach(ball)
    shapes_before = len(world.space.shapes)
    with pytest.raises(ValueError, match="in another pymunk Space"):
        world.attach(circle)
    assert len(world.space.shapes) == shapes_before and ball.space is other
    world.step()
    assert world.check().ok


@pytest.mark.parametrize("solver", ["srd", "ddr", "constraint"])
def test_a_gate_the_game_takes_out_of_its_space_lets_the_water_through(solver: str) -> None:
    """A game opens its lock gate with ``space.remove(gate)`` and closes it with
    ``space.add(gate)``. The water kept holding on the removed gate (0 particles through in
    2 s); now it flows while the gate is out and is held again once it is back."""
    space, _ = _shelf_space((0.0, -900.0))
    gate = pymunk.Segment(space.static_body, (150, 0), (150, 110), 3)
    space.add(gate)
    world = World(400.0, 300.0, space=space, solver=solver)
    world.add_fluid_rect(0.0, 0.0, 140.0, 100.0)

    def right() -> int:
        return int((world.fluid.positions[:, 0] > 156.0).sum())

    for _ in range(30):
        world.step()
    assert right() == 0
    space.remove(gate)
    for _ in range(30):
        world.step()
    assert right() > 50, right()
    space.add(gate)
    for _ in range(12):
        world.step()
    through = right()
    for _ in range(90):
        world.step()
    assert right() <= through and world.check().ok, (right(), through)



def test_a_shape_the_game_takes_off_a_body_stops_holding_it_up() -> None:
    """A heavy crate (20 x 20 at 2) in a big light float (a circle of radius 40 at 0.05)
    floats; the game takes the float out with ``space.remove``, and the crate sinks (the
    removed float kept it at the surface before: it still held the water out)."""
    world = World(400.0, 300.0)
    world.add_fluid_rect(0.0, 0.0, 400.0, 120.0)
    body = pymunk.Body()
    body.position = (200.0, 150.0)
    crate = pymunk.Poly.create_box(body, (20.0, 20.0))
    crate.density = 2.0
    float_ = pymunk.Circle(body, 40.0)
    float_.density = 0.05
    world.space.add(body, crate, float_)
    world.attach(body)
    for _ in range(120):
        world.step()
    assert body.position.y > 120.0, body.position  # afloat
    world.space.remove(float_)
    for _ in range(180):
        world.step()
    assert body.position.y < 20.0, body.position  # on the floor
    assert world.check().ok
