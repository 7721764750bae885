"""Rest and stability (``fluidworld.fidelity.stability``): the angle at which a square log
floats against the theory of its centre of buoyancy, and how still a pool at rest stays."""

from __future__ import annotations

import pytest

from fluidworld.fidelity import stability as S


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


def test_a_deep_pool_at_rest_stays_at_rest() -> None:
    assert S.rest_speed(100.0) < 0.01
