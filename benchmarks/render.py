"""Renderer cost: CPU upload time per frame and frame time for 20k/50k/100k particles.

    ARCADE_HEADLESS=1 python benchmarks/render.py [--sizes 20000,50000,100000] [--frames 15]
                                                  [--synthetic]

A pool of the game preset (a0 = 10, gamma = 5) filling the bottom of a world scaled to hold the
requested number of particles, seen through a ``Camera2D`` zoomed to fit a 1280x720 window.

- *upload*: CPU time of ``FluidRenderer.upload()`` (numpy packing + one ``buffer.write``) from a
  snapshot of the fluid's arrays, so it measures the renderer alone; the second figure adds the
  fluid's own ``particle_density()``/``particle_pressure_gradient()`` calls.
- *frame*: wall time of clear + upload + draw + ``ctx.finish()`` (so GPU work is included).

``--synthetic`` builds the pool with numpy alone (hexagonal lattice, noisy velocities, density and
a downward pressure gradient) instead of stepping a ``FluidSystem``: for machines without numba.

Figures are printed, never asserted: they depend on the GL driver (llvmpipe is a CPU rasteriser).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

os.environ.setdefault("ARCADE_HEADLESS", "1")

import arcade  # noqa: E402
import numpy as np  # noqa: E402

from fluidworld.render import FluidRenderer  # noqa: E402

WINDOW = (1280, 720)


class Snapshot:
    """The fluid's arrays frozen once, with the FluidSystem attributes the renderer reads."""

    def __init__(self, fs: Any) -> None:
        self.count = fs.count
        self.positions = fs.positions.copy()
        self.velocities = fs.velocities.copy()
        self.materials = fs.materials.copy()
        self._density = fs.particle_density().copy()
        self._grad = fs.particle_pressure_gradient().copy()
        self._colors = fs.material_colors().copy()
        self.params = SimpleNamespace(
            width=fs.params.width,
            height=fs.params.height,
            a0=fs.params.a0,
            gravity=fs.params.gravity,
            r_l=fs.params.r_l,
        )

    def particle_density(self) -> np.ndarray:
        return self._density

    def particle_pressure_gradient(self) -> np.ndarray:
        return self._grad

    def material_colors(self) -> np.ndarray:
        return self._colors


def world_for(n: int) -> tuple[float, float, float]:
    """Width and height of a 16:9 world whose bottom third holds ``n`` particles; pool depth."""
    area = n * 10.0 * 10.0 / 5.0
    width = math.ceil(math.sqrt(area * 3.0 * 16.0 / 9.0) / 10.0) * 10.0
    height = math.ceil(width * 9.0 / 16.0 / 10.0) * 10.0
    return width, height, area / width


def make_pool(n: int) -> Any:
    """A settled-for-one-step FluidSystem pool (game preset) of about ``n`` particles."""
    from fluidworld.fluid import FluidParams, FluidSystem

    width, height, depth = world_for(n)
    fs = FluidSystem(FluidParams.game(width, height, max_particles=2 * n))
    fs.fill_rect(0.0, 0.0, width, depth)
    fs.velocities[:] = np.random.default_rng(0).normal(0.0, 30.0, size=(fs.count, 2))
    fs.step()
    return fs


def make_synthetic_pool(n: int) -> Snapshot:
    """The same pool from numpy alone: a hexagonal lattice with noisy per-particle data."""
    width, height, depth = world_for(n)
    a0, gamma = 10.0, 5.0
    r_l = math.sqrt(2.0 * a0 * a0 / (gamma * math.sqrt(3.0)))
    dy = r_l * math.sqrt(3.0) / 2.0
    ys = np.arange(0.5 * dy, depth, dy)
    xs = np.arange(0.25 * r_l, width, r_l)
    pos = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    pos[:, 0] += 0.5 * r_l * (np.round(pos[:, 1] / dy - 0.5) % 2)
    rng = np.random.default_rng(0)
    m = len(pos)
    grad = np.column_stack([rng.normal(0.0, 0.3, m), -1.0 + rng.normal(0.0, 0.3, m)])
    fake = SimpleNamespace(
        count=m,
        positions=pos,
        velocities=rng.normal(0.0, 30.0, size=(m, 2)),
        materials=np.zeros(m, dtype=np.uint8),
        particle_density=lambda: 1.0 + rng.normal(0.0, 0.15, m),
        particle_pressure_gradient=lambda: grad,
        material_colors=lambda: np.array([[40, 110, 220, 255]], dtype=np.uint8),
        params=SimpleNamespace(width=width, height=height, a0=a0, gravity=(0, -900), r_l=r_l),
    )
    return Snapshot(fake)


def median_ms(fn: Callable[[], Any], repeats: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def frame(window: arcade.Window, camera: arcade.Camera2D, renderer: FluidRenderer) -> None:
    """One full frame: clear, camera, upload + draw, and wait for the GPU."""
    window.clear(color=(12, 16, 28, 255))
    camera.use()
    renderer.draw()
    window.ctx.finish()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,50000,100000")
    parser.add_argument("--frames", type=int, default=15)
    parser.add_argument("--synthetic", action="store_true", help="numpy-only pool, no numba")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    window = arcade.Window(*WINDOW, "fluidworld render bench", visible=False, antialiasing=False)
    ctx = window.ctx
    print(f"GL: {ctx.info.RENDERER} ({ctx.info.VENDOR}), window {WINDOW[0]}x{WINDOW[1]}")
    print(
        f"{'particles':>9}  {'upload ms':>9}  {'+fluid ms':>9}  "
        f"{'sprites frame ms':>16}  {'liquid frame ms':>15}"
    )
    for n in sizes:
        fs = make_synthetic_pool(n) if args.synthetic else make_pool(n)
        snap = fs if args.synthetic else Snapshot(fs)
        camera = arcade.Camera2D()
        camera.position = (fs.params.width / 2, fs.params.height / 2)
        camera.zoom = WINDOW[0] / fs.params.width

        renderer = FluidRenderer(snap)
        upload = median_ms(renderer.upload, 50)
        live = FluidRenderer(fs)
        upload_live = median_ms(live.upload, 20)

        frames = {}
        for mode in ("sprites", "liquid"):
            renderer.mode = mode
            frames[mode] = median_ms(lambda r=renderer, c=camera: frame(window, c, r), args.frames)
        print(
            f"{fs.count:>9}  {upload:>9.2f}  {upload_live:>9.2f}  "
            f"{frames['sprites']:>16.1f}  {frames['liquid']:>15.1f}"
        )
    window.close()


if __name__ == "__main__":
    main()
