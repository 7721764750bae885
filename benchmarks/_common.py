"""Shared benchmark helpers: warm-up, median ms/step, per-stage shares."""

from __future__ import annotations

import statistics
import time

from fluidworld.fluid import FluidSystem


def time_steps(fs: FluidSystem, steps: int, warmup: int = 20) -> tuple[float, dict[str, float]]:
    """Median wall ms per step over ``steps`` after ``warmup``, and the median per-stage ms."""
    fs.step(warmup)
    times: list[float] = []
    stages: dict[str, list[float]] = {k: [] for k in fs.profile}
    for _ in range(steps):
        t0 = time.perf_counter()
        fs.step(1)
        times.append((time.perf_counter() - t0) * 1e3)
        for k, v in fs.profile.items():
            stages[k].append(v)
    return statistics.median(times), {k: statistics.median(v) for k, v in stages.items()}
