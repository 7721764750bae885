"""Saves load bit-exact by replaying the world from its origin (fluidworld.replay): a loaded
world continues exactly like one that never saved, contacts and joints included."""

from __future__ import annotations

import copy
import pickle

import pymunk
import pytest

from fluidworld import World
from fluidworld.replay import REPLAY_LIMIT, replaying_disabled


def _yard() -> tuple[World, object]:
    """Water, a crate and a ball pinned together, an emitter and a drain: the crate and the
    ball touch the water, each other's joint and the walls within the first 500 steps."""
    world = World(320, 240)
    world.add_fluid_rect(0, 0, 320, 60)
    crate = world.add_box((80, 120), (30, 30), density=0.5)
    ball = world.add_ball((200, 150), 10, density=0.7)
    world.space.add(pymunk.PinJoint(crate.body, ball.body))
    world.add_emitter((30, 220), (1, -1), 90, rate=60)
    world.add_drain((290, 0, 320, 30))
    return world, crate


def _touching(world: World) -> int:
    """How many contacts the Space's bodies hold (pymunk's public ``each_arbiter``)."""
    hits: list[int] = []
    for body in world.space.bodies:
        body.each_arbiter(lambda arb: hits.append(1))
    return len(hits)


@pytest.mark.slow
def test_every_way_of_loading_continues_like_the_run_that_never_saved() -> None:
    world, crate = _yard()
    for _ in range(500):
        world.step()
    assert _touching(world) > 0 and world.space.constraints  # warm-start state to lose
    with replaying_disabled():  # what a load gave before the replay: pymunk's state cold
        cold = World.restore(world.snapshot())
    loads = [World.restore(world.snapshot()), pickle.loads(pickle.dumps(world)),
             copy.deepcopy(world)]
    assert {w.state_hash() for w in [cold, *loads]} == {world.state_hash()}
    handle = loads[0].get(crate.id)  # entity handles point into the loaded world
    assert handle.body in loads[0].space.bodies and handle.body is not crate.body
    for _ in range(500):
        for w in [world, cold, *loads]:
            w.step()
    assert {w.state_hash() for w in loads} == {world.state_hash()}
    assert cold.state_hash() != world.state_hash()  # the replay is what makes it exact


def test_a_change_from_outside_the_step_is_kept_by_a_load() -> None:
    """The replay cannot know a change made between steps: a body's friction set from game
    code (no effect on the state yet) and a velocity set the step before the save. The load
    must keep both, so it takes the save as it is."""
    world, crate = _yard()
    for _ in range(60):
        world.step()
    crate.shapes[0].friction = 0.05
    crate.body.velocity = (0.0, 50.0)
    loaded = World.restore(world.snapshot())
    assert loaded.get(crate.id).shapes[0].friction == 0.05
    assert tuple(loaded.get(crate.id).body.velocity) == (0.0, 50.0)
    assert loaded.state_hash() == world.state_hash()
    # it records afresh from where it was loaded: a second save of it replays exactly
    for _ in range(30):
        loaded.step()
    again = World.restore(loaded.snapshot())
    for _ in range(60):
        loaded.step()
        again.step()
    assert again.state_hash() == loaded.state_hash()


def test_a_world_keeps_its_origin_only_for_its_replay_limit() -> None:
    world, _ = _yard()
    assert world.replay_limit == REPLAY_LIMIT
    world.replay_limit = 40
    for _ in range(40):
        world.step()
    assert world._replay is not None and world._replay.steps == 40
    world.step()
    assert world._replay is None  # let go: a later save loads as saved, without a replay
    loaded = World.restore(world.snapshot())
    assert loaded.state_hash() == world.state_hash()
    off = World(100, 80)
    off.replay_limit = 0
    off.step()
    assert off._replay is None


def test_steps_of_another_dt_are_replayed_with_it() -> None:
    world, _ = _yard()
    for dt in (None, 1 / 120, 1 / 120, None, 1 / 30):
        for _ in range(20):
            world.step(dt)
    assert world._replay is not None
    assert [c for _, c in world._replay.dts] == [20, 40, 20, 20]
    loaded = pickle.loads(pickle.dumps(world))
    for _ in range(60):
        world.step()
        loaded.step()
    assert loaded.state_hash() == world.state_hash()


def test_handles_from_the_same_pickle_stay_linked_to_the_replayed_world() -> None:
    """A handle pickled with its world (as a game's own state would hold it) is the loaded
    world's entity: its body moves in the loaded Space, and ``remove`` finds it."""
    world, crate = _yard()
    emitter = next(e for e in world.entities if e.kind == "emitter")
    for _ in range(60):
        world.step()
    loaded, box, tap = pickle.loads(pickle.dumps((world, crate, emitter)))
    assert loaded._replay is not None and loaded._replay.steps == 60  # the replay was taken
    assert loaded.get(crate.id) is box and box.body in loaded.space.bodies
    assert tap in loaded
    loaded.remove(tap)
    assert tap not in loaded and not any(e.kind == "emitter" for e in loaded.entities)
    y = box.body.position.y
    for _ in range(30):
        loaded.step()
    assert box.body.position.y != y and loaded.check().ok


def _events(world: World) -> list[object]:
    return list(world.poll_events())  # frozen dataclasses: equal by value


@pytest.mark.slow
def test_calls_between_steps_are_replayed() -> None:
    """A game adds a crate, removes the emitter, pours more water and polls its events between
    steps, then saves: the load makes the same calls at the same steps and continues exactly,
    with the same events left to poll."""
    world, crate = _yard()
    emitter = next(e for e in world.entities if e.kind == "emitter")
    polled = []
    for i in range(500):
        if i == 100:
            world.add_box((240, 150), (24, 24), density=0.6)
        if i == 180:
            world.remove(emitter)
        if i == 250:
            world.add_fluid_rect(20, 120, 60, 150)
        if i % 50 == 0:
            polled.append(len(_events(world)))
        world.step()
    assert sum(polled) > 0  # the bodies went in and out of the water
    loaded = World.restore(world.snapshot())
    assert loaded._replay is not None and len(loaded._replay.inputs) == 3 + 9
    for _ in range(300):
        world.step()
        loaded.step()
    assert _events(loaded) == _events(world)
    assert loaded.state_hash() == world.state_hash()


def test_a_world_of_water_alone_takes_its_origin_with_its_first_body() -> None:
    """Until a dynamic body or a joint is in the Space, an unpickled world continues exactly,
    so no origin is kept (no pickle at the first step of a world of water); the step after the
    first body comes in takes it, and a save from then on replays from there."""
    world = World(320, 240)
    world.add_fluid_rect(0, 0, 320, 60)
    for _ in range(40):
        world.step()
    assert world._replay is None
    a = world.add_box((80, 120), (30, 30), density=0.5)
    b = world.add_ball((200, 150), 10, density=0.7)
    world.space.add(pymunk.PinJoint(a.body, b.body))
    for _ in range(200):
        world.step()
    assert world._replay is not None and world._replay.start == 40
    loaded = pickle.loads(pickle.dumps(world))
    assert loaded._replay is not None and loaded._replay.steps == 200
    for _ in range(200):
        world.step()
        loaded.step()
    assert loaded.state_hash() == world.state_hash()


def test_a_call_is_recorded_with_its_arguments_as_they_were() -> None:
    """The game may reuse a list it passed: the record keeps a copy, and a call that the
    world refused (a ValueError) is not recorded."""
    world, _ = _yard()
    world.step()
    corners = [(150.0, 150.0), (180.0, 150.0), (165.0, 175.0)]
    world.add_poly((0.0, 0.0), corners, density=0.6)
    corners[2] = (165.0, 230.0)  # changed after the call
    with pytest.raises(ValueError):
        world.add_ball((100.0, 100.0), -3.0)
    for _ in range(40):
        world.step()
    assert [item[1] for item in world._replay.inputs] == ["add_poly"]
    loaded = World.restore(world.snapshot())
    assert loaded._replay is not None  # the replay matched the save
    for _ in range(40):
        world.step()
        loaded.step()
    assert loaded.state_hash() == world.state_hash()


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["ddr", "constraint"])
def test_the_other_solvers_load_exactly_too(solver: str) -> None:
    world = World(240, 200, solver=solver)
    world.add_fluid_rect(0, 0, 240, 50)
    a = world.add_box((80, 100), (30, 30), density=0.5)
    b = world.add_ball((150, 110), 10, density=0.7)
    world.space.add(pymunk.PinJoint(a.body, b.body))
    for _ in range(150):
        world.step()
    loads = [World.restore(world.snapshot()), pickle.loads(pickle.dumps(world))]
    for _ in range(150):
        for w in [world, *loads]:
            w.step()
    assert {w.state_hash() for w in loads} == {world.state_hash()}


class Wind:
    """A game's system object with a knob the game turns between steps."""

    def __init__(self) -> None:
        self.strength = 0.0

    def update(self, world: World, h: float) -> None:
        world.fluid.velocities[:, 0] += self.strength * h


def test_a_system_objects_knob_turned_between_steps_is_kept_by_a_load() -> None:
    """A replay that ignored the knob would load the wind at 0."""
    world, _ = _yard()
    wind = Wind()
    world.add_system(wind, after="external_forces")
    for _ in range(30):
        world.step()
    wind.strength = 40.0  # not a call the record sees
    loaded = World.restore(world.snapshot())
    # the replay (wind 0) differs from the save (wind 40): the save loads as it was saved
    assert loaded.system(loaded.systems[-1].name).fn.__self__.strength == 40.0
    assert loaded._replay is None and loaded.state_hash() == world.state_hash()
