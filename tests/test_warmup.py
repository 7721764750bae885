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
