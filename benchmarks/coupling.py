"""Coupling benchmark: a pool of ~30k particles with 50 floating bodies.

Prints the World's per-stage profile (ms per step, mean over the timed steps), the same pool
without bodies as a plain FluidSystem (the fluid-only step), and the coupling's share:
``sync_bodies + exchange`` (containment against shapes and ``space.step`` included), as a
fraction of the fluid-only step.

Run: ``python benchmarks/coupling.py [--steps N] [--warmup N] [--bodies N]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fluidworld.fluid import FluidParams, FluidSystem
from fluidworld.world import STAGES, World

WIDTH, HEIGHT, DEPTH = 1600.0, 560.0, 375.0


def pool_params() -> FluidParams:
    """The game preset for the benchmark pool (a0 = 10, gamma = 5, dt = 1/60, 2 substeps)."""
    return FluidParams.game(WIDTH, HEIGHT)


def build_world(bodies: int = 50) -> World:
    """The pool with ``bodies`` boxes, balls and planks of density 0.3-0.7 on its surface."""
    world = World(WIDTH, HEIGHT, params=pool_params())
    world.add_fluid_rect(0.0, 0.0, WIDTH, DEPTH)
    rng = np.random.default_rng(1)
    pitch = WIDTH / bodies
    level = DEPTH + 4.0
    for k in range(bodies):
        x = (k + 0.5) * pitch
        dens = float(rng.uniform(0.3, 0.7))
        if k % 3 == 0:
            world.add_ball((x, level + 6.0), 0.35 * pitch, density=dens)
        elif k % 3 == 1:
            world.add_box((x, level + 6.0), (0.7 * pitch, 0.45 * pitch), density=dens)
        else:
            world.add_box((x, level + 4.0), (0.8 * pitch, 0.25 * pitch), density=dens,
                          sprite="plank")
    return world


def run(steps: int, warmup: int, bodies: int) -> None:
    world = build_world(bodies)
    t0 = time.perf_counter()
    for _ in range(warmup):
        world.step()
    t_warm = time.perf_counter() - t0
    acc = dict.fromkeys(STAGES, 0.0)
    det = dict.fromkeys(world.profile_detail, 0.0)
    t0 = time.perf_counter()
    for _ in range(steps):
        world.step()
        for k in acc:
            acc[k] += world.profile[k]
        for k in det:
            det[k] += world.profile_detail[k]
    wall = (time.perf_counter() - t0) * 1e3 / steps

    fluid = FluidSystem(pool_params())
    fluid.fill_rect(0.0, 0.0, WIDTH, DEPTH)
    for _ in range(warmup):
        fluid.step()
    facc = dict.fromkeys(fluid.profile, 0.0)
    t0 = time.perf_counter()
    for _ in range(steps):
        fluid.step()
        for k in facc:
            facc[k] += fluid.profile[k]
    fwall = (time.perf_counter() - t0) * 1e3 / steps

    n_solid = len(world.fluid.solid_pos)
    print(f"pool {WIDTH:g} x {HEIGHT:g}, {world.fluid.count} particles, {bodies} bodies, "
          f"{n_solid} solid particles, {len(world.coupler._in_pos)} interior samples")
    print(f"warm-up {warmup} steps (JIT included): {t_warm:.1f} s; timed {steps} steps")
    print("\nWorld.step profile (ms/step):")
    for k in STAGES:
        print(f"  {k:16s} {acc[k] / steps:8.3f}")
    for k, v in det.items():
        print(f"    (inside: {k:9s} {v / steps:8.3f})")
    print(f"  {'total (wall)':16s} {wall:8.3f}")
    print("\nFluidSystem.step without bodies (ms/step):")
    for k, v in facc.items():
        print(f"  {k:16s} {v / steps:8.3f}")
    print(f"  {'total (wall)':16s} {fwall:8.3f}")
    # containment after advection is timed inside "advect" (detail "contain"); the end-of-step
    # containment and space.step are inside "exchange"
    coupling = (acc["sync_bodies"] + acc["exchange"] + det["contain"]) / steps
    ratio = coupling / fwall
    print(f"\ncoupling (sync_bodies + exchange + containment): {coupling:.3f} ms/step = "
          f"{100 * ratio:.1f} % of the fluid-only step ({fwall:.3f} ms); target <= 20 %")
    sub = world.coupler.submerged_area
    areas = np.array([sum(s.area for s in b.shapes) for b in world.coupler.bodies])
    print(f"mean submerged fraction of the bodies: {float(np.mean(sub / areas)):.3f}; "
          f"any NaN: {bool(np.isnan(world.fluid.positions).any())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--bodies", type=int, default=50)
    a = ap.parse_args()
    if a.steps < 1 or a.warmup < 0 or a.bodies < 0:
        ap.error("steps must be >= 1, warmup and bodies >= 0")
    run(a.steps, a.warmup, a.bodies)


if __name__ == "__main__":
    main()
