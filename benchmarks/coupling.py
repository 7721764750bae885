"""Coupling benchmark: a pool of ~30k particles with 50 floating bodies.

Prints the World's per-stage profile (ms per step, median over the timed steps), the same pool
without bodies as a plain FluidSystem (the fluid-only step, stepped alternately with the World so
that both see the same machine load), and the coupling's share: ``sync_bodies + exchange`` plus
the containment work inside ``advect`` and ``bin`` (``space.step`` included), as a fraction of
the fluid-only step.

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
    """Build both pools, warm them up, then step them alternately (so that both see the same
    machine load) and report medians per step."""
    world = build_world(bodies)
    fluid = FluidSystem(pool_params())
    fluid.fill_rect(0.0, 0.0, WIDTH, DEPTH)
    t0 = time.perf_counter()
    for _ in range(warmup):
        world.step()
        fluid.step()
    t_warm = time.perf_counter() - t0
    w_stage = {k: [] for k in STAGES}
    w_det: dict[str, list[float]] = {k: [] for k in world.profile_detail}
    w_wall, f_wall, share = [], [], []
    f_stage: dict[str, list[float]] = {k: [] for k in fluid.profile}
    for _ in range(steps):
        t0 = time.perf_counter()
        world.step()
        w_wall.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        fluid.step()
        f_wall.append((time.perf_counter() - t0) * 1e3)
        for k in STAGES:
            w_stage[k].append(world.profile[k])
        for k in w_det:
            w_det[k].append(world.profile_detail[k])
        for k in f_stage:
            f_stage[k].append(fluid.profile[k])
        # the coupling's own stages and containment (timed inside "advect")
        share.append(world.profile["sync_bodies"] + world.profile_detail["contain"]
                     + world.profile["exchange"] + world.profile["settle"])

    def med(v: list[float]) -> float:
        return float(np.median(v))

    n_solid = len(world.fluid.solid_pos)
    print(f"pool {WIDTH:g} x {HEIGHT:g}, {world.fluid.count} particles, {bodies} bodies, "
          f"{n_solid} solid particles, {len(world.coupler._in_pos)} interior samples")
    print(f"warm-up {warmup} steps of each (JIT included): {t_warm:.1f} s; timed {steps} steps "
          "of each, alternating; medians")
    print("\nWorld.step profile (ms/step):")
    for k in STAGES:
        print(f"  {k:16s} {med(w_stage[k]):8.3f}")
    for k, v in w_det.items():
        print(f"    (inside: {k:10s} {med(v):8.3f})")
    print(f"  {'total (wall)':16s} {med(w_wall):8.3f}")
    print("\nFluidSystem.step without bodies (ms/step):")
    for k, v in f_stage.items():
        print(f"  {k:16s} {med(v):8.3f}")
    print(f"  {'total (wall)':16s} {med(f_wall):8.3f}")
    coupling = med(share)
    ratio = coupling / med(f_wall)
    print(f"\ncoupling (sync_bodies + exchange + containment): {coupling:.3f} ms/step = "
          f"{100 * ratio:.1f} % of the fluid-only step ({med(f_wall):.3f} ms); target <= 20 %")
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
