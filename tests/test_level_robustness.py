"""Level code that is wrong is caught where it is written: errors in a level's systems, bad
actions, keys, materials and metadata, helper modules beside a level file, removed bodies in a
trigger. Runs without GL."""

from __future__ import annotations

import math
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymunk
import pytest

from fluidworld.levels import Level, LevelError, LevelSession
from fluidworld.levels.scripting import KEY_NAMES, Circle, Rect, Trigger, count_fluid


class Empty(Level):
    """A small empty box: the cheapest world to script against."""

    title = "empty"
    width = 200.0
    height = 150.0

    def build(self, world: Any) -> None:
        pass


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def running(cls: type[Level]) -> Level:
    s = LevelSession(cls)
    assert s.error is None and s.level is not None, s.error
    return s.level


# ------------------------------------------------------------------ errors inside world.step()
SYSTEM_RAISES = '''
from fluidworld.levels import Level


class Stirred(Level):
    width = 200.0
    height = 150.0

    def build(self, world):
        world.add_fluid_rect(0, 0, 200, 30)
        world.add_system(self.stir, after="external_forces")
        self.updates = 0

    def stir(self, world, h):
        if world.steps >= 3:
            raise RuntimeError("boom in my system")

    def update(self, world, dt):
        self.updates += 1
'''


def test_an_error_in_a_level_system_is_contained_like_one_in_update(tmp_path: Path) -> None:
    f = write(tmp_path / "stirred.py", SYSTEM_RAISES)
    s = LevelSession(str(f))
    assert s.error is None
    for _ in range(10):
        s.step()  # raised out of the session (and crashed the play window) before
    assert isinstance(s.error, LevelError) and s.scripts_stopped
    assert Path(s.error.path or "").resolve() == f.resolve()
    assert s.error.line == line_of(f, 'raise RuntimeError("boom in my system")')
    assert "RuntimeError: boom in my system" in str(s.error)
    level = s.level
    assert level is not None and level.updates == 3  # scripts stopped at the failing step
    assert [sys_.enabled for sys_ in s.world.systems] == [False]  # the system is off too
    assert not s.paused and s.world.steps == 9  # the physics went on without it
    assert s.step() and s.world.steps == 10
    assert s.reset() and s.error is None and s.world.systems[0].enabled


def test_a_library_error_in_the_step_pauses_instead_of_repeating_every_frame() -> None:
    class Broken(Empty):
        def build(self, world: Any) -> None:
            self.crate = world.add_box((100, 100), (20, 20), density=0.5)

        def update(self, world: Any, dt: float) -> None:
            if self.steps == 2:
                self.crate.body.position = (math.nan, math.nan)

    s = LevelSession(Broken)
    for _ in range(4):
        s.step()
    assert s.error is not None and s.scripts_stopped and s.paused
    assert s.step() is False  # paused: the player steps on (N) or reloads
    assert s.step(force=True) is False and s.error is not None  # still contained
    assert s.reset() and s.error is None


# ----------------------------------------------------------------------------- materials
def oil_level(**kw: Any) -> type[Level]:
    class Oily(Empty):
        def build(self, world: Any) -> None:
            world.add_fluid_rect(0, 0, 200, 20, material="oil")
            self.fired: list[int] = []
            self.trig = self.trigger((0, 0, 200, 40), lambda w: self.fired.append(self.steps),
                                     min_count=10, **kw)
            self.fill = self.fill_goal((0, 0, 200, 40), 10, hold=0.0, **kw)

    return Oily


@pytest.mark.parametrize("material", ["oil", 2])
def test_trigger_and_fill_goal_take_a_material_by_name_or_id(material: Any) -> None:
    s = LevelSession(oil_level(material=material))
    assert s.error is None
    for _ in range(2):
        s.step()
    level: Any = s.level
    assert level.trig.material == 2 and level.fired == [1]  # a name never fired before
    assert level.fill.reached and level.won


@pytest.mark.parametrize("material", ["water", 0])
def test_trigger_and_fill_goal_count_only_their_material(material: Any) -> None:
    s = LevelSession(oil_level(material=material))
    for _ in range(2):
        s.step()
    level: Any = s.level
    assert level.fired == [] and not level.fill.reached


@pytest.mark.parametrize(("material", "error", "match"), [
    (99, ValueError, r"material must be in \[0, 3\], got 99"),
    ("lava2", ValueError, "material 'lava2' is unknown; have .*'oil'"),
    (1.5, TypeError, "material must be a name or an int id"),
])
def test_an_unknown_material_is_refused_at_the_call(material: Any, error: type[Exception],
                                                    match: str) -> None:
    level = running(Empty)
    with pytest.raises(error, match=match):
        level.trigger((0, 0, 10, 10), print, material=material)
    with pytest.raises(error, match=match):
        level.fill_goal((0, 0, 10, 10), 5, material=material)
    s = LevelSession(oil_level(material=material))  # in build: the level's error
    assert s.level is None and s.error is not None and "material" in s.error.summary


def test_a_trigger_made_without_a_world_resolves_its_material_where_it_counts() -> None:
    s = LevelSession(oil_level())
    world = s.world
    assert count_fluid(world, Trigger((0, 0, 200, 40), print).region, "oil") == \
        count_fluid(world, Trigger((0, 0, 200, 40), print).region, 2) > 0
    assert Trigger((0, 0, 200, 40), print, material="oil").count(world) > 0
    with pytest.raises(ValueError, match="unknown"):
        Trigger((0, 0, 200, 40), print, material="tar").count(world)
    with pytest.raises(TypeError, match="material must be"):
        Trigger((0, 0, 200, 40), print, material=[2])


# -------------------------------------------------------------------- actions and keys
@pytest.mark.parametrize(("call", "match"), [
    (lambda lv: lv.after(0.05, None), "action must be callable, got None"),
    (lambda lv: lv.every(0.5, None), "action must be callable, got None"),
    (lambda lv: lv.trigger((0, 0, 10, 10), None), "action must be callable, got None"),
    (lambda lv: lv.goal(None), "check must be callable, got None"),
    (lambda lv: lv.goal(lambda w: 1.0, on_reached=3), "on_reached must be callable, got 3"),
    (lambda lv: lv.fill_goal((0, 0, 10, 10), 5, on_reached="x"), "on_reached must be callable"),
    (lambda lv: lv.bind("G", None), "action must be callable, got None"),
])
def test_an_action_that_is_not_callable_is_refused_at_the_call(
        call: Callable[[Level], Any], match: str) -> None:
    level = running(Empty)
    with pytest.raises(TypeError, match=match):
        call(level)
    assert not (level.timers or level.triggers or level.goals or level.bindings)


CALLED_NOT_PASSED = '''
from fluidworld.levels import Level


class Gate(Level):
    width = 200.0
    height = 150.0

    def build(self, world):
        self.after(0.05, self.open_gate())

    def open_gate(self, world=None):
        self.say("open")
'''


def test_an_action_called_instead_of_passed_points_at_its_line(tmp_path: Path) -> None:
    f = write(tmp_path / "gate.py", CALLED_NOT_PASSED)
    s = LevelSession(str(f))
    assert s.level is None and s.error is not None
    assert s.error.line == line_of(f, "self.after(0.05, self.open_gate())")
    assert "not the result of calling it" in s.error.summary


@pytest.mark.parametrize(("key", "match"), [
    ("ESC", "did you mean 'ESCAPE'"),
    ("NOTAKEY", "not a key the play window delivers"),
    ("ctrl+g", "combinations with ctrl"),
    ("", "non-empty"),
])
def test_keys_the_play_window_never_delivers_are_refused(key: str, match: str) -> None:
    level = running(Empty)
    with pytest.raises(ValueError, match=match):
        level.bind(key, lambda w: None)
    assert level.bindings == {}


def test_key_names_are_the_keys_of_arcade() -> None:
    import arcade

    names = {n for n in dir(arcade.key) if isinstance(getattr(arcade.key, n), int)
             and not n.startswith(("MOD_", "MOTION_"))}
    assert names == KEY_NAMES
    level = running(Empty)
    for key in ("enter", "7", "F12", "num_5", "LEFT", "pageup"):
        level.bind(key, lambda w: None)
    assert set(level.bindings) == {"ENTER", "KEY_7", "F12", "NUM_5", "LEFT", "PAGEUP"}


# ------------------------------------------------------------------------------ metadata
META = '''
from fluidworld.levels import Level


class Meta(Level):
    width, height = 300.0, 200.0
    {line}

    def build(self, world):
        world.add_fluid_rect(0, 0, 100, 50)
'''


@pytest.mark.parametrize("line", [
    'background = "red"',
    "background = (1, 2)",
    "background = (0, 0, 300)",
    "camera = (0, 0, 0, 0)",
    "camera = (0, 0, 10)",
    "camera = (300, 200, 0, 0)",
    'camera = (0, 0, 10, float("nan"))',
    "window_size = (0, 0)",
    "window_size = (-100, 50)",
    "window_size = (640.5, 480)",
    "pour_material = 99",
    'pour_material = "tar"',
    "pour_material = None",
    'render_mode = "bogus"',
    'solver = "DDR"',
    "title = None",
    "width = 0",
    'height = "tall"',
    "gravity = (0.0,)",
    'fluid_params = "fast"',
    'fluid_params = {"substep": 3}',  # not a keyword of FluidParams.game
    'fluid_params = {"a0": -1}',
])
def test_bad_metadata_is_reported_at_its_line_before_anything_runs(tmp_path: Path,
                                                                   line: str) -> None:
    f = write(tmp_path / "meta.py", META.format(line=line))
    attribute = line.split(" =")[0]
    s = LevelSession(str(f))  # a ZeroDivisionError, an unpack or arcade error, or nothing
    assert s.level is None and isinstance(s.error, LevelError)
    assert Path(s.error.path or "").resolve() == f.resolve()
    assert s.error.line == line_of(f, line)
    assert f"Meta.{attribute} must be" in s.error.summary
    assert s.step()  # the empty world runs instead


def test_good_metadata_passes_and_bad_metadata_on_reload_keeps_the_old_level(
        tmp_path: Path) -> None:
    good = ('camera = (0, 0, 150, 100); window_size = (640, 480); background = (1, 2, 3); '
            'pour_material = "oil"')
    f = write(tmp_path / "meta.py", META.format(line=good))
    s = LevelSession(str(f))
    assert s.error is None and s.level is not None
    assert s.level.preferred_window_size() == (640, 480)
    write(f, META.format(line="camera = (10, 10, 10, 10)"))
    assert s.reload() is False and s.error is not None and "camera" in s.error.summary
    assert s.level.camera == (0, 0, 150, 100)  # the old level keeps running


def test_metadata_set_on_the_instance_points_at_the_assignment() -> None:
    class Late(Empty):
        def __init__(self) -> None:
            super().__init__()
            self.background = (0, 0, 0, 256)

    s = LevelSession(Late)
    assert s.level is None and s.error is not None
    assert "Late.background must be" in s.error.summary
    assert s.error.path == __file__
    assert s.error.line == line_of(Path(__file__), "self.background = (0, 0, 0, 256)")


# ------------------------------------------------------------------------- helper modules
HELPER = '''
def pool(world, depth):
    world.add_fluid_rect(0, 0, world.fluid.params.width, depth)
'''

USES_HELPER = '''
from fluidworld.levels import Level
from {module} import pool


class UsesHelper(Level):
    title = "{title}"
    width, height = 300.0, 200.0

    def build(self, world):
        pool(world, 50)
'''


def test_a_level_imports_the_modules_beside_it_and_reloads(tmp_path: Path,
                                                           monkeypatch: Any) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    module = "_fw_test_level_helpers"
    folder = tmp_path / "pkg"
    folder.mkdir()
    write(folder / f"{module}.py", HELPER)
    f = write(folder / "uses_helper.py", USES_HELPER.format(module=module, title="one"))
    monkeypatch.chdir(tmp_path)  # not the level's folder
    try:
        s = LevelSession(str(f))  # a ModuleNotFoundError before
        assert s.error is None and s.world.fluid.count > 0
        write(f, USES_HELPER.format(module=module, title="two"))
        assert s.reload() and s.reload() and s.title == "two"
        assert sys.path.count(str(folder.resolve())) == 1
    finally:
        sys.modules.pop(module, None)


# ------------------------------------------------------------------------ removed bodies
def test_a_removed_body_no_longer_counts_in_a_trigger() -> None:
    class Crates(Empty):
        def build(self, world: Any) -> None:
            self.crate = world.add_box((50, 50), (20, 20), density=0.5)
            self.raw = pymunk.Body(1.0, 100.0)
            self.raw.position = (60, 60)
            world.space.add(self.raw)
            self.hits: list[int] = []
            self.trig = self.trigger((0, 0, 100, 150), lambda w: self.hits.append(self.steps),
                                     bodies=[self.crate, self.raw], once=False, min_count=2)

    s = LevelSession(Crates)
    level: Any = s.level
    s.step()
    assert level.hits == [1] and level.trig.count(s.world) == 2
    s.world.remove(level.crate)  # was still counted at its last position
    s.world.space.remove(level.raw)
    assert level.trig.count(s.world) == 0
    s.step()
    assert level.hits == [1]


# ------------------------------------------------------------------ helpers checked at the call
def test_a_trigger_takes_one_body_alone_and_refuses_what_is_no_body() -> None:
    class One(Empty):
        def build(self, world: Any) -> None:
            self.crate = world.add_box((50, 50), (20, 20), density=0.5)
            self.trig = self.trigger((0, 0, 100, 150), lambda w: None, bodies=self.crate)

    level: Any = running(One)
    assert level.trig.bodies == [level.crate] and level.trig.count(level.world) == 1
    for bad, match in ((["crate"], r"bodies\[0\]"), ("crate", "bodies"), (3, "bodies")):
        with pytest.raises(TypeError, match=match):
            level.trigger((0, 0, 100, 150), lambda w: None, bodies=bad)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"color": "red"}, TypeError, "color"),
    ({"color": (255, 0, 300)}, ValueError, "color"),
    ({"width": -2.0}, ValueError, "width"),
    ({"a": (math.nan, 0.0)}, ValueError, r"a\[0\]"),
    ({"b": (1.0,)}, TypeError, "b"),
])
def test_a_guide_line_is_checked_where_it_is_drawn_from(kwargs: dict[str, Any],
                                                        error: type[Exception],
                                                        match: str) -> None:
    level = running(Empty)
    args: dict[str, Any] = {"a": (0.0, 10.0), "b": (100.0, 10.0), **kwargs}
    with pytest.raises(error, match=match):
        level.guide_line(**args)
    assert level.guides == []
    level.guide_line((0, 10), (100, 10), color=(255, 0, 0))
    assert level.guides == [((0.0, 10.0), (100.0, 10.0), (255, 0, 0, 255), 2.0)]


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: Circle(math.nan, 0.0, 5.0), ValueError, "Circle.cx"),
    (lambda: Circle(0.0, 0.0, "5"), TypeError, "Circle.radius"),
    (lambda: Rect("a", 0.0, 1.0, 1.0), TypeError, "Rect.x0"),
])
def test_regions_name_the_bad_coordinate(make: Callable[[], Any], error: type[Exception],
                                         match: str) -> None:
    with pytest.raises(error, match=match):
        make()


def test_a_goal_message_must_be_text() -> None:
    level = running(Empty)
    with pytest.raises(TypeError, match="message"):
        level.goal(lambda w: True, message=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hold"):
        level.goal(lambda w: True, hold="1")  # type: ignore[arg-type]
