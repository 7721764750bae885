"""Bad input raises clear errors; presets match the paper."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fluidworld.fluid import FluidParams, FluidSystem, Material


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"a0": 0.0}, "a0"),
        ({"a0": -1.0}, "a0"),
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": -3.0}, "gamma"),
        ({"dt": math.nan}, "dt"),
        ({"dt": 0.0}, "dt"),
        ({"width": 5.0}, "domain"),
        ({"height": math.inf}, "height"),
        ({"max_particles": 10**12}, "max_particles"),
        ({"substeps": 0}, "substeps"),
        ({"repulsion_iterations": -1}, "repulsion_iterations"),
        ({"pressure_iterations": 10_000}, "pressure_iterations"),
        ({"pressure_solver": "magic"}, "pressure_solver"),
        ({"density_correction": 2.0}, "density_correction"),
        ({"gravity": (0.0, math.nan)}, "gravity"),
        ({"dt": 100.0}, "substeps"),
        ({"a0": 1e-6}, "cells"),
        ({"wall_inelastic": 1.5}, "wall_inelastic"),
        ({"wall_inelastic": -0.1}, "wall_inelastic"),
        ({"wall_inelastic": math.nan}, "wall_inelastic"),
    ],
)
def test_bad_params_raise_value_error_naming_the_parameter(changes, needle):
    with pytest.raises(ValueError, match=needle):
        FluidParams.paper(**changes)


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError, match="substeps"):
        FluidParams.paper(substeps=1.5)
    with pytest.raises(TypeError, match="a0"):
        FluidParams.paper(a0="ten")
    with pytest.raises(TypeError, match="params"):
        FluidSystem(params={"a0": 10})  # type: ignore[arg-type]


def test_bad_materials():
    # viscosity is a kinematic viscosity in units^2 per time unit (was a fraction in [0, 1))
    with pytest.raises(ValueError, match=r"viscosity.*\[0, 1e\+07\]"):
        Material("x", viscosity=-1.0)
    with pytest.raises(ValueError, match="viscosity"):
        Material("x", viscosity=2e7)
    with pytest.raises(TypeError, match="viscosity"):
        Material("x", viscosity="thick")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="srd_alpha"):
        Material("x", srd_alpha=4.0)
    with pytest.raises(ValueError, match="color"):
        Material("x", color=(300, 0, 0))
    for bad in (-0.1, 1.0, float("nan")):
        with pytest.raises(ValueError, match=r"Material.damping"):
            Material("x", damping=bad)
    with pytest.raises(TypeError, match="damping"):
        Material("x", damping="some")  # type: ignore[arg-type]


def test_bad_particles_are_rejected_and_system_stays_usable():
    fs = FluidSystem(FluidParams.paper(width=100.0, height=100.0, max_particles=100))
    with pytest.raises(ValueError, match="finite"):
        fs.add_particles([[10.0, math.nan]])
    with pytest.raises(ValueError, match="finite"):
        fs.add_particles([[10.0, 10.0]], velocities=[[math.inf, 0.0]])
    with pytest.raises(ValueError, match="inside the domain"):
        fs.add_particles([[-1.0, 10.0]])
    with pytest.raises(ValueError, match="material"):
        fs.add_particles([[10.0, 10.0]], material=99)
    with pytest.raises(ValueError, match="max_particles"):
        fs.add_particles(np.full((101, 2), 50.0))
    with pytest.raises(ValueError, match="n must be"):
        fs.step(-1)
    assert fs.count == 0
    assert fs.add_particles([[50.0, 50.0]]) == 1
    fs.step(3)
    assert fs.count == 1 and np.isfinite(fs.positions).all()


def test_remove_particles_by_mask_and_index():
    fs = FluidSystem(FluidParams.paper(width=100.0, height=100.0))
    fs.add_particles([[10.0, 10.0], [20.0, 20.0], [30.0, 30.0]])
    assert fs.remove_particles(np.array([False, True, False])) == 1
    np.testing.assert_array_equal(fs.positions, [[10.0, 10.0], [30.0, 30.0]])
    assert fs.remove_particles([0]) == 1
    np.testing.assert_array_equal(fs.positions, [[30.0, 30.0]])
    with pytest.raises(IndexError):
        fs.remove_particles([5])


def test_paper_preset_matches_table_1_setup():
    p = FluidParams.paper()
    assert (p.width, p.height, p.dt, p.gravity, p.a0, p.gamma) == (640.0, 640.0, 0.1,
                                                                   (0.0, -9.81), 10.0, 5.0)
    assert (p.repulsion_iterations, p.repulsion_dv, p.pressure_iterations) == (3, 0.1, 10)
    assert p.pressure_solver == "paper"
    # Eq. 5: a hexagonal lattice at r_L holds gamma particles per a0^2
    assert math.isclose(math.sqrt(3) / 2 * p.r_l**2 * p.gamma, p.a0**2)


def test_game_preset_is_stable_at_60hz():
    p = FluidParams.game(640.0, 360.0)
    assert p.dt == pytest.approx(1 / 60) and p.substeps >= 2
    g = math.hypot(*p.gravity)
    assert g * p.h**2 / p.a0 < 0.01  # the paper's dimensionless step is ~0.0098
    fs = FluidSystem(p)
    fs.fill_rect(0, 0, 200, 200)
    y0 = fs.positions[:, 1].mean()
    fs.step(120)
    assert np.isfinite(fs.positions).all()
    assert fs.positions[:, 1].mean() < y0 - 20  # the column has collapsed
    # no energy from nowhere: nothing is faster than a free fall from the top of the box
    assert np.linalg.norm(fs.velocities, axis=1).max() < math.sqrt(2 * g * p.height)


def test_the_game_preset_cells_divide_the_width():
    """a0 is 10 where the width is a whole number of 10-unit cells, else the nearest size that
    divides it; an a0 given is kept, and widths under two cells are left to validation."""
    assert FluidParams.game(320.0, 200.0).a0 == 10.0
    assert FluidParams.game(1280.0, 720.0).a0 == 10.0
    assert FluidParams.game(314.0, 200.0).a0 == pytest.approx(314.0 / 31.0)
    assert FluidParams.game(1024.0, 768.0).a0 == pytest.approx(1024.0 / 102.0)
    assert FluidParams.game(314.0, 200.0, a0=10.0).a0 == 10.0
    with pytest.raises(ValueError, match="at least 2 cells"):
        FluidParams.game(12.0, 200.0)
