"""A game's own systems in the step: placement, timing, removal, and the ready-made currents;
what the coupling knows about each body (submerged area, fluid force) on its handle."""

from __future__ import annotations

import numpy as np
import pytest

from fluidworld import World
from fluidworld.systems import Current, ForceField, Vortex
from fluidworld.world import BodyHandle


def pool(width: float = 400.0, height: float = 240.0, depth: float = 90.0) -> World:
    world = World(width, height)
    world.add_fluid_rect(0, 0, width, depth)
    return world


def test_a_system_after_advect_sees_the_particles_before_the_exchange() -> None:
    world = pool()
    world.add_box((200, 110), (40, 40), density=0.5)
    seen: dict[str, list[np.ndarray]] = {"before_advect": [], "after_advect": [],
                                         "before_exchange": []}

    def recorder(key: str):  # noqa: ANN202
        def fn(w: World, h: float) -> None:
            assert h == pytest.approx(w.fluid.params.h)
            seen[key].append(w.fluid.positions.copy())
        return fn

    world.add_system(recorder("before_advect"), before="advect", name="rec0")
    world.add_system(recorder("after_advect"), after="advect", name="rec1")
    world.add_system(recorder("before_exchange"), before="exchange", name="rec2")
    stages = world.stages
    assert stages.index("rec0") + 2 == stages.index("rec1") == stages.index("advect") + 1
    assert stages.index("rec2") + 1 == stages.index("exchange")
    for _ in range(3):
        world.step()
    substeps = 3 * world.fluid.params.substeps
    assert all(len(v) == substeps for v in seen.values())  # every substep
    for a, b, c in zip(seen["before_advect"], seen["after_advect"], seen["before_exchange"],
                       strict=True):
        assert np.array_equal(b, c)  # nothing runs between advect and the exchange
        assert not np.array_equal(a, b)  # advect moved the particles
    assert world.profile["rec1"] > 0.0 and "rec1" in world.profile


def test_removing_a_system_gives_back_the_step_bit_for_bit() -> None:
    plain, busy = pool(), pool()
    for w in (plain, busy):
        w.add_box((200, 110), (40, 40), density=0.5)
    calls: list[float] = []
    watcher = busy.add_system(lambda w, h: calls.append(h), after="exchange",
                              every_substep=False, name="watch")
    current = busy.add_system(Current((0, 0, 400, 90), velocity=(50, 0)))
    busy.remove_system(current)
    for _ in range(10):
        plain.step()
        busy.step()
    assert calls == [pytest.approx(busy.fluid.params.dt)] * 10  # once per step, with dt
    assert busy.state_hash() == plain.state_hash()
    busy.remove_system("watch")
    assert watcher not in busy.systems and "watch" not in busy.stages
    with pytest.raises(KeyError):
        busy.remove_system("watch")


def test_a_system_is_removed_by_the_function_or_object_that_was_added() -> None:
    """``remove_system(fn)`` with the function given to ``add_system`` raised KeyError (only
    the returned ``System`` and the name were looked up)."""
    world = pool()
    current = Current((0, 0, 400, 90), velocity=(50, 0))

    def wind(w: World, h: float) -> None:
        pass

    world.add_system(wind, after="advect")
    world.add_system(current, after="external_forces")
    world.remove_system(wind)
    world.remove_system(current)
    assert "wind" not in world.stages and "current" not in world.stages
    with pytest.raises(KeyError, match="no system"):
        world.remove_system(wind)
    with pytest.raises(KeyError, match="no system"):
        world.remove_system(Current((0, 0, 400, 90), velocity=(50, 0)))  # another object


def test_add_system_refuses_bad_placement() -> None:
    world = pool()
    with pytest.raises(ValueError, match="stages"):
        world.add_system(lambda w, h: None, after="nowhere")
    with pytest.raises(ValueError, match="not both"):
        world.add_system(lambda w, h: None, after="bin", before="bin")
    with pytest.raises(TypeError, match="system"):
        world.add_system(42)
    world.add_system(lambda w, h: None, name="x")
    with pytest.raises(ValueError, match="already"):
        world.add_system(lambda w, h: None, name="x")
    with pytest.raises(ValueError, match="velocity"):
        Current((0, 0, 10, 10), velocity=(1, 2, 3))
    with pytest.raises(ValueError, match="region"):
        ForceField((10, 0, 0, 10), acceleration=(0, 1))
    with pytest.raises(ValueError, match="radius"):
        Vortex((5, 5), radius=0, speed=1)


def test_a_current_carries_a_floating_boat_downstream_at_its_speed() -> None:
    """A surface current of 60 units/s over a long closed tank: the surface water runs at
    nearly the stream's speed (the return flow underneath and the water piling up at the far
    wall hold it back a little), and the boat drifts with it."""
    world = World(1600.0, 240.0)
    world.add_fluid_rect(0, 0, 1600, 100)
    boat = world.add_box((200, 110), (80, 20), density=0.5)
    # the default rate (it was 4, and a boat on a current of 40 drifted at 0.71 of it)
    world.add_system(Current((0, 60, 1600, 240), velocity=(60, 0)), after="external_forces")
    for _ in range(60):  # 1 s to get going
        world.step()
    x0 = boat.position[0]
    water = []
    for _ in range(120):
        world.step()
        pos, vel = world.fluid.positions, world.fluid.velocities
        near = (pos[:, 1] > 60) & (np.abs(pos[:, 0] - boat.position[0]) < 200)
        water.append(vel[near, 0].mean())
    speed = (boat.position[0] - x0) / 2.0
    assert speed == pytest.approx(60.0, rel=0.2)
    assert speed == pytest.approx(float(np.mean(water)), rel=0.15)


def test_the_handle_knows_its_submerged_area_and_the_fluids_force() -> None:
    """A floating box of density 0.5: half its area under water (Archimedes), and the fluid
    carries its weight."""
    world = pool(400, 240, 100)
    box = world.add_box((200, 120), (40, 40), density=0.5)
    for _ in range(240):
        world.step()
    assert box.submerged_area == pytest.approx(0.5 * 40 * 40, rel=0.1)
    fx, fy = box.fluid_force
    weight = box.body.mass * 900.0
    assert fy == pytest.approx(weight, rel=0.1) and abs(fx) < 0.1 * weight
    dry = world.add_box((60, 200), (20, 20), density=0.5)
    world.step()
    assert dry.submerged_area == 0.0
    world.remove(box)
    assert box.submerged_area == 0.0 and box.fluid_force == (0.0, 0.0)


def test_a_vortex_turns_the_water() -> None:
    """Within its radius the water turns counter-clockwise at close to the solid-body speed
    ``speed * r / radius`` (within 25 %, the floor and the pool around slow it)."""
    world = pool(400, 240, 120)
    world.add_system(Vortex((200, 60), radius=50, speed=80, rate=20.0),
                     after="external_forces")
    for _ in range(60):
        world.step()
    pos, vel = world.fluid.positions, world.fluid.velocities
    d = pos - np.array([200, 60])
    r = np.hypot(d[:, 0], d[:, 1])
    ring = (r > 20) & (r < 45)
    tangential = (d[ring, 0] * vel[ring, 1] - d[ring, 1] * vel[ring, 0]) / r[ring]
    assert tangential.mean() == pytest.approx(float((80 / 50 * r[ring]).mean()), rel=0.25)
    assert world.check().ok


def test_a_force_field_lifts_the_water_in_its_region() -> None:
    world = pool(400, 240, 120)
    world.add_system(ForceField((0, 0, 100, 240), acceleration=(0, 2000)),
                     after="external_forces")
    for _ in range(60):
        world.step()
    pos = world.fluid.positions
    left = pos[:, 0] < 100
    assert pos[left, 1].mean() > pos[~left, 1].mean() + 10
    assert world.check().ok


class Score:
    def __init__(self, points: int) -> None:
        self.points = points


def test_entities_carry_components_that_queries_find_and_saves_keep() -> None:
    world = pool()
    crate = world.add_box((100, 110), (30, 30), density=0.5)
    ball = world.add_ball((300, 120), 10, density=0.5)
    world.add_static_segment((0, 200), (50, 180))
    crate.data[Score] = Score(10)
    ball.data[Score] = Score(5)
    ball.data["tag"] = "bouncy"
    assert {e.id for e in world.entities_with(Score)} == {crate.id, ball.id}
    assert [e.id for e in world.entities_with(Score, "tag")] == [ball.id]
    again = World.restore(world.snapshot())
    got = {e.kind: e.data[Score].points for e in again.entities_with(Score)}
    assert sorted(got.values()) == [5, 10]
    world.remove(ball)
    assert [e.id for e in world.entities_with(Score)] == [crate.id]


def test_world_entities_is_a_query_as_the_issue_writes_it() -> None:
    """Issue 18 writes ``world.entities(with_=Buoyant)``: ``entities`` was a generator, and
    calling it raised "'generator' object is not callable". It iterates as before and is
    called as a component query."""
    world = pool()
    crate = world.add_box((100, 110), (30, 30), density=0.5)
    ball = world.add_ball((300, 120), 10, density=0.5)
    drain = world.add_drain((0, 0, 20, 20))
    crate.data[Score] = Score(1)
    ball.data[Score] = Score(2)
    ball.data["tag"] = 1
    drain.data[Score] = Score(3)
    assert [e.id for e in world.entities] == [crate.id, ball.id, drain.id]
    assert len(world.entities) == 3 and next(world.entities) is crate
    assert [e.id for e in world.entities(with_=Score)] == [crate.id, ball.id, drain.id]
    assert [e.id for e in world.entities(with_=(Score, "tag"))] == [ball.id]
    assert [e.id for e in world.entities(Score, of=BodyHandle)] == [crate.id, ball.id]
    assert list(world.entities(with_="nothing")) == []
    assert len(list(world.entities(with_=None))) == 3 == len(list(world.entities()))
    with pytest.raises(TypeError, match="of must be a class"):
        world.entities(of="BodyHandle")


def test_a_system_that_scores_by_submerged_area() -> None:
    """The kind of system the README shows: points for every crate under water."""
    world = pool(400, 240, 100)
    crate = world.add_box((200, 120), (40, 40), density=0.5)
    crate.data[Score] = Score(0)

    def scoring(w: World, dt: float) -> None:
        for e in w.entities_with(Score):
            if e.submerged_area > 100.0:
                e.data[Score].points += 1

    world.add_system(scoring, after="events")
    for _ in range(60):
        world.step()
    assert 40 <= crate.data[Score].points <= 60
    assert "scoring" in world.stages and world.stages[-1] == "scoring"


def test_drains_and_emitters_are_built_in_systems_of_the_same_pipeline() -> None:
    """Drains and emitters run as the built-in systems ``drains`` and ``emitters`` right before
    ``events``: listed and timed like a game's, pausable, not removable; a game's system placed
    before ``events`` runs after them and sees what they did."""
    world = pool()
    world.add_drain((0, 0, 40, 40))
    world.add_emitter((200, 200), (0, -1), speed=100, rate=600)
    stages = world.stages
    assert stages[-5:] == ("exchange", "settle", "drains", "emitters", "events")
    assert world.systems == ()  # the game's own list stays the game's
    counts: list[int] = []
    world.add_system(lambda w, dt: counts.append(w.fluid.count), before="events", name="count")
    assert world.stages.index("count") == world.stages.index("emitters") + 1
    n0 = world.fluid.count
    world.step()
    assert world.particles_removed > 0 and world.particles_added > n0
    assert counts == [world.fluid.count]  # after the drain and the emitter, this step
    assert all(k in world.profile for k in ("settle", "drains", "emitters"))
    with pytest.raises(ValueError, match="built in"):
        world.remove_system("emitters")
    world.system("emitters").enabled = False
    added = world.particles_added
    for _ in range(5):
        world.step()
    assert world.particles_added == added  # paused
    world.system("emitters").enabled = True
    world.step()
    assert world.particles_added > added
    with pytest.raises(KeyError):
        world.system("nope")


def test_the_world_and_a_lone_fluid_run_the_same_stage_list() -> None:
    """One pipeline: a World without bodies steps its fluid bit for bit like the fluid's own
    ``step()`` (the World adds its coupling stages around the same list)."""
    from fluidworld.fluid import FluidParams, FluidSystem
    from fluidworld.fluid.solver import substep_stages

    params = FluidParams.game(300, 200)
    world = World(300, 200, params=params, bounds=False)
    alone = FluidSystem(params)
    world.fluid.fill_rect(0, 0, 300, 80)
    alone.fill_rect(0, 0, 300, 80)
    names = [name for name, _ in substep_stages(alone, alone.solver)]
    assert tuple(names) == alone.stages == world.fluid.stages
    assert world.stages[1:1 + len(names)] == tuple(names)
    for _ in range(10):
        world.step()
        alone.step()
    np.testing.assert_array_equal(world.fluid.positions, alone.positions)
    np.testing.assert_array_equal(world.fluid.velocities, alone.velocities)


def test_a_system_at_a_stage_the_new_solver_lacks_is_named_when_the_solver_changes() -> None:
    """A system placed after ``srd_collision`` silently stopped running under ``ddr`` (still
    listed in ``world.systems``); ``set_solver`` now names it, and it runs again on SRD."""
    w = World(200, 150)
    w.add_fluid_rect(0, 0, 200, 40)
    calls = []
    w.add_system(lambda world, h: calls.append(h), after="srd_collision", name="stir")
    with pytest.warns(RuntimeWarning, match="'stir' \\(after 'srd_collision'\\)"):
        w.set_solver("ddr")
    w.step()
    assert calls == []
    w.set_solver("srd")
    w.step()
    assert len(calls) == 2


@pytest.mark.parametrize("call", ["step", "set_solver"])
def test_stepping_or_switching_solvers_from_inside_a_system_is_refused(call: str) -> None:
    """``world.step()`` in a system stepped the world again inside its own step (and ended
    its deferral of removals); ``set_solver`` there switched the solver and then raised a
    ``KeyError`` from the stage loop. Both raise a ``RuntimeError`` and change nothing."""
    w = World(200, 150)
    w.add_fluid_rect(0, 0, 200, 40)

    def meddle(world: World, h: float) -> None:
        world.step() if call == "step" else world.set_solver("ddr")

    w.add_system(meddle, every_substep=False)
    with pytest.raises(RuntimeError, match="during a step"):
        w.step()
    assert w.steps == 0 and w.solver == "srd"
    w.remove_system("meddle")
    w.step()
    assert w.steps == 1 and w.check().ok
