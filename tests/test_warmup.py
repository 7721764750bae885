"""The kernels' compile stage: a bar only when something has no cache, counting what compiles."""

from __future__ import annotations

import io

import numpy as np
import pytest
from numba import njit

from fluidworld import World, warmup


def test_every_kernel_is_found_and_the_warm_cache_shows_no_bar() -> None:
    kernels = warmup.kernel_dispatchers()
    names = {d.py_func.__name__ for d in kernels}
    assert {"srd_collide", "exchange_impulses", "contain_particles", "sort_particles"} <= names
    world = World(200, 150)
    world.add_fluid_rect(0, 0, 200, 50)
    warmup.compile_kernels(world, progress=None)  # whatever was cold is cached now
    out = io.StringIO()
    report = warmup.compile_kernels(world, progress=out)
    assert report.compiled == 0 and out.getvalue() == ""
    assert world.steps == 0  # a copy was stepped, not the world


def test_a_cold_kernel_is_compiled_under_the_stage_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    @njit  # no cache: always "cold"
    def fresh_kernel(a: np.ndarray) -> float:
        return float(a.sum())

    monkeypatch.setattr(warmup, "kernel_dispatchers", lambda: [fresh_kernel])

    class Scene:
        def step(self) -> None:
            fresh_kernel(np.ones(3))

    monkeypatch.setattr(warmup, "warm_scene", Scene)
    out = io.StringIO()
    report = warmup.compile_kernels(None, progress=out)
    text = out.getvalue()
    assert report.uncached == 1 and report.compiled == 1
    assert warmup.STAGE in text and "1/1" in text and "done" in text


def test_a_world_with_a_jelly_material_warms_the_springs_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A world whose table has a jelly gets a piece of it in the stepped copy, so that the first
    jelly fill of the game compiles nothing; a world without one gets none."""
    from fluidworld.fluid import Material
    from fluidworld.fluid.params import default_materials

    stepped: list[World] = []
    monkeypatch.setattr(World, "step", lambda self: stepped.append(self))
    jelly = Material("jelly", (235, 70, 130, 255), elasticity=0.5, mix_group="jelly")
    world = World(200, 150, materials=(*default_materials(), jelly), solver="ddr")
    world.add_fluid_rect(0, 0, 200, 40)
    plain = World(200, 150)
    plain.add_fluid_rect(0, 0, 200, 40)
    for w in (world, plain):
        stepped.clear()
        warmup._step_copy(w, 1)
        twin = stepped[0]
        assert twin is not w and w.fluid.spring_count == 0
        assert (twin.fluid.spring_count > 0) == (w is world)
