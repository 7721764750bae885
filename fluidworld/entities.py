"""The World's entities and events: bodies, drains and emitters with generational ids, the
events a step reports, and what :meth:`World.check` counts."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pymunk

from ._args import _vec
from .fluid.advection import MAX_SPEED_CELLS
from .fluid.params import _finite, _flag

__all__ = ["BodyEnteredWaterEvent", "BodyLeftWaterEvent", "DrainEvent", "Entity", "BodyHandle",
           "Drain", "Emitter", "EntityQuery", "WorldCheck", "MAX_EMITTER_RATE"]

#: Most particles per second one emitter may add (2,000 a step at 50 Hz): beyond this a
#: nozzle is no longer a jet, and a typo like ``rate=1e9`` would stall the step.
MAX_EMITTER_RATE = 100_000.0


@dataclass(frozen=True)
class BodyEnteredWaterEvent:
    """A dynamic body's submerged area went from (almost) zero to more than 2 % of its area.

    Attributes:
        entity_id: The body's entity id. speed: Its speed when it entered. step: World step.
    """

    entity_id: int
    speed: float
    step: int


@dataclass(frozen=True)
class BodyLeftWaterEvent:
    """A dynamic body left the water (submerged area back below 1 % of its area)."""

    entity_id: int
    step: int


@dataclass(frozen=True)
class DrainEvent:
    """A drain removed ``count`` particles in step ``step``."""

    drain_id: int
    count: int
    step: int


# ---------------------------------------------------------------------------- entities
@dataclass(eq=False)
class Entity:
    """Base of everything the world registers.

    Attributes:
        id: Integer id with a generation; stale after removal.
        kind: What it is, for renderers and scripts ("crate", "ball", "wall", "drain", ...).
        data: The game's own data on this entity (components): any keys, e.g. a component
            class -> its instance (``crate.data[Score] = Score(10)``); saved with the world
            when it pickles. :meth:`World.entities_with` finds entities by key.
    """

    id: int = field(init=False, default=-1)
    kind: str = "entity"
    data: dict[Any, Any] = field(default_factory=dict, repr=False, kw_only=True)

    @property
    def alive(self) -> bool:
        """False once the entity has been removed."""
        return self.id >= 0 and not getattr(self, "_dead", False)


@dataclass(eq=False)
class BodyHandle(Entity):
    """A pymunk body and the shapes the world couples to the fluid.

    Attributes:
        body: The pymunk body (``space.static_body`` for static walls).
        shapes: The coupled shapes; :attr:`shape` is the first.
        sprite: Texture name for renderers ("crate", "ball", "barrel", "anvil", "plank",
            "boat"), or ``None``.
        size: Local bounding-box size ``(w, h)`` of the shapes (for sizing a sprite).
        area: Total area of the shapes.
    """

    body: pymunk.Body = None  # type: ignore[assignment]
    shapes: tuple[pymunk.Shape, ...] = ()
    sprite: str | None = None
    size: tuple[float, float] = (0.0, 0.0)
    area: float = 0.0
    _owns_body: bool = False
    _sensors: tuple[pymunk.Shape, ...] = ()  # the body's sensors that attach added to the Space
    in_water: bool = False
    _world: Any = field(default=None, repr=False)

    @property
    def shape(self) -> pymunk.Shape:
        """The first (usually only) shape."""
        return self.shapes[0]

    @property
    def position(self) -> tuple[float, float]:
        """Body position (world units)."""
        p = self.body.position
        return (p.x, p.y)

    @property
    def angle(self) -> float:
        """Body angle (radians)."""
        return float(self.body.angle)

    @property
    def submerged_area(self) -> float:
        """The body's area under the fluid's surface at the last step (units²; 0 when dry,
        not dynamic, or removed)."""
        k = self._coupled_index()
        return 0.0 if k < 0 else float(self._world.coupler.submerged_area[k])

    @property
    def fluid_force(self) -> tuple[float, float]:
        """The fluid's mean force on the body over the last step (pressure, buoyancy, drag
        and particle contacts; mass x units/s², gravity not included)."""
        k = self._coupled_index()
        if k < 0:
            return (0.0, 0.0)
        fx, fy = self._world.fluid_impulse_of_step(k)
        return (fx, fy)

    def _coupled_index(self) -> int:
        w = self._world
        if w is None or not self.alive:
            return -1
        return int(w.coupler.body_index(self.body))


@dataclass(eq=False)
class Drain(Entity):
    """A rectangle that removes the fluid particles that reach it.

    Attributes:
        rect: ``(x0, y0, x1, y1)``; it may be changed at any time (move the drain), checked
            when set with the errors of :meth:`World.add_drain`. removed: Particles removed
            so far.
    """

    rect: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    removed: int = 0
    kind: str = "drain"
    _domain: tuple[float, float] | None = field(default=None, repr=False)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "rect" and name in self.__dict__:  # set after it was made (add_drain's)
            value = _drain_rect(value, self._domain)
        object.__setattr__(self, name, value)


def _drain_rect(rect: Any, domain: tuple[float, float] | None) -> tuple[float, float, float,
                                                                         float]:
    """``rect`` as four finite floats with ``x1 > x0``, ``y1 > y0`` and some of it inside
    ``domain`` (``(width, height)``, if given); else the error that names it."""
    try:
        x0, y0, x1, y1 = (_finite("rect", v) for v in rect)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and "finite" in str(exc):
            raise
        raise TypeError(f"rect must be (x0, y0, x1, y1), got {rect!r}") from None
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"rect must have x1 > x0 and y1 > y0, got {rect!r}")
    if domain is not None:
        w, h = domain
        if x1 <= 0.0 or y1 <= 0.0 or x0 >= w or y0 >= h:
            raise ValueError(f"rect {rect!r} lies outside the domain (0, 0)-({w:g}, {h:g}): "
                             f"it could never drain anything")
    return (x0, y0, x1, y1)


def _at_least_0(name: str, v: Any) -> float:
    x = _finite(name, v)
    if x < 0.0:
        raise ValueError(f"{name} must be >= 0, got {v!r}")
    return x


def _rate(name: str, v: Any) -> float:
    x = _finite(name, v)
    if not 0.0 <= x <= MAX_EMITTER_RATE:
        raise ValueError(f"{name} must be in [0, {MAX_EMITTER_RATE:g}] particles/s, got {v!r}")
    return x


def _direction(name: str, v: Any) -> tuple[float, float]:
    dx, dy = _vec(name, v)
    ln = math.hypot(dx, dy)
    if not 0.0 < ln < math.inf:
        raise ValueError(f"{name} must be non-zero, got {v!r}")
    return (dx / ln, dy / ln)


def _material(name: str, v: Any) -> int | str:
    if isinstance(v, bool) or not isinstance(v, int | np.integer | str):
        raise TypeError(f"{name} must be a name or an int id, got {v!r}")
    if not isinstance(v, str) and v < 0:
        raise ValueError(f"{name} must be an id >= 0, got {v!r}")
    return v if isinstance(v, str) else int(v)


_EMITTER_CHECKS = {"position": _vec, "direction": _direction, "speed": _at_least_0,
                   "rate": _rate, "width": _at_least_0, "material": _material, "enabled": _flag}


@dataclass(eq=False)
class Emitter(Entity):
    """A nozzle that emits ``rate`` particles per second (exactly, via an accumulator).

    Its settings may be changed at any time (steer it with ``direction``, move it with
    ``position``); each is checked when set, with the errors of :meth:`World.add_emitter`.

    Attributes:
        position: Centre of the nozzle. direction: Unit vector of the jet (a vector set is
            made unit). speed: Jet speed, at most the fluid's speed limit
            (``advection.MAX_SPEED_CELLS`` pressure cells a substep: 4,800 units/s at the game
            preset). rate: Particles per second, at most
            :data:`MAX_EMITTER_RATE`. material: Material id or name (one of the world's:
            checked when set, and looked up at each step).
        width: Nozzle width (particles spread across it). enabled: Switch it on and off.
        emitted: Particles emitted so far. dropped: Particles not emitted because the fluid
            was full: ``max_particles`` reached, or the fluid already fills the domain's free
            area at rest density (``World.domain_capacity``).
        blocked: Particles not emitted because they would have started inside a shape that
            holds water (a nozzle in a wall or a body); the first time, a ``RuntimeWarning``.
    """

    position: tuple[float, float] = (0.0, 0.0)
    direction: tuple[float, float] = (1.0, 0.0)
    speed: float = 0.0
    rate: float = 0.0
    material: int | str = 0
    width: float = 0.0
    enabled: bool = True
    emitted: int = 0
    dropped: int = 0
    blocked: int = 0
    kind: str = "emitter"
    _acc: float = 0.0
    _slot: float = 0.0
    _domain: tuple[float, float] | None = field(default=None, repr=False)
    _names: tuple[str, ...] | None = field(default=None, repr=False)
    _max_speed: float = field(default=math.inf, repr=False)

    def __setattr__(self, name: str, value: Any) -> None:
        check = _EMITTER_CHECKS.get(name)
        value = value if check is None else check(name, value)
        if name == "speed" and value > self._max_speed:
            raise ValueError(f"speed must be at most {self._max_speed:g} units/s (the fluid's "
                             f"speed limit, {MAX_SPEED_CELLS:g} pressure cells a substep), got "
                             f"{value!r}")
        if name == "position" and self._domain is not None:
            w, h = self._domain
            if not (0.0 <= value[0] <= w and 0.0 <= value[1] <= h):
                raise ValueError(f"position {value} is outside the domain (0, 0)-({w:g}, "
                                 f"{h:g})")
        names = self._names
        if name == "material" and names is not None and not (
                value in names if isinstance(value, str) else value < len(names)):
            raise ValueError(f"material {value!r} is unknown; have {list(names)} (ids 0-"
                             f"{len(names) - 1})")
        super().__setattr__(name, value)


# ---------------------------------------------------------------------------- queries
class EntityQuery:
    """What :attr:`World.entities <fluidworld.World.entities>` gives: an iterator over the live
    entities (``for e in world.entities``, ``next(world.entities)``, one pass as a generator),
    and callable as a component query: ``world.entities(with_=Buoyant)`` (a key or a tuple of
    keys, each in the entity's :attr:`~Entity.data`; ``of=BodyHandle`` for bodies only), the
    same as ``world.entities_with(Buoyant)``.

    Args:
        live: The live entities, in id order.
    """

    def __init__(self, live: Iterable[Entity]) -> None:
        self._live = list(live)
        self._it = iter(self._live)

    def __iter__(self) -> Iterator[Entity]:
        return self

    def __next__(self) -> Entity:
        return next(self._it)

    def __len__(self) -> int:
        """How many entities are live."""
        return len(self._live)

    def __call__(self, *keys: Any, with_: Any = None, of: type = Entity) -> Iterator[Any]:
        """The live entities of type ``of`` whose ``data`` holds every key of ``keys`` and
        ``with_`` (one key, or a tuple or list of keys; ``None``: none).

        Raises:
            TypeError: ``of`` is not a class.
        """
        if not isinstance(of, type):
            raise TypeError(f"of must be a class (Entity, BodyHandle, ...), got {of!r}")
        if with_ is None:
            with_ = ()
        wanted = keys + (tuple(with_) if isinstance(with_, tuple | list) else (with_,))
        return (e for e in self._live if isinstance(e, of) and all(k in e.data for k in wanted))


# ---------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class WorldCheck:
    """What :meth:`World.check` counted.

    Args:
        particles: Live fluid particles.
        nan: Particles with a non-finite position or velocity.
        outside: Particles outside the domain box.
        inside_shapes: Particles inside a coupled shape (an overlap containment should prevent).
        bodies: Bodies in the Space.
        bodies_nan: Bodies with a non-finite pose or velocity.
        bodies_outside: Bodies whose position left the domain (only with boundary walls).
    """

    particles: int
    nan: int
    outside: int
    inside_shapes: int
    bodies: int
    bodies_nan: int
    bodies_outside: int

    @property
    def ok(self) -> bool:
        """No NaN, nothing outside the box or inside a shape, every body finite and inside."""
        return not (self.nan or self.outside or self.inside_shapes or self.bodies_nan
                    or self.bodies_outside)
