"""Scripted events for levels: regions, timers, triggers, goals, key bindings and messages.

Everything here is evaluated once per physics step, *after* ``world.step()``, by
:meth:`fluidworld.levels.Level.advance`. Time is counted in whole steps (``time = steps * dt``),
never accumulated as a float sum, so "after 3 s" at 60 Hz is exactly the 180th step on every
machine and every run.

Callbacks (timer, trigger, goal and key actions) receive the world as their only argument; one
that is not callable is refused when the timer, trigger, goal or key is made. If one raises, the
exception propagates to the caller of ``advance``: the play loop catches it, shows it on screen
and keeps the physics running.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt
import pymunk

from .._args import takes_args
from ..fluid.params import _finite

__all__ = [
    "KEY_NAMES",
    "Action",
    "Circle",
    "FillGoal",
    "Goal",
    "KeyBinding",
    "Message",
    "Rect",
    "Region",
    "Timer",
    "Trigger",
    "as_region",
    "count_bodies",
    "count_fluid",
    "key_name",
    "normalize_key",
    "watched_bodies",
]

#: What timers, triggers, goals and keys call: ``action(world)``.
Action = Callable[[Any], Any]

#: Time slack when comparing step times with a timer's due time (float round-off only).
_EPS = 1e-9


class Region(Protocol):
    """A 2D region that can say which points lie inside it (vectorised)."""

    def contains(self, points: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Per point, whether it lies inside."""
        ...


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle ``[x0, x1] x [y0, y1]`` in world units.

    >>> Rect(0, 0, 10, 5).contains([(1, 1), (11, 1)]).tolist()
    [True, False]
    """

    x0: float
    y0: float
    x1: float
    y1: float

    def __post_init__(self) -> None:
        for name in ("x0", "y0", "x1", "y1"):
            object.__setattr__(self, name, _finite(f"Rect.{name}", getattr(self, name)))
        if self.x1 <= self.x0 or self.y1 <= self.y0:
            raise ValueError(f"empty region: Rect ({self.x0}, {self.y0})-({self.x1}, {self.y1}) "
                             "needs x0 < x1 and y0 < y1")

    @property
    def center(self) -> tuple[float, float]:
        """The rectangle's centre."""
        return (0.5 * (self.x0 + self.x1), 0.5 * (self.y0 + self.y1))

    @property
    def size(self) -> tuple[float, float]:
        """``(width, height)``."""
        return (self.x1 - self.x0, self.y1 - self.y0)

    def contains(self, points: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Per point, whether it lies inside (edges included)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        x, y = p[:, 0], p[:, 1]
        return (x >= self.x0) & (x <= self.x1) & (y >= self.y0) & (y <= self.y1)


@dataclass(frozen=True)
class Circle:
    """A disc of ``radius`` around ``(cx, cy)``.

    >>> Circle(0, 0, 2).contains([(1, 1), (2, 2)]).tolist()
    [True, False]
    """

    cx: float
    cy: float
    radius: float

    def __post_init__(self) -> None:
        for name in ("cx", "cy", "radius"):
            object.__setattr__(self, name, _finite(f"Circle.{name}", getattr(self, name)))
        if self.radius <= 0.0:
            raise ValueError(f"Circle.radius must be > 0, got {self.radius!r}")

    def contains(self, points: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Per point, whether it lies inside (boundary included)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        d2 = (p[:, 0] - self.cx) ** 2 + (p[:, 1] - self.cy) ** 2
        return d2 <= self.radius * self.radius


def as_region(region: Region | Sequence[float]) -> Region:
    """Accept a region object or a plain ``(x0, y0, x1, y1)`` rectangle tuple.

    Raises:
        TypeError / ValueError: naming ``region``, for anything else or non-finite numbers.
    """
    if hasattr(region, "contains"):
        return region
    if isinstance(region, str | bytes) or not isinstance(region, Sequence | np.ndarray):
        raise TypeError(f"region must be a Rect, a Circle or (x0, y0, x1, y1), got {region!r}")
    values = tuple(finite_number("region", v) for v in region)
    if len(values) != 4:
        raise ValueError(f"region must be a Rect, a Circle or (x0, y0, x1, y1), got {region!r}")
    return Rect(*values)


#: ``value`` as a finite float, else a TypeError/ValueError naming the argument (the package's
#: one validator of numbers, shared with the parameter dataclasses).
finite_number = _finite


def whole_number(name: str, value: Any, minimum: int) -> int:
    """``value`` as an int >= ``minimum``, else a TypeError/ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def check_callable(name: str, value: Any) -> Any:
    """``value`` if it can be called as ``value(world)``, else a TypeError naming ``name`` (a
    timer, trigger, goal or key checks its action when it is made, not when it would fire)."""
    if callable(value):
        if not takes_args(value, 1):
            raise TypeError(f"{name} must take one argument, the world: "
                            f"{getattr(value, '__qualname__', value)!r} does not")
        return value
    hint = " (pass the function itself, not the result of calling it)" if value is None else ""
    raise TypeError(f"{name} must be callable, got {value!r}{hint}")


def check_material(material: Any) -> int | str | None:
    """``material`` if it can name a material (an id, a name or ``None``), else a TypeError."""
    if material is None or isinstance(material, str):
        return material
    if isinstance(material, bool) or not isinstance(material, int | np.integer):
        raise TypeError(f"material must be a name, an int id or None, got {material!r}")
    return int(material)


def normalize_key(key: str) -> str:
    """Canonical key name: upper case, no spaces (``"g"`` -> ``"G"``, ``"f2"`` -> ``"F2"``).

    Names follow ``arcade.key`` (``"SPACE"``, ``"ENTER"``, ``"LEFT"``, ``"KEY_1"``); a single
    digit is accepted and becomes ``"KEY_1"``.

    >>> normalize_key("g"), normalize_key("1"), normalize_key(" space ")
    ('G', 'KEY_1', 'SPACE')
    """
    if not isinstance(key, str) or not key.strip():
        raise ValueError(f"key must be a non-empty name like 'G' or 'SPACE', got {key!r}")
    name = key.strip().upper().replace(" ", "_")
    if len(name) == 1 and name.isdigit():
        name = f"KEY_{name}"
    return name


_NAMED_KEYS = """
    AMPERSAND APOSTROPHE ASCIICIRCUM ASCIITILDE ASTERISK AT BACKSLASH BACKSPACE BAR BEGIN
    BRACELEFT BRACERIGHT BRACKETLEFT BRACKETRIGHT BREAK CANCEL CAPSLOCK CLEAR COLON COMMA DELETE
    DOLLAR DOUBLEQUOTE DOWN END ENTER EQUAL ESCAPE EXCLAMATION EXECUTE FIND GRAVE GREATER HASH
    HELP HOME INSERT LALT LCOMMAND LCTRL LEFT LESS LINEFEED LMETA LOPTION LSHIFT LWINDOWS MENU
    MINUS MODESWITCH NUMLOCK NUM_ADD NUM_BEGIN NUM_DECIMAL NUM_DELETE NUM_DIVIDE NUM_DOWN NUM_END
    NUM_ENTER NUM_EQUAL NUM_F1 NUM_F2 NUM_F3 NUM_F4 NUM_HOME NUM_INSERT NUM_LEFT NUM_MULTIPLY
    NUM_NEXT NUM_PAGE_DOWN NUM_PAGE_UP NUM_PRIOR NUM_RIGHT NUM_SEPARATOR NUM_SPACE NUM_SUBTRACT
    NUM_TAB NUM_UP PAGEDOWN PAGEUP PARENLEFT PARENRIGHT PAUSE PERCENT PERIOD PLUS POUND PRINT
    QUESTION QUOTELEFT RALT RCOMMAND RCTRL REDO RETURN RIGHT RMETA ROPTION RSHIFT RWINDOWS
    SCRIPTSWITCH SCROLLLOCK SELECT SEMICOLON SLASH SPACE SYSREQ TAB UNDERSCORE UNDO UP
"""

#: The key names a level can bind: those of ``arcade.key`` that name a key (the play window
#: finds a binding's key with ``getattr(arcade.key, name)``), without the modifier masks
#: (``MOD_*``) and text motions (``MOTION_*``). Kept here, not read from arcade, because this
#: module runs headless; ``tests/test_level_robustness.py`` checks it against arcade.
KEY_NAMES: frozenset[str] = frozenset([
    *(chr(c) for c in range(ord("A"), ord("Z") + 1)), *(f"KEY_{d}" for d in range(10)),
    *(f"NUM_{d}" for d in range(10)), *(f"F{n}" for n in range(1, 25)), *_NAMED_KEYS.split(),
])


def key_name(key: str) -> str:
    """:func:`normalize_key`, then a ValueError unless the play window can deliver the key.

    >>> key_name("enter")
    'ENTER'
    """
    name = normalize_key(key)
    if name in KEY_NAMES:
        return name
    close = difflib.get_close_matches(name, sorted(KEY_NAMES), n=3)
    hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
    if "+" in name:
        hint = " (a key alone: combinations with ctrl, alt or shift never reach a level)"
    raise ValueError(
        f"key {key!r} is not a key the play window delivers{hint}; use an arcade.key name: "
        "A-Z, 0-9 (KEY_0-KEY_9), F1-F24, UP, DOWN, LEFT, RIGHT, ENTER, TAB, BACKSPACE, DELETE, "
        "INSERT, HOME, END, PAGEUP, PAGEDOWN, MINUS, EQUAL, COMMA, PERIOD, SLASH, NUM_0-NUM_9, "
        "... (see fluidworld.levels.scripting.KEY_NAMES)"
    )


# --------------------------------------------------------------------------------------- timers
@dataclass
class Timer:
    """Calls ``action(world)`` at ``at`` seconds of level time, and then every ``every`` seconds.

    A timer fires on the first step whose end time reaches its due time. Created with
    :meth:`Level.after` / :meth:`Level.every`.

    Attributes:
        at: Level time (s) of the first firing.
        action: Called with the world.
        every: Repeat period (s), or ``None`` for a one-shot timer.
        name: Label for messages and debugging.
        fired: How many times it has fired.
        cancelled: Set by :meth:`cancel`; a cancelled timer never fires again.
    """

    at: float
    action: Action
    every: float | None = None
    name: str = ""
    fired: int = 0
    cancelled: bool = False

    def __post_init__(self) -> None:
        check_callable("action", self.action)
        if not math.isfinite(self.at) or self.at < 0:
            raise ValueError(f"timer time must be >= 0, got {self.at!r}")
        if self.every is not None and not (math.isfinite(self.every) and self.every > 0):
            raise ValueError(f"timer period must be > 0, got {self.every!r}")
        self._due = float(self.at)

    @property
    def done(self) -> bool:
        """Whether it will never fire again."""
        return self.cancelled or (self.every is None and self.fired > 0)

    def cancel(self) -> None:
        """Stop the timer."""
        self.cancelled = True

    def poll(self, world: Any, time: float) -> bool:
        """Fire if due at level time ``time``; returns whether it fired."""
        if self.done or time + _EPS < self._due:
            return False
        self.fired += 1
        if self.every is not None:
            # next due time from the schedule, not from "now": no drift
            self._due = self.at + self.fired * self.every
        self.action(world)
        return True


# ------------------------------------------------------------------------------------- triggers
Watch = Literal["fluid", "bodies"]


@dataclass
class Trigger:
    """Calls ``action(world)`` when fluid or a body enters a region.

    The condition is evaluated once per step. A trigger fires on the step where the condition
    becomes true (an edge); with ``once=True`` (the default) it then retires.

    Attributes:
        region: Where to look.
        action: Called with the world.
        watch: ``"fluid"`` (fluid particles) or ``"bodies"`` (body centres).
        material: Only count fluid particles of this material, by id or name (``None``: any).
        bodies: Only these bodies (pymunk bodies or entity handles with ``.body``); ``None``
            means any dynamic body in the world's space. A removed one no longer counts.
        min_count: How many particles (or bodies) must be inside.
        once: Fire at most once.
        name: Label.
        fired: How many times it has fired.
        step_fired: Level step of the last firing (``-1`` if never).
    """

    region: Region
    action: Action
    watch: Watch = "fluid"
    material: int | str | None = None
    bodies: list[Any] | None = None
    min_count: int = 1
    once: bool = True
    name: str = ""
    fired: int = 0
    step_fired: int = -1
    _inside: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        check_callable("action", self.action)
        self.material = check_material(self.material)
        if self.watch not in ("fluid", "bodies"):
            raise ValueError(f"watch must be 'fluid' or 'bodies', got {self.watch!r}")
        if self.min_count < 1:
            raise ValueError(f"min_count must be >= 1, got {self.min_count}")
        self.region = as_region(self.region)
        self.bodies = watched_bodies(self.bodies)

    @property
    def done(self) -> bool:
        """Whether it will never fire again."""
        return self.once and self.fired > 0

    def count(self, world: Any) -> int:
        """How many watched things are inside the region now."""
        if self.watch == "fluid":
            return count_fluid(world, self.region, self.material)
        return count_bodies(world, self.region, self.bodies)

    def poll(self, world: Any, step: int) -> bool:
        """Evaluate at level step ``step``; fire on a rising edge. Returns whether it fired."""
        if self.done:
            return False
        inside = self.count(world) >= self.min_count
        rising = inside and not self._inside
        self._inside = inside
        if not rising:
            return False
        self.fired += 1
        self.step_fired = step
        self.action(world)
        return True


def count_fluid(world: Any, region: Region, material: int | str | None = None) -> int:
    """Number of fluid particles of ``material`` (an id or a name; any if ``None``) inside
    ``region``.

    Raises:
        TypeError / ValueError: ``material`` is no material of ``world``
            (``world.material_id``).
    """
    mat = None if material is None else world.material_id(material)
    fluid = world.fluid
    pos = fluid.positions
    if len(pos) == 0:
        return 0
    inside = region.contains(pos)
    if mat is not None:
        inside &= fluid.materials == mat
    return int(np.count_nonzero(inside))


def watched_bodies(bodies: Any) -> list[Any] | None:
    """``bodies`` as a list of pymunk bodies or entity handles (one given alone is a list of
    one), ``None`` as is; else a TypeError naming the item that is neither."""
    if bodies is None:
        return None
    if isinstance(_body_of(bodies), pymunk.Body):
        return [bodies]
    if isinstance(bodies, str | bytes) or not isinstance(bodies, Iterable):
        raise TypeError(f"bodies must be bodies or entity handles (a list, or one), got "
                        f"{bodies!r}")
    out = list(bodies)
    for i, item in enumerate(out):
        if not isinstance(_body_of(item), pymunk.Body):
            raise TypeError(f"bodies[{i}] must be a pymunk.Body or an entity handle with a "
                            f".body (world.add_box(...) returns one), got {item!r}")
    return out


def _body_of(item: Any) -> Any:
    return getattr(item, "body", item)


def _in_world(item: Any) -> bool:
    """Whether a watched body is still there: a live handle, a body in a space."""
    if getattr(item, "alive", True) is False:  # an entity handle after world.remove
        return False
    return getattr(_body_of(item), "space", None) is not None


def count_bodies(world: Any, region: Region, bodies: Iterable[Any] | None = None) -> int:
    """Number of bodies (given, or every dynamic body in the space) whose centre is inside;
    a given body that was removed (its handle is dead, or it left the space) is not counted."""
    if bodies is None:
        import pymunk

        items = [b for b in world.space.bodies if b.body_type == pymunk.Body.DYNAMIC]
    else:
        items = [_body_of(b) for b in bodies if _in_world(b)]
    if not items:
        return 0
    centres = np.array([(float(b.position.x), float(b.position.y)) for b in items])
    return int(np.count_nonzero(region.contains(centres)))


# ---------------------------------------------------------------------------------------- goals
@dataclass
class Goal:
    """A win condition: ``check(world)`` returns progress in [0, 1] (or a bool).

    The goal is reached once progress has stayed at 1 for ``hold`` seconds; then ``on_reached``
    is called with the world (once) and the level shows ``message``.

    Attributes:
        check: Progress function.
        message: Shown when reached.
        hold: Seconds the condition must hold (filters out a splash passing through).
        on_reached: Optional callback.
        progress: Last evaluated progress.
        reached: Whether the goal has been reached.
        step_reached: Level step at which it was reached (``-1`` if not yet).
    """

    check: Callable[[Any], float | bool]
    message: str = "Level complete!"
    hold: float = 0.5
    on_reached: Action | None = None
    progress: float = 0.0
    reached: bool = False
    step_reached: int = -1
    _held: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        check_callable("check", self.check)
        if self.on_reached is not None:
            check_callable("on_reached", self.on_reached)
        if not isinstance(self.message, str):
            raise TypeError(f"message must be a str, got {self.message!r}")
        if finite_number("hold", self.hold) < 0:
            raise ValueError(f"hold must be >= 0, got {self.hold!r}")

    def poll(self, world: Any, step: int, dt: float) -> bool:
        """Evaluate after a step of ``dt``; returns True on the step the goal is reached."""
        if self.reached:
            return False
        self.progress = _progress(self.check(world), self.check)
        self._held = self._held + dt if self.progress >= 1.0 else 0.0
        if self.progress < 1.0 or self._held + _EPS < self.hold:
            return False
        self.reached = True
        self.step_reached = step
        if self.on_reached is not None:
            self.on_reached(world)
        return True


def _progress(value: Any, check: Any) -> float:
    """A goal check's result as progress in [0, 1]; a TypeError naming the check for anything
    but a number or a bool, a ValueError for NaN."""
    if not isinstance(value, bool | int | float | np.integer | np.floating | np.bool_):
        raise TypeError(f"a goal's check must return a number in [0, 1] or a bool; "
                        f"{getattr(check, '__qualname__', check)!r} returned {value!r}")
    v = float(value)
    if math.isnan(v):
        raise ValueError(f"a goal's check returned NaN ({getattr(check, '__qualname__', check)!r})")
    return min(max(v, 0.0), 1.0)


class FillGoal(Goal):
    """"Fill the bucket to the line": at least ``particles`` fluid particles inside ``region``.

    Use :meth:`particles_to_fill` to convert a fill height into a particle count.

    Args:
        region: The part of the container that must be full (e.g. below the line).
        particles: How many particles count as full.
        material: Only count this material, by id or name (``None``: any).
        message: Shown when reached.
        hold: Seconds the level must stay full.
        on_reached: Optional callback.
    """

    def __init__(
        self,
        region: Region | Sequence[float],
        particles: int,
        *,
        material: int | str | None = None,
        message: str = "Level complete!",
        hold: float = 0.5,
        on_reached: Action | None = None,
    ) -> None:
        if particles < 1:
            raise ValueError(f"particles must be >= 1, got {particles}")
        self.region = as_region(region)
        self.particles = int(particles)
        self.material = check_material(material)
        super().__init__(self._progress, message=message, hold=hold, on_reached=on_reached)

    def _progress(self, world: Any) -> float:
        return count_fluid(world, self.region, self.material) / self.particles

    @staticmethod
    def particles_to_fill(world: Any, area: float, fraction: float = 0.85) -> int:
        """Particles in ``area`` world units² at ``fraction`` of rest density (``gamma / a0²``).

        A free surface is never packed at full density, hence the default 0.85.
        """
        p = world.fluid.params
        return max(1, int(fraction * area / p.particle_area))


# ------------------------------------------------------------------------------- keys, messages
@dataclass(frozen=True)
class KeyBinding:
    """A level key: pressing ``key`` calls ``action(world)``.

    Attributes:
        key: Canonical key name (see :func:`normalize_key`).
        action: Called with the world.
        help: One-line description for the on-screen help.
    """

    key: str
    action: Action
    help: str = ""

    def __post_init__(self) -> None:
        check_callable("action", self.action)


@dataclass(frozen=True)
class Message:
    """A line of text the level shows on screen until level time ``until`` (inf: forever)."""

    text: str
    until: float = math.inf
    big: bool = False
