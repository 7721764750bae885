"""SplashSystem: spawning, ballistic motion, removal on contact, cap, streak drawing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from render_fakes import BACKGROUND, FakeFluid, hex_lattice
from render_imaging import grab, lit

from fluidworld.render import GridCollider, SplashSystem, solid_cells

GRAVITY = (0.0, -500.0)


def splashing_pool(seed: int = 1) -> FakeFluid:
    """A pool (y < 64) with a thin, fast spray above it and a solid block on the right."""
    rng = np.random.default_rng(seed)
    pool = hex_lattice(0, 0, 256, 64, 4.0)
    spray = np.column_stack([rng.uniform(20, 236, 400), rng.uniform(70, 200, 400)])
    pos = np.concatenate([pool, spray])
    n_pool = len(pool)
    vel = np.zeros_like(pos)
    vel[n_pool:] = rng.normal(0, 400, size=(400, 2))
    vel[:n_pool] = rng.normal(0, 400, size=(n_pool, 2))  # fast, but dense: not candidates
    density = np.ones(len(pos))
    density[n_pool:] = 0.1
    wall = np.array([[x, y] for x in (200.0, 203.0) for y in np.arange(64, 256, 2.0)])
    return FakeFluid(pos, velocities_=vel, density_=density, solid_positions=wall)


def test_candidates_are_fast_thin_particles() -> None:
    fluid = splashing_pool()
    splash = SplashSystem(capacity=10_000, speed_min=150.0, density_max=0.5)
    idx = splash.candidates(fluid)
    assert len(idx) > 0
    speed = np.linalg.norm(fluid.velocities[idx], axis=1)
    assert (speed > 150.0).all()
    assert (fluid.particle_density()[idx] < 0.5).all()
    n_pool = fluid.count - 400
    assert (idx >= n_pool).all(), "dense pool particles never splash"


def test_count_never_exceeds_the_cap() -> None:
    fluid = splashing_pool()
    splash = SplashSystem(capacity=50, spawn_chance=1.0, max_per_spawn=1000)
    counts = []
    for _ in range(10):
        splash.spawn_from(fluid)
        counts.append(splash.count)
        splash.step(1 / 120, GRAVITY, GridCollider.from_fluid(fluid))
    assert max(counts) == 50
    room = 50 - splash.count
    assert splash.spawn(np.zeros((100, 2)), np.zeros((100, 2))) == room
    assert splash.count == 50
    assert splash.spawn_from(fluid) == 0


def test_every_splash_touching_solid_or_water_is_gone_after_the_step() -> None:
    fluid = splashing_pool()
    collide = GridCollider.from_fluid(fluid, water_threshold=0.5)
    assert collide(np.array([[100.0, 20.0]]))[0], "the pool is water"
    assert collide(np.array([[201.0, 150.0]]))[0], "the wall is solid"
    assert not collide(np.array([[100.0, 150.0]]))[0], "the air is free"

    splash = SplashSystem(capacity=1000, spawn_chance=1.0, max_per_spawn=1000, seed=3)
    assert splash.spawn_from(fluid) > 100
    dt = 1 / 30
    total_touched = 0
    for _ in range(12):
        before_pos = splash.positions[: splash.count].copy()
        before_vel = splash.velocities[: splash.count].copy()
        removed = splash.step(dt, GRAVITY, collide)
        # recompute independently which ones touched something this step
        vel = before_vel + np.array(GRAVITY) * dt
        new = before_pos + vel * dt
        touched = collide(before_pos) | collide(new) | collide(0.5 * (before_pos + new))
        # (the system probes the path more densely, so it may remove more than these)
        assert removed >= int(touched.sum())
        total_touched += int(touched.sum())
        assert not collide(splash.positions[: splash.count]).any()
        survivors = {tuple(p) for p in np.round(splash.positions[: splash.count], 9)}
        assert not survivors & {tuple(p) for p in np.round(new[touched], 9)}
        splash.spawn_from(fluid)
    assert total_touched > 100, "the scene must actually throw splashes into water and wall"


def test_a_fast_splash_cannot_skip_a_thin_wall() -> None:
    wall = np.zeros((8, 8), dtype=bool)
    wall[:, 4] = True  # one cell thick at x in [32, 40)
    splash = SplashSystem(capacity=4)
    splash.spawn(np.array([[20.0, 30.0]]), np.array([[700.0, 0.0]]))  # jumps 23 units per step
    assert splash.step(1 / 30, (0.0, 0.0), wall, cell_size=8.0) == 1
    assert splash.count == 0


def test_splashes_fly_ballistically_and_expire() -> None:
    splash = SplashSystem(capacity=4, lifetime=0.5)
    splash.spawn(np.array([[100.0, 100.0]]), np.array([[10.0, 50.0]]))
    free = GridCollider(8.0, solid=np.zeros((32, 32), dtype=bool))
    dt = 0.01
    for _ in range(10):
        splash.step(dt, GRAVITY, free)
    # semi-implicit Euler: v_k = v0 + k g dt, x = x0 + sum v_k dt
    vy = 50.0 + GRAVITY[1] * dt * np.arange(1, 11)
    assert splash.positions[0, 0] == pytest.approx(100.0 + 10 * 10.0 * dt)
    assert splash.positions[0, 1] == pytest.approx(100.0 + vy.sum() * dt)
    for _ in range(50):
        splash.step(dt, GRAVITY, free)
    assert splash.count == 0, "expired after its lifetime"


def test_occupancy_grid_needs_a_cell_size_and_validates() -> None:
    splash = SplashSystem(capacity=2)
    splash.spawn(np.array([[1.0, 1.0]]), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="cell_size"):
        splash.step(0.1, GRAVITY, np.zeros((4, 4), dtype=bool))
    with pytest.raises(ValueError, match="capacity"):
        SplashSystem(capacity=-1)
    with pytest.raises(ValueError, match="density grid, a solid mask"):
        GridCollider(1.0)


def test_solid_cells_bins_solid_particles() -> None:
    mask = solid_cells(np.array([[1.0, 1.0], [15.0, 9.0], [-5.0, 3.0]]), (2, 2), 8.0)
    assert mask.tolist() == [[True, False], [False, True]]


@pytest.mark.gl
def test_splashes_draw_as_streaks_along_velocity(gl: Any) -> None:
    splash = SplashSystem(capacity=8, streak_time=0.1, width=3.0)
    splash.spawn(np.array([[128.0, 128.0]]), np.array([[0.0, 400.0]]), colors=(255, 255, 255, 255))
    gl.clear(color=BACKGROUND)
    gl.default_camera.use()
    splash.draw()
    mask = lit(grab(gl), 40)
    ys, xs = np.nonzero(mask)
    assert len(xs) > 0
    assert ys.max() <= 129 and ys.min() <= 92, "streak trails 40 units behind the head"
    assert xs.max() - xs.min() <= 4
