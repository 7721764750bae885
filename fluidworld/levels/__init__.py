"""Levels: a ``Level`` base class, scripted events, loading by name or file, and hot reload.

- ``Level``: metadata (title, size, gravity, camera, help), ``build(world)``, optional
  ``update(world, dt)``, and helpers: ``after``/``every`` (timers), ``trigger`` (fluid or a body
  enters a region), ``goal``/``fill_goal`` (win conditions), ``bind`` (level keys), ``say``
  (on-screen messages). Emitters (faucets) and drains are world objects:
  ``world.add_emitter(...)`` and ``world.add_drain(...)``.
- ``load_level``/``resolve_level``: a file path, a module name or a built-in demo name.
- ``LevelSession``: builds, steps and reloads a level; level errors become a ``LevelError`` with
  file and line, and never stop the loop.

This package does not import arcade (levels run headless). The interactive player
(:mod:`fluidworld.levels.play`) and the headless renderer (:mod:`fluidworld.levels.headless`)
do, and are imported on demand.
"""

from __future__ import annotations

from .base import RESERVED_KEYS, Level
from .loader import (
    DEFAULT_LEVEL,
    LevelError,
    LevelInfo,
    LevelSession,
    LevelSource,
    builtin_levels,
    find_level_class,
    level_info,
    load_level,
    resolve_level,
)
from .scripting import (
    Circle,
    FillGoal,
    Goal,
    KeyBinding,
    Message,
    Rect,
    Region,
    Timer,
    Trigger,
    count_bodies,
    count_fluid,
)

__all__ = [
    "DEFAULT_LEVEL",
    "RESERVED_KEYS",
    "Circle",
    "FillGoal",
    "Goal",
    "KeyBinding",
    "Level",
    "LevelError",
    "LevelInfo",
    "LevelSession",
    "LevelSource",
    "Message",
    "Rect",
    "Region",
    "Timer",
    "Trigger",
    "builtin_levels",
    "count_bodies",
    "count_fluid",
    "find_level_class",
    "level_info",
    "load_level",
    "resolve_level",
]
