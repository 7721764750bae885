"""The ``Game`` controller of ``fluidworld play``: input -> world actions, stepping, drawing.

:class:`Game` takes any arcade window, so tests drive it with a hidden headless one and
synthetic mouse and key events; :mod:`fluidworld.levels.play` wraps it in a window. The HUD and
help overlay are :class:`~fluidworld.levels.hud.HudMixin`, the shape drawing
:mod:`fluidworld.levels.drawing`.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import arcade
import numpy as np
import pymunk

from ..render import (
    BodySprites,
    DebugOverlay,
    FluidRenderer,
    GridCollider,
    LiquidStyle,
    SplashSystem,
)
from .base import Level
from .drawing import ShapeLayer, _warn_missing_texture, fit_camera
from .hud import HudMixin
from .loader import LevelSession

if TYPE_CHECKING:
    from ..world import Emitter, World


__all__ = ["Game"]

#: How a texture sits on its body: ``(width factor, height factor, x offset, y offset)`` relative
#: to the body's local bounding box. The boat texture is hull (lower half) plus cabin (upper
#: half), so the physical hull fills the lower half of the sprite.
SPRITE_LAYOUT: dict[str, tuple[float, float, float, float]] = {"boat": (1.0, 2.0, 0.0, 0.5)}



# ------------------------------------------------------------------------------ the controller
class Game(HudMixin):
    """The game logic of ``fluidworld play``: input -> world actions, drawing, HUD.

    Works with any arcade window (a visible one from :class:`PlayWindow`, or a hidden headless
    one in tests and in :func:`render_level`).

    Args:
        session: The level session (world, level, errors, reload).
        window: The window to draw into (for its size and default camera).
        mode: Fluid look, ``"liquid"`` or ``"sprites"``; default: the level's.
        debug: Start with the debug overlay on.
        hud: Draw the HUD line (particles, bodies, ms/step, FPS).
        show_help: Draw the help line.
        splashes: Spawn and draw splash particles.

    Attributes:
        pour_rate: Particles per second the right mouse button pours.
        pour_material: Material id poured.
        ms_per_step: Smoothed wall time of a physics step (ms).
        fps: Smoothed frames per second of ``draw``.
        save_dir: Folder of the quick saves (F6 save, F9 load): ``saves/`` in the working
            folder, one file per level.
    """

    fluid_renderer: FluidRenderer

    def __init__(
        self,
        session: LevelSession,
        window: arcade.Window,
        *,
        mode: str | None = None,
        debug: bool = False,
        hud: bool = True,
        show_help: bool = True,
        splashes: bool = True,
    ) -> None:
        self.session = session
        self.window = window
        self.requested_mode = mode
        self.debug_on = debug
        self.hud = hud
        self.show_help = show_help
        self.splashes_on = splashes
        self.pour_rate = 900.0
        self.pour_speed = 250.0
        self.pour_width = 24.0
        self.pour_material: int | None = None
        self.save_dir = Path("saves")
        self.ms_per_step = 0.0
        self.fps = 0.0
        self.camera = arcade.Camera2D(window=window)
        self.mouse_screen = (0.0, 0.0)
        self.mouse_world = (0.0, 0.0)
        self.mouse_body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        self.grab: pymunk.PivotJoint | None = None
        self.grabbed: pymunk.Body | None = None
        self.pour_emitter: Emitter | None = None
        self._world: World | None = None
        self._last_draw: float | None = None
        self._texts: dict[str, arcade.Text] = {}
        self._bind_world()

    # ------------------------------------------------------------------ world binding
    @property
    def world(self) -> World:
        """The running world."""
        return self.session.world

    @property
    def level(self) -> Level | None:
        """The running level."""
        return self.session.level

    def _bind_world(self) -> None:
        """(Re)create the world-bound drawing objects after a (re)load."""
        world = self.session.world
        if world is self._world:
            return
        self._release_grab()
        self.pour_emitter = None
        if self._world is not None:
            self.fluid_renderer.release()
        self._world = world
        level = self.session.level
        # the look: chosen by the player (M, or --mode), else the level's
        mode = self.requested_mode or (level.render_mode if level is not None else "liquid")
        self.fluid_renderer = FluidRenderer(
            world.fluid, mode=mode, liquid=LiquidStyle(opacity=0.72)  # type: ignore[arg-type]
        )
        self.splashes = SplashSystem(capacity=2048)
        self.sprites = BodySprites()
        self._sprite_ids: dict[int, pymunk.Body] = {}
        self.shapes = ShapeLayer(world, getattr(world, "bounds", ()))
        # the overlay's own timings sit where the HUD is; the Game draws them top-right
        self.debug = DebugOverlay(world.fluid, enabled=self.debug_on, show_timings=False)
        self.resize(*self.window.get_size())

    def resize(self, width: int, height: int) -> None:
        """Fit the level's view into a ``width`` x ``height`` window."""
        self.camera = arcade.Camera2D(window=self.window)
        rect = self.level.view_rect if self.level is not None else (
            0.0, 0.0, float(self.world.fluid.params.width), float(self.world.fluid.params.height))
        fit_camera(self.camera, rect, (width, height))

    def screen_to_world(self, x: float, y: float) -> tuple[float, float]:
        """Window pixel -> world point."""
        p = self.camera.unproject((x, y))
        return (float(p[0]), float(p[1]))

    def world_to_screen(self, x: float, y: float) -> tuple[float, float]:
        """World point -> window pixel."""
        p = self.camera.project((x, y))
        return (float(p[0]), float(p[1]))

    # ------------------------------------------------------------------ stepping
    def fixed_update(self, dt: float) -> bool:
        """One fixed-rate update: mouse body, pouring, one physics step (unless paused).

        Returns:
            Whether the physics stepped.
        """
        self._bind_world()
        self._move_mouse_body(dt)
        if self.session.paused:
            return False
        return self._step()

    def single_step(self) -> bool:
        """Advance one physics step while paused (the N key)."""
        self._bind_world()
        self.session.paused = True
        return self._step(force=True)

    def _step(self, force: bool = False) -> bool:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            if self.pour_emitter is not None:  # pouring onto a crate or a wall is play
                warnings.filterwarnings("ignore", f"emitter {self.pour_emitter.id} at ",
                                        RuntimeWarning)
            stepped = self.session.step(force=force)
        if not stepped:
            return False
        ms = (time.perf_counter() - t0) * 1e3
        self.ms_per_step = ms if self.ms_per_step == 0.0 else 0.9 * self.ms_per_step + 0.1 * ms
        if self.session.world is not self._world:  # a script rebuilt the world
            self._bind_world()
            return True
        if self.splashes_on:
            fluid = self.world.fluid
            self.splashes.spawn_from(fluid)
            self.splashes.step(fluid.params.dt, fluid.params.gravity,
                               GridCollider.from_fluid(fluid))
        return True

    # ------------------------------------------------------------------ mouse
    def on_mouse_motion(self, x: float, y: float, dx: float = 0.0, dy: float = 0.0) -> None:
        """Track the pointer (drag target and pour position)."""
        self.mouse_screen = (float(x), float(y))
        self.mouse_world = self.screen_to_world(x, y)
        if self.pour_emitter is not None:
            self.pour_emitter.position = self._clamp_to_domain(self.mouse_world)

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int = 0) -> None:
        """Left: grab the body under the pointer. Right: start pouring."""
        self._bind_world()
        self.on_mouse_motion(x, y)
        if button == arcade.MOUSE_BUTTON_LEFT:
            self._try_grab(self.mouse_world)
        elif button == arcade.MOUSE_BUTTON_RIGHT:
            self._start_pour()

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int = 0) -> None:
        """Left: throw (release the grab). Right: stop pouring."""
        self.on_mouse_motion(x, y)
        if button == arcade.MOUSE_BUTTON_LEFT:
            self._release_grab()
        elif button == arcade.MOUSE_BUTTON_RIGHT:
            self._stop_pour()

    def _try_grab(self, p: tuple[float, float]) -> bool:
        space = self.world.space
        hit = space.point_query_nearest(p, 6.0, pymunk.ShapeFilter())
        if hit is None or hit.shape is None or hit.shape.body is None:
            return False
        body = hit.shape.body
        if body.body_type != pymunk.Body.DYNAMIC:
            return False
        self._release_grab()
        self.mouse_body.position = p
        self.mouse_body.velocity = (0.0, 0.0)
        anchor = body.world_to_local(hit.point if hit.distance > 0 else p)
        joint = pymunk.PivotJoint(self.mouse_body, body, (0.0, 0.0), anchor)
        g = math.hypot(*self.world.fluid.params.gravity) or 900.0
        joint.max_force = 30.0 * body.mass * g
        joint.error_bias = (1.0 - 0.25) ** 60
        space.add(joint)
        self.session.note_input()  # the player's hand is no input a replay can repeat
        self.grab, self.grabbed = joint, body
        return True

    def _release_grab(self) -> None:
        if self.grab is not None and self._world is not None:
            if self.grab in self._world.space.constraints:
                self._world.space.remove(self.grab)
            body = self.grabbed
            if body is not None:  # a throw, but not a bullet that tunnels through walls
                v = body.velocity
                vmax = 40.0 * float(self._world.fluid.params.a0)
                if v.length > vmax:
                    body.velocity = v * (vmax / v.length)
        self.grab = None
        self.grabbed = None

    def _move_mouse_body(self, dt: float) -> None:
        if self.grab is None:
            return
        target = pymunk.Vec2d(*self.mouse_world)
        self.mouse_body.velocity = (target - self.mouse_body.position) / max(dt, 1e-6)
        self.mouse_body.position = target

    def _clamp_to_domain(self, p: tuple[float, float]) -> tuple[float, float]:
        params = self.world.fluid.params
        return (min(max(p[0], 0.0), params.width), min(max(p[1], 0.0), params.height))

    def _start_pour(self) -> None:
        if self.pour_emitter is not None:
            return
        level = self.level
        material = self.pour_material
        if material is None:
            material = level.pour_material if level is not None else 0
        self.pour_emitter = self.world.add_emitter(
            self._clamp_to_domain(self.mouse_world), (0.0, -1.0), self.pour_speed,
            self.pour_rate, material, self.pour_width,
        )
        self.session.note_input()

    def _stop_pour(self) -> None:
        if self.pour_emitter is not None:
            if self.pour_emitter in self.world:
                self.world.remove(self.pour_emitter)
            self.pour_emitter = None

    # ------------------------------------------------------------------ keys
    def on_key_press(self, symbol: int, modifiers: int = 0) -> None:
        """Player keys first, then the level's bindings."""
        self._bind_world()
        k = arcade.key
        actions: dict[int, Callable[[], Any]] = {
            k.SPACE: self.toggle_pause,
            k.N: self.single_step,
            k.R: self.reset,
            k.F5: self.reload,
            k.F6: self.quick_save,
            k.F9: self.quick_load,
            k.D: self.toggle_debug,
            k.F: lambda: self.debug.cycle_field(),
            k.M: self.toggle_mode,
            k.H: self.toggle_help,
            k.C: lambda: self.spawn("crate"),
            k.B: lambda: self.spawn("ball"),
            k.V: self.cycle_solver,
            k.ESCAPE: self.window.close,
        }
        for i, key in enumerate((k.KEY_1, k.KEY_2, k.KEY_3, k.KEY_4)):
            actions[key] = functools.partial(self.set_pour_material, i)
        action = actions.get(symbol)
        if action is not None:
            action()
            return
        level = self.level
        if level is None:
            return
        for name in list(level.bindings):
            if getattr(arcade.key, name, None) == symbol:
                self.session.press(name)
                return

    def toggle_pause(self) -> bool:
        """Pause or resume; returns the new paused state."""
        self.session.paused = not self.session.paused
        return self.session.paused

    def reset(self) -> None:
        """Rebuild the level from the loaded class."""
        self._release_grab()
        self.pour_emitter = None
        self.session.reset()
        self._bind_world()

    def reload(self) -> bool:
        """Re-read the level file and rebuild (F5). The old level keeps running on error."""
        self._release_grab()
        self._stop_pour()
        ok = self.session.reload()
        self._bind_world()
        return ok

    def _save_path(self) -> Path:
        return self.save_dir / f"{self.session.name}.sav"

    def _notice(self, text: str) -> None:
        if self.level is not None:
            self.level.say(text, 2.5)

    def quick_save(self) -> Path | None:
        """Save the running level to ``save_dir/<level>.sav`` (F6); ``None`` if it failed (the
        reason is shown on screen). A quick save loads at once: it keeps no replay of the
        level's steps (:meth:`LevelSession.note_input`; a load would replay up to
        ``replay_limit`` steps for bit-exactness against a game that never saved), and the
        window plays on from the saved copy, so the game after F6 and after F9 go on alike."""
        from ..saving import SaveError

        self._release_grab()
        self._stop_pour()
        self.session.note_input()
        path = self._save_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.session.save(path)
        except (SaveError, RuntimeError, OSError) as exc:
            self._notice(f"cannot save: {exc}")
            return None
        self._bind_world()
        self._notice(f"saved to {path}")
        return path

    def quick_load(self) -> bool:
        """Load the quick save of this level (F9); the level keeps running if there is none."""
        from ..saving import SaveError

        path = self._save_path()
        self._release_grab()
        self._stop_pour()
        try:
            self.session.load(path)
        except (SaveError, OSError) as exc:
            self._notice(f"cannot load {path.name}: {exc}")
            return False
        self._bind_world()
        self._notice(f"loaded {path}")
        return True

    def toggle_debug(self) -> bool:
        """Show or hide the debug overlay."""
        self.debug_on = self.debug.toggle()
        return self.debug_on

    def toggle_mode(self) -> str:
        """Switch the fluid look (liquid/sprites); the choice survives resets and reloads."""
        self.requested_mode = self.fluid_renderer.toggle_mode()
        return self.requested_mode

    def cycle_solver(self) -> str:
        """Switch the running level's fluid to the next solver (V); returns its name."""
        from ..fluid.solvers import SOLVER_NAMES

        names = list(SOLVER_NAMES)
        world = self.world
        self.session.note_input()
        at = names.index(world.solver) if world.solver in names else -1
        refused = []
        for k in range(1, len(names) + 1):  # the next one that takes this level's fluid
            nxt = names[(at + k) % len(names)]
            try:
                world.set_solver(nxt)
                break
            except ValueError:  # e.g. ddr and materials too far apart in density
                refused.append(nxt)
        else:
            nxt = world.solver
        if self.session.level is not None:
            skipped = f" ({', '.join(refused)} refused this fluid)" if refused else ""
            self.session.level.say(f"solver: {nxt}{skipped}")
        return nxt

    def toggle_help(self) -> bool:
        """Show or hide the help line."""
        self.show_help = not self.show_help
        return self.show_help

    def set_pour_material(self, material: int) -> None:
        """Choose the material the right button pours (if the world has it)."""
        if 0 <= material < len(self.world.fluid.material_table):
            self.pour_material = material
            if self.pour_emitter is not None:
                self.pour_emitter.material = material

    def spawn(self, what: str) -> Any:
        """Drop a crate or a ball at the pointer (C / B keys)."""
        x, y = self._clamp_to_domain(self.mouse_world)
        a0 = float(self.world.fluid.params.a0)
        x = min(max(x, 4 * a0), self.world.fluid.params.width - 4 * a0)
        y = min(max(y, 4 * a0), self.world.fluid.params.height - 4 * a0)
        if what == "ball":
            return self.world.add_ball((x, y), 2.0 * a0, density=0.5, sprite="ball")
        return self.world.add_box((x, y), (4.0 * a0, 4.0 * a0), density=0.5, sprite="crate")

    # ------------------------------------------------------------------ drawing
    def _sync_sprites(self) -> set[pymunk.Body]:
        from ..world import BodyHandle

        live: dict[int, pymunk.Body] = {}
        for e in self.world.entities:
            if isinstance(e, BodyHandle) and e.sprite and e.body.body_type != pymunk.Body.STATIC:
                live[e.id] = e.body
                if e.id not in self._sprite_ids:
                    w, h = e.size
                    fw, fh, ox, oy = SPRITE_LAYOUT.get(e.sprite, (1.0, 1.0, 0.0, 0.0))
                    try:
                        self.sprites.add(e.body, e.sprite, max(w * fw, 1.0), max(h * fh, 1.0),
                                         offset=(ox * w, oy * h))
                    except (OSError, TypeError, ValueError) as exc:
                        # a missing or unreadable texture: the body is drawn as its shape
                        _warn_missing_texture(str(e.sprite), exc)
                        continue
        for eid, body in list(self._sprite_ids.items()):
            if eid not in live:
                self.sprites.remove(body)
        self._sprite_ids = {eid: b for eid, b in live.items()
                            if self.sprites.sprite_for(b) is not None}
        self.sprites.sync()
        return set(self._sprite_ids.values())

    def draw(self) -> None:
        """Draw the world, the overlays and the HUD into the window."""
        now = time.perf_counter()
        if self._last_draw is not None:
            frame = max(now - self._last_draw, 1e-6)
            self.fps = 1.0 / frame if self.fps == 0.0 else 0.9 * self.fps + 0.1 / frame
        self._last_draw = now
        self._bind_world()
        level = self.level
        bg = level.background if level is not None else Level.background
        self.window.clear(color=bg)
        self.camera.use()
        self._draw_world_frame()
        sprited = self._sync_sprites()
        # bodies first, then the translucent water over them: what is under water looks it
        self.sprites.draw()
        self.fluid_renderer.draw()
        self.shapes.draw(sprited)
        self._draw_fixtures()
        if level is not None:
            for a, b, color, width in level.guides:
                arcade.draw_line(a[0], a[1], b[0], b[1], color, width)
        if self.splashes_on:
            self.splashes.draw()
        if self.grab is not None and self.grabbed is not None:
            a = self.grabbed.local_to_world(self.grab.anchor_b)
            arcade.draw_line(a.x, a.y, self.mouse_world[0], self.mouse_world[1],
                             (255, 230, 120, 255), 2)
        self.debug.draw(self.world.profile if self.debug_on else None)
        self.window.default_camera.use()
        self._draw_overlay()

    def _draw_world_frame(self) -> None:
        p = self.world.fluid.params
        arcade.draw_lrbt_rectangle_outline(0, p.width, 0, p.height, (40, 46, 62, 255), 2)

    def _draw_fixtures(self) -> None:
        """Drains as dark grates, emitters as nozzles pointing along their jet."""
        from ..world import Drain, Emitter

        for e in self.world.entities:
            if isinstance(e, Drain):
                x0, y0, x1, y1 = e.rect
                arcade.draw_lrbt_rectangle_filled(x0, x1, y0, y1, (24, 28, 38, 255))
                for x in np.arange(x0 + 4.0, x1 - 2.0, 8.0):
                    arcade.draw_line(x, y0, x, y1, (70, 76, 92, 255), 2)
            elif isinstance(e, Emitter) and e is not self.pour_emitter:
                (px, py), (dx, dy) = e.position, e.direction
                half = 0.5 * e.width + 4.0
                back = 18.0
                nx, ny = -dy * half, dx * half
                bx, by = px - dx * back, py - dy * back
                color = (150, 156, 172, 255) if e.enabled else (96, 100, 112, 255)
                arcade.draw_polygon_filled(
                    [(bx + nx, by + ny), (px + nx, py + ny), (px - nx, py - ny),
                     (bx - nx, by - ny)], color)

