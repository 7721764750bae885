"""Property-based tests of the World's public helpers: whatever a script passes, the call either
works or raises the documented ValueError/TypeError naming the argument, and the world then
steps without NaN, escapes or lost particles (never a crash inside a kernel or chipmunk)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fluidworld import World
from fluidworld.fluid import FluidParams

W, H = 120.0, 90.0
EXAMPLES = settings(max_examples=200, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

# numbers a script may pass: ordinary, huge, tiny, negative, NaN/inf, and wrong types
num = st.one_of(
    st.floats(-200, 300, allow_nan=False),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e-9, 1e9, -1e9, 1, 2]),
)
bad_type = st.sampled_from([None, "3", [1, 2], True, object()])
anything = st.one_of(num, num, num, bad_type)
point = st.one_of(st.tuples(num, num), st.tuples(num), st.tuples(num, num, num), bad_type)
NAMED = ("position", "size", "radius", "density", "angle", "friction", "elasticity", "a", "b",
         "vertices", "rect", "center", "spacing", "material", "velocity", "direction", "speed",
         "rate", "width", "x0", "y0", "x1", "y1", "(x0, y0)", "(x1, y1)", "dt")


def world() -> World:
    w = World(W, H, params=FluidParams.game(W, H))
    w.add_fluid_rect(0, 0, W, 30)
    return w


def healthy_after_steps(w: World, steps: int = 3) -> None:
    for _ in range(steps):
        w.step()
    c = w.check()
    assert c.nan == 0 and c.outside == 0 and c.bodies_nan == 0, c
    assert w.fluid.count == w.particles_added - w.particles_removed  # nothing lost


def call_or_refuse(fn: Any, *args: Any, **kw: Any) -> bool:
    """True if the call worked; a refusal must be a ValueError/TypeError naming an argument."""
    try:
        fn(*args, **kw)
        return True
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        assert any(name in msg for name in NAMED), f"unhelpful message: {msg!r}"
        return False


@EXAMPLES
@given(pos=point, size=point, density=anything, angle=anything, radius=anything,
       friction=anything, elasticity=anything)
def test_add_box(pos, size, density, angle, radius, friction, elasticity) -> None:
    w = world()
    call_or_refuse(w.add_box, pos, size, density=density, angle=angle, radius=radius,
                   friction=friction, elasticity=elasticity)
    healthy_after_steps(w)


@EXAMPLES
@given(pos=point, radius=anything, density=anything, friction=anything, elasticity=anything)
def test_add_ball(pos, radius, density, friction, elasticity) -> None:
    w = world()
    call_or_refuse(w.add_ball, pos, radius, density=density, friction=friction,
                   elasticity=elasticity)
    healthy_after_steps(w)


@EXAMPLES
@given(a=point, b=point, radius=anything, friction=anything)
def test_add_static_segment(a, b, radius, friction) -> None:
    w = world()
    call_or_refuse(w.add_static_segment, a, b, radius=radius, friction=friction)
    healthy_after_steps(w)


@EXAMPLES
@given(verts=st.one_of(st.lists(st.tuples(num, num), min_size=0, max_size=6), bad_type),
       radius=anything, density=anything, pos=point)
def test_polygons(verts, radius, density, pos) -> None:
    w = world()
    call_or_refuse(w.add_static_poly, verts, radius=radius)
    call_or_refuse(w.add_poly, pos, verts, density=density, radius=radius)
    healthy_after_steps(w)


@EXAMPLES
@given(x0=anything, y0=anything, x1=anything, y1=anything, spacing=st.one_of(st.none(), anything),
       material=st.one_of(st.sampled_from([0, 1, 2, 3, 4, -1, "oil", "lava", 2.5]), bad_type),
       velocity=point)
def test_fluid_fills(x0, y0, x1, y1, spacing, material, velocity) -> None:
    w = world()
    call_or_refuse(w.add_fluid_rect, x0, y0, x1, y1, material=material, spacing=spacing,
                   velocity=velocity)
    call_or_refuse(w.add_fluid_circle, (x0, y0), x1, material=material, spacing=spacing)
    healthy_after_steps(w)


@EXAMPLES
@given(pos=point, direction=point, speed=anything, rate=anything, width=st.one_of(st.none(), num),
       rect=st.one_of(st.tuples(num, num, num, num), bad_type))
def test_emitters_and_drains(pos, direction, speed, rate, width, rect) -> None:
    w = world()
    call_or_refuse(w.add_emitter, pos, direction, speed=speed, rate=rate, width=width)
    call_or_refuse(w.add_drain, rect)
    healthy_after_steps(w, steps=4)


@EXAMPLES
@given(dt=anything)
def test_step_dt(dt) -> None:
    w = world()
    n = w.fluid.count
    if call_or_refuse(w.step, dt):
        c = w.check()
        assert c.nan == 0 and c.outside == 0
    assert w.fluid.count == n
    assert not any(math.isnan(x) for x in w.fluid.positions.ravel())


@pytest.mark.parametrize("frac", [0.0, 1.0])
def test_examples_cover_a_working_and_a_refused_call(frac: float) -> None:
    """The strategies reach both outcomes (else the suites above test little)."""
    w = world()
    assert call_or_refuse(w.add_box, (60, 60), (10, 10), density=0.5 + frac)
    assert not call_or_refuse(w.add_box, (60, 60), (10, -1))
