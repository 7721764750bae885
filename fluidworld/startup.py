"""How long a player waits for the first frame: cold (empty numba cache) and warm.

Each figure is the wall time of a fresh process that renders one frame of a level headless
(``fluidworld render LEVEL --frames 1``): interpreter start, imports, kernel compilation or cache
load, building the level, one step, drawing and writing the PNG. "Cold" runs with an empty
numba cache in a temporary folder (a fresh install's first run); "warm" runs again with the
cache the cold run left. ``fluidworld bench --startup`` prints them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["StartupTimes", "measure_startup"]


@dataclass(frozen=True)
class StartupTimes:
    """Seconds to the first rendered frame.

    Attributes:
        level: The level rendered. cold: With an empty numba cache. warm: With the cache that
        the cold run wrote (the best of ``warm_runs``).
    """

    level: str
    cold: float
    warm: float


def _first_frame(level: str, cache: Path, out: Path) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), ARCADE_HEADLESS="1")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "fluidworld", "render", level, "--frames", "1", "--quiet",
         "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=1800,
    )
    seconds = time.perf_counter() - t0
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"rendering {level} failed:\n{proc.stderr[-2000:]}")
    return seconds


def measure_startup(level: str = "floating_crates", warm_runs: int = 3) -> StartupTimes:
    """Time a cold and then ``warm_runs`` warm first frames of ``level`` in fresh processes."""
    if warm_runs < 1:
        raise ValueError(f"warm_runs must be >= 1, got {warm_runs!r}")
    with tempfile.TemporaryDirectory(prefix="fluidworld-startup-") as tmp:
        cache = Path(tmp) / "numba-cache"
        cold = _first_frame(level, cache, Path(tmp) / "cold.png")
        warm = min(_first_frame(level, cache, Path(tmp) / f"warm{k}.png")
                   for k in range(warm_runs))
    return StartupTimes(level, cold, warm)
