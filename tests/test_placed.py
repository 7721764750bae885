"""Bodies put onto water (``fluidworld/coupling/placed.py``): a body added into a pool, or moved
there by setting its position, leaves the fluid it covers mirrored across its nearest surface
before the fluid's stages run. Pushed onto the surface, the particles of a line through the
body landed on one point, and ``ddr`` threw the stacks apart at ~2,400 units/s."""

from __future__ import annotations

import numpy as np
import pymunk
import pytest

from fluidworld import World
from fluidworld.fluid.solvers import SOLVER_NAMES


def settled_pool(solver: str) -> World:
    w = World(300, 300, solver=solver)
    w.add_fluid_rect(0, 0, 300, 100)
    for _ in range(60):
        w.step()
    return w


def fastest_over(w: World, steps: int) -> float:
    fastest = 0.0
    for _ in range(steps):
        w.step()
        fastest = max(fastest, float(np.linalg.norm(w.fluid.velocities, axis=1).max()))
    return fastest


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_box_added_into_a_pool_does_not_throw_the_water(solver: str) -> None:
    """Measured, fastest particle over the second after the add, before / now: srd 110 / 97 (the
    box rising), ddr 2,391 / 301, constraint 205 / 125."""
    w = settled_pool(solver)
    n = w.fluid.count
    w.add_box((150, 50), (40, 40), density=0.5)
    fastest = fastest_over(w, 60)
    assert fastest < 800.0, fastest
    assert w.check().ok and w.fluid.count == n


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_a_body_moved_into_the_pool_by_its_position_does_not_throw_the_water(
        solver: str) -> None:
    """A kinematic platform set down into the pool, before / now: srd 15 / 15, ddr 2,291 / 314,
    constraint 204 / 116."""
    w = settled_pool(solver)
    n = w.fluid.count
    kin = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    kin.position = (150, 250)
    w.attach(pymunk.Poly.create_box(kin, (40, 40)))
    w.step()
    kin.position = (150, 50)
    fastest = fastest_over(w, 60)
    assert fastest < 800.0, fastest
    assert w.check().ok and w.fluid.count == n


def test_the_covered_water_leaves_as_far_as_it_was_inside() -> None:
    """Mirrored, not stacked on the outline: right after the add (the next step's first stage
    alone), pairs of particles closer than a tenth of the spacing near the box: measured 3
    (stacked on the outline: 48, the closest 0.002 spacings apart)."""
    w = settled_pool("srd")
    w.add_box((150, 50), (40, 40), density=0.5)
    w.coupler.sync()
    p = w.fluid.positions
    near = p[(np.abs(p[:, 0] - 150) < 45) & (np.abs(p[:, 1] - 50) < 45)]
    d = np.sqrt(((near[:, None] - near[None]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    assert (d < 0.1 * w.fluid.r_l).sum() // 2 <= 10
    assert w.check().inside_shapes == 0


def test_a_body_put_across_a_wall_leaves_no_water_beyond_it() -> None:
    """Water left of a thin wall at x = 150; a box from x = 100 to 152 set over it. Mirrored
    across the box's nearest (right) side, the water between 140 and 150 would land beyond the
    wall; the wall guard keeps it on its side."""
    w = World(300, 200)
    w.add_static_segment((150, 0), (150, 200), radius=1.0)
    n = w.add_fluid_rect(0, 0, 148, 80)
    for _ in range(30):
        w.step()
    w.add_box((126, 40), (52, 40), density=2.0)
    for _ in range(30):
        w.step()
    c = w.check()
    assert c.ok and w.fluid.count == n
    assert (w.fluid.positions[:, 0] < 150).all()


def test_bodies_left_alone_are_not_placed_again() -> None:
    """Only a body moved by hand since the last step counts: the first stage of a step moves
    no particle when nothing was moved, and the covered ones when the body was."""
    w = settled_pool("ddr")
    e = w.add_box((150, 150), (40, 40), density=0.5)
    w.step()
    before = w.fluid.positions.copy()
    w.coupler.sync()
    assert np.array_equal(w.fluid.positions, before)
    e.body.position = (150, 60)
    w.coupler.sync()
    assert not np.array_equal(w.fluid.positions, before)
    assert w.check().inside_shapes == 0


def test_adding_a_body_places_only_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bodies that were there and kept still are not searched again when one is added
    (the arrays are rebuilt, so each body is matched to where it was)."""
    from fluidworld.coupling import placed

    w = settled_pool("srd")
    old = w.add_box((100, 150), (30, 30), density=0.5)
    w.step()
    seen: list[np.ndarray] = []
    real = placed.contain_placed

    def spy(fluid, mats, shapes, bodies, mask, params):  # type: ignore[no-untyped-def]
        seen.append(mask.copy())
        return real(fluid, mats, shapes, bodies, mask, params)

    monkeypatch.setattr(placed, "contain_placed", spy)
    new = w.add_ball((200, 60), 12, density=0.5)
    w.step()
    cp = w.coupler
    mask = seen[0]
    assert mask[cp._shape_body == cp.body_index(new.body)].all()
    assert not mask[cp._shape_body == cp.body_index(old.body)].any()
