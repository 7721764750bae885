"""How many numba threads a step uses: measured while the game runs, not assumed.

A game never has the machine to itself: a render thread, the OS, a browser. With one of two cores
busy, a step split over two threads waits at every parallel region (dozens per step) for the
worker that was descheduled; the paper's Table 1 row (6,114 particles) then measured 6.7 ms with
two threads against 0.85 ms with one. Results are bit-identical for any thread count (the
kernels are written for it and tested), so the count can change from one step to the next
without changing the simulation.

:class:`ThreadPolicy` (mode ``"auto"``, the default) runs the steps with the thread count numba
allows (``numba.get_num_threads()`` when the policy starts: the application's cap) and, every
``probe_every`` steps, one step with the other candidate (1 or the cap). It keeps a smoothed
time per step for each candidate and switches when the other one is clearly faster
(``switch_ratio``). A probe that loses doubles the probe interval (up to ``max_probe_every``),
so a probe costs little when nothing changes; a switch resets it. Mode ``"fixed"`` leaves the
thread count alone (benchmarks that compare thread counts use it). The environment variable
``FLUIDWORLD_THREADS`` (``auto`` or ``fixed``) sets the default mode.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Literal

import numba

__all__ = ["ThreadPolicy", "default_mode"]

Mode = Literal["auto", "fixed"]


def default_mode() -> Mode:
    """``FLUIDWORLD_THREADS`` if it is ``auto`` or ``fixed``, else ``auto``."""
    v = os.environ.get("FLUIDWORLD_THREADS", "auto").strip().lower()
    return "fixed" if v == "fixed" else "auto"


@dataclass
class ThreadPolicy:
    """Chooses the numba thread count of each step from measured step times.

    Args:
        mode: ``"auto"`` (measure and choose) or ``"fixed"`` (leave numba's setting alone).
        probe_every: Steps between probes of the other thread count, at first (the first
            probe comes right after the warm-up, so a busy machine is noticed within a few
            frames).
        max_probe_every: The longest interval the probes back off to.
        switch_ratio: Switch when the other count's smoothed step time is below this fraction
            of the current one's.
        smoothing: Weight of a new measurement in the smoothed times, in (0, 1].
        warmup: Steps at the start that are not measured (compilation, first touches).
    """

    mode: Mode = field(default_factory=default_mode)
    probe_every: int = 8
    max_probe_every: int = 1920
    switch_ratio: float = 0.85
    smoothing: float = 0.2
    warmup: int = 3
    #: The thread count the steps run with (not counting probes).
    threads: int = 0
    #: Switches made so far (for diagnostics and tests).
    switches: int = 0

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "fixed"):
            raise ValueError(f"mode must be 'auto' or 'fixed', got {self.mode!r}")
        if isinstance(self.warmup, bool) or not isinstance(self.warmup, int) or self.warmup < 0:
            raise ValueError(f"warmup must be an int >= 0, got {self.warmup!r}")
        for name in ("probe_every", "max_probe_every"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an int >= 1, got {v!r}")
        if not 0.0 < self.switch_ratio <= 1.0:
            raise ValueError(f"switch_ratio must be in (0, 1], got {self.switch_ratio!r}")
        if not 0.0 < self.smoothing <= 1.0:
            raise ValueError(f"smoothing must be in (0, 1], got {self.smoothing!r}")
        self._cap = 0
        self._ms: dict[int, float] = {}
        self._interval = self.probe_every
        self._countdown = self.probe_every
        self._probing = 0  # thread count of the running probe step, 0 if none
        self._current = 0
        self._t0 = 0.0

    def begin(self) -> None:
        """Before a step: set the thread count it runs with."""
        if self.mode == "fixed":
            return
        if self._cap == 0:
            self._cap = numba.get_num_threads()
            self.threads = self._current = self._cap
        if self._cap < 2:
            return
        if self.warmup > 0:
            return
        self._countdown -= 1
        n = self.threads
        if self._countdown <= 0:
            self._probing = n = 1 if self.threads > 1 else self._cap
        if n != self._current:
            numba.set_num_threads(n)
            self._current = n
        self._t0 = time.perf_counter()

    def end(self) -> None:
        """After a step: record its time; maybe switch."""
        if self.mode == "fixed" or self._cap < 2:
            return
        if self.warmup > 0:
            self.warmup -= 1
            return
        ms = (time.perf_counter() - self._t0) * 1e3
        n = self._current
        old = self._ms.get(n)
        self._ms[n] = ms if old is None else old + self.smoothing * (ms - old)
        if not self._probing:
            return
        probe, self._probing = self._probing, 0
        self._ms[probe] = ms  # a probe is judged on its own, fresh measurement
        here = self._ms.get(self.threads)
        if here is not None and ms < self.switch_ratio * here:
            self.threads = probe
            self.switches += 1
            self._interval = self.probe_every
        else:
            self._interval = min(2 * self._interval, self.max_probe_every)
        self._countdown = self._interval

    @property
    def last_threads(self) -> int:
        """The thread count the last step ran on (numba's setting in mode ``"fixed"``)."""
        return self._current if self.mode == "auto" and self._current else \
            numba.get_num_threads()

    def step_times(self) -> dict[int, float]:
        """Smoothed ms per step of each thread count measured so far."""
        return dict(self._ms)
