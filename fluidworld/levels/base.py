"""The ``Level`` base class: metadata, ``build(world)``, ``update(world, dt)`` and script helpers.

A level is a small Python file::

    from fluidworld.levels import Level

    class Pool(Level):
        title = "A pool"
        help = "G: open the gate"

        def build(self, world):
            world.add_static_segment((0, 40), (960, 40))
            world.add_fluid_rect(0, 40, 960, 200)
            self.crate = world.add_box((300, 400), (40, 40), density=0.5, sprite="crate")
            self.after(3.0, lambda w: self.say("three seconds!"))
            self.bind("G", self.open_gate, "open the gate")

The runner (:class:`fluidworld.levels.LevelSession`) creates the world from the metadata
(:meth:`Level.make_params`), calls ``build`` once, then after every ``world.step()`` calls
:meth:`Level.advance`, which counts level time, fires timers, triggers and goals, and finally
calls ``update``. Nothing here imports arcade: levels run headless in tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .._args import _rgba, _vec
from ..fluid import FluidParams
from .scripting import (
    Action,
    FillGoal,
    Goal,
    KeyBinding,
    Message,
    Rect,
    Region,
    Timer,
    Trigger,
    Watch,
    as_region,
    check_material,
    finite_number,
    key_name,
    normalize_key,
    watched_bodies,
    whole_number,
)

if TYPE_CHECKING:
    from ..world import Drain, Emitter, World

__all__ = ["Level", "RESERVED_KEYS"]

#: Keys the player uses in ``fluidworld play``; levels cannot bind them.
RESERVED_KEYS: frozenset[str] = frozenset(
    {"SPACE", "N", "R", "F5", "F6", "F9", "D", "F", "M", "H", "C", "B", "V", "ESCAPE", "KEY_1",
     "KEY_2", "KEY_3", "KEY_4"}
)


class Level:
    """Base class of a playable level. Subclass it, set the metadata, override ``build``.

    Class attributes (metadata):
        title: Shown in the window title and by ``fluidworld levels``.
        help: One line of level-specific help shown on screen.
        width: World width in world units (pixels).
        height: World height in world units.
        gravity: ``(gx, gy)`` in world units/s².
        camera: World rectangle ``(x0, y0, x1, y1)`` the view shows; ``None`` shows the whole
            world.
        render_mode: ``"liquid"`` or ``"sprites"`` (the player can switch at run time).
        background: Clear colour, RGBA 0..255.
        fluid_params: Extra keyword overrides for :meth:`FluidParams.game` (``a0``, ``gamma``,
            ``substeps``, ``pressure_iterations``, ...).
        pour_material: Material id the right mouse button pours by default (or its name).
        solver: The fluid solver by name (``"srd"``, ``"ddr"``, ``"constraint"``); the player
            cycles them with V.
        window_size: Preferred window size in pixels; ``None`` fits the camera into 1280x720.

    The session checks the metadata before it builds the level (:mod:`.metadata`): a bad value
    is a level error at the line that sets it.

    Attributes (set while running):
        world: The world built by this level (``None`` before ``build``).
        steps: Physics steps since the level was built.
        time: Level time in seconds (``steps * dt``).
        won: Whether every goal has been reached.
        messages: Lines to show on screen (see :meth:`say`).
        status: A line the level rewrites as it likes (counters, scores), shown under the HUD.
    """

    title: ClassVar[str] = "Untitled level"
    help: ClassVar[str] = ""
    width: ClassVar[float] = 960.0
    height: ClassVar[float] = 540.0
    gravity: ClassVar[tuple[float, float]] = (0.0, -900.0)
    camera: ClassVar[tuple[float, float, float, float] | None] = None
    render_mode: ClassVar[str] = "liquid"
    background: ClassVar[tuple[int, int, int, int]] = (14, 18, 30, 255)
    fluid_params: ClassVar[dict[str, Any]] = {}
    pour_material: ClassVar[int] = 0
    solver: ClassVar[str] = "srd"
    window_size: ClassVar[tuple[int, int] | None] = None

    def __init__(self) -> None:
        self.world: World | None = None
        self._reset_script()

    def _reset_script(self) -> None:
        self.steps = 0
        self.dt = 1.0 / 60.0
        self.timers: list[Timer] = []
        self.triggers: list[Trigger] = []
        self.goals: list[Goal] = []
        self.bindings: dict[str, KeyBinding] = {}
        self.messages: list[Message] = []
        self.status = ""
        self.guides: list[tuple[tuple[float, float], tuple[float, float],
                                tuple[int, int, int, int], float]] = []
        self.won = False

    # ------------------------------------------------------------------ saving
    def save_state(self) -> dict[str, Any]:
        """What a save keeps of this level (``LevelSession.save``): by default every attribute
        (timers, triggers, goals, keys, messages, your own such as a score). Override it, with
        :meth:`load_state`, to drop or convert what does not pickle."""
        return self.__dict__.copy()

    def load_state(self, state: dict[str, Any]) -> None:
        """Take back what :meth:`save_state` returned (when a save is loaded)."""
        self.__dict__.update(state)

    def __getstate__(self) -> dict[str, Any]:
        return self.save_state()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.load_state(state)

    # ------------------------------------------------------------------ metadata
    def make_params(self) -> FluidParams:
        """Fluid parameters for this level: the game preset at the level's size and gravity."""
        overrides = dict(self.fluid_params)
        overrides.setdefault("gravity", tuple(self.gravity))
        return FluidParams.game(float(self.width), float(self.height), **overrides)

    def make_world(self) -> World:
        """Create the level's world (override for custom materials or coupling knobs)."""
        from ..world import World

        return World(float(self.width), float(self.height), params=self.make_params(),
                     solver=self.solver)

    @property
    def view_rect(self) -> tuple[float, float, float, float]:
        """The world rectangle the camera shows."""
        if self.camera is not None:
            return tuple(float(v) for v in self.camera)  # type: ignore[return-value]
        return (0.0, 0.0, float(self.width), float(self.height))

    def preferred_window_size(self, max_size: tuple[int, int] = (1280, 720)) -> tuple[int, int]:
        """Window size in pixels: ``window_size`` or the view rectangle scaled into ``max_size``."""
        if self.window_size is not None:
            return (int(self.window_size[0]), int(self.window_size[1]))
        x0, y0, x1, y1 = self.view_rect
        scale = min(max_size[0] / (x1 - x0), max_size[1] / (y1 - y0))
        return (max(64, round((x1 - x0) * scale)), max(64, round((y1 - y0) * scale)))

    @property
    def time(self) -> float:
        """Level time in seconds: whole steps times ``dt`` (no float drift)."""
        return self.steps * self.dt

    # ------------------------------------------------------------------ to override
    def build(self, world: World) -> None:
        """Create the level's geometry, fluid, bodies and scripted events. Override this."""
        raise NotImplementedError(f"{type(self).__name__} must define build(self, world)")

    def update(self, world: World, dt: float) -> None:
        """Called after every physics step (after timers, triggers and goals). Optional."""

    # ------------------------------------------------------------------ running
    def start(self, world: World) -> None:
        """Reset the script state and ``build`` into ``world`` (the runner calls this)."""
        self._reset_script()  # a rebuild starts from a clean script state
        self.world = world
        self.dt = float(world.fluid.params.dt)
        self.build(world)

    def advance(self, world: World, dt: float | None = None) -> None:
        """Count one step, then fire due timers, triggers and goals, then call ``update``.

        Call once after each ``world.step()``. Exceptions from level code propagate.
        """
        if dt is not None:
            self.dt = float(dt)
        self.steps += 1
        now = self.time
        for timer in list(self.timers):
            timer.poll(world, now)
        self.timers = [t for t in self.timers if not t.done]
        for trigger in list(self.triggers):
            trigger.poll(world, self.steps)
        self.triggers = [t for t in self.triggers if not t.done]
        if self.goals and not self.won:
            for goal in self.goals:
                if goal.poll(world, self.steps, self.dt):
                    self.say(goal.message, seconds=math.inf, big=True)
            if all(g.reached for g in self.goals):
                self.won = True
        self.messages = [m for m in self.messages if m.until > now]
        self.update(world, self.dt)

    def press(self, key: str, world: World | None = None) -> bool:
        """Run the level's binding for ``key``; returns whether there was one."""
        binding = self.bindings.get(normalize_key(key))
        if binding is None:
            return False
        binding.action(world if world is not None else self.world)
        return True

    # ------------------------------------------------------------------ script helpers
    def after(self, seconds: float, action: Action, *, name: str = "") -> Timer:
        """Call ``action(world)`` once, ``seconds`` after now ("open the gate after 3 s").

        Raises:
            TypeError / ValueError: ``seconds`` is not a finite number >= 0; TypeError:
                ``action`` is not callable.
        """
        delay = finite_number("seconds", seconds)
        if delay < 0:
            raise ValueError(f"seconds must be >= 0, got {seconds!r}")
        timer = Timer(self.time + delay, action, name=name)
        self.timers.append(timer)
        return timer

    def every(
        self, seconds: float, action: Action, *, start: float | None = None, name: str = ""
    ) -> Timer:
        """Call ``action(world)`` every ``seconds``, first at ``start`` s from now (default
        ``seconds``).

        Raises:
            TypeError / ValueError: ``seconds`` is not a finite number > 0, or ``start`` not
                one >= 0; TypeError: ``action`` is not callable.
        """
        period = finite_number("seconds", seconds)
        if period <= 0:
            raise ValueError(f"seconds must be > 0, got {seconds!r}")
        delay = period if start is None else finite_number("start", start)
        if delay < 0:
            raise ValueError(f"start must be >= 0, got {start!r}")
        timer = Timer(self.time + delay, action, every=period, name=name)
        self.timers.append(timer)
        return timer

    def trigger(
        self,
        region: Region | Sequence[float],
        action: Action,
        *,
        watch: Watch = "fluid",
        material: int | str | None = None,
        bodies: Sequence[Any] | None = None,
        min_count: int = 1,
        once: bool = True,
        name: str = "",
    ) -> Trigger:
        """Call ``action(world)`` when fluid (or a body) enters ``region``.

        Args:
            region: A :class:`Rect`, :class:`Circle` or ``(x0, y0, x1, y1)``.
            action: Called with the world.
            watch: ``"fluid"`` or ``"bodies"``; giving ``bodies`` implies ``"bodies"``.
            material: Fluid material to count, by id or name (``None``: any).
            bodies: Bodies or entity handles to watch, a list or one (default: every
                dynamic body); one removed from the world no longer counts.
            min_count: Particles (or bodies) needed inside.
            once: Fire only the first time.
            name: Label.

        Raises:
            TypeError: ``action`` is not callable, ``bodies`` holds something that is no body
                or handle. TypeError / ValueError: ``material`` is not a material of the world,
                or ``min_count`` not an int >= 1.
        """
        if bodies is not None:
            watch = "bodies"
        min_count = whole_number("min_count", min_count, 1)
        trig = Trigger(
            as_region(region),
            action,
            watch=watch,
            material=self._material_id(material),
            bodies=watched_bodies(bodies),
            min_count=min_count,
            once=once,
            name=name,
        )
        self.triggers.append(trig)
        return trig

    def faucet(
        self,
        position: tuple[float, float],
        direction: tuple[float, float] = (0.0, -1.0),
        speed: float = 100.0,
        rate: float = 300.0,
        material: int | str = 0,
        width: float | None = None,
    ) -> Emitter:
        """A faucet: ``world.add_emitter`` with friendly defaults (straight down, 300/s).

        Emits exactly ``rate`` particles per second of level time; switch it with
        ``faucet.enabled``, steer it with ``faucet.direction`` / ``faucet.position``.
        """
        return self._world().add_emitter(position, direction, speed, rate, material, width)

    def drain(self, region: Sequence[float]) -> Drain:
        """A drain: ``world.add_drain((x0, y0, x1, y1))``; ``drain.removed`` counts particles."""
        values = as_region(region)
        if not isinstance(values, Rect):
            raise TypeError(f"region must be (x0, y0, x1, y1) or a Rect, got {region!r}")
        return self._world().add_drain((values.x0, values.y0, values.x1, values.y1))

    def _material_id(self, material: int | str | None) -> int | str | None:
        """``material`` as the world's material id (checked when the level has a world, else
        where it is counted, by ``count_fluid``)."""
        if material is None or self.world is None:
            return check_material(material)
        return self.world.material_id(material)

    def _world(self) -> World:
        if self.world is None:
            raise RuntimeError("the level has no world yet: call this from build() or later")
        return self.world

    def goal(
        self,
        check: Callable[[World], float | bool],
        message: str = "Level complete!",
        *,
        hold: float = 0.5,
        on_reached: Action | None = None,
    ) -> Goal:
        """Add a win condition; ``check(world)`` returns progress in [0, 1] or a bool.

        Raises:
            TypeError: ``check`` (or ``on_reached``) is not callable.
        """
        g = Goal(check, message=message, hold=hold, on_reached=on_reached)
        self.goals.append(g)
        return g

    def fill_goal(
        self,
        region: Region | Sequence[float],
        particles: int,
        message: str = "Level complete!",
        *,
        material: int | str | None = None,
        hold: float = 0.5,
        on_reached: Action | None = None,
    ) -> FillGoal:
        """Add a "fill the container" goal: ``particles`` fluid particles inside ``region``
        (of ``material``, an id or a name; ``None``: any).

        Raises:
            TypeError / ValueError: ``material`` is not a material of the world.
        """
        g = FillGoal(
            as_region(region), whole_number("particles", particles, 1),
            material=self._material_id(material),
            message=message, hold=hold, on_reached=on_reached,
        )
        self.goals.append(g)
        return g

    def bind(self, key: str, action: Action, help: str = "") -> KeyBinding:
        """Bind a key (``"G"``, ``"ENTER"``, ``"LEFT"``, ...) to ``action(world)``.

        Raises:
            ValueError: For names that are no key of the play window
                (:data:`~fluidworld.levels.scripting.KEY_NAMES`) and for keys the player
                controls use (:data:`RESERVED_KEYS`).
            TypeError: ``action`` is not callable.
        """
        name = key_name(key)
        if name in RESERVED_KEYS:
            raise ValueError(
                f"key {name!r} is used by the player controls; pick another "
                f"(reserved: {', '.join(sorted(RESERVED_KEYS))})"
            )
        binding = KeyBinding(name, action, help)
        self.bindings[name] = binding
        return binding

    def say(self, text: str, seconds: float = 3.0, *, big: bool = False) -> Message:
        """Show ``text`` on screen for ``seconds`` (``math.inf``: until the level restarts)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError(f"seconds must be a number, got {seconds!r}")
        if not seconds > 0:  # math.inf is fine: until the level restarts
            raise ValueError(f"seconds must be > 0 (math.inf: for good), got {seconds!r}")
        msg = Message(text, self.time + float(seconds), big)
        self.messages.append(msg)
        return msg

    def guide_line(
        self,
        a: tuple[float, float],
        b: tuple[float, float],
        color: tuple[int, int, int, int] = (255, 255, 255, 170),
        width: float = 2.0,
    ) -> None:
        """Draw a line in the world that nothing collides with (a fill line, a target).

        Raises:
            TypeError, ValueError: a point that is not a finite ``(x, y)``, a colour that is not
                3 or 4 whole numbers in 0..255, a width that is not > 0.
        """
        w = finite_number("width", width)
        if w <= 0.0:
            raise ValueError(f"width must be > 0, got {width!r}")
        self.guides.append((_vec("a", a), _vec("b", b), _rgba("color", color), w))

    @property
    def key_help(self) -> str:
        """``"G: open the gate  W: wave"`` from the bindings that have help text."""
        return "  ".join(
            f"{k.removeprefix('KEY_')}: {b.help}" for k, b in self.bindings.items() if b.help
        )
