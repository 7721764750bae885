"""How many numba threads a step uses: measured while the game runs, not assumed.

A game never has the machine to itself: a render thread, the OS, a browser. With one of two cores
busy, a step split over two threads waits at every parallel region (dozens per step) for the
worker that was descheduled; the paper's Table 1 row (6,114 particles) then measured 6.7 ms with
two threads against 0.85 ms with one. Results are bit-identical for any thread count (the
kernels are written for it and tested), so the count can change from one step to the next
without changing the simulation.

:class:`ThreadPolicy` (mode ``"auto"``, the default) runs the steps with the thread count numba
allows (``numba.get_num_threads()`` when the policy starts: the application's cap) and, every
``probe_every`` steps, up to ``probe_steps`` steps with the other candidate (1 or the cap: a
probe ends at its first step that is not clearly faster). It keeps
a smoothed time per step for each candidate and switches when the other one is clearly faster
(``switch_ratio``) in *every* step of the probe: with a core shared, two threads are fast in
the steps where the other worker happens to run and several times slower in the others, and a
probe judged on one lucky step switched to two threads only to come back (the Table 1 row under
contention averaged 1.28x the one-thread time with 4 switches). Judged on its slowest of 5
steps, a probe switches falsely only if all 5 were lucky: on a simulated machine where two
threads are 2x faster in 40-60 % of the steps and 6x slower in the rest, the steps averaged
1.03x the one-thread time (1.37-1.41x judged on single steps); on a quiet one, probing costs
0.2 %. A probe that loses doubles the probe interval (up
to ``max_probe_every``), so a probe costs little when nothing changes; the intervals for
probing more threads and for probing fewer are kept apart: a switch to more threads is checked
soon, and a switch back to fewer doubles the interval before more threads are tried again (a
core that stays busy costs fewer and fewer probes; a core that comes free is noticed within
``max_probe_every`` steps). A count that turns out clearly slower than the other one measured
(its smoothed time over ``1 / switch_ratio`` times the other's) is probed against it at the next
step, not after the interval: a probe of two threads won on five lucky steps is undone after
one slow step, where it used to run ``probe_every`` slow steps first.
Mode ``"fixed"`` leaves the thread count alone (benchmarks that compare thread counts use it).
The environment variable ``FLUIDWORLD_THREADS`` (``auto`` or ``fixed``) sets the default mode.
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
        switch_ratio: Switch when each of a probe's steps takes less than this fraction of the
            current count's smoothed step time.
        probe_steps: Steps in a row that a probe runs on the other count.
        smoothing: Weight of a new measurement in the smoothed times, in (0, 1].
        warmup: Steps at the start that are not measured (compilation, first touches).
    """

    mode: Mode = field(default_factory=default_mode)
    probe_every: int = 8
    max_probe_every: int = 1920
    switch_ratio: float = 0.85
    probe_steps: int = 5
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
        for name in ("probe_every", "max_probe_every", "probe_steps"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an int >= 1, got {v!r}")
        if not 0.0 < self.switch_ratio <= 1.0:
            raise ValueError(f"switch_ratio must be in (0, 1], got {self.switch_ratio!r}")
        if not 0.0 < self.smoothing <= 1.0:
            raise ValueError(f"smoothing must be in (0, 1], got {self.smoothing!r}")
        self._cap = 0
        self._ms: dict[int, float] = {}
        # steps between probes, one interval per direction: probing more threads from fewer
        # ("up") and fewer from more ("down")
        self._interval = {"up": self.probe_every, "down": self.probe_every}
        self._countdown = self.probe_every
        self._probing = 0  # thread count of the running probe, 0 if none
        self._probe_left = 0  # its steps still to run
        self._probe_worst = 0.0  # its slowest step so far (ms)
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
        n = self.threads
        if self._probing:
            n = self._probing
        else:
            self._countdown -= 1
            if self._countdown <= 0:
                self._probing = n = 1 if self.threads > 1 else self._cap
                self._probe_left = self.probe_steps
                self._probe_worst = 0.0
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
            other = self._ms.get(1 if n > 1 else self._cap)
            if other is not None and self.switch_ratio * self._ms[n] > other:
                self._countdown = 0  # clearly slower than the other count was: look again now
            return
        self._probe_worst = max(self._probe_worst, ms)
        self._probe_left -= 1
        here = self._ms.get(self.threads)
        losing = here is None or self._probe_worst >= self.switch_ratio * here
        if self._probe_left > 0 and not losing:
            return  # winning so far: run the probe's next step (a losing one ends at once)
        probe, self._probing = self._probing, 0
        worst = self._probe_worst
        self._ms[probe] = worst  # a probe is judged on its own, fresh measurements
        up = probe > self.threads
        iv = self._interval
        if not losing:
            self.threads = probe
            self.switches += 1
            if up:  # check soon that more threads stay faster
                iv["down"] = self.probe_every
            else:  # more threads lost (or the machine got busy): probe them less often
                iv["up"] = min(2 * iv["up"], self.max_probe_every)
        else:
            key = "up" if up else "down"
            iv[key] = min(2 * iv[key], self.max_probe_every)
        self._countdown = iv["up" if self.threads < self._cap else "down"]

    @property
    def last_threads(self) -> int:
        """The thread count the last step ran on (numba's setting in mode ``"fixed"``)."""
        return self._current if self.mode == "auto" and self._current else \
            numba.get_num_threads()

    def step_times(self) -> dict[int, float]:
        """Smoothed ms per step of each thread count measured so far."""
        return dict(self._ms)
