"""Checking a level's metadata (the class attributes of :class:`~fluidworld.levels.Level`).

A bad value would otherwise surface far from the level, often only once the window opens: a
``camera`` of zero size divides by zero while fitting the view, ``background = "red"`` fails
inside arcade, a ``pour_material`` the world lacks on the first right-click. The session runs
:func:`check_metadata` before it makes the world and :func:`check_pour_material` once the
world exists; :func:`attribute_site` finds the line that sets the attribute, so the error
points at the level file.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..fluid.solvers import SOLVER_NAMES

if TYPE_CHECKING:
    from .base import Level

__all__ = ["MetadataError", "attribute_site", "check_metadata", "check_pour_material"]

#: The fluid looks of the play window.
RENDER_MODES = ("liquid", "sprites")

#: Smallest and largest ``window_size`` side in pixels.
WINDOW_MIN, WINDOW_MAX = 64, 16384


class MetadataError(ValueError):
    """A level attribute the level cannot run with.

    Attributes:
        attribute: The attribute's name (``"camera"``).
        path: The file that sets it (``None`` if unknown).
        line: The line that sets it (``None`` if unknown).
    """

    def __init__(self, level: Level, attribute: str, message: str) -> None:
        self.attribute = attribute
        self.path, self.line = attribute_site(level, attribute)
        super().__init__(message)


def _number(v: Any) -> bool:
    real = isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
    return bool(real and math.isfinite(v))


def _whole(v: Any, low: int, high: int) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool) and bool(low <= v <= high)


def _items(value: Any, n: tuple[int, ...]) -> list[Any] | None:
    """``value`` as a list of ``n`` items (a length in ``n``), or ``None``."""
    if isinstance(value, str | bytes | Mapping):
        return None
    try:
        items = list(value)
    except TypeError:
        return None
    return items if len(items) in n else None


# Each check returns None for a good value, else what the attribute must be.
def _text(v: Any) -> str | None:
    return None if isinstance(v, str) else "a str"


def _size(v: Any) -> str | None:
    return None if _number(v) and v > 0 else "a finite number > 0"


def _gravity(v: Any) -> str | None:
    items = _items(v, (2,))
    ok = items is not None and all(map(_number, items))
    return None if ok else "a pair (gx, gy) of finite numbers"


def _camera(v: Any) -> str | None:
    items = None if v is None else _items(v, (4,))
    if v is None or (items is not None and all(map(_number, items))
                     and items[0] < items[2] and items[1] < items[3]):
        return None
    return "None or (x0, y0, x1, y1) with x0 < x1 and y0 < y1 (finite numbers)"


def _render_mode(v: Any) -> str | None:
    return None if v in RENDER_MODES else " or ".join(map(repr, RENDER_MODES))


def _background(v: Any) -> str | None:
    items = _items(v, (3, 4))
    ok = items is not None and all(_whole(c, 0, 255) for c in items)
    return None if ok else "an (r, g, b) or (r, g, b, a) tuple of ints in [0, 255]"


def _fluid_params(v: Any) -> str | None:
    ok = isinstance(v, Mapping) and all(isinstance(k, str) for k in v)
    return None if ok else "a dict of FluidParams.game keyword arguments"


def _pour_material(v: Any) -> str | None:
    ok = isinstance(v, str) or _whole(v, 0, 2**31)
    return None if ok else "a material id (an int >= 0) or a material name"


def _solver(v: Any) -> str | None:
    return None if v in SOLVER_NAMES else f"one of {', '.join(map(repr, SOLVER_NAMES))}"


def _window_size(v: Any) -> str | None:
    items = None if v is None else _items(v, (2,))
    if v is None or (items is not None and all(_whole(s, WINDOW_MIN, WINDOW_MAX)
                                               for s in items)):
        return None
    return f"None or (width, height) in whole pixels, each in [{WINDOW_MIN}, {WINDOW_MAX}]"


_CHECKS: dict[str, Callable[[Any], str | None]] = {
    "title": _text, "help": _text, "width": _size, "height": _size, "gravity": _gravity,
    "camera": _camera, "render_mode": _render_mode, "background": _background,
    "fluid_params": _fluid_params, "pour_material": _pour_material, "solver": _solver,
    "window_size": _window_size,
}


def check_metadata(level: Level) -> None:
    """Check the metadata :class:`~fluidworld.levels.Level` documents.

    Raises:
        MetadataError: Naming the first bad attribute, what it must be and what it is, and
            located at the line that sets it.
    """
    for attribute, need in _CHECKS.items():
        value = getattr(level, attribute)
        allowed = need(value)
        if allowed is not None:
            raise MetadataError(
                level, attribute,
                f"{type(level).__name__}.{attribute} must be {allowed}, got {value!r}",
            )
    try:  # the keywords and values themselves, at the level's size and gravity
        level.make_params()
    except (TypeError, ValueError) as exc:
        raise MetadataError(
            level, "fluid_params", f"{type(level).__name__}.fluid_params must be keyword "
            f"arguments FluidParams.game takes, got {dict(level.fluid_params)!r}: {exc}"
        ) from None


def check_pour_material(level: Level, world: Any) -> None:
    """Check ``pour_material`` against the materials of the level's world.

    Raises:
        MetadataError: The world has no such material (the message lists those it has).
    """
    try:
        world.material_id(level.pour_material)
    except (TypeError, ValueError) as exc:
        raise MetadataError(
            level, "pour_material", f"{type(level).__name__}.pour_material must be a material "
            f"of the level's world: {exc}"
        ) from None


def attribute_site(level: Level, attribute: str) -> tuple[str | None, int | None]:
    """The file and line where ``level`` sets ``attribute``: the last assignment in the body
    of the class that defines it (the first ``self.<attribute> =`` in the level's own class,
    for one set on the instance), else that class's ``class`` line; ``(None, None)`` when the
    source cannot be read."""
    cls = type(level)
    on_instance = attribute in vars(level)
    if not on_instance:
        cls = next((c for c in cls.__mro__ if attribute in vars(c)), cls)
    try:
        path = inspect.getsourcefile(cls)
        lines, start = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return None, None
    if on_instance:
        sets = re.compile(rf"\s*self\.{attribute}\s*(=|:[^=]*=)")
        found = [k for k, text in enumerate(lines) if sets.match(text)][:1]
    else:  # in the class body itself (its indentation), not in a method
        indent = min((len(t) - len(t.lstrip()) for t in lines[1:] if t.strip()), default=0)
        sets = re.compile(rf"\s{{{indent}}}(\w+\s*,\s*)*{attribute}\s*(,|=|:[^=]*=)")
        found = [k for k, text in enumerate(lines) if sets.match(text)][-1:]
    return path, start + (found[0] if found else 0)
