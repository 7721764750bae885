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


# Known failure (measured 2026-11-27): SRD water at rest jiggles at 1.3 % of sqrt(g d) 50 deep,
# 2.3 % 30 deep and 3.6 % 20 deep (0.65 % at 100 deep). The speed is in the rows that touch the
# floor (5-6 units/s there, ~1 above): the solid particles' inelastic contact removes the
# gravity kick that the pressure stage removes again, so the bottom row is pushed up every
# substep. Without that contact the 50-deep pool rests at 0.6 %, but water's SRD viscosity drops
# from ~1,670 to ~1,000 and the oil-under-water overturn from 0.95 to 0.91: not changed yet
# (docs/architecture.md).
@pytest.mark.xfail(strict=True, reason="shallow SRD pools jiggle at the floor above 1 % of "
                   "sqrt(g d)")
def test_a_shallow_pool_at_rest_stays_at_rest() -> None:
    assert S.rest_speed(50.0) < 0.01


def test_a_deep_pool_at_rest_stays_at_rest() -> None:
    assert S.rest_speed(100.0) < 0.01
