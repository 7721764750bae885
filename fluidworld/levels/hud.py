"""The play window's HUD line, help text and on-screen messages (a part of ``Game``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import arcade
import pymunk

if TYPE_CHECKING:
    from ..world import World
    from .base import Level
    from .loader import LevelSession


__all__ = ["HudMixin", "PLAYER_HELP"]

PLAYER_HELP = (
    "LMB drag/throw  RMB pour  1-4 material  C crate  B ball  SPACE pause  N step  "
    "R reset  F5 reload  F6/F9 save/load  D debug  F field  M look  H help  ESC quit"
)
ERROR_COLOR = (255, 110, 100, 255)
HUD_COLOR = (225, 230, 240, 255)


class HudMixin:
    """HUD, help and message overlay of :class:`~fluidworld.levels.game.Game` (whose
    attributes it reads, declared here for the type checker)."""

    session: LevelSession
    window: arcade.Window
    hud: bool
    show_help: bool
    debug_on: bool
    ms_per_step: float
    fps: float
    _texts: dict[str, arcade.Text]

    @property
    def world(self) -> World:
        raise NotImplementedError

    @property
    def level(self) -> Level | None:
        raise NotImplementedError

    def _text(self, key: str, **kwargs: Any) -> arcade.Text:
        t = self._texts.get(key)
        if t is None:
            t = arcade.Text("", 0, 0, **kwargs)
            self._texts[key] = t
        return t

    def hud_text(self) -> str:
        """The HUD line: title, particles, bodies, ms/step, FPS, state."""
        world = self.world
        bodies = sum(1 for b in world.space.bodies if b.body_type == pymunk.Body.DYNAMIC)
        state = "  PAUSED" if self.session.paused else ""
        return (f"{self.session.title}   particles {world.fluid.count}   bodies {bodies}   "
                f"{self.ms_per_step:.1f} ms/step   {self.fps:.0f} FPS{state}")

    def help_text(self) -> str:
        """The help lines: player controls, then the level's help and keys."""
        lines = [PLAYER_HELP]
        level = self.level
        if level is not None:
            extra = "  ".join(s for s in (level.help, level.key_help) if s)
            if extra:
                lines.append(extra)
        return "\n".join(lines)

    def _draw_overlay(self) -> None:
        w, h = self.window.get_size()
        margin = 8
        if self.hud:
            t = self._text("hud", color=HUD_COLOR, font_size=11, anchor_y="top")
            t.text = self.hud_text()
            t.position = (margin, h - margin)
            t.draw()
        if self.show_help:
            t = self._text("help", color=(200, 205, 220, 255), font_size=10, multiline=True,
                           width=max(w - 2 * margin, 50), anchor_y="bottom")
            t.text = self.help_text()
            t.position = (margin, margin)
            t.draw()
        level = self.level
        if level is not None and level.status:
            t = self._text("status", color=(190, 225, 255, 255), font_size=12, anchor_y="top")
            t.text = level.status
            t.position = (margin, h - margin - (22 if self.hud else 0))
            t.draw()
        if level is not None and level.messages:
            small = [m.text for m in level.messages if not m.big]
            big = [m.text for m in level.messages if m.big]
            if small:
                t = self._text("msg", color=(255, 240, 200, 255), font_size=14,
                               anchor_x="center", anchor_y="top")
                t.text = "   ".join(small)
                t.position = (w / 2, h - 56)
                t.draw()
            if big:
                t = self._text("big", color=(255, 235, 120, 255), font_size=28, bold=True,
                               anchor_x="center", anchor_y="center")
                t.text = big[-1]
                t.position = (w / 2, h * 0.62)
                t.draw()
        if self.debug_on:
            self._draw_timings(w, h)
        error = self.session.error
        if error is not None:
            box_h = 70
            arcade.draw_lrbt_rectangle_filled(0, w, h - 30 - box_h, h - 26, (60, 10, 12, 220))
            t = self._text("err", color=ERROR_COLOR, font_size=12, multiline=True,
                           width=max(w - 2 * margin, 50), anchor_y="top")
            t.text = f"Level error (edit the file, then F5 to reload):\n{error}"
            t.position = (margin, h - 30)
            t.draw()


    def _draw_timings(self, w: int, h: int) -> None:
        """Per-stage milliseconds of the last step, top-right (debug overlay on)."""
        profile = self.world.profile
        names = self._text("t_names", color=HUD_COLOR, font_size=10, multiline=True,
                           width=130, anchor_y="top")
        values = self._text("t_values", color=HUD_COLOR, font_size=10, multiline=True,
                            width=70, align="right", anchor_y="top")
        names.text = "\n".join([*profile, "total"])
        values.text = "\n".join([f"{ms:.2f} ms" for ms in profile.values()]
                                 + [f"{sum(profile.values()):.2f} ms"])
        top = h - 8 - (22 if self.hud else 0)
        names.position = (w - 210, top)
        values.position = (w - 80, top)
        names.draw()
        values.draw()


