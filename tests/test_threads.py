"""The step's thread policy: it finds the faster thread count from measured step times, follows
the machine when that changes, and never changes the simulation (bit-identical results)."""

from __future__ import annotations

import numba
import pytest

from fluidworld import scenes
from fluidworld.fluid import FluidParams
from fluidworld.fluid import threads as T


class FakeMachine:
    """numba's thread setting and a clock whose step cost depends on the thread count."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cost: dict[int, float]) -> None:
        self.cost = cost
        self.threads = 2
        self.now = 0.0
        self.sets = 0
        monkeypatch.setattr(T.numba, "get_num_threads", lambda: self.threads)
        monkeypatch.setattr(T.numba, "set_num_threads", self._set)
        monkeypatch.setattr(T.time, "perf_counter", lambda: self.now)

    def _set(self, n: int) -> None:
        self.threads = n
        self.sets += 1

    def step(self, policy: T.ThreadPolicy) -> int:
        policy.begin()
        ran = self.threads
        self.now += self.cost[ran] / 1e3
        policy.end()
        return ran


def test_a_busy_core_makes_it_drop_to_one_thread_and_a_free_one_brings_it_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    m = FakeMachine(monkeypatch, {1: 1.0, 2: 8.0})  # one core busy: two threads 8x slower
    pol = T.ThreadPolicy(mode="auto", probe_every=8, warmup=3)
    ran = [m.step(pol) for _ in range(400)]
    assert pol.threads == 1 and pol.switches == 1
    first = ran.index(1)
    assert first <= 3 + 8  # the first probe, right after the warm-up
    # the losing probes of 2 threads back off: 8, 16, 32, ... steps apart (a losing probe ends
    # after its first step)
    assert 4 <= ran[first:].count(2) <= 6
    m.cost = {1: 1.0, 2: 0.55}  # the core is free again
    ran = [m.step(pol) for _ in range(200)]
    assert pol.threads == 2 and pol.switches == 2
    assert ran[-50:].count(1) <= 2  # at most two (losing, one-step) probes of one thread
    assert pol.step_times()[2] == pytest.approx(0.55)


def test_no_switch_on_a_small_difference_and_fixed_mode_leaves_numba_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    m = FakeMachine(monkeypatch, {1: 1.0, 2: 0.95})
    pol = T.ThreadPolicy(mode="auto")
    for _ in range(300):
        m.step(pol)
    assert pol.threads == 2 and pol.switches == 0
    m2 = FakeMachine(monkeypatch, {1: 1.0, 2: 8.0})
    fixed = T.ThreadPolicy(mode="fixed")
    assert {m2.step(fixed) for _ in range(100)} == {2} and m2.sets == 0


@pytest.mark.parametrize("kw, match", [
    ({"mode": "fast"}, "mode must be 'auto' or 'fixed'"),
    ({"probe_every": 0}, "probe_every must be an int >= 1"),
    ({"probe_steps": 0}, "probe_steps must be an int >= 1"),
    ({"switch_ratio": 1.5}, r"switch_ratio must be in \(0, 1\]"),
    ({"smoothing": 0.0}, r"smoothing must be in \(0, 1\]"),
    ({"warmup": -1}, "warmup must be an int >= 0"),
])
def test_bad_policy_values_are_refused(kw: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        T.ThreadPolicy(**kw)


def test_switching_threads_every_step_changes_nothing_in_the_simulation() -> None:
    """Probing every step alternates the thread count (and the serial and parallel kernels);
    the particles end bit-identical to a run that never switched."""
    def run(policy: T.ThreadPolicy) -> str:
        fs = scenes.dam_break(FluidParams.paper(a0=10.0, gamma=10.0), count=6114)
        fs.threads = policy
        fs.step(30)
        return fs.state_hash()

    cap = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        fixed = run(T.ThreadPolicy(mode="fixed"))
        numba.set_num_threads(cap)
        flip = T.ThreadPolicy(mode="auto", probe_every=1, max_probe_every=1, warmup=0,
                              switch_ratio=1.0)
        assert run(flip) == fixed
    finally:
        numba.set_num_threads(cap)


def test_a_probe_that_is_fast_only_now_and_then_does_not_switch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared core: two threads are 2x faster in the steps where the other worker happens to
    run (60 % of them, at random) and 6x slower in the rest. A probe of two threads must win 5
    steps in a row, and each switch back to one thread makes the next probe of two wait twice as
    long: the steps average within 5 % of the one-thread time. (Probes judged on one step, with
    one shared interval, averaged 1.41x with 276 switches.)"""
    import random

    m = FakeMachine(monkeypatch, {1: 1.0, 2: 0.5})
    step = m.step

    def run(policy: T.ThreadPolicy) -> float:
        rnd = random.Random(5)
        m.threads = 2  # numba's setting as the application left it
        total = 0.0
        for _ in range(6000):
            m.cost[2] = 0.5 if rnd.random() < 0.6 else 6.0
            total += m.cost[step(policy)]
        return total / 6000

    pol = T.ThreadPolicy(mode="auto", warmup=0)
    assert run(pol) < 1.05 and pol.switches <= 6 and pol.threads == 1


def test_a_switch_that_turns_out_slower_is_undone_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads win a probe (the other process paused), then the core is busy again: the
    first slow step makes the smoothed time clearly worse than one thread's, and the policy
    probes one thread at once instead of waiting out the interval (``probe_every`` 8)."""
    m = FakeMachine(monkeypatch, {1: 1.0, 2: 8.0})
    pol = T.ThreadPolicy(mode="auto", probe_every=8, warmup=3)
    for _ in range(40):
        m.step(pol)
    assert pol.threads == 1
    m.cost[2] = 0.5  # the core comes free until two threads win a probe
    while pol.threads == 1:
        m.step(pol)
    m.cost[2] = 8.0
    slow = 0
    while pol.threads == 2:
        slow += m.step(pol) == 2
    assert slow <= 2 and pol.switches == 3
