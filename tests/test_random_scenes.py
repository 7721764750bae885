"""Random scenes through the public API, with each solver: fluids of every built-in material,
boxes, balls and static segments of random sizes, densities and radii, an emitter and a drain,
and a switch of solver half-way. Whatever the mix, the world keeps its invariants: no NaN, no
particle outside the box or inside a shape, every body finite and inside, and the particle
count exactly what was added less what was drained.

Measured with the same generator on 2026-11-28: 400 scenes like these kept every invariant.
300 wilder ones (up to eight bodies, jets of up to 2,000 particles/s at up to 900 units/s,
random ``step(dt)`` calls, solver switches at any step) left a particle faster than 5,000
units/s in 18 and none inside a body (docs/limits.md: small domains filled past their
area, bodies jammed together; 21 and two before jets were spread for ``ddr`` and the constraint
solver); those scenes are not part of this test."""

from __future__ import annotations

import numpy as np
import pytest

from fluidworld import World
from fluidworld.fluid.solvers import SOLVER_NAMES

MATERIALS = ("water", "oil", "honey", "ink")


def random_world(seed: int) -> tuple[World, int]:
    """A random scene and the step at which it switches solver (the solver it starts with is
    ``SOLVER_NAMES[seed % 3]``)."""
    rng = np.random.default_rng(seed)
    width, height = float(rng.uniform(100, 260)), float(rng.uniform(100, 220))
    w = World(width, height, solver=SOLVER_NAMES[seed % len(SOLVER_NAMES)])
    for _ in range(int(rng.integers(1, 3))):
        y0 = float(rng.uniform(0, 0.3 * height))
        w.add_fluid_rect(0, y0, width * float(rng.uniform(0.4, 1.0)),
                         y0 + float(rng.uniform(15, 0.35 * height)),
                         material=MATERIALS[rng.integers(len(MATERIALS))])
    for _ in range(int(rng.integers(2, 6))):
        x, y = float(rng.uniform(20, width - 20)), float(rng.uniform(20, height - 20))
        density = float(rng.uniform(0.3, 3.0))
        kind = int(rng.integers(3))
        if kind == 0:
            w.add_box((x, y), (float(rng.uniform(6, 40)), float(rng.uniform(6, 40))),
                      density=density, angle=float(rng.uniform(0, 3)))
        elif kind == 1:
            w.add_ball((x, y), float(rng.uniform(4, 20)), density=density)
        else:
            w.add_static_segment((x, y), (x + float(rng.uniform(-50, 50)),
                                          y + float(rng.uniform(-50, 50))),
                                 radius=float(rng.uniform(0.5, 4.0)))
    w.add_emitter((0.5 * width, height - 10), (float(rng.uniform(-1, 1)), -1.0),
                  float(rng.uniform(30, 300)), rate=float(rng.uniform(30, 600)),
                  material=MATERIALS[rng.integers(len(MATERIALS))])
    w.add_drain((0, 0, float(rng.uniform(10, 40)), float(rng.uniform(10, 40))))
    return w, int(rng.integers(30, 90))


@pytest.mark.filterwarnings("ignore:emitter .* emits into a shape:RuntimeWarning")
@pytest.mark.parametrize("seed", range(6))
def test_a_random_scene_keeps_the_invariants_with_every_solver(seed: int) -> None:
    w, switch = random_world(seed)
    after = SOLVER_NAMES[(seed + 1 + seed // 3) % len(SOLVER_NAMES)]
    for i in range(120):
        if i == switch:
            w.set_solver(after)
        w.step()
    c = w.check()
    assert c.ok, c
    assert w.fluid.count == w.particles_added - w.particles_removed > 0
    assert np.abs(w.fluid.velocities).max() < 1e4
