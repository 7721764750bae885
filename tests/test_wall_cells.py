"""Walls inside the domain are walls for the pressure solve (``fluid/pressure_walls.py``): water
in a tank that stands in the air rests at its depth and floats bodies as in a pool on the
domain's floor (scenes of :mod:`fluidworld.fidelity.walls`, game preset)."""

from __future__ import annotations

import numpy as np
import pytest

from fluidworld.fidelity import walls


@pytest.mark.parametrize("floor", ["1", "10", "poly"])
def test_water_in_a_tank_standing_in_the_air_rests_at_its_depth(floor: str) -> None:
    """Before the wall cells the air under the floor was a free surface for the water above
    it: filled 100 deep, the tank rested 80-85 deep (105-160 particles packed in the 3 units
    over the floor)."""
    depth, _ = walls.tank_depth(0, floor, None, 6.0)
    assert abs(depth - 100.0) <= 2.0


@pytest.mark.parametrize("floor", ["2", "poly"])
def test_a_box_floats_at_its_density_in_a_tank_standing_in_the_air(floor: str) -> None:
    """A box of 0.5 was held under (submerged 0.79-1.00) before the wall cells."""
    _, fraction = walls.tank_depth(0, floor, 0.5, 8.0)
    assert abs(fraction - 0.5) <= 0.05


def test_a_thin_divider_between_two_pools_passes_no_pressure() -> None:
    """A lock at rest (pools 150 and 50 deep either side of a thin segment): the high pool
    sloshed at 5.4 % of ``sqrt(g d)`` while the divider's cells passed its pressure on to the
    low pool; now it rests (0.72-0.91 %, seeds 0-1, over 5-10 s)."""
    assert walls.lock_rest_speed(0, 6.0) < 0.015


def test_a_tank_in_the_air_has_wall_cells_under_its_water_and_none_in_it() -> None:
    """The floor's cells without water are wall cells; no cell that holds water is one."""
    w, _ = walls.raised_tank(0, "1")
    for _ in range(30):
        w.step()
    f = w.fluid
    a0 = f.params.a0
    row = int(walls.TANK_FLOOR // a0) - 1  # the row under the floor's top
    cols = slice(int(110 // a0), int(290 // a0))
    assert f.wall_cells[row, cols].all()
    particles = f.cell_count - f.solid_fraction * f.params.gamma
    assert not (f.wall_cells.astype(bool) & (particles >= 0.5)).any()
    assert np.count_nonzero(f.wall_cells) <= np.count_nonzero(f.wall_cover)
