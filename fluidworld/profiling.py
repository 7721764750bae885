"""Where a step's time goes: a level run headless, its stages' shares and the threads used.

``fluidworld bench --profile [LEVEL]`` prints :func:`profile_level`'s report, so that a
regression in one stage shows in one command::

    $ fluidworld bench --profile floating_crates --steps 300
    floating_crates: 20,712 particles, 9 bodies, 300 steps after 60 to warm up
    stage             ms/step   share
    external_forces     0.110    1.1 %
    ...

The figures are :attr:`World.profile <fluidworld.World.profile>` (ms per step, summed over the
substeps) averaged over the measured steps, the game's own systems among them;
``contain`` and ``space_step`` are :attr:`World.profile_detail`'s parts of ``advect`` and
``exchange``. The thread count is the one
:class:`~fluidworld.fluid.threads.ThreadPolicy` settled on (it measures one against two as the
game runs), with how many of the measured steps ran on each count.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["ProfileReport", "profile_level", "format_report"]


@dataclass
class ProfileReport:
    """What :func:`profile_level` measured.

    Args:
        level: The level's name.
        particles: Fluid particles at the end.
        bodies: Coupled bodies at the end.
        steps: Steps measured (after the warm-up).
        stages: Mean ms per step of each stage, in the step's order.
        detail: Mean ms per step of the parts inside stages (containment, pymunk's step).
        wall_ms: Mean wall-clock ms per step, the whole ``step()`` call.
        threads: Steps measured on each thread count.
        threads_chosen: The thread count the policy settled on.
    """

    level: str
    particles: int
    bodies: int
    steps: int
    stages: dict[str, float]
    detail: dict[str, float]
    wall_ms: float
    threads: dict[int, int] = field(default_factory=dict)
    threads_chosen: int = 1

    @property
    def total_ms(self) -> float:
        """Sum of the stages' mean ms per step."""
        return sum(self.stages.values())

    def share(self, stage: str) -> float:
        """A stage's fraction of :attr:`total_ms` (0 if nothing was timed)."""
        total = self.total_ms
        return self.stages[stage] / total if total > 0.0 else 0.0


def profile_level(level: str, steps: int = 300, warmup: int = 60) -> ProfileReport:
    """Run ``level`` headless for ``warmup`` steps, then ``steps`` more, timing every stage.

    Args:
        level: A built-in level name, module or ``.py`` file (as ``fluidworld play`` takes).
        steps: Steps measured, >= 1.
        warmup: Steps run first and not measured (kernels compile, the fluid settles), >= 0.

    Raises:
        ValueError: ``steps`` < 1 or ``warmup`` < 0.
        RuntimeError: the level failed to load.
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an int >= 1, got {steps!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}")
    from .levels import LevelSession

    session = LevelSession(level)
    if session.error is not None:
        raise RuntimeError(f"{level}: {session.error}")
    for _ in range(warmup):
        session.step()
    world = session.world
    stages = dict.fromkeys(world.stages, 0.0)
    detail = dict.fromkeys(world.profile_detail, 0.0)
    used: Counter[int] = Counter()
    t0 = time.perf_counter()
    for _ in range(steps):
        session.step()
        world = session.world
        for k, v in world.profile.items():
            stages[k] = stages.get(k, 0.0) + v
        for k, v in world.profile_detail.items():
            detail[k] = detail.get(k, 0.0) + v
        used[world.fluid.threads.last_threads] += 1
    wall = (time.perf_counter() - t0) * 1e3 / steps
    return ProfileReport(
        level=level, particles=world.fluid.count, bodies=len(world.coupler.bodies),
        steps=steps, stages={k: v / steps for k, v in stages.items()},
        detail={k: v / steps for k, v in detail.items()}, wall_ms=wall,
        threads=dict(sorted(used.items())), threads_chosen=world.fluid.threads.threads or 1)


def format_report(r: ProfileReport, warmup: int) -> str:
    """The report as the table ``fluidworld bench --profile`` prints."""
    lines = [f"{r.level}: {r.particles:,} particles, {r.bodies} bodies, {r.steps} steps after "
             f"{warmup} to warm up",
             f"{'stage':<20}{'ms/step':>9}{'share':>9}"]
    for k, v in r.stages.items():
        lines.append(f"{k:<20}{v:9.3f}{100.0 * r.share(k):8.1f} %")
    for k, v in r.detail.items():
        lines.append(f"{'  (' + k + ')':<20}{v:9.3f}")
    lines.append(f"{'stages':<20}{r.total_ms:9.3f}")
    lines.append(f"{'step() wall clock':<20}{r.wall_ms:9.3f}")
    runs = ", ".join(f"{n} on {t}" for t, n in r.threads.items())
    lines.append(f"threads: settled on {r.threads_chosen} (steps: {runs})")
    return "\n".join(lines)
