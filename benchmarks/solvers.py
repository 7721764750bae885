"""The fluid solvers side by side: the same scenes with each solver (game preset).

One table, a row per solver of :data:`~fluidworld.fluid.solvers.SOLVER_NAMES`: ms per 1/60 s
step of a dam break (fluid only) at each size and the cost per particle-step against SRD (same
process); the tank at rest (100 deep, 5 s): compressibility as its bottom's density over its
mean (:func:`~fluidworld.fidelity.stability.bottom_compression`, a kernel sum), mean speed over
``sqrt(g d)`` and the surface height against the filled 100; the volume drift of a dam break
after it settles (the area under its surface against the block's); and the Archimedes error of
a 0.6 box on a pool (submerged fraction - 0.6).

The dam break's column is square (1,000 deep at 50k particles) unless ``--depth`` lays it that
deep: ``ddr`` runs more relaxation passes under a column deeper than 400
(:func:`~fluidworld.fluid.ddr_solver.relax_schedule`: 12 a substep under the square 50k one,
against 4), so its cost per particle-step depends on the scene's depth.

Run: ``python benchmarks/solvers.py [--sizes 10000,50000] [--steps N] [--depth D]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

from fluidworld import World
from fluidworld.fidelity import buoyancy as B
from fluidworld.fidelity import stability as S
from fluidworld.fluid import FluidParams, FluidSystem
from fluidworld.fluid.solvers import SOLVER_NAMES, make_solver


def dam_break(n: int, solver: str, depth: float | None = None) -> FluidSystem:
    """A column of ``n`` particles at the left of a box 2.5x its width (and its height, for a
    square column; twice its depth for one ``depth`` deep), as the game preset fills it."""
    area = n * 100.0 / 5.0  # the game preset's particle area, a0^2 / gamma
    high = math.sqrt(area) if depth is None else depth
    wide = area / high
    box_w = math.ceil(2.5 * wide / 10.0) * 10.0
    box_h = box_w if depth is None else math.ceil(2.0 * high / 10.0) * 10.0
    fs = FluidSystem(FluidParams.game(box_w, box_h, max_particles=2 * n + 1000))
    fs.set_solver(make_solver(solver))
    fs.fill_rect(0.0, 0.0, wide, high)
    return fs


def ms_per_step(n: int, solver: str, steps: int, depth: float | None = None) -> tuple[float, int]:
    fs = dam_break(n, solver, depth)
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
    speed = float(np.linalg.norm(f.velocities, axis=1).mean()) / math.sqrt(900.0 * 100.0)
    return S.bottom_compression(w), speed, float(np.percentile(f.positions[:, 1], 99))


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


def row(name: str, sizes: list[int], steps: int, srd: dict[int, float],
        depth: float | None = None) -> str:
    """One solver's line of the table (``srd``: SRD's us per particle-step by size, filled when
    ``name`` is SRD; ``depth``: the dam break's column that deep instead of square)."""
    cells = []
    for n in sizes:
        ms, count = ms_per_step(n, name, steps, depth)
        per = 1e3 * ms / count
        if name == "srd":
            srd[n] = per
        ratio = per / srd[n] if n in srd else float("nan")
        cells.append(f"{ms:9.1f} {ratio:5.2f}x")
    ratio, speed, top = at_rest(name)
    return (f"{name:>10} " + " ".join(cells) + f" {ratio:11.3f} {speed:10.4f} {top:8.1f} "
            f"{volume_drift(name):7.3f} {archimedes(name):+11.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--depth", type=float, default=None,
                    help="lay the dam break's column this deep (and as wide as its particles "
                         "need) instead of square: ddr runs more relaxation passes under a "
                         "column over 400 deep (the square 50k column is 1,000)")
    args = ap.parse_args(argv)
    if args.depth is not None and not 10.0 <= args.depth <= 5000.0:
        ap.error(f"--depth must be in [10, 5000], got {args.depth}")
    sizes = [int(s) for s in args.sizes.split(",")]
    head = " ".join(f"{f'ms@{n // 1000}k':>9} {'x srd':>6}" for n in sizes)
    print(f"{'solver':>10} {head} {'bottom/mean':>11} {'rest speed':>10} {'surface':>8} "
          f"{'volume':>7} {'Archimedes':>11}")
    srd: dict[int, float] = {}
    # SRD first: the others' cost per particle-step is given against it, in this process
    for name in sorted(SOLVER_NAMES, key=lambda s: s != "srd"):
        try:
            print(row(name, sizes, args.steps, srd, args.depth), flush=True)
        except Exception as exc:  # a solver being written elsewhere must not hide the others
            print(f"{name:>10} failed: {type(exc).__name__}: {exc}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
