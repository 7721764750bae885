"""fluidworld beside what a user would pick instead, on the same dam break.

The scene: a block of fluid at rest density in the left part of a box 2.5 times its side, game
preset (a0 10, gamma 5, 1/60 s frames of 2 substeps, gravity 900). Each peer runs the same
domain, particle count and time per frame:

* ``fluidworld`` -- ``World`` (SRD, coupling stages included, no bodies);
* ``pymunk`` -- what users do without a fluid: one ``pymunk.Circle`` per particle (radius half
  the particle spacing, friction 0, elasticity 0), static segments for the box, ``space.step``
  twice per frame;
* ``taichi`` -- position-based fluids as Taichi's ``pbf2d`` example runs them, on Taichi's CPU
  backend (``benchmarks/peer_taichi.py``; only if ``taichi`` is installed: the ``peers`` extra).

Prints ms per frame (median over the timed frames after a warm-up) and each peer's ratio to
fluidworld. Run: ``python benchmarks/peers.py [--sizes 6000,25000,100000] [--frames N]``
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time

import numpy as np
import pymunk

from fluidworld import World
from fluidworld.fluid import FluidParams


def domain(n: int) -> tuple[float, float]:
    """The block's side for ``n`` particles at rest density, and the box's side."""
    side = math.sqrt(n * 100.0 / 5.0)
    return side, math.ceil(2.5 * side / 10.0) * 10.0


def block(n: int, spacing: float) -> np.ndarray:
    """``n`` points of a hexagonal lattice at ``spacing`` filling a square from the origin."""
    side, _ = domain(n)
    dy = spacing * math.sqrt(3.0) / 2.0
    pts = []
    row = 0
    while len(pts) < n:
        y = dy * (row + 0.5)
        off = spacing * (0.5 if row % 2 else 0.25)
        x = off
        while x < side and len(pts) < n:
            pts.append((x, y))
            x += spacing
        row += 1
    return np.array(pts[:n])


def time_frames(step, frames: int, warmup: int) -> float:  # type: ignore[no-untyped-def]
    for _ in range(warmup):
        step()
    times = []
    for _ in range(frames):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def run_fluidworld(n: int, frames: int, warmup: int) -> float:
    _, box = domain(n)
    w = World(box, box, params=FluidParams.game(box, box, max_particles=max(n, 1000)))
    w.fluid.add_particles(block(n, w.fluid.r_l) + 1.0)
    return time_frames(w.step, frames, warmup)


def run_pymunk(n: int, frames: int, warmup: int) -> float:
    _, box = domain(n)
    p = FluidParams.game(box, box)
    space = pymunk.Space()
    space.gravity = p.gravity
    r = p.r_l / 2.0
    sb = space.static_body
    walls = [pymunk.Segment(sb, a, b, 2.0) for a, b in (
        ((0, 0), (box, 0)), ((0, 0), (0, box)), ((box, 0), (box, box)), ((0, box), (box, box)))]
    space.add(*walls)
    moment = pymunk.moment_for_circle(1.0, 0, r)
    for x, y in block(n, p.r_l) + 1.0:
        body = pymunk.Body(1.0, moment)
        body.position = (float(x), float(y))
        c = pymunk.Circle(body, r)
        c.friction = 0.0
        space.add(body, c)

    def frame() -> None:
        for _ in range(p.substeps):
            space.step(p.h)

    return time_frames(frame, frames, warmup)


def run_taichi(n: int, frames: int, warmup: int) -> float:
    import peer_taichi

    _, box = domain(n)
    p = FluidParams.game(box, box)
    frame, _ = peer_taichi.make_stepper(block(n, p.r_l) + 1.0, box, p.r_l, p.gravity, p.h,
                                        p.substeps)
    return time_frames(frame, frames, warmup)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="6000,25000,100000")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--no-taichi", action="store_true", help="skip the Taichi peer")
    args = ap.parse_args(argv)
    print(f"dam break, game preset, {platform.processor() or platform.machine()}, "
          f"pymunk {pymunk.version}")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import peer_taichi

    has_taichi = peer_taichi.available() and not args.no_taichi
    if not has_taichi:
        print("taichi: not run (" + ("--no-taichi" if args.no_taichi else
              'not installed: pip install -e ".[peers]"') + ")")
    print(f"{'particles':>9} {'peer':>11} {'ms/frame':>9} {'x fluidworld':>12}")
    for n in (int(s) for s in args.sizes.split(",")):
        base = run_fluidworld(n, args.frames, args.warmup)
        print(f"{n:9d} {'fluidworld':>11} {base:9.2f} {1.0:11.2f}x", flush=True)
        ms = run_pymunk(n, max(3, args.frames // 3), max(1, args.warmup // 3))
        print(f"{n:9d} {'pymunk':>11} {ms:9.2f} {ms / base:11.2f}x", flush=True)
        if has_taichi:
            ms = run_taichi(n, args.frames, args.warmup)
            print(f"{n:9d} {'taichi':>11} {ms:9.2f} {ms / base:11.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
