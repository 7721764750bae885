"""The step on a shared machine: one core kept busy by another process.

Starts a process that spins on one core (``while True: pass``), then times the paper's Table 1
row (6,114 particles, paper preset) and a 100k-particle pool (game preset) with the thread count
fixed at 1, fixed at 2, and chosen by the step's thread policy (``auto``, the default; see
``fluidworld/fluid/threads.py``), and prints each against the 1-thread figure. The target: the
thread policy's figure stays within 1.1x of the 1-thread one under contention (and a quiet run,
``--quiet``, shows what the second thread gives when the core is free).

The three set-ups take turns (``--rounds``), so that the machine's drift hits them alike.

Run: ``python benchmarks/contention.py [--steps N] [--sizes 6114,100000] [--rounds 10] [--quiet]``
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


def run(n: int, steps: int, rounds: int, cap: int) -> list[tuple[str, float, float, int]]:
    """Median and mean ms/step of the three set-ups (threads fixed at 1, fixed at 2, the
    policy's choice) over ``steps`` steps each after a warm-up, and the policy's switches.

    The set-ups take turns in ``rounds`` rounds (each its own system, kept between rounds): a
    shared machine's speed drifts by tens of percent within a minute, and runs one after the
    other compared the drift as much as the thread counts. The order turns each round (1, 2,
    auto, then auto, 2, 1): the steps right after two threads ran are slower (the idle worker
    still spins for a while), and a fixed order charged that to whichever set-up came after the
    two-thread one."""
    setups = (("1", "fixed", 1), ("2", "fixed", min(2, cap)), ("auto", "auto", min(2, cap)))
    systems = []
    for _, mode, threads in setups:
        numba.set_num_threads(threads)
        fs = system(n)
        fs.threads.mode = mode  # type: ignore[assignment]
        fs.step(10)
        systems.append(fs)
    times: list[list[float]] = [[] for _ in setups]
    per_round = max(1, steps // rounds)
    for r in range(rounds):
        for k in ((0, 1, 2), (2, 1, 0))[r % 2]:  # 1 and auto take turns right after 2
            _, mode, threads = setups[k]
            fs = systems[k]
            # the policy's own count (the other set-ups change numba's setting between turns)
            numba.set_num_threads(threads if mode == "fixed" else fs.threads.last_threads)
            for _ in range(per_round):
                t0 = time.perf_counter()
                fs.step(1)
                times[k].append((time.perf_counter() - t0) * 1e3)
    return [(label, statistics.median(t), statistics.fmean(t), fs.threads.switches)
            for (label, _, _), t, fs in zip(setups, times, systems, strict=True)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--sizes", default="6114,100000")
    ap.add_argument("--rounds", type=int, default=10,
                    help="turns of the three set-ups (the steps split between them)")
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
              f"{'mean x 1-thr':>12} {'median x 1-thr':>14} {'switches':>8}")
        for n in (int(s) for s in args.sizes.split(",")):
            steps = args.steps if n < 50_000 else max(20, args.steps // 25)
            base = None
            for label, med, mean, sw in run(n, steps, args.rounds, cap):
                base = base or (mean, med)
                print(f"{n:9d} {label:>8} {med:10.2f} {mean:8.2f} {mean / base[0]:11.2f}x "
                      f"{med / base[1]:13.2f}x {sw:8d}", flush=True)
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
        numba.set_num_threads(cap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
