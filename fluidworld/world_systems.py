"""A game's own stages in the World's step: systems.

A *system* is a function ``fn(world, h)`` (or an object with ``update(world, h)``) that the
step runs at a fixed place in its stage list, timed in ``world.profile`` under its name::

    world.add_system(Current((0, 0, 800, 120), velocity=(80, 0)), after="external_forces")

Order: a system runs right ``after`` (or ``before``) a stage of :attr:`World.stages`; systems at
the same place run in the order they were added (and the list :attr:`World.stages` shows them
where they run). ``every_substep=True`` (the default) runs it in every substep with the
substep's ``h`` -- what a force on the particles needs; ``False`` runs it once per step, in the
step's first substep, with the whole step's ``dt`` (scoring, spawning). Around ``events``
(once per step anyway) both are the same. Removing a system gives back the step it had without
it, bit for bit.

The world's own once-per-step work is registered the same way: the built-in systems ``drains``
and ``emitters`` run right before ``events`` (bodies entering and leaving water), in that order
and before any game system placed there. They are listed in :attr:`World.stages` and timed in
``world.profile`` like a game's, cannot be removed, and can be paused with
``world.system("emitters").enabled = False``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._args import takes_args
from .fluid.params import _flag
from .replay import recorded

__all__ = ["System", "SystemHelpers"]


@dataclass(eq=False)
class System:
    """A registered system (what :meth:`World.add_system` returns).

    Attributes:
        name: Its name in ``world.stages`` and ``world.profile``.
        fn: Called as ``fn(world, h)``.
        anchor: The stage it runs next to. where: ``"after"`` or ``"before"`` it.
        every_substep: Run in every substep (else once per step).
        enabled: Set False to skip it without removing it.
        builtin: One of the world's own systems (``drains``, ``emitters``).
    """

    name: str
    fn: Callable[[Any, float], Any]
    anchor: str
    where: str
    every_substep: bool = True
    enabled: bool = field(default=True)
    builtin: bool = False


def _callable_of(system: Any) -> Callable[[Any, float], Any]:
    update = getattr(system, "update", None)
    fn = update if callable(update) else system if callable(system) else None
    if fn is None:
        raise TypeError(f"system must be a function fn(world, h) or have update(world, h), "
                        f"got {type(system).__name__}")
    if not takes_args(fn, 2):
        raise TypeError(f"system must take two arguments, (world, h): "
                        f"{getattr(fn, '__qualname__', fn)!r} does not")
    return fn


class SystemHelpers:
    """The World's system registry (a mixin of :class:`~fluidworld.World`)."""

    _systems: list[System]
    profile: dict[str, float]
    _timed: Callable[..., None]

    @property
    def _base_stages(self) -> tuple[str, ...]:
        raise NotImplementedError

    def _make_builtin_systems(self) -> tuple[System, ...]:
        raise NotImplementedError

    @property
    def _all_systems(self) -> tuple[System, ...]:
        """The built-in systems, then the game's (made again after a load: not pickled)."""
        builtins = self.__dict__.get("_builtins")
        if builtins is None:
            builtins = self.__dict__["_builtins"] = self._make_builtin_systems()
        return (*builtins, *self._systems)

    @property
    def systems(self) -> tuple[System, ...]:
        """The game's registered systems, in the order they were added (not the built-in
        ones: see :meth:`system`)."""
        return tuple(self._systems)

    def system(self, name: str) -> System:
        """The system called ``name``, the game's or a built-in one (``drains``, ``emitters``).

        Raises:
            KeyError: No such system.
        """
        for s in self._all_systems:
            if s.name == name:
                return s
        raise KeyError(f"no system {name!r}")

    @recorded
    def add_system(self, system: Any, *, after: str | None = None, before: str | None = None,
                   every_substep: bool = True, name: str | None = None) -> System:
        """Insert a game's own stage into the step (see :mod:`fluidworld.world_systems`).

        Args:
            system: ``fn(world, h)``, or an object with ``update(world, h)``.
            after: The stage it runs right after (default ``"exchange"``: the end of each
                substep, bodies and fluid coupled).
            before: Or the stage it runs right before (not with ``after``).
            every_substep: Every substep (default) or once per step (the first substep).
            name: Its name in ``stages`` and ``profile`` (default: the function's or class's
                name; a number is added to repeats).

        Raises:
            TypeError: ``system`` is not callable. ValueError: an unknown stage, both ``after``
            and ``before``, or a name already used.
        """
        fn = _callable_of(system)
        _flag("every_substep", every_substep)
        if after is not None and before is not None:
            raise ValueError("give after= or before=, not both")
        where, anchor = ("before", before) if before is not None else ("after", after or "exchange")
        stages = self._base_stages
        if anchor not in stages:
            builtin = next((b for b in self._all_systems if b.builtin and b.name == anchor), None)
            hint = (f" ({anchor!r} is a built-in system, which runs {builtin.where} "
                    f"{builtin.anchor!r}: anchor to that stage)") if builtin else ""
            raise ValueError(f"after/before must be one of the stages {', '.join(stages)}, "
                             f"got {anchor!r}{hint}")
        used = set(stages) | {s.name for s in self._all_systems}
        if name is None:
            base = getattr(system, "name", None) or getattr(system, "__name__", None) \
                or type(system).__name__
            name, k = str(base), 2
            while name in used:
                name, k = f"{base}_{k}", k + 1
        elif not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty str, got {name!r}")
        elif name in used:
            raise ValueError(f"name {name!r} is already a stage or system of this world")
        entry = System(name, fn, anchor, where, bool(every_substep))
        self._systems.append(entry)
        return entry

    @recorded
    def remove_system(self, system: Any) -> None:
        """Remove a system: by what :meth:`add_system` returned, by name, or by the function
        or object that was given to :meth:`add_system` (the first so registered).

        Raises:
            KeyError: No such system. ValueError: a built-in system (pause it with
            ``enabled = False`` instead).
        """
        # what add_system called: the object's update, or the function itself
        given = () if isinstance(system, str | System) else tuple(
            c for c in (getattr(system, "update", None), system) if callable(c))
        for s in self._all_systems:
            if s is system or s.name == system or any(s.fn == c for c in given):
                if s.builtin:
                    raise ValueError(f"{s.name!r} is built in and cannot be removed; set "
                                     f"world.system({s.name!r}).enabled = False to pause it")
                self._systems.remove(s)
                self.profile.pop(s.name, None)
                return
        raise KeyError(f"no system {system!r}")

    def _with_systems(self, stages: tuple[str, ...]) -> tuple[str, ...]:
        out: list[str] = []
        placed = self._all_systems
        for stage in stages:
            out += [s.name for s in placed if s.anchor == stage and s.where == "before"]
            out.append(stage)
            out += [s.name for s in placed if s.anchor == stage and s.where == "after"]
        return tuple(out)

    def _run_systems(self, stage: str, where: str, h: float, first: bool, dt: float) -> None:
        for s in self._all_systems:
            if s.anchor != stage or s.where != where or not s.enabled:
                continue
            if not s.every_substep and not first:
                continue
            t0 = time.perf_counter()
            s.fn(self, h if s.every_substep else dt)
            if s.name in self.profile:  # not a system removed (or added) during this step
                self.profile[s.name] += (time.perf_counter() - t0) * 1e3

    def _stage(self, stage: str, h: float, first: bool, dt: float, fn: Callable[..., Any],
               args: tuple[Any, ...]) -> None:
        """Run ``stage`` (timed) with the systems placed before and after it."""
        self._run_systems(stage, "before", h, first, dt)
        self._timed(stage, fn, *args)
        self._run_systems(stage, "after", h, first, dt)
