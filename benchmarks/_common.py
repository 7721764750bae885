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
