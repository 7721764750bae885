"""Settling freshly filled fluid before play (``World.settle_fluid``)."""

from __future__ import annotations

import math

import numpy as np
import pymunk
import pytest

from fluidworld.world import World


def _mean_speed_share(w: World, depth: float) -> float:
    return float(np.linalg.norm(w.fluid.velocities, axis=1).mean()) / math.sqrt(900.0 * depth)


@pytest.mark.parametrize("solver", ["ddr", "srd"])
def test_a_settled_pool_starts_at_rest(solver: str) -> None:
    """A pool 100 deep: unsettled, ddr's moved at 12.2 / 3.3 % of sqrt(g d) at 1 / 2 s (it rose
    ~12 % and sloshed); settled for 1 s, measured 0.48 / 0.30 %. SRD, whose fill is its rest
    state, settles to no harm (0.30 / 0.25 %, unsettled 0.28 / 0.33 %)."""
    shares = {}
    for settle in (True, False):
        w = World(300.0, 200.0, solver=solver)
        n = w.add_fluid_rect(0.0, 0.0, 300.0, 100.0)
        if settle:
            assert w.settle_fluid() == 120
        got = []
        for i in range(1, 121):
            w.step()
            if i in (60, 120):
                got.append(_mean_speed_share(w, 100.0))
        assert w.fluid.count == n and w.check().ok
        assert w.steps == 120 and w.time == pytest.approx(2.0)
        shares[settle] = got
    assert max(shares[True]) < 0.01, shares
    if solver == "ddr":
        assert shares[False][0] > 0.05, shares  # what the settle takes away


def test_settle_fluid_holds_the_bodies_and_the_clock() -> None:
    w = World(300.0, 200.0, solver="ddr")
    w.add_fluid_rect(0.0, 0.0, 300.0, 60.0)
    e = w.add_ball((150.0, 150.0), 15.0, density=0.5)  # in the air: held where it is
    n = w.fluid.count
    top0 = float(np.percentile(w.fluid.positions[:, 1], 99))
    assert w.settle_fluid(0.5) == 60
    top1 = float(np.percentile(w.fluid.positions[:, 1], 99))
    assert w.time == 0.0 and w.steps == 0 and w.fluid.count == n and w.check().ok
    assert tuple(e.body.position) == (150.0, 150.0) and tuple(e.body.velocity) == (0.0, 0.0)
    assert not w.fluid.velocities.any()
    assert top1 > top0 + 3.0, (top0, top1)  # the lattice loosened to ddr's rest state
    for bad in (0.0, -1.0, 11.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="seconds"):
            w.settle_fluid(bad)


def test_settle_fluid_is_refused_during_a_step() -> None:
    w = World(200.0, 150.0)
    w.add_fluid_rect(0.0, 0.0, 200.0, 40.0)
    w.add_system(lambda world, h: world.settle_fluid(0.1))
    with pytest.raises(RuntimeError, match="settle_fluid"):
        w.step()


@pytest.mark.parametrize("solver", ["ddr", "srd", "constraint"])
def test_settling_keeps_the_fluid_inside_thin_walls(solver: str) -> None:
    """A basin of thin segments (radius 1) on a shelf, full of water: the settle's substeps
    contain particles as the step does, so none leaves it."""
    w = World(300.0, 240.0, solver=solver)
    for a, b in (((90.0, 80.0), (210.0, 80.0)), ((90.0, 80.0), (90.0, 200.0))):
        w.add_static_segment(a, b, radius=1.0)
    # one wall added to the Space directly, as a game embedding the fluid does: the settle
    # adopts it as the step would
    right = pymunk.Segment(w.space.static_body, (210.0, 80.0), (210.0, 200.0), 1.0)
    w.space.add(right)
    n = w.add_fluid_rect(92.0, 82.0, 208.0, 160.0)
    w.settle_fluid(1.0)
    assert w.coupler.is_coupled(right)
    x, y = w.fluid.positions[:, 0], w.fluid.positions[:, 1]
    assert w.fluid.count == n and w.check().ok
    assert ((x > 90.0) & (x < 210.0) & (y > 80.0)).all()
