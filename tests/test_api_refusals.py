"""Calls that a game writes wrong, refused at the call by name (found by probing the public API
on 2026-11-29): strings taken as booleans, callbacks of the wrong arity, absurd sizes that ran
out of memory, a static shape that leaves the fluid no room, fills and drains outside the
domain, a NaN written into a position, save paths; and numpy's zero-dimensional arrays and
integer colours accepted like numbers."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fluidworld import Material, World
from fluidworld.coupling import CouplingParams
from fluidworld.fluid import FluidParams
from fluidworld.levels import Level, LevelSession


@pytest.mark.parametrize("kw", [{"attach_static": "no"}, {"bounds": "yes"}, {"bounds": 1}])
def test_a_world_flag_must_be_a_bool(kw: dict[str, Any]) -> None:
    """``World(attach_static="no")`` used to attach every static shape (a truthy string)."""
    with pytest.raises(TypeError, match=next(iter(kw))):
        World(200, 150, **kw)


def test_coupling_knobs_are_refused_by_their_own_names() -> None:
    with pytest.raises(TypeError, match="coupling must be a CouplingParams"):
        World(200, 150, coupling="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="buoyancy"):
        CouplingParams(buoyancy="no")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="drag must be finite"):
        CouplingParams(drag=math.nan)
    # 1e-6 cells asked numpy for 65 TiB of interior samples when the first box was added
    with pytest.raises(ValueError, match=r"interior_spacing must be in \[0.05, 1\]"):
        CouplingParams(interior_spacing=1e-6)


def test_a_system_or_a_level_callback_of_the_wrong_arity_is_refused_when_given() -> None:
    w = World(200, 150)
    with pytest.raises(TypeError, match=r"two arguments, \(world, h\)"):
        w.add_system(lambda world: None)
    with pytest.raises(TypeError, match="every_substep"):
        w.add_system(lambda world, h: None, every_substep="no")  # type: ignore[arg-type]
    w.add_system(lambda world, h, *more: None)  # optional extras are fine

    class Bad(Level):
        width, height = 200.0, 150.0

        def build(self, world: World) -> None:
            self.after(0.1, lambda: None)  # type: ignore[arg-type,misc]

    s = LevelSession(Bad)
    assert s.error is not None and "one argument, the world" in str(s.error)


def test_a_goal_that_returns_no_number_is_named_when_it_runs() -> None:
    class Odd(Level):
        width, height = 200.0, 150.0

        def build(self, world: World) -> None:
            world.add_fluid_rect(0, 0, 200, 30)
            self.goal(lambda w: "yes")  # type: ignore[arg-type,return-value]

    s = LevelSession(Odd)
    for _ in range(3):
        s.step()
    assert s.error is not None and "must return a number in [0, 1] or a bool" in str(s.error)


@pytest.mark.parametrize("spec", [int, None, 3])
def test_a_level_session_of_something_that_is_no_level_is_a_type_error(spec: Any) -> None:
    with pytest.raises(TypeError, match="spec must be a level name"):
        LevelSession(spec)


def test_emitter_enabled_must_be_a_bool() -> None:
    w = World(200, 150)
    e = w.add_emitter((50, 100), (1, 0), 100.0, rate=10.0)
    with pytest.raises(TypeError, match="enabled"):
        e.enabled = "yes"  # type: ignore[assignment]
    e.enabled = False
    assert e.enabled is False


def test_a_static_shape_over_the_whole_domain_is_refused() -> None:
    """It pushed every particle into one corner, and each step took ~20 s."""
    w = World(200, 150)
    n = w.add_fluid_rect(0, 0, 200, 40)
    with pytest.raises(ValueError, match="covers the whole domain"):
        w.add_static_segment((100, 75), (100, 75), radius=200)
    with pytest.raises(ValueError, match="covers the whole domain"):
        w.add_static_poly([(-10, -10), (210, -10), (210, 160), (-10, 160)])
    w.add_static_segment((0, 20), (200, 20), radius=2)  # a shelf through the water is fine
    w.step()
    assert w.fluid.count == n and w.check().ok


def test_fills_and_drains_that_cannot_hold_anything_say_so() -> None:
    w = World(200, 150)
    with pytest.warns(RuntimeWarning, match="lies outside the domain"):
        assert w.add_fluid_rect(300, 300, 400, 400) == 0
    with pytest.raises(ValueError, match="span an area"):
        w.add_fluid_polygon([(0, 0), (10, 10), (20, 20)])
    with pytest.raises(ValueError, match="could never drain"):
        w.add_drain((500, 500, 600, 600))
    assert w.add_fluid_polygon([(0, 0), (50, 0), (0, 50)]) > 0


def test_an_emitter_that_fills_the_fluid_warns_once() -> None:
    w = World(200, 150, params=FluidParams.game(200, 150, max_particles=100))
    e = w.add_emitter((50, 100), (1, 0), 100.0, rate=1000.0)
    with pytest.warns(RuntimeWarning, match="the fluid is full") as got:
        for _ in range(20):
            w.step()
    assert w.fluid.count == 100 and e.dropped > 0
    assert sum("the fluid is full" in str(r.message) for r in got) == 1


def test_a_nan_written_into_a_position_is_removed_with_a_warning() -> None:
    w = World(200, 150)
    n = w.add_fluid_rect(0, 0, 200, 40)
    w.fluid.positions[0] = (np.nan, np.nan)
    with pytest.warns(RuntimeWarning, match="non-finite position"):
        w.step()
    assert w.fluid.count == n - 1 and np.isfinite(w.fluid.positions).all()
    assert w.fluid.count == w.particles_added - w.particles_removed


def test_a_body_put_outside_the_walls_warns() -> None:
    w = World(200, 150)
    with pytest.warns(RuntimeWarning, match="outside the world's walls"):
        w.add_box((100, 400), (20, 20))
    World(200, 150, bounds=False).add_box((100, 400), (20, 20))  # no walls: no warning


def test_numpy_zero_dimensional_arrays_and_integer_colours_are_numbers() -> None:
    w = World(np.array(314.0), np.float32(150))  # type: ignore[arg-type]
    assert w.fluid.params.a0 == World(314, 150).fluid.params.a0  # the width's whole cells
    w.add_ball((100, 80), np.array(10.0))  # type: ignore[arg-type]
    w.add_fluid_rect(np.array(0.0), 0, 100, 40)  # type: ignore[arg-type]
    w.step(np.array(1 / 60))  # type: ignore[arg-type]
    assert w.check().ok
    for color in [(np.int64(10), np.int64(20), np.int64(30)),
                  np.array([10, 20, 30], dtype=np.uint8), (10.0, 20.0, 30.0)]:
        assert Material("goo", color).color == (10, 20, 30, 255)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Material.color"):
        Material("goo", (True, False, True))  # type: ignore[arg-type]


def test_save_and_load_name_a_bad_path(tmp_path: Path) -> None:
    w = World(200, 150)
    with pytest.raises(TypeError, match="path must be a str"):
        w.save(None)  # type: ignore[arg-type]
    with pytest.raises(IsADirectoryError, match="is a folder"):
        World.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        w.save(tmp_path / "nope" / "x.fwsave")


def test_splash_capacity_and_seed_are_bounded() -> None:
    from fluidworld.render.splash import MAX_SPLASHES, SplashSystem

    with pytest.raises(ValueError, match="capacity"):
        SplashSystem(capacity=1e12)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        SplashSystem(seed=-1)
    with pytest.raises(TypeError, match="seed"):
        SplashSystem(seed="a")  # type: ignore[arg-type]
    assert SplashSystem(capacity=MAX_SPLASHES // 1000).capacity == MAX_SPLASHES // 1000


def test_the_standalone_fluid_and_the_warm_up_refuse_wrong_types() -> None:
    from fluidworld import FluidSystem
    from fluidworld.warmup import compile_kernels

    fs = FluidSystem(FluidParams.game(200, 150))
    with pytest.raises(TypeError, match="n must be"):
        fs.step("2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n must be"):
        fs.step(-1)
    with pytest.raises(TypeError, match="world must be a World"):
        compile_kernels("x")  # type: ignore[arg-type]


def test_particle_velocities_of_the_wrong_shape_are_refused_by_name() -> None:
    """One ``(vx, vy)`` or one per position; a numpy broadcast error came through before."""
    w = World(200, 150)
    with pytest.raises(ValueError, match=r"velocities must be one \(vx, vy\) or one per"):
        w.fluid.add_particles([(10.0, 10.0)], velocities=[(1.0, 0.0), (2.0, 0.0)])
    assert w.fluid.add_particles([(10.0, 10.0), (20.0, 10.0)], velocities=(1.0, 0.0)) == 2


def test_entity_data_that_cannot_be_saved_is_named(tmp_path: Path) -> None:
    """pickle's own error named only the lambda."""
    w = World(200, 150)
    box = w.add_box((50.0, 50.0), (10.0, 10.0))
    box.data["on_hit"] = lambda: None
    with pytest.raises(TypeError, match=rf"entity {box.id}'s data\['on_hit'\] cannot be saved"):
        w.save(tmp_path / "w.sav")
