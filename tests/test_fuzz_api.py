"""Property-based tests of the Level scripting API, the parameter dataclasses and the command
line: any value a script or a user types is either accepted or refused at the call with a
ValueError/TypeError naming the argument (argparse's usage error for the CLI) -- never a crash
later, a NaN timer that silently never fires, or a traceback."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fluidworld import Material, World
from fluidworld.coupling import CouplingParams
from fluidworld.fluid import FluidParams
from fluidworld.levels import Level

EXAMPLES = settings(max_examples=200, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

num = st.one_of(
    st.floats(-50, 50, allow_nan=False),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e-9, 1e9, 1, 2]),
)
bad_type = st.sampled_from([None, "3", [1, 2], True, object()])
anything = st.one_of(num, num, bad_type)
region = st.one_of(st.tuples(num, num, num, num), st.tuples(num, num), bad_type)


def refused_by_name(exc: Exception, *names: str) -> None:
    msg = str(exc)
    assert any(n in msg for n in names), f"unhelpful message: {msg!r}"


class Empty(Level):
    width, height = 120.0, 90.0

    def build(self, world: World) -> None:
        world.add_fluid_rect(0, 0, 120, 30)


@pytest.fixture(scope="module")
def level() -> Level:
    lv = Empty()
    lv.start(World(120.0, 90.0, params=FluidParams.game(120.0, 90.0)))
    return lv


def _ok(world: World) -> None:
    pass


@EXAMPLES
@given(seconds=anything)
def test_after_and_every(level: Level, seconds: Any) -> None:
    for fn, name in ((level.after, "seconds"), (level.every, "seconds")):
        try:
            timer = fn(seconds, _ok)
        except (ValueError, TypeError) as exc:
            refused_by_name(exc, name)
            continue
        assert math.isfinite(timer.at)
        assert timer.every is None or timer.every > 0
        level.timers.remove(timer)


@EXAMPLES
@given(text=st.one_of(st.text(max_size=30), bad_type), seconds=anything)
def test_say(level: Level, text: Any, seconds: Any) -> None:
    try:
        msg = level.say(text, seconds)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, "text", "seconds")
        return
    assert isinstance(msg.text, str) and not math.isnan(msg.until)
    level.messages.remove(msg)


@EXAMPLES
@given(where=region, min_count=anything)
def test_trigger_and_drain_and_fill_goal(level: Level, where: Any, min_count: Any) -> None:
    try:
        trig = level.trigger(where, _ok, min_count=min_count)
        level.triggers.remove(trig)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, "region", "min_count")
    try:
        goal = level.fill_goal(where, min_count)
        level.goals.remove(goal)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, "region", "particles")
    world = level.world
    assert world is not None
    try:
        drain = level.drain(where)
        world.remove(drain)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, "region", "rect", "x0", "y0", "x1", "y1")


@EXAMPLES
@given(key=st.one_of(st.text(max_size=6), bad_type))
def test_bind(level: Level, key: Any) -> None:
    try:
        level.bind(key, _ok)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, "key")
    level.bindings.clear()


@EXAMPLES
@given(st.dictionaries(st.sampled_from(["a0", "gamma", "dt", "substeps", "gravity", "seed",
                                        "repulsion_iterations", "pressure_iterations",
                                        "repulsion_dv", "width", "height",
                                        "wall_inelastic"]),
                       st.one_of(anything, st.tuples(num, num)), max_size=3))
def test_fluid_params(changes: dict[str, Any]) -> None:
    try:
        FluidParams.game(120.0, 90.0, **changes)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, *changes)


@EXAMPLES
@given(st.dictionaries(st.sampled_from(["density", "viscosity", "srd_alpha", "restitution",
                                        "adhesion", "wall_mode", "mix_group", "color"]),
                       st.one_of(anything, st.text(max_size=5)), max_size=3))
def test_material(changes: dict[str, Any]) -> None:
    try:
        Material("m", **changes)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, *changes)


@EXAMPLES
@given(st.dictionaries(st.sampled_from(["drag", "interior_spacing", "level_columns",
                                        "pressure_push", "buoyancy"]), anything, max_size=3))
def test_coupling_params(changes: dict[str, Any]) -> None:
    try:
        CouplingParams(**changes)
    except (ValueError, TypeError) as exc:
        refused_by_name(exc, *changes)


cli_value = st.one_of(st.text(max_size=8), st.sampled_from(["-1", "0", "1e9", "nan", "3x",
                                                            "10x10", "0x5", "x", ""]))


@EXAMPLES
@given(option=st.sampled_from(["--frames", "--steps-per-frame", "--warmup", "--size",
                               "--mode", "--solver"]), value=cli_value)
def test_cli_render_options(option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad option values end in argparse's usage error (exit status 2, one line naming the
    option), never a traceback; good ones parse."""
    from fluidworld.cli import build_parser

    parser = build_parser()
    try:
        parser.parse_args(["render", "dam_break", "--out", "x.png", option, value])
    except SystemExit as exc:
        assert exc.code == 2
        err = capsys.readouterr().err
        assert option in err and "Traceback" not in err
