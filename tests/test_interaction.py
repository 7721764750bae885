"""``fluidworld play`` logic in a hidden headless window: drag and throw, pour, keys, HUD,
errors on screen, and the real ``PlayWindow`` forwarding events at a fixed rate."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

os.environ.setdefault("ARCADE_HEADLESS", "1")  # before arcade is imported

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from fluidworld.levels import Level, LevelSession  # noqa: E402

pytestmark = pytest.mark.gl
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def window() -> Any:
    """The process's arcade window (shared: arcade has one), hidden and headless."""
    try:
        from fluidworld.render import offscreen_window

        return offscreen_window(320, 240)
    except Exception as exc:  # pragma: no cover - depends on the machine
        if os.environ.get("FLUIDWORLD_REQUIRE_GL"):
            raise
        pytest.skip(f"no OpenGL context available: {exc}")


class Yard(Level):
    """A crate on the floor, a shallow pool on the right."""

    title = "yard"
    width = 320.0
    height = 240.0

    def build(self, world: Any) -> None:
        world.add_fluid_rect(220, 0, 320, 30)
        self.crate = world.add_box((80, 15), (30, 30), density=0.5, sprite="crate")


def make_game(window: Any, spec: Any = Yard) -> Any:
    from fluidworld.levels.play import Game

    session = LevelSession(spec)
    return Game(session, window)


def click(game: Any, world_xy: tuple[float, float], button: int, press: bool = True) -> None:
    x, y = game.world_to_screen(*world_xy)
    if press:
        game.on_mouse_press(x, y, button, 0)
    else:
        game.on_mouse_release(x, y, button, 0)


def test_mouse_drag_moves_and_throws_a_crate(window: Any) -> None:
    import arcade

    game = make_game(window)
    crate = game.level.crate
    start = crate.body.position
    assert game.screen_to_world(*game.world_to_screen(80.0, 15.0)) == pytest.approx((80, 15))
    click(game, (80.0, 15.0), arcade.MOUSE_BUTTON_LEFT)
    assert game.grabbed is crate.body
    for k in range(1, 41):  # drag up and to the right, 3 units per step
        game.on_mouse_motion(*game.world_to_screen(80.0 + 3 * k, 15.0 + 2 * k))
        game.fixed_update(1 / 60)
    moved = crate.body.position
    assert moved.x - start.x > 90 and moved.y - start.y > 50
    assert crate.body.velocity.x > 60  # following the pointer
    click(game, tuple(moved), arcade.MOUSE_BUTTON_LEFT, press=False)
    assert game.grab is None and not game.world.space.constraints
    game.fixed_update(1 / 60)
    assert crate.body.position.x > moved.x  # thrown: it keeps going


def test_left_click_on_empty_space_grabs_nothing(window: Any) -> None:
    import arcade

    game = make_game(window)
    click(game, (160.0, 200.0), arcade.MOUSE_BUTTON_LEFT)
    assert game.grab is None
    game.fixed_update(1 / 60)


def test_pour_button_adds_particles_while_held(window: Any) -> None:
    import arcade

    game = make_game(window)
    n0 = game.world.fluid.count
    click(game, (120.0, 200.0), arcade.MOUSE_BUTTON_RIGHT)
    for _ in range(30):
        game.fixed_update(1 / 60)
    poured = game.world.fluid.count - n0
    assert poured == int(game.pour_rate * 30 / 60)  # exact: an emitter under the pointer
    mats = game.world.fluid.materials[-poured:]
    assert (mats == 0).all()
    click(game, (120.0, 200.0), arcade.MOUSE_BUTTON_RIGHT, press=False)
    n1 = game.world.fluid.count
    for _ in range(10):
        game.fixed_update(1 / 60)
    assert game.world.fluid.count == n1
    game.on_key_press(arcade.key.KEY_3)  # pour oil
    click(game, (120.0, 200.0), arcade.MOUSE_BUTTON_RIGHT)
    for _ in range(6):
        game.fixed_update(1 / 60)
    assert (game.world.fluid.materials == 2).sum() == int(game.pour_rate * 6 / 60)


def test_pouring_onto_a_crate_puts_no_water_inside_it_and_warns_nothing(window: Any) -> None:
    import warnings

    import arcade

    game = make_game(window)
    n0 = game.world.fluid.count
    click(game, (80.0, 15.0), arcade.MOUSE_BUTTON_RIGHT)  # the pointer on the crate
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(30):
            game.fixed_update(1 / 60)
            assert game.world.check().inside_shapes == 0
    pour = game.pour_emitter
    assert pour.emitted + pour.blocked == int(game.pour_rate * 30 / 60)
    assert pour.blocked > 0 and game.world.fluid.count == n0 + pour.emitted


def test_keys_pause_step_spawn_reset_and_toggle(window: Any) -> None:
    import arcade

    game = make_game(window)
    k = arcade.key
    world = game.world
    game.on_key_press(k.SPACE)
    assert game.session.paused and not game.fixed_update(1 / 60) and world.steps == 0
    game.on_key_press(k.N)
    assert world.steps == 1
    game.on_mouse_motion(*game.world_to_screen(150.0, 150.0))
    bodies = len(world.space.bodies)
    game.on_key_press(k.C)
    game.on_key_press(k.B)
    assert len(world.space.bodies) == bodies + 2
    game.on_key_press(k.SPACE)
    assert game.fixed_update(1 / 60) and world.steps == 2
    mode = game.fluid_renderer.mode
    game.on_key_press(k.M)
    assert game.fluid_renderer.mode != mode
    game.on_key_press(k.D)
    assert game.debug.enabled
    game.on_key_press(k.R)
    assert game.world is not world and game.world.steps == 0
    assert len(game.world.space.bodies) == bodies
    assert game.fluid_renderer.mode != mode  # the player's look survives a reset


def test_level_keys_reach_the_level(window: Any) -> None:
    import arcade

    presses: list[int] = []

    class Keyed(Yard):
        def build(self, world: Any) -> None:
            super().build(world)
            self.bind("G", lambda w: presses.append(1), "gate")

    game = make_game(window, Keyed)
    game.on_key_press(arcade.key.G)
    assert presses == [1]
    assert "G: gate" in game.help_text()


def test_draw_shows_world_and_hud(window: Any) -> None:
    from fluidworld.render import read_pixels

    game = make_game(window)
    for _ in range(3):
        game.fixed_update(1 / 60)
    game.draw()
    img = read_pixels(window)[:, :, :3].astype(int)
    h, w = img.shape[:2]
    water = (img[:, :, 2] > img[:, :, 0] + 60) & (img[:, :, 2] > 120)
    crate = (img[:, :, 0] > 120) & (img[:, :, 0] > img[:, :, 2] + 40)
    assert water.sum() > 200 and crate.sum() > 50
    hud = game.hud_text()
    assert "particles" in hud and "bodies 1" in hud and "ms/step" in hud and "FPS" in hud
    text_rows = img[: max(h // 10, 12)]
    assert (text_rows.max(axis=2) > 180).sum() > 20  # the HUD line is drawn at the top


BROKEN = '''
from fluidworld.levels import Level


class Broken(Level):
    width = 320.0
    height = 240.0

    def build(self, world):
        world.add_fluid_rect(0, 0, 320, 30)
        missing_name  # NameError here
'''


def test_level_errors_are_drawn_and_f5_reloads_the_fixed_file(window: Any, tmp_path: Path) -> None:
    import arcade

    from fluidworld.render import read_pixels

    f = tmp_path / "broken.py"
    f.write_text(textwrap.dedent(BROKEN))
    game = make_game(window, str(f))
    error_line = next(i for i, t in enumerate(f.read_text().splitlines(), 1) if "missing" in t)
    assert game.session.error is not None and game.session.error.line == error_line
    for _ in range(3):
        game.fixed_update(1 / 60)  # an empty world keeps running
    game.draw()
    img = read_pixels(window)[:, :, :3].astype(int)
    red = (img[:, :, 0] > 150) & (img[:, :, 1] < 140) & (img[:, :, 2] < 140)
    assert red.sum() > 30  # the error text
    f.write_text(textwrap.dedent(BROKEN).replace("missing_name  # NameError here", "pass"))
    game.on_key_press(arcade.key.F5)
    assert game.session.error is None and game.world.fluid.count > 0
    game.fixed_update(1 / 60)
    game.draw()


def test_an_error_in_a_level_system_is_drawn_and_the_game_plays_on(window: Any) -> None:
    """A system the level added raises inside ``world.step()``: it crashed the window."""

    class Stirred(Yard):
        def build(self, world: Any) -> None:
            super().build(world)
            world.add_system(self.stir)

        def stir(self, world: Any, h: float) -> None:
            if world.steps >= 2:
                raise RuntimeError("boom in my system")

    game = make_game(window, Stirred)
    for _ in range(5):
        game.fixed_update(1 / 60)
    error = game.session.error
    assert error is not None and "boom in my system" in str(error)
    assert error.path == __file__ and game.world.steps == 4 and not game.session.paused
    game.draw()


PLAY_WINDOW = '''
import arcade
from fluidworld.levels import LevelSession
from fluidworld.levels.play import PlayWindow

s = LevelSession("dam_break")
win = PlayWindow(s, size=(320, 180), visible=False)
assert abs(win.fixed_delta_time - 1 / 60) < 1e-12  # physics at the level's dt
# the handlers arcade's loop calls (outside the loop pyglet queues dispatch_event)
for _ in range(3):
    win.on_fixed_update(1 / 60)
assert s.world.steps == 3
win.on_key_press(arcade.key.SPACE, 0)
win.on_fixed_update(1 / 60)
assert s.paused and s.world.steps == 3
x, y = win.game.world_to_screen(100.0, 100.0)
win.on_mouse_press(x, y, arcade.MOUSE_BUTTON_RIGHT, 0)
win.on_key_press(arcade.key.N, 0)
win.on_mouse_release(x, y, arcade.MOUSE_BUTTON_RIGHT, 0)
win.on_draw()
win.on_resize(400, 200)
win.on_update(1 / 60)
print("ok", s.world.steps, s.world.fluid.count)
'''


def test_play_window_forwards_events_at_a_fixed_rate(tmp_path: Path) -> None:
    script = tmp_path / "pw.py"
    script.write_text(PLAY_WINDOW)
    env = dict(os.environ, ARCADE_HEADLESS="1")
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:2] == ["ok", "4"]


def test_render_helpers_need_no_display(window: Any, tmp_path: Path) -> None:
    from fluidworld.levels.headless import render_level

    frames: list[np.ndarray] = []
    result = render_level(Yard, tmp_path / "y.png", frames=2, progress=None, window=window,
                          on_frame=lambda i, rgba: frames.append(rgba))
    assert result.frames == 2 and len(frames) == 2 and (tmp_path / "y.png").is_file()
    with pytest.raises(ValueError, match=r"\.png, \.gif or \.mp4"):
        render_level(Yard, tmp_path / "y.jpg", frames=1, progress=None, window=window)


SLOW_CLOCK = '''
from fluidworld.levels import LevelSession
from fluidworld.levels.play import MAX_LAG, PlayWindow
from arcade.clock import GLOBAL_FIXED_CLOCK

s = LevelSession("floating_crates")
win = PlayWindow(s, size=(320, 180), visible=False)
dt = win.fixed_delta_time
body = next(b for b in s.world.space.bodies if b.body_type == b.DYNAMIC)
start = body.position
steps = []
# every frame takes 5 physics steps of real time: arcade's per-frame update (what pyglet's
# clock calls) queues the capped fixed updates and on_update; dispatch_events runs them
for _ in range(40):
    win._dispatch_updates(5 * dt)
    win.dispatch_events()
    steps.append(s.world.steps)
    assert GLOBAL_FIXED_CLOCK.accumulated <= MAX_LAG + 5 * dt + 1e-9
moved = (body.position - start).length
print("ok", steps[19], steps[-1] - steps[19], round(moved, 2))
'''


def test_play_window_under_a_slow_clock_keeps_stepping(tmp_path: Path) -> None:
    """Frames 5x slower than real time: slow motion (capped fixed updates every frame), never a
    world that stops stepping once it has fallen behind (the lag is dropped, not replayed)."""
    script = tmp_path / "slow.py"
    script.write_text(SLOW_CLOCK)
    env = dict(os.environ, ARCADE_HEADLESS="1")
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    word, first, later, moved = proc.stdout.split()[:4]
    assert word == "ok"
    assert int(first) >= 40 and int(later) >= 40  # >= 2 steps a frame, in both halves
    assert float(moved) > 1.0  # the bodies move (they start in the air above the pool)


def test_v_cycles_the_solver_of_the_running_level(window: Any) -> None:
    import arcade

    game = make_game(window)
    n = game.world.fluid.count
    assert game.world.solver == "srd"
    game.on_key_press(arcade.key.V)
    assert game.world.solver == "ddr"
    for _ in range(3):
        game.fixed_update(1 / 60)
    game.on_key_press(arcade.key.V)
    assert game.world.solver == "constraint" and game.world.fluid.count == n
    for _ in range(3):
        game.fixed_update(1 / 60)
    game.on_key_press(arcade.key.V)
    assert game.world.solver == "srd" and game.world.fluid.count == n


class AirYard(Yard):
    """The yard with a material 1,000x lighter than water in its table: ``ddr`` refuses it."""

    def make_world(self) -> Any:
        from fluidworld import World
        from fluidworld.fluid import WATER, Material

        return World(float(self.width), float(self.height), params=self.make_params(),
                     materials=(WATER, Material("air", density=0.001, mix_group="air")))


def test_v_skips_a_solver_that_refuses_the_level_s_fluid(window: Any) -> None:
    import arcade

    game = make_game(window, AirYard)
    assert game.world.solver == "srd"
    game.on_key_press(arcade.key.V)
    assert game.world.solver == "constraint"
    assert any("ddr refused" in m.text for m in game.session.level.messages)
    for _ in range(3):
        game.fixed_update(1 / 60)
    assert game.world.check().ok


class Unskinned(Level):
    title = "unskinned"
    width = 320.0
    height = 240.0

    def build(self, world: Any) -> None:
        world.add_box((80, 40), (30, 30), density=0.5, sprite="no_such_texture")
        world.add_box((200, 40), (30, 30), density=0.5, sprite="no_such_texture")


def test_a_missing_texture_warns_once_naming_the_file(window: Any) -> None:
    game = make_game(window, Unskinned)
    with pytest.warns(RuntimeWarning) as caught:
        for _ in range(3):
            game.draw()
    texts = [str(w.message) for w in caught if "no_such_texture" in str(w.message)]
    assert len(texts) == 1 and "no_such_texture.png" in texts[0]
    assert "crate" in texts[0]  # it names the textures that do exist


def test_f6_saves_and_f9_loads_the_running_level(window: Any, tmp_path: Any) -> None:
    import arcade

    game = make_game(window)
    game.save_dir = tmp_path
    for _ in range(20):
        game.fixed_update(1 / 60)
    game.on_key_press(arcade.key.F6)
    assert (tmp_path / "Yard.sav").is_file() or list(tmp_path.glob("*.sav"))
    saved_steps, saved_hash = game.world.steps, game.world.state_hash()
    for _ in range(15):
        game.fixed_update(1 / 60)
    assert game.world.steps == saved_steps + 15
    game.on_key_press(arcade.key.F9)
    assert game.world.steps == saved_steps and game.world.state_hash() == saved_hash
    assert any("loaded" in m.text for m in game.level.messages)
    game.draw()  # the renderers follow the loaded world
    game.save_dir = tmp_path / "nothing here"
    game.on_key_press(arcade.key.F9)
    assert any("cannot load" in m.text for m in game.level.messages)
    assert game.world.steps == saved_steps
