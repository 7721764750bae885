"""Level API: scripted timers, triggers, goals, keys; drains and emitters; loading, errors and
hot reload. Runs without GL (``fluidworld.levels`` does not import arcade)."""

from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fluidworld.levels import (
    RESERVED_KEYS,
    Circle,
    FillGoal,
    Level,
    LevelError,
    LevelSession,
    Rect,
    builtin_levels,
    load_level,
    resolve_level,
)
from fluidworld.levels.scripting import Timer, normalize_key

DT = 1.0 / 60.0


class Empty(Level):
    """A small empty box: the cheapest world to script against."""

    title = "empty"
    width = 200.0
    height = 150.0

    def build(self, world: Any) -> None:
        pass


def session_of(cls: type[Level]) -> LevelSession:
    s = LevelSession(cls)
    assert s.error is None, s.error
    return s


# --------------------------------------------------------------------------------- timers
def test_timer_fires_once_at_the_right_step() -> None:
    fired: list[int] = []

    class Timed(Empty):
        def build(self, world: Any) -> None:
            self.after(0.5, lambda w: fired.append(self.steps))

    s = session_of(Timed)
    for _ in range(90):
        s.step()
    assert fired == [30]  # 0.5 s at 60 Hz: the 30th step, exactly once


def test_repeating_timer_keeps_its_schedule_and_can_be_cancelled() -> None:
    fired: list[int] = []

    class Ticking(Empty):
        def build(self, world: Any) -> None:
            self.tick = self.every(0.25, lambda w: fired.append(self.steps))

    s = session_of(Ticking)
    for _ in range(61):
        s.step()
    assert fired == [15, 30, 45, 60]
    level = s.level
    assert isinstance(level, Ticking)
    level.tick.cancel()
    for _ in range(30):
        s.step()
    assert fired == [15, 30, 45, 60]


def test_timer_created_later_counts_from_now_and_validates() -> None:
    fired: list[int] = []

    class Later(Empty):
        def update(self, world: Any, dt: float) -> None:
            if self.steps == 10:
                self.after(0.1, lambda w: fired.append(self.steps))

    s = session_of(Later)
    for _ in range(30):
        s.step()
    assert fired == [16]
    with pytest.raises(ValueError, match=">= 0"):
        Timer(-1.0, lambda w: None)
    with pytest.raises(ValueError, match="period"):
        Timer(0.0, lambda w: None, every=0.0)


# ------------------------------------------------------------------------------- triggers
def test_body_trigger_fires_once_on_the_first_step_the_body_is_inside() -> None:
    region = Rect(60, 0, 140, 60)

    class Drop(Empty):
        def build(self, world: Any) -> None:
            self.ball = world.add_ball((100, 130), 8, density=0.5)
            self.hits: list[int] = []
            self.trig = self.trigger(region, lambda w: self.hits.append(self.steps),
                                     bodies=[self.ball])

    s = session_of(Drop)
    level = s.level
    assert isinstance(level, Drop)
    first_inside = None
    for _ in range(120):
        s.step()
        y = level.ball.body.position.y
        if first_inside is None and region.contains([(100.0, y)])[0]:
            first_inside = level.steps
    assert first_inside is not None
    assert level.hits == [first_inside]
    assert level.trig.fired == 1 and level.trig.step_fired == first_inside
    assert level.trig not in level.triggers  # a one-shot trigger retires


def test_fluid_trigger_counts_particles_of_a_material() -> None:
    class Fill(Empty):
        def build(self, world: Any) -> None:
            self.fired: list[int] = []
            self.faucet((100, 140), speed=50.0, rate=300.0, material=1)
            self.trigger((0, 0, 200, 40), lambda w: self.fired.append(self.steps),
                         material=1, min_count=20)
            self.trigger((0, 0, 200, 40), lambda w: self.fired.append(-1), material=0)

    s = session_of(Fill)
    level = s.level
    assert isinstance(level, Fill)
    first = None
    for _ in range(90):
        s.step()
        pos = s.world.fluid.positions
        mats = s.world.fluid.materials
        n = int(np.count_nonzero(Rect(0, 0, 200, 40).contains(pos) & (mats == 1)))
        if first is None and n >= 20:
            first = level.steps
    assert first is not None and level.fired == [first]


def test_repeatable_trigger_fires_on_each_entry() -> None:
    calls: list[int] = []

    class Enter(Empty):
        def build(self, world: Any) -> None:
            self.box = world.add_box((30, 30), (10, 10), density=0.5)
            self.trigger(Circle(150, 30, 20), lambda w: calls.append(self.steps),
                         bodies=[self.box], once=False)

    s = session_of(Enter)
    level = s.level
    assert isinstance(level, Enter)
    body = level.box.body
    for x in (30, 150, 150, 30, 150):  # in, stay, out, in again
        body.position = (x, 30)
        body.velocity = (0, 0)
        s.step()
    assert len(calls) == 2


def test_regions_validate() -> None:
    with pytest.raises(ValueError, match="empty region"):
        Rect(10, 0, 5, 5)
    with pytest.raises(ValueError, match="radius"):
        Circle(0, 0, -1)
    assert normalize_key(" f5 ") == "F5" and normalize_key("2") == "KEY_2"


# --------------------------------------------------------------------------- drains, emitters
def test_drain_counter_equals_the_particles_it_removed() -> None:
    class Sink(Empty):
        def build(self, world: Any) -> None:
            world.add_fluid_rect(0, 0, 200, 60)
            self.sink = self.drain((0, 0, 30, 150))

    s = session_of(Sink)
    level = s.level
    assert isinstance(level, Sink)
    removed = 0
    events = 0
    for _ in range(60):
        before = s.world.fluid.count
        s.step()
        removed += before - s.world.fluid.count
        events += sum(e.count for e in s.world.poll_events() if hasattr(e, "drain_id"))
    assert removed > 50
    assert level.sink.removed == removed == events


@pytest.mark.parametrize(("rate", "steps"), [(90.0, 60), (37.5, 120), (1000.0, 7)])
def test_emitter_adds_exactly_rate_times_time(rate: float, steps: int) -> None:
    class Tap(Empty):
        def build(self, world: Any) -> None:
            self.tap = self.faucet((100, 140), (1.0, -1.0), speed=80.0, rate=rate)

    s = session_of(Tap)
    for _ in range(steps):
        s.step()
    expected = math.floor(rate * steps * DT + 1e-9)
    level = s.level
    assert isinstance(level, Tap)
    assert s.world.fluid.count == level.tap.emitted == expected
    assert np.isfinite(s.world.fluid.positions).all()


# ----------------------------------------------------------------------------- goals, keys
def test_fill_goal_needs_the_level_held_then_says_the_win_message() -> None:
    class Bucket(Empty):
        def build(self, world: Any) -> None:
            self.g = self.fill_goal((0, 0, 200, 50), 200, "Full!", hold=0.25)

        def update(self, world: Any, dt: float) -> None:
            if self.steps == 5:
                world.add_fluid_rect(0, 0, 200, 40)

    s = session_of(Bucket)
    level = s.level
    assert isinstance(level, Bucket)
    for _ in range(40):
        s.step()
    assert level.g.reached and level.won
    assert 6 + 15 - 1 <= level.g.step_reached <= 6 + 15  # full from step 6, held 0.25 s
    assert any(m.text == "Full!" and m.big for m in level.messages)
    assert FillGoal.particles_to_fill(s.world, 1000.0, 1.0) == 50  # a0=10, gamma=5


def test_key_bindings_call_the_action_and_reserved_keys_are_refused() -> None:
    presses: list[str] = []

    class Keys(Empty):
        help = "level help"

        def build(self, world: Any) -> None:
            self.bind("g", lambda w: presses.append("g"), "open the gate")

    s = session_of(Keys)
    assert s.press("G") and presses == ["g"]
    assert not s.press("Q")
    level = s.level
    assert level is not None and level.key_help == "G: open the gate"
    for key in ("SPACE", "r", "f5"):
        assert normalize_key(key) in RESERVED_KEYS
        with pytest.raises(ValueError, match="player controls"):
            level.bind(key, lambda w: None)


def test_metadata_drives_the_world_parameters() -> None:
    class Tall(Empty):
        width = 300.0
        height = 400.0
        gravity = (0.0, -500.0)
        fluid_params = {"substeps": 3}
        camera = (0.0, 0.0, 300.0, 200.0)

    s = session_of(Tall)
    p = s.world.fluid.params
    assert (p.width, p.height, p.gravity, p.substeps) == (300.0, 400.0, (0.0, -500.0), 3)
    level = s.level
    assert level is not None
    assert level.preferred_window_size((1200, 600)) == (900, 600)


# ----------------------------------------------------------------------------- loading
GOOD = '''
"""A test level."""
from fluidworld.levels import Level


class Small(Level):
    title = "Small {n}"
    width = 200.0
    height = 150.0

    def build(self, world):
        world.add_fluid_rect(0, 0, 200, {depth})
'''

SYNTAX_ERROR = '''
from fluidworld.levels import Level


class Broken(Level):
    def build(self, world)
        pass
'''

BUILD_RAISES = '''
from fluidworld.levels import Level


class Raises(Level):
    width = 200.0
    height = 150.0

    def build(self, world):
        world.add_fluid_rect(0, 0, 200, 20)
        raise RuntimeError("broken build")
'''

UPDATE_RAISES = '''
from fluidworld.levels import Level


class Later(Level):
    width = 200.0
    height = 150.0

    def build(self, world):
        world.add_fluid_rect(0, 0, 200, 20)

    def update(self, world, dt):
        if self.steps == 3:
            return 1 / 0
'''


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_syntax_error_names_file_and_line_then_reload_after_fix(tmp_path: Path) -> None:
    f = write(tmp_path / "lvl.py", GOOD.format(n=1, depth=30))
    s = LevelSession(str(f))
    assert s.error is None and s.title == "Small 1"
    n_good = s.world.fluid.count
    world_before = s.world

    write(f, SYNTAX_ERROR)
    assert s.reload() is False
    assert s.error is not None
    assert s.error.path is not None and Path(s.error.path).resolve() == f.resolve()
    assert s.error.line == line_of(f, "def build(self, world)")
    assert "SyntaxError" in str(s.error) and f"lvl.py:{s.error.line}" in str(s.error)
    assert s.world is world_before  # the old level keeps running
    for _ in range(5):
        assert s.step()
    assert s.world.fluid.count == n_good

    write(f, GOOD.format(n=2, depth=60))
    assert s.reload() is True
    assert s.error is None and s.title == "Small 2"
    assert s.world is not world_before and s.world.fluid.count > n_good


def test_build_error_names_the_raising_line_and_the_loop_keeps_running(tmp_path: Path) -> None:
    f = write(tmp_path / "raises.py", BUILD_RAISES)
    s = LevelSession(str(f))  # the first load fails: an empty world runs instead
    assert s.level is None and s.error is not None
    assert Path(s.error.path or "").resolve() == f.resolve()
    assert s.error.line == line_of(f, 'raise RuntimeError("broken build")')
    assert "RuntimeError: broken build" in s.error.summary
    assert "Traceback" in s.error.details
    for _ in range(3):
        assert s.step()
    write(f, GOOD.format(n=3, depth=30))
    assert s.reload() and s.level is not None and s.error is None


def test_update_error_stops_the_scripts_not_the_physics(tmp_path: Path) -> None:
    f = write(tmp_path / "later.py", UPDATE_RAISES)
    s = LevelSession(str(f))
    assert s.error is None
    for _ in range(10):
        assert s.step()
    assert s.error is not None and s.scripts_stopped
    assert s.error.line == line_of(f, "return 1 / 0")
    assert "ZeroDivisionError" in str(s.error)
    assert s.world.steps == 10 and s.level is not None and s.level.steps == 3
    assert s.reset() and s.error is None and not s.scripts_stopped


def test_file_change_detection_for_watch_mode(tmp_path: Path) -> None:
    f = write(tmp_path / "w.py", GOOD.format(n=1, depth=20))
    s = LevelSession(str(f))
    assert not s.file_changed()
    write(f, GOOD.format(n=9, depth=20))
    import os

    st = f.stat()
    os.utime(f, (st.st_atime, st.st_mtime + 5))
    assert s.file_changed()
    assert s.reload_if_changed() and s.title == "Small 9"
    assert not s.file_changed()


def test_unknown_levels_and_missing_files_say_what_exists(tmp_path: Path) -> None:
    with pytest.raises(LevelError, match="unknown level 'nope'.*floating_crates"):
        resolve_level("nope")
    with pytest.raises(LevelError, match="level file not found"):
        resolve_level(str(tmp_path / "missing.py"))
    empty = write(tmp_path / "nolevel.py", "x = 1\n")
    with pytest.raises(LevelError, match="no Level subclass"):
        load_level(str(empty))
    s = LevelSession("nope")
    assert s.level is None and s.error is not None and s.step()


def test_levels_resolve_by_name_module_and_path() -> None:
    names = builtin_levels()
    assert names[0] == "floating_crates"
    assert {"harbor", "dam_break", "droplet", "mixing", "ball_in_flow", "faucet_and_drain",
            "fill_the_bucket"} <= set(names)
    by_name = resolve_level("harbor")
    by_module = resolve_level("fluidworld.demos.harbor")
    by_checkout_name = resolve_level("demos.harbor")  # the folder's name in a checkout
    by_path = resolve_level(str(by_name.path))
    assert by_name.path == by_module.path == by_checkout_name.path == by_path.path
    assert by_name.module == "fluidworld.demos.harbor" and by_path.module is None
    _, cls = load_level("fluidworld.demos.harbor")
    assert cls.title == "Harbor"
    assert "fluidworld.demos.harbor" in sys.modules


def test_watch_reports_a_broken_file_once_and_retries_only_when_it_changes(tmp_path: Path) -> None:
    """A save that breaks the level is reported once; polling does not reload (and drop the
    player's grab) again until the file changes; a level that started broken is picked up."""
    import os

    f = write(tmp_path / "w.py", GOOD.format(n=1, depth=20))
    s = LevelSession(str(f))
    write(f, "this is not python(\n")
    st = f.stat()
    os.utime(f, (st.st_atime, st.st_mtime + 5))
    assert s.reload_if_changed() is False and s.error is not None
    reloads = s.reloads
    for _ in range(3):  # the watch poll
        assert not s.file_changed() and s.reload_if_changed() is False
    assert s.reloads == reloads and s.level is not None  # the old level keeps running
    write(f, GOOD.format(n=4, depth=20))
    os.utime(f, (st.st_atime, st.st_mtime + 10))
    assert s.file_changed() and s.reload_if_changed() and s.title == "Small 4"
    assert s.error is None

    broken = write(tmp_path / "b.py", "this is not python(\n")
    s2 = LevelSession(str(broken))
    assert s2.error is not None
    write(broken, GOOD.format(n=2, depth=20))
    st = broken.stat()
    os.utime(broken, (st.st_atime, st.st_mtime + 5))
    assert s2.reload_if_changed() and s2.title == "Small 2"
