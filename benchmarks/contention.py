"""The step on a shared machine: one core kept busy by another process.

Starts a process that spins on one core (``while True: pass``), then times the paper's Table 1
row (6,114 particles, paper preset) and a 100k-particle pool (game preset) with the thread count
fixed at 1, fixed at 2, and chosen by the step's thread policy (``auto``, the default; see
``fluidworld/fluid/threads.py``), and prints each against the 1-thread figure. The target: the
thread policy's figure stays within 1.1x of the 1-thread one under contention (and a quiet run,
``--quiet``, shows what the second thread gives when the core is free).

Run: ``python benchmarks/contention.py [--steps N] [--sizes 6114,100000] [--quiet]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("FLUIDWORLD_THREADS", "fixed")  # set per run below

import numba  # noqa: E402

from fluidworld import scenes  # noqa: E402
from fluidworld.fluid import FluidParams, FluidSystem  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from scaling import make  # noqa: E402


def system(n: int) -> FluidSystem:
    """The Table 1 row for 6,114, else the scaling benchmark's game-preset pool of ``n``."""
    if n == 6114:
        return scenes.dam_break(FluidParams.paper(a0=10.0, gamma=10.0), count=6114)
    return make(n)


def run(n: int, mode: str, threads: int, steps: int) -> tuple[float, float, int]:
    """Median and mean ms/step over ``steps`` steps after a warm-up, and the switches made."""
    numba.set_num_threads(threads)
    fs = system(n)
    fs.threads.mode = mode  # type: ignore[assignment]
    fs.step(10)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fs.step(1)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), statistics.fmean(times), fs.threads.switches


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--sizes", default="6114,100000")
    ap.add_argument("--quiet", action="store_true", help="no spinning process")
    args = ap.parse_args(argv)
    cap = numba.config.NUMBA_NUM_THREADS
    spinner = None
    if not args.quiet:
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        print(f"{'one core busy' if spinner else 'quiet machine'}, {os.cpu_count()} cores, "
              f"numba max threads {cap}")
        print(f"{'particles':>9} {'threads':>8} {'median ms':>10} {'mean ms':>8} "
              f"{'mean x 1-thr':>12} {'switches':>8}")
        for n in (int(s) for s in args.sizes.split(",")):
            steps = args.steps if n < 50_000 else max(20, args.steps // 5)
            base = None
            for label, mode, t in (("1", "fixed", 1), ("2", "fixed", min(2, cap)),
                                   ("auto", "auto", min(2, cap))):
                med, mean, sw = run(n, mode, t, steps)
                base = base or mean
                print(f"{n:9d} {label:>8} {med:10.2f} {mean:8.2f} {mean / base:11.2f}x "
                      f"{sw:8d}", flush=True)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
        numba.set_num_threads(cap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
