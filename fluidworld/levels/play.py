"""Playing a level in a window: :class:`PlayWindow` and :func:`play`.

The split follows arcade's own examples: :class:`PlayWindow` is a thin ``arcade.Window`` that
forwards events; :class:`~fluidworld.levels.game.Game` (re-exported here) holds the logic
(input -> world actions, drawing, HUD) and takes any window, so tests drive it with a hidden
headless one and synthetic mouse and key events. Headless output is
:mod:`fluidworld.levels.headless`.

Physics runs in ``on_fixed_update`` at the level's ``dt`` (1/60 s), independent of the frame
rate. If a step takes longer than ``dt`` the game slows down instead of spiralling: lag beyond
:data:`MAX_LAG` is dropped each frame (:func:`drop_lag`) while the capped fixed updates still step
the world, so a slow machine gets slow motion, never a frozen game.

The play modules (``play``, ``game``, ``hud``, ``drawing``, ``headless``) are the only ones of
:mod:`fluidworld.levels` that import arcade.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import arcade

from ..warmup import compile_kernels
from .base import Level
from .drawing import ShapeLayer
from .game import Game
from .loader import LevelSession

if TYPE_CHECKING:
    pass


__all__ = ["MAX_LAG", "Game", "PlayWindow", "ShapeLayer", "drop_lag", "play"]

#: Fixed updates further behind than this (s) are dropped: slow motion rather than a spiral.
MAX_LAG = 0.1

# ------------------------------------------------------------------------------ the window
def drop_lag(clock: Any, max_lag: float) -> int:
    """Advance a fixed clock (arcade's ``FixedClock``: ``accumulated``, ``rate``, ``tick``) until
    it lags its sibling clock by at most ``max_lag`` seconds, without running the updates that
    were missed; returns how many ticks were dropped.

    arcade runs at most ``fixed_frame_cap + 1`` fixed updates per frame. When the physics of one
    frame takes longer than the frame, the lag grows without bound; dropping it here turns that
    into slow motion (the cap's updates still run every frame) instead of a game that stops
    stepping once it has fallen behind.
    """
    rate = float(clock.rate)
    excess = float(clock.accumulated) - max_lag
    if excess <= 0.0:
        return 0
    n = math.ceil(excess / rate)
    for _ in range(n):
        clock.tick(rate)
    return n


class PlayWindow(arcade.Window):
    """An arcade window that plays a level through a :class:`Game`.

    Args:
        session: The level session.
        size: Window size; default: the level's preferred size.
        mode: Fluid look (default: the level's).
        watch: Reload the level when its file changes.
        debug: Start with the debug overlay.
        visible: Show the window (``False`` for tests).
    """

    def __init__(
        self,
        session: LevelSession,
        *,
        size: tuple[int, int] | None = None,
        mode: str | None = None,
        watch: bool = False,
        debug: bool = False,
        visible: bool = True,
    ) -> None:
        level = session.level or Level()
        w, h = size or level.preferred_window_size()
        dt = float(session.world.fluid.params.dt)
        super().__init__(w, h, f"fluidworld - {session.title}", resizable=True,
                         antialiasing=False, update_rate=dt, draw_rate=dt, fixed_rate=dt,
                         fixed_frame_cap=2, visible=visible)
        self.session = session
        self.watch = watch
        self._watch_timer = 0.0
        self.game = Game(session, self, mode=mode, debug=debug)

    def on_fixed_update(self, delta_time: float) -> None:
        """Physics at a fixed rate: one world step per fixed update."""
        self.game.fixed_update(delta_time)

    def on_update(self, delta_time: float) -> None:
        """Drop the lag beyond ``MAX_LAG`` (slow motion, never a frozen game); poll the level
        file in watch mode."""
        from arcade.clock import GLOBAL_FIXED_CLOCK

        drop_lag(GLOBAL_FIXED_CLOCK, MAX_LAG)
        if self.watch:
            self._watch_timer += delta_time
            if self._watch_timer >= 0.5:
                self._watch_timer = 0.0
                if self.session.file_changed():
                    self.game.reload()
        self.set_caption(f"fluidworld - {self.session.title}")

    def on_draw(self) -> None:
        """Draw a frame."""
        self.game.draw()

    def on_resize(self, width: int, height: int) -> None:
        """Keep the level's view fitted to the window."""
        super().on_resize(width, height)
        self.game.resize(width, height)

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        """Forward to the game."""
        self.game.on_mouse_motion(x, y, dx, dy)

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int,
                      modifiers: int) -> None:
        """Forward to the game."""
        self.game.on_mouse_motion(x, y, dx, dy)

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        """Forward to the game."""
        self.game.on_mouse_press(x, y, button, modifiers)

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        """Forward to the game."""
        self.game.on_mouse_release(x, y, button, modifiers)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        """Forward to the game."""
        self.game.on_key_press(symbol, modifiers)


def _factory(solver: str | None) -> Callable[[Level], Any] | None:
    """A world factory that runs ``solver`` instead of the level's (None: the level's own)."""
    if solver is None:
        return None
    from ..fluid.solvers import make_solver

    make_solver(solver)  # an unknown name fails here, before any window opens

    def build(level: Level) -> Any:
        world = level.make_world()
        world.set_solver(solver)
        return world

    return build


def play(
    spec: str | Path | type[Level],
    *,
    size: tuple[int, int] | None = None,
    mode: str | None = None,
    watch: bool = False,
    debug: bool = False,
    solver: str | None = None,
) -> None:
    """Open a window and play a level until it is closed (``solver``: override the level's)."""
    session = LevelSession(spec, world_factory=_factory(solver))
    if session.error is not None:
        print(f"fluidworld: level error: {session.error}", file=sys.stderr)
    # before the window opens: a progress bar in the console on the first run, not a window
    # that shows nothing for half a minute
    compile_kernels(session.world if session.level is not None else None, progress=sys.stderr)
    window = PlayWindow(session, size=size, mode=mode, watch=watch, debug=debug)
    window.run()

