"""What the World refuses at the call, and what it keeps bounded: sprites a renderer could not
load, material tables with a name twice, the event queue of a game that never polls, joints
left to a removed body, emitters moved out of the domain, absurd fluid speeds, solvers shared
between fluids, copies made inside a step, the standalone fluid's helpers, the parameters a
fluid is built on, the state hash and the profile of a system that removes itself."""

from __future__ import annotations

import copy
import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pymunk
import pytest

from fluidworld import World, scenes
from fluidworld.fluid import WATER, FluidParams, FluidSystem, Material
from fluidworld.fluid.advection import MAX_SPEED_CELLS
from fluidworld.fluid.constraint_solver import ConstraintSolver
from fluidworld.fluid.ddr_solver import DDRSolver
from fluidworld.fluid.srd_solver import SRDSolver
from fluidworld.imaging import save_png
from fluidworld.world_fluid import MAX_EVENTS


@pytest.mark.parametrize("sprite", [5, 1.5, True, "", ["crate"]])
def test_a_sprite_that_is_no_texture_is_refused_when_the_body_is_made(sprite: Any) -> None:
    world = World(200, 150)
    with pytest.raises(TypeError, match="sprite"):
        world.add_box((100, 100), (20, 20), sprite=sprite)
    with pytest.raises(TypeError, match="sprite"):
        world.add_ball((100, 100), 10, sprite=sprite)
    assert len(world.space.bodies) == 0 and list(world.entities) == []


def test_a_sprite_path_names_the_body_after_its_file() -> None:
    world = World(200, 150)
    e = world.add_box((100, 100), (20, 20), sprite=Path("art/barrel.png"))
    assert e.kind == "barrel" and e.sprite == Path("art/barrel.png")
    assert world.add_box((50, 100), (20, 20), sprite=None).kind == "body"
    with pytest.raises(TypeError, match="kind"):
        world.add_box((150, 100), (20, 20), kind=3)  # type: ignore[arg-type]


def test_a_material_table_with_a_name_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="distinct names.*'water'"):
        World(200, 150, materials=[WATER, Material("water", density=2.0)])


def test_events_nobody_polls_stay_bounded_and_are_counted() -> None:
    world = World(200, 150)
    world.add_fluid_rect(0, 0, 200, 40)
    world.add_emitter((100, 100), (0, -1), speed=50, rate=600)
    world.add_drain((0, 0, 200, 150))  # eats every step: one event each
    extra = 50
    for _ in range(MAX_EVENTS + extra):
        world._event(object())  # as a drain would, without stepping 4,000 times
    world.step()
    events = world.poll_events()
    assert len(events) == MAX_EVENTS and world.events_dropped == extra + 1
    assert type(events[-1]).__name__ == "DrainEvent"  # the newest is kept
    world.step()
    assert len(world.poll_events()) == 1


def test_removing_a_jointed_body_takes_its_joints_and_leaves_its_partner_whole() -> None:
    """A pin left to a removed body turned its partner NaN at pymunk's next step, and every
    step after raised."""
    world = World(400, 300)
    world.add_fluid_rect(0, 0, 400, 100)
    a = world.add_box((150, 150), (30, 30), density=0.5)
    b = world.add_box((250, 150), (30, 30), density=0.5)
    world.space.add(pymunk.PinJoint(a.body, b.body),
                    pymunk.DampedSpring(a.body, world.space.static_body, (0, 0), (200, 280),
                                        50, 100, 5))
    for _ in range(10):
        world.step()
    world.remove(a)
    assert len(world.space.constraints) == 0
    for _ in range(20):
        world.step()
    assert world.check().ok and all(map(math.isfinite, (*b.body.position, *b.body.velocity)))


def test_an_emitter_moved_out_of_the_domain_or_given_no_material_is_refused() -> None:
    world = World(400, 300)
    e = world.add_emitter((50, 250), (1, 0), 100, 60)
    with pytest.raises(ValueError, match="outside the domain"):
        e.position = (500, 100)
    assert e.position == (50.0, 250.0)
    e.position = (399, 1)  # the edge is inside
    for bad in ("lava", 4):  # raised inside the next step() before
        with pytest.raises(ValueError, match="unknown"):
            e.material = bad
    e.material = "oil"
    world.step()
    assert e.material == "oil"


@pytest.mark.parametrize("solver", ["ddr", "constraint"])
def test_absurd_fluid_speeds_are_cut_to_the_speed_limit(solver: str) -> None:
    """A fill at 1e15 units/s ran ddr's grids out of memory at the first step (1e30: a numba
    error); the solvers that move particles before the advection now cut it first. (The fills
    refuse such a velocity now; a game can still write one into ``fluid.velocities``.)"""
    world = World(400, 300, solver=solver)
    world.add_fluid_rect(0, 0, 400, 60)
    a = world.add_fluid_rect(40, 250, 60, 270)
    b = world.add_fluid_rect(340, 250, 360, 270)
    n = world.fluid.count
    world.fluid.velocities[n - a - b:n - b] = (1e15, 0)
    world.fluid.velocities[n - b:] = (-1e300, 1e300)
    for _ in range(3):
        world.step()
    p = world.fluid.params
    limit = MAX_SPEED_CELLS * p.a0 / (p.dt / p.substeps)
    speed = np.hypot(*world.fluid.velocities.T)
    assert world.check().ok and world.fluid.count == n and speed.max() <= limit * (1 + 1e-9)


@pytest.mark.parametrize("cls", [SRDSolver, DDRSolver, ConstraintSolver])
def test_a_solver_runs_one_fluid_and_a_solver_class_is_told_to_be_called(cls: type) -> None:
    """A solver object given to two worlds ran its stages on the last one's fluid: the first
    world froze while its velocities grew. A class (parentheses forgotten) failed inside."""
    solver = cls()
    a = World(300, 200, solver=solver)
    with pytest.raises(ValueError, match="another fluid"):
        World(300, 200, solver=solver)
    with pytest.raises(ValueError, match="another fluid"):
        World(300, 200).set_solver(solver)
    a.set_solver(solver)  # its own fluid again: fine
    for make in (lambda: World(300, 200, solver=cls), lambda: a.set_solver(cls)):
        with pytest.raises(TypeError, match=rf"the class {cls.__name__} \(call it"):
            make()


def test_a_world_copied_from_inside_a_system_is_refused_not_left_unsteppable() -> None:
    world = World(200, 150)
    world.add_fluid_rect(0, 0, 200, 40)
    world.add_system(lambda w, dt: copy.deepcopy(w), after="events", every_substep=False)
    with pytest.raises(RuntimeError, match="during a step"):
        world.step()


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda fs: fs.fill_rect(0, 0, 640, 360, spacing=0.03), ValueError, "max_particles"),
    (lambda fs: fs.fill_circle(320, 180, 100, spacing=0.01), ValueError, "max_particles"),
    (lambda fs: scenes.fluid_area(fs, column=0), ValueError, "column"),
    (lambda fs: save_png(fs, "out/never.png", scale=math.nan), ValueError, "scale"),
    (lambda fs: save_png(fs, "out/never.png", radius=-3), ValueError, "radius"),
    (lambda fs: save_png(object(), "out/never.png"), TypeError, "fluid"),
    (lambda fs: scenes.dam_break(count=-5), ValueError, "count"),
    (lambda fs: scenes.droplet(depth=0), ValueError, "depth"),
    (lambda fs: FluidParams(pressure_clamp="x"), TypeError, "pressure_clamp"),
    (lambda fs: FluidParams.game(200, 100, gravity={1.0, 2.0}), ValueError, "gravity"),
])
def test_the_standalone_fluids_helpers_name_a_bad_argument(call: Any, error: type[Exception],
                                                           match: str) -> None:
    fs = FluidSystem(FluidParams.game(640, 360))
    with pytest.raises(error, match=match):
        call(fs)
    assert fs.count == 0


@pytest.mark.parametrize(("field", "value"), [("width", 300.0), ("a0", 5.0), ("gamma", 8.0),
                                              ("max_particles", 100), ("seed", 4),
                                              ("wall_solids", False)])
def test_the_fluids_built_on_params_cannot_be_replaced(field: str, value: Any) -> None:
    # the grids, arrays and wall solids were built for them: a wider width was accepted and
    # the fluid kept its old grids
    world = World(200, 150)
    world.add_fluid_rect(0, 0, 200, 40)
    before = world.fluid.params
    with pytest.raises(ValueError, match=f"fluid.params.{field} is fixed"):
        world.fluid.params = dataclasses.replace(before, **{field: value})
    with pytest.raises(TypeError, match="FluidParams"):
        world.fluid.params = {"gravity": (0.0, -10.0)}  # type: ignore[assignment]
    assert world.fluid.params is before
    world.fluid.params = dataclasses.replace(before, gravity=(0.0, -400.0), substeps=3)
    world.step()
    assert world.space.gravity == (0.0, -400.0) and world.check().ok


def test_the_state_hash_tells_seeds_and_gravities_apart() -> None:
    # two worlds of other seeds draw other rotations from their next step on
    def world(seed: int = 0) -> World:
        w = World(200, 150, params=FluidParams.game(200, 150, seed=seed))
        w.add_fluid_rect(0, 0, 200, 40)
        return w

    a, b, c = world(), world(), world(1)
    assert a.state_hash() == b.state_hash() != c.state_hash()
    b.fluid.params = dataclasses.replace(b.fluid.params, gravity=(0.0, -400.0))
    assert a.state_hash() != b.state_hash()
    a.step()
    c.step()
    assert a.fluid.state_hash() != c.fluid.state_hash()  # the seed shows in the particles


def test_a_system_that_removes_itself_leaves_the_profile() -> None:
    world = World(200, 150)
    world.add_fluid_rect(0, 0, 200, 40)

    def once(w: World, dt: float) -> None:
        w.remove_system("once")

    world.add_system(once, after="srd_collision", name="once")
    world.step()
    assert "once" not in world.profile and list(world.profile) == list(world.stages)
    world.step()
    assert list(world.profile) == list(world.stages)


def test_emitters_and_fills_keep_to_the_fluids_speed_limit() -> None:
    # an emitter at 1e9 units/s was accepted and its particles carried 1e9 into the next step
    world = World(200, 150)
    limit = MAX_SPEED_CELLS * world.fluid.params.a0 / world.fluid.params.h
    with pytest.raises(ValueError, match="speed must be at most 4800"):
        world.add_emitter((100, 100), (0, -1), 1e9, 100)
    e = world.add_emitter((100, 100), (0, -1), limit, 100)
    with pytest.raises(ValueError, match="speed must be at most"):
        e.speed = 1.01 * limit
    assert e.speed == limit
    with pytest.raises(ValueError, match="velocity must be at most"):
        world.add_fluid_rect(0, 0, 50, 50, velocity=(1e9, 0))
    # a spacing of 0.3 units packed 32,064 particles into 50 x 50 and threw them at 15,200/s
    with pytest.raises(ValueError, match="spacing must be at least"):
        world.add_fluid_rect(0, 100, 50, 150, spacing=0.3)
    with pytest.raises(ValueError, match="spacing must be at least"):
        world.add_fluid_polygon([(0, 0), (50, 0), (25, 40)], spacing=0.5 * world.fluid.r_l - 0.01)
    assert world.fluid.count == 0
    assert world.add_fluid_circle((100, 50), 20, spacing=0.5 * world.fluid.r_l) > 0


def test_a_save_into_a_folder_names_the_folder(tmp_path: Path) -> None:
    world = World(200, 150)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        world.save(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_nan_velocity_written_between_steps_is_zeroed_not_spread() -> None:
    """One NaN written into ``fluid.velocities`` spread through its cell into the pressure
    field, whose warm start kept it: every step after, the whole fluid went NaN in the pressure
    stage (then zeroed by the advection: a frozen fluid), and the box above the water ended at
    NaN, every ``step()`` after raising."""
    world = World(300, 200)
    world.add_fluid_rect(0, 0, 300, 60)
    e = world.add_box((150, 150), (30, 30), density=0.5)
    world.step()
    world.fluid.velocities[3] = (np.nan, 1.0)
    world.fluid.velocities[7] = (0.0, np.inf)
    with pytest.warns(RuntimeWarning, match="2 fluid particles had a non-finite velocity"):
        world.step()
    for _ in range(60):
        world.step()
    assert world.check().ok and math.isfinite(e.body.position.y)
    assert e.body.position.y < 100.0  # it fell onto the water, which moves
    assert np.isfinite(world.fluid.cell_pressure).all()
