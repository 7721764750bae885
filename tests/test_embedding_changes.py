"""What a game changes in its own Space between steps reaches the fluid: walls swapped in one
frame, shapes made sensors and solid again, shapes added to a coupled body or reshaped, bodies
made kinematic, bodies added in the air; and a drain moved by its ``rect``."""

from __future__ import annotations

import numpy as np
import pymunk
import pytest

from fluidworld import World


def _nograv(body: pymunk.Body, gravity: tuple[float, float], damping: float, dt: float) -> None:
    pymunk.Body.update_velocity(body, (0.0, 0.0), damping, dt)


def _gated_tank() -> tuple[pymunk.Space, World, pymunk.Segment]:
    """A 300 x 200 tank with a static gate at x = 150 and water left of it."""
    space = pymunk.Space()
    space.gravity = (0.0, -900.0)
    world = World(300, 200, space=space, bounds=True)
    gate = pymunk.Segment(space.static_body, (150, 0), (150, 180), 3)
    space.add(gate)
    world.add_fluid_rect(0, 0, 146, 120)
    return space, world, gate


def _right_of(world: World, x: float) -> int:
    return int((world.fluid.positions[:, 0] > x).sum())


def test_a_wall_put_back_in_the_frame_another_left_holds_water() -> None:
    """The Space's static shapes are compared as a set: a gate removed and a new one added in
    the same frame (the shape count unchanged) is coupled. Counted, it let 573 of 885
    particles through."""
    space, world, gate = _gated_tank()
    for _ in range(20):
        world.step()
    space.remove(gate)
    space.add(pymunk.Segment(space.static_body, (150, 0), (150, 180), 3))
    for _ in range(90):
        world.step()
    assert _right_of(world, 150.0) == 0 and world.check().ok


def test_a_gate_made_a_sensor_lets_water_through_and_holds_it_again_when_solid() -> None:
    space, world, gate = _gated_tank()
    for _ in range(20):
        world.step()
    gate.sensor = True
    for _ in range(60):
        world.step()
    through = _right_of(world, 153.0)
    assert through > 100  # it held all of it when the sensor flag was read once, at attach
    gate.sensor = False
    for _ in range(2):
        world.step()
    held = _right_of(world, 153.0)
    for _ in range(60):
        world.step()
    assert abs(_right_of(world, 153.0) - held) <= 2 and world.check().ok


def test_a_static_sensor_turned_solid_holds_water() -> None:
    space = pymunk.Space()
    space.gravity = (0.0, -900.0)
    world = World(300, 200, space=space, bounds=True)
    gate = pymunk.Segment(space.static_body, (150, 0), (150, 180), 3)
    gate.sensor = True
    space.add(gate)
    world.step()
    gate.sensor = False
    world.add_fluid_rect(0, 0, 146, 120)
    for _ in range(90):
        world.step()
    assert _right_of(world, 150.0) == 0


def test_a_shape_added_to_a_coupled_body_is_coupled_and_floats_it() -> None:
    """A second circle added to an attached body: coupled at the next step, in the body's
    handle, and the body floats (it sank while its new shape got no buoyancy)."""
    world = World(300, 200)
    world.add_fluid_rect(0, 0, 300, 100)
    h = world.add_ball((150, 100), 10, density=0.5)
    for _ in range(30):
        world.step()
    extra = pymunk.Circle(h.body, 15, (0, 20))
    extra.density = 0.5
    world.space.add(extra)
    world.step()
    assert world.coupler.is_coupled(extra) and extra in h.shapes
    assert h.area == pytest.approx(np.pi * (10**2 + 15**2), rel=0.02)
    for _ in range(180):
        world.step()
    assert h.body.position.y > 80.0 and world.check().ok
    world.remove(h)
    assert not any(s.body is h.body for s in world.coupler.shapes)


def test_reshape_puts_the_water_out_of_a_grown_shape() -> None:
    world = World(300, 200)
    world.add_fluid_rect(0, 0, 300, 100)
    h = world.add_ball((150, 60), 10, density=0.5)
    world.step()
    h.shape.unsafe_set_radius(30.0)
    world.step()
    assert world.check().inside_shapes > 50  # the coupler still samples the old circle
    world.reshape(h.shape)
    world.step()
    assert world.check().inside_shapes == 0
    assert h.size == (60.0, 60.0)
    with pytest.raises(ValueError, match="not coupled"):
        world.reshape(pymunk.Circle(pymunk.Body(), 3))
    with pytest.raises(TypeError, match="pymunk.Shape"):
        world.reshape(h)  # type: ignore[arg-type]


@pytest.mark.parametrize("solver", ["srd", "ddr", "constraint"])
def test_a_floating_body_made_kinematic_stays_where_it_was_frozen(solver: str) -> None:
    """Frozen with ``velocity = (0, 0)``: it sank at ``g h`` (7.5 units/s) for good, the
    velocity report's undo taking the part reported from a body pymunk no longer moves."""
    world = World(300, 200, solver=solver)
    world.add_fluid_rect(0, 0, 300, 80)
    h = world.add_box((150, 90), (40, 40), density=0.5)
    for _ in range(90):
        world.step()
    h.body.body_type = pymunk.Body.KINEMATIC
    h.body.velocity = (0.0, 0.0)
    y0 = h.body.position.y
    for _ in range(30):
        world.step()
    assert h.body.position.y == y0 and tuple(h.body.velocity) == (0.0, 0.0)


@pytest.mark.parametrize("density", [0.05, 0.5, 2.0])
def test_a_body_added_in_the_air_gets_nothing_from_the_water(density: float) -> None:
    """A box 120 units over a pool, gravity off for it: no level known yet counted the whole
    box as water it displaced, and the pressure stage pushed it down (-17.4 / -6.7 / -1.7
    units/s at densities 0.05 / 0.5 / 2)."""
    world = World(300, 200)
    world.add_fluid_rect(0, 0, 300, 60)
    h = world.add_box((150, 150), (30, 30), density=density)
    h.body.velocity_func = _nograv
    for _ in range(10):
        world.step()
    assert tuple(h.body.velocity) == (0.0, 0.0) and h.body.position.y == 150.0


def test_adding_a_body_does_not_kick_the_floating_ones() -> None:
    """The levels of bodies coupled before are kept when a body is added: the rebuilt arrays
    had none, and every floating body took ~1.1 units/s down at each add."""
    world = World(400, 220)
    world.add_fluid_rect(0, 0, 400, 100)
    crate = world.add_box((120, 100), (72, 24), density=0.5)
    for _ in range(240):
        world.step()
    kicks, calm = [], []
    for i in range(120):
        v0 = crate.body.velocity.y
        if i % 30 == 0:
            world.add_ball((330 + i // 30 * 8, 200), 5, density=0.5).body.velocity_func = _nograv
        world.step()
        (kicks if i % 30 == 0 else calm).append(abs(crate.body.velocity.y - v0))
    assert max(kicks) < 0.5, (kicks, float(np.mean(calm)))


def test_a_drain_moved_by_its_rect_is_checked() -> None:
    world = World(200, 100)
    drain = world.add_drain((0, 0, 50, 20))
    drain.rect = (10, 0, 60, 30)
    assert drain.rect == (10.0, 0.0, 60.0, 30.0)
    with pytest.raises(ValueError, match="x1 > x0"):
        drain.rect = (10, 10, 0, 0)
    with pytest.raises(ValueError, match="finite"):
        drain.rect = (0, 0, float("nan"), 1)
    with pytest.raises(ValueError, match="outside the domain"):
        drain.rect = (300, 0, 400, 10)
    with pytest.raises(TypeError, match="x0, y0, x1, y1"):
        drain.rect = (1, 2, 3)  # type: ignore[assignment]
    assert drain.rect == (10.0, 0.0, 60.0, 30.0)
