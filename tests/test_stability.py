"""Rest and stability (``fluidworld.fidelity.stability``): the angle at which a square log
floats against the theory of its centre of buoyancy, how still a pool at rest stays, and the
kernel density that measures compression."""

from __future__ import annotations

import numpy as np
import pytest

from fluidworld import World
from fluidworld.fidelity import stability as S
from fluidworld.fluid import FluidParams
from fluidworld.fluid.params import wall_contact


def test_square_log_theory() -> None:
    """Flat below (3 - sqrt 3) / 6 = 0.211 and above 0.789, corner down in the middle, tilted
    between; the same for ``d`` and ``1 - d`` (the square turned over)."""
    assert S.square_log_theory(0.15) == 0.0
    assert S.square_log_theory(0.85) == 0.0
    assert S.square_log_theory(0.5) == 45.0
    assert 5.0 < S.square_log_theory(0.23) < 40.0
    for d in (0.1, 0.22, 0.25, 0.3, 0.45):
        assert S.square_log_theory(d) == pytest.approx(S.square_log_theory(1.0 - d), abs=0.2)
    with pytest.raises(ValueError, match="density"):
        S.square_log_theory(1.0)


@pytest.mark.parametrize("density", [0.15, 0.5, 0.85])
def test_a_square_log_floats_at_the_angle_theory_gives(density: float) -> None:
    """Started 5 degrees off flat: at 0.15 and 0.85 it rights itself, at 0.5 it turns corner
    down (45). A buoyancy with the right force but no righting moment would leave it at 5."""
    theory = S.square_log_theory(density)
    assert abs(S.square_log_angle(density) - theory) <= 10.0


def test_a_shallow_pool_at_rest_stays_at_rest() -> None:
    """50 deep. (Until fluid particles repelled within 0.9 r_L instead of r_L, 2026-11-28, it
    jiggled at 1.3 % of sqrt(g d): the repulsion and the density correction fought every
    substep; 0.73 % since, 300 wide.)"""
    assert S.rest_speed(50.0) < 0.01


@pytest.mark.parametrize(("width", "depth"),
                         [(300.0, 30.0), (200.0, 30.0), (100.0, 50.0), (100.0, 30.0),
                          (300.0, 20.0), (100.0, 20.0)])
def test_shallow_and_narrow_pools_rest(width: float, depth: float) -> None:
    """A probe found these at 1.31 / 1.20 / 1.37 / 1.78 % of sqrt(g d) (2026-11-29); water's
    sub-cell damping 0.3 (``params.WATER_DAMPING``, was 0.05) took them to 0.64 / 0.78 / 0.78 /
    1.13 %, and the floor's contact following the fluid (``params.wall_contact``) to ~0.1 %
    (300 x 30 0.08 %, 100 x 30 0.09 %). 20 deep, five rows of particles with the fifth on a
    cell edge, stayed at 1.6 / 2.0 % until a floor row's sparse test spanned three rows of
    fluid (``pressure_converged.converged_rhs``; 0.00 % since)."""
    assert S.rest_speed(depth, width=width) < 0.01


def test_a_deep_pool_at_rest_stays_at_rest() -> None:
    assert S.rest_speed(100.0) < 0.01


def test_a_pool_rests_whatever_the_width() -> None:
    """A world not a whole number of 10-unit cells wide (31.4): the game preset takes the cell
    size that divides it (10.13), and the pool rests as a 320-wide one does. (With a0 = 10 the
    last column of cells, cut by the wall, held a particle or two and the density correction
    kept the pool circulating at 2.6-2.9 % of sqrt(g d); 1024 wide, 1.04 %, now 0.45 %.)"""
    assert World(314.0, 200.0).fluid.params.a0 == pytest.approx(314.0 / 31.0)
    assert S.rest_speed(100.0, width=314.0) < 0.01


def test_a_shallow_pool_of_one_material_is_calm() -> None:
    """30 deep, 160 wide: the floor's full inelastic contact (the default until 2026-11-29,
    ``wall_inelastic=1``) jiggled it at 1.18 % of sqrt(g d); the default now leaves the rows on
    the floor their gravity kick in a fluid of one material: measured 0.24 % (with water's
    damping 0.05; 300 x 30 with 0.3: 0.08 %)."""
    calm = S.rest_speed(30.0, width=160.0)
    assert calm < 0.01
    assert calm < 0.5 * S.rest_speed(30.0, width=160.0, wall_inelastic=1.0)


def test_the_walls_contact_follows_the_fluid_unless_set() -> None:
    """Where materials differ a still solid removes all of a particle's speed into it (the
    floor's kicks start an unstable layering's overturn); in one material the speed beyond the
    substep's gravity kick; a set ``wall_inelastic`` is that share of all of it."""
    game = FluidParams.game(200, 100)
    h = game.h
    assert game.wall_inelastic is None and FluidParams.paper().wall_inelastic == 1.0
    assert wall_contact(game, layered=True, h=h) == (1.0, 0.0, 0.0)
    assert wall_contact(game, layered=False, h=h) == pytest.approx((1.0, 0.0, -900.0 * h))
    assert wall_contact(FluidParams.game(200, 100, wall_inelastic=0.25), False, h) == (
        0.25, 0.0, 0.0)


def _lattice(spacing: float, shift: float) -> np.ndarray:
    rows = []
    for j in range(40):
        xs = np.arange(40) * spacing + (0.5 * spacing if j % 2 else 0.0) + 1.0
        rows.append(np.column_stack([xs, np.full(40, j * spacing * np.sqrt(3) / 2 + shift)]))
    return np.concatenate(rows)


def test_the_kernel_density_does_not_alias_a_lattice() -> None:
    """A hexagonal lattice's interior particles all count the same, wherever its rows fall
    (the pressure cells' count of the same lattice swings with the rows against the cells), and
    a lattice squeezed by 5 % in height counts ~5 % more."""
    a = _lattice(4.8, 1.0)
    inner = lambda x: (x[:, 0] > 30) & (x[:, 0] < 160) & (x[:, 1] > 30) & (x[:, 1] < 130)  # noqa: E731
    for shift in (1.0, 2.3, 3.9):
        b = _lattice(4.8, shift)
        rho = S.kernel_density(b, 12.0)[inner(b)]
        assert np.ptp(rho) < 1e-9
        assert rho.mean() == pytest.approx(S.kernel_density(a, 12.0)[inner(a)].mean(), rel=1e-9)
    squeezed = a * np.array([1.0, 0.95])
    ratio = S.kernel_density(squeezed, 12.0)[inner(squeezed)].mean() / S.kernel_density(
        a, 12.0)[inner(a)].mean()
    assert 1.04 < ratio < 1.06


@pytest.mark.parametrize(("positions", "radius", "match"), [
    (np.zeros((3, 2)), 0.0, "radius"),
    (np.zeros((3, 2)), float("nan"), "radius"),
    (np.zeros((3, 3)), 1.0, "positions"),
    (np.array([[1.0, float("inf")]]), 1.0, "positions"),
    (np.array([[-1.0, 0.0]]), 1.0, "positions"),
])
def test_the_kernel_density_rejects_bad_input(positions: np.ndarray, radius: float,
                                              match: str) -> None:
    with pytest.raises(ValueError, match=match):
        S.kernel_density(positions, radius)


def test_the_compression_of_too_little_fluid_is_refused() -> None:
    w = World(200.0, 100.0)
    with pytest.raises(ValueError, match="no fluid"):
        S.bottom_compression(w)
    w.add_fluid_rect(0.0, 0.0, 200.0, 20.0)
    with pytest.raises(ValueError, match="too shallow"):
        S.bottom_compression(w)
    with pytest.raises(ValueError, match="spacings"):
        S.bottom_compression(w, spacings=0.0)
