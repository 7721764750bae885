"""ms/step and us/particle-step for ~6k to 200k particles with 1 and 2 numba threads.

    python benchmarks/scaling.py [--steps 60] [--sizes 6000,25000,100000,200000]
                                 [--bodies 50 --body-sizes 100000]

A dam break in the game preset scaled so the block holds the requested number of particles
(a0 = 10, gamma = 5, 2 substeps per 1/60 s step, converged pressure). Prints the per-stage
profile of the largest run. With ``--bodies N``, a second table: a World (coupling included)
whose pool, 8 times as wide as deep, holds the particles of ``--body-sizes`` with N crates
(density 0.5, 40 x 40) floating on it, the floating-crates scene at scale; the crates settle
during the warm-up. The 2-thread/1-thread ratio is measured in the same process; each
figure is the best of ``--rounds`` replays of the same steps (``_common.py``). Before and after
the tables a line says what the second thread gives this machine at that moment, to an
arithmetic loop and to a memory stream (``_common.machine_threads``): on a shared VM the
memory ratio swings within the hour, and the large steps' speed-up swings with it.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

# this script compares fixed thread counts: keep the step's thread policy from choosing
os.environ.setdefault("FLUIDWORLD_THREADS", "fixed")

import numba  # noqa: E402
import numpy as np  # noqa: E402
from _common import WorldSteps, machine_threads, time_steps  # noqa: E402

from fluidworld import World, scenes  # noqa: E402
from fluidworld.fluid import FluidParams, FluidSystem  # noqa: E402


def make(n: int) -> FluidSystem:
    # a square box 2.5x the block's side: the block collapses into a pool of ~1/6 the height
    side = math.sqrt(n * 100.0 / 5.0)
    box = math.ceil(2.5 * side / 10.0) * 10.0
    params = FluidParams.game(box, box, max_particles=max(n, 1000))
    fs = FluidSystem(params)
    fs.add_particles(scenes.block_of(fs, n))
    return fs


def make_crates(n: int, bodies: int) -> World:
    """A pool 8x as wide as deep holding ``n`` particles, ``bodies`` crates floating on it."""
    depth = math.sqrt(n * 20.0 / 8.0)
    width = math.ceil(8.0 * depth / 10.0) * 10.0
    height = math.ceil(1.6 * depth / 10.0) * 10.0
    w = World(width, height, params=FluidParams.game(width, height,
                                                     max_particles=max(n, 1000) + 1000))
    pts = w.fluid.hex_lattice(0.0, 0.0, width, height)
    w.fluid.add_particles(pts[np.argsort(pts[:, 1], kind="stable")][:n])  # from the bottom
    per_row = max(1, math.ceil(bodies / 2))
    for k in range(bodies):
        row, col = divmod(k, per_row)
        x = (col + 0.5) * width / per_row
        w.add_box((x, depth + 30.0 + 50.0 * row), (40.0, 40.0), density=0.5)
    return w


def crates_table(sizes: list[int], bodies: int, steps: int, rounds: int,
                 threads: list[int]) -> None:
    print(f"\nWorld with {bodies} floating crates (coupling included):")
    print(f"{'particles':>9} {'threads':>7} {'ms/step':>8} {'us/part-step':>12} {'x vs 1 thr':>10}")
    for n in sizes:
        base = None
        for t in threads:
            numba.set_num_threads(t)
            w = make_crates(n, bodies)
            tm = time_steps(WorldSteps(w), steps, warmup=60, rounds=rounds)  # type: ignore[arg-type]
            base = base or tm.ms
            print(f"{w.fluid.count:9d} {t:7d} {tm.ms:8.2f} {1e3 * tm.ms / w.fluid.count:12.3f} "
                  f"{base / tm.ms:9.2f}x   rounds {tm.spread}", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--sizes", default="6000,25000,100000,200000")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--bodies", type=int, default=0, help="also time a World with N crates")
    ap.add_argument("--body-sizes", default="100000")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    max_threads = numba.config.NUMBA_NUM_THREADS
    threads = [t for t in (1, 2) if t <= max_threads]
    print(f"game preset (dt 1/60, 2 substeps), numba max threads {max_threads}")
    _print_machine("before")
    print(f"{'particles':>9} {'threads':>7} {'ms/step':>8} {'us/part-step':>12} {'x vs 1 thr':>10}")
    last_profile: dict[str, float] = {}
    for n in sizes:
        base = None
        for t in threads:
            numba.set_num_threads(t)
            fs = make(n)
            tm = time_steps(fs, args.steps, warmup=10, rounds=args.rounds)
            ms, prof = tm.ms, tm.stages
            base = base or ms
            print(f"{fs.count:9d} {t:7d} {ms:8.2f} {1e3 * ms / fs.count:12.3f} {base / ms:9.2f}x"
                  f"   rounds {tm.spread}", flush=True)
            last_profile = prof
    print("\nper-stage ms/step of the last run:")
    for k, v in last_profile.items():
        print(f"  {k:16s} {v:7.3f}")
    if args.bodies > 0:
        crates_table([int(s) for s in args.body_sizes.split(",")], args.bodies, args.steps,
                     args.rounds, threads)
    _print_machine("after")
    numba.set_num_threads(max_threads)


def _print_machine(when: str) -> None:
    compute, memory = machine_threads()
    print(f"machine {when}: a second thread gives an arithmetic loop {compute:.2f}x and a "
          f"memory stream {memory:.2f}x", flush=True)


if __name__ == "__main__":
    main()
