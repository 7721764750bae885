"""Soak: every demo level for many steps, checking the world's invariants as it goes.

For each level: steps run (50,000 by default, or as many as fit in the time budget, printed),
particles NaN / outside the box / inside shapes (``World.check``, every ``--every`` steps and at
the end), bodies NaN or out of the world, the particle count against the books (fills and
emitters in, drains out: ``World.particles_added`` / ``particles_removed``), and the resident
memory growth from the first check to the last (RSS, must stay under 5 %).

Run: ``python benchmarks/soak.py [--steps N] [--minutes M] [--every K] [--levels a,b]``
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from fluidworld.levels import LevelSession, builtin_levels
from fluidworld.world import Drain, Emitter, World


def rss_mb() -> float:
    """Current resident set size in MiB (Linux /proc; peak RSS elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def books(world: World) -> int:
    """How far the particle count is from the world's books (fills and emitters in, drains
    out), after checking that the emitters' and drains' own counts agree with those books."""
    emitted = sum(e.emitted for e in world.entities if isinstance(e, Emitter))
    drained = sum(d.removed for d in world.entities if isinstance(d, Drain))
    if drained != world.particles_removed or emitted > world.particles_added:
        return max(abs(drained - world.particles_removed), 1)
    return abs(world.particles_added - world.particles_removed - world.fluid.count)


def soak(name: str, steps: int, seconds: float, every: int) -> dict[str, float]:
    """Run one level; returns the figures of its row."""
    s = LevelSession(name)
    if s.error is not None:
        raise RuntimeError(f"{name}: {s.error}")
    world = s.world
    bad = {"nan": 0, "outside": 0, "inside": 0, "bodies": 0, "books": 0}
    rss0 = None
    t0 = time.perf_counter()
    done = 0
    while done < steps and time.perf_counter() - t0 < seconds:
        s.step()
        world = s.world  # a level script may not replace it, but be safe
        done += 1
        if done % every == 0 or done == steps:
            c = world.check()
            bad["nan"] = max(bad["nan"], c.nan)
            bad["outside"] = max(bad["outside"], c.outside)
            bad["inside"] = max(bad["inside"], c.inside_shapes)
            bad["bodies"] = max(bad["bodies"], c.bodies_nan + c.bodies_outside)
            bad["books"] = max(bad["books"], books(world))
            if rss0 is None:
                rss0 = rss_mb()
    rss1 = rss_mb()
    growth = 0.0 if rss0 is None else 100.0 * (rss1 - rss0) / rss0
    return {"steps": done, "seconds": time.perf_counter() - t0, "particles": world.fluid.count,
            **bad, "rss_mb": rss1, "rss_growth_pct": growth}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50_000)
    ap.add_argument("--minutes", type=float, default=20.0, help="time budget for all levels")
    ap.add_argument("--every", type=int, default=500, help="check the invariants every K steps")
    ap.add_argument("--levels", default="", help="comma-separated subset of the demo levels")
    args = ap.parse_args(argv)
    names = [n for n in (args.levels.split(",") if args.levels else builtin_levels()) if n]
    per_level = 60.0 * args.minutes / max(1, len(names))
    print(f"{'level':<18}{'steps':>7}{'s':>7}{'particles':>10}{'NaN':>5}{'out':>5}{'in':>5}"
          f"{'bodies':>7}{'books':>6}{'RSS MiB':>9}{'growth %':>9}")
    failed = 0
    for name in names:
        r = soak(name, args.steps, per_level, max(1, args.every))
        ok = (r["nan"] == r["outside"] == r["inside"] == r["bodies"] == r["books"] == 0
              and r["rss_growth_pct"] < 5.0)
        failed += not ok
        print(f"{name:<18}{r['steps']:>7}{r['seconds']:>7.0f}{r['particles']:>10}"
              f"{r['nan']:>5}{r['outside']:>5}{r['inside']:>5}{r['bodies']:>7}{r['books']:>6}"
              f"{r['rss_mb']:>9.0f}{r['rss_growth_pct']:>9.1f}{'' if ok else '  FAILED'}",
              flush=True)
    print(f"{len(names) - failed} of {len(names)} levels clean", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
