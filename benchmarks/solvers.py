"""The fluid solvers side by side: the same scenes with ``srd`` and ``ddr`` (game preset).

Per solver: ms per 1/60 s step of a dam break (fluid only) at each size and the cost per
particle-step against SRD; the tank at rest (100 deep, 5 s): compressibility as the bottom
cells' density ratio max/mean, mean speed over ``sqrt(g d)`` and the surface height against the
filled 100; the volume drift of a dam break after it settles (the area under its surface against
the block's); and the Archimedes error of a 0.6 box on a pool (submerged fraction - 0.6).

Run: ``python benchmarks/solvers.py [--sizes 10000,50000] [--steps N]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from fluidworld import World
from fluidworld.fidelity import buoyancy as B
from fluidworld.fluid import FluidParams, FluidSystem
from fluidworld.fluid.solvers import SOLVER_NAMES, make_solver


def dam_break(n: int, solver: str) -> FluidSystem:
    side = math.sqrt(n * 100.0 / 5.0)
    box = math.ceil(2.5 * side / 10.0) * 10.0
    fs = FluidSystem(FluidParams.game(box, box, max_particles=2 * n + 1000))
    fs.set_solver(make_solver(solver))
    fs.fill_rect(0.0, 0.0, side, side)
    return fs


def ms_per_step(n: int, solver: str, steps: int) -> tuple[float, int]:
    fs = dam_break(n, solver)
    fs.step(3)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fs.step(1)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), fs.count


def at_rest(solver: str) -> tuple[float, float, float]:
    w = World(320, 240, solver=solver)
    w.add_fluid_rect(0, 0, 320, 100)
    for _ in range(300):
        w.step()
    f = w.fluid
    bottom = f.cell_count[0] / f.params.gamma
    speed = float(np.linalg.norm(f.velocities, axis=1).mean()) / math.sqrt(900.0 * 100.0)
    return float(bottom.max() / bottom.mean()), speed, float(np.percentile(f.positions[:, 1], 99))


def volume_drift(solver: str) -> float:
    w = World(400, 240, solver=solver)
    w.add_fluid_rect(0, 0, 100, 160)
    for _ in range(480):
        w.step()
    f = w.fluid
    filled = (f.cell_count >= 0.5 * f.params.gamma).sum() * f.params.a0 ** 2
    return float(filled / (100.0 * 160.0))


def archimedes(solver: str) -> float:
    w = B.pool(320.0, 240.0)
    w.set_solver(solver)
    e = B.add_body(w, "box", 160.0, B.DEPTH + 1.0, 0.6)
    fr = []
    for i in range(480):
        w.step()
        if i >= 300 and i % 3 == 0:
            x0, _, x1, _ = w.coupler.body_box[w.coupler.body_index(e.body)]
            fr.append(B.submerged_fraction(e, B.surface_beside(w, x0, x1)))
    return float(np.mean(fr)) - 0.6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--steps", type=int, default=10)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'solver':>7} {'particles':>9} {'ms/step':>8} {'us/part-step':>12} {'x srd':>6}")
    srd: dict[int, float] = {}
    for name in SOLVER_NAMES:
        for n in sizes:
            ms, count = ms_per_step(n, name, args.steps)
            per = 1e3 * ms / count
            srd.setdefault(n, per)
            print(f"{name:>7} {count:9d} {ms:8.2f} {per:12.3f} {per / srd[n]:5.2f}x", flush=True)
    print(f"\n{'solver':>7} {'bottom max/mean':>15} {'rest speed':>10} {'surface':>8} "
          f"{'volume':>7} {'Archimedes err':>14}")
    for name in SOLVER_NAMES:
        ratio, speed, top = at_rest(name)
        print(f"{name:>7} {ratio:15.3f} {speed:10.4f} {top:8.1f} {volume_drift(name):7.3f} "
              f"{archimedes(name):+14.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
