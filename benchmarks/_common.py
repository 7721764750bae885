"""Shared benchmark helpers: warm-up, repeated rounds of the same steps, median ms/step.

The development machines are shared: the same unchanged kernel has measured 0.64, 0.75 and
0.98 ms at different times of one day. So every timing is taken in ``rounds`` rounds that replay
exactly the same steps from a copy of the warmed-up system; the round least disturbed by the
machine's load (the lowest median) is reported, with all rounds' medians for the spread.
"""

from __future__ import annotations

import copy
import statistics
import time
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from fluidworld import World
from fluidworld.fluid import FluidSystem


@dataclass
class Timing:
    """Median wall ms per step of the best round, its per-stage medians, and every round's."""

    ms: float
    stages: dict[str, float]
    rounds: list[float]

    @property
    def spread(self) -> str:
        """The rounds' medians, e.g. ``"1.21/1.25/1.40"``."""
        return "/".join(f"{r:.3g}" for r in self.rounds)


def time_steps(fs: FluidSystem, steps: int, warmup: int = 20, rounds: int = 3) -> Timing:
    """Warm ``fs`` up by ``warmup`` steps, then time ``steps`` steps ``rounds`` times, each round
    from a copy of the warmed-up state (the same work every round)."""
    fs.step(warmup)
    start = copy.deepcopy(fs)
    best: Timing | None = None
    medians: list[float] = []
    for _ in range(rounds):
        run = copy.deepcopy(start)
        times: list[float] = []
        stages: dict[str, list[float]] = {k: [] for k in run.profile}
        for _ in range(steps):
            t0 = time.perf_counter()
            run.step(1)
            times.append((time.perf_counter() - t0) * 1e3)
            for k, v in run.profile.items():
                stages[k].append(v)
        med = statistics.median(times)
        medians.append(med)
        if best is None or med < best.ms:
            best = Timing(med, {k: statistics.median(v) for k, v in stages.items()}, [])
    assert best is not None
    best.rounds = medians
    return best


class WorldSteps:
    """A World as :func:`time_steps` drives a FluidSystem: ``step(k)`` runs k frames, and
    ``profile`` is the World's per-stage profile (deep-copied with it for each round)."""

    def __init__(self, world: World) -> None:
        self.world = world

    @property
    def profile(self) -> dict[str, float]:
        return self.world.profile

    def step(self, k: int = 1) -> None:
        for _ in range(k):
            self.world.step()


@njit(cache=True, parallel=True)
def _compute_loop(a, reps, out):  # arithmetic only: each thread stays in its own registers
    for i in prange(len(a)):
        x = a[i]
        for _ in range(reps):
            x = x * 0.999999 + 1e-7
        out[i] = x


@njit(cache=True, parallel=True)
def _memory_stream(a, out):  # 16 bytes moved per 2 flops: bound by memory bandwidth
    for i in prange(len(a)):
        out[i] = 2.0 * a[i] + 1.0


def machine_threads(rounds: int = 3) -> tuple[float, float]:
    """What a second numba thread gives this machine *now*: ``(compute, memory)``, the
    one-thread time over the two-thread time of an arithmetic loop and of a stream over 8M
    doubles (128 MB), best of ``rounds`` interleaved runs each. On the shared 2-core VM the
    compute ratio stays at ~2.0 while the memory ratio swings from 1.06 to 1.40 within the
    hour: other tenants share the memory bandwidth, which sets how far a large step can scale
    (at 100k particles its arrays, ~60 MB, do not fit in the caches)."""
    cap = numba.get_num_threads()
    if numba.config.NUMBA_NUM_THREADS < 2:
        return 1.0, 1.0
    small = np.random.default_rng(0).random(200_000)
    big = np.random.default_rng(1).random(8_000_000)
    out_s, out_b = np.empty_like(small), np.empty_like(big)
    best: dict[int, list[float]] = {1: [np.inf, np.inf], 2: [np.inf, np.inf]}
    try:
        for _ in range(rounds + 1):  # the first round compiles and warms up
            for t in (1, 2):
                numba.set_num_threads(t)
                t0 = time.perf_counter()
                _compute_loop(small, 200, out_s)
                t1 = time.perf_counter()
                _memory_stream(big, out_b)
                t2 = time.perf_counter()
                best[t][0] = min(best[t][0], t1 - t0)
                best[t][1] = min(best[t][1], t2 - t1)
    finally:
        numba.set_num_threads(cap)
    return best[1][0] / best[2][0], best[1][1] / best[2][1]
