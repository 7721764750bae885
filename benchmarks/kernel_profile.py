"""Per-kernel profile of whole steps: where a step's time goes, kernel by kernel.

    python benchmarks/kernel_profile.py [--scene table1|game] [--particles N] [--threads T]

``table1``: Table 1's 6,114-particle dam break (paper preset); ``game``: the scaling benchmark's
game-preset dam break with ``--particles`` particles. Every numba kernel the step calls is
wrapped with a timer, so the figures include each call's dispatch; the total is the step's wall
time, whose difference to the kernels' sum is Python and numpy work between them.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(__file__))

import numba  # noqa: E402
from scaling import make  # noqa: E402

from fluidworld import scenes  # noqa: E402
from fluidworld.fluid import (  # noqa: E402
    FluidParams,
    advection,
    bands,
    binning,
    collision,
    free_drift,
    neighbour_lists,
    pressure,
    pressure_converged,
    repulsion,
    viscosity,
)


def instrument() -> dict[str, float]:
    """Wrap the public kernels of the fluid modules with timers; returns the seconds table."""
    spent: dict[str, float] = collections.defaultdict(float)
    for mod in (pressure, pressure_converged, free_drift, collision, binning, bands,
                neighbour_lists, repulsion, advection, viscosity):
        for name in dir(mod):
            fn = getattr(mod, name)
            if not hasattr(fn, "py_func") or name.startswith("_"):
                continue

            def timed(*args: Any, _fn: Callable[..., Any] = fn,
                      _key: str = f"{mod.__name__.rsplit('.', 1)[-1]}.{name}") -> Any:
                t0 = time.perf_counter()
                out = _fn(*args)
                spent[_key] += time.perf_counter() - t0
                return out

            setattr(mod, name, timed)
    return spent


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="table1", choices=["table1", "game"])
    ap.add_argument("--particles", type=int, default=100_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=0, help="timed steps (default 300 / 30)")
    args = ap.parse_args(argv)
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    if args.scene == "table1":
        fs = scenes.dam_break(FluidParams.paper(a0=10, gamma=10), count=6114)
        warm, steps = 50, args.steps or 300
    else:
        fs = make(args.particles)
        warm, steps = 10, args.steps or 30
    fs.step(1)  # compiled before the wrappers: a kernel calling a wrapped one cannot compile
    spent = instrument()
    fs.step(warm)
    spent.clear()
    t0 = time.perf_counter()
    fs.step(steps)
    total = (time.perf_counter() - t0) / steps * 1e3
    kernels = sum(spent.values()) / steps * 1e3
    print(f"{args.scene}: {fs.count} particles, {numba.get_num_threads()} thread(s), "
          f"{total:.3f} ms/step ({total - kernels:.3f} outside the kernels)")
    for key, sec in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {key:40s} {sec / steps * 1e3:8.3f} ms/step")


if __name__ == "__main__":
    main()
