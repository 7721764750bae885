"""Ready-made systems for :meth:`World.add_system`: forces on the fluid in a region.

Each is an object with ``update(world, h)`` whose work is one numba kernel over the particles
(no per-particle Python), so a game adds wind, a river or a whirlpool at the cost of one pass::

    from fluidworld.systems import Current, ForceField, Vortex

    world.add_system(Current((0, 60, 1280, 120), velocity=(90, 0)), after="external_forces")
    world.add_system(Vortex((640, 200), radius=120, speed=150), after="external_forces")

``after="external_forces"`` puts the push beside gravity, before the solver's stages; that is
where forces belong (the default ``after="exchange"`` also works, one substep later).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numba import njit

from .levels.scripting import finite_number

__all__ = ["Current", "ForceField", "Vortex"]


@njit(cache=True)
def relax_in_box(pos, vel, mat, n, box, target, k, material):  # pragma: no cover - numba
    """``v += k (target - v)`` for particles inside ``box`` (of ``material``, or any if < 0)."""
    for i in range(n):
        if material >= 0 and mat[i] != material:
            continue
        x, y = pos[i, 0], pos[i, 1]
        if box[0] <= x <= box[2] and box[1] <= y <= box[3]:
            vel[i, 0] += k * (target[0] - vel[i, 0])
            vel[i, 1] += k * (target[1] - vel[i, 1])


@njit(cache=True)
def accelerate_in_box(pos, vel, mat, n, box, dv, material):  # pragma: no cover - numba
    """``v += dv`` for particles inside ``box`` (of ``material``, or any if < 0)."""
    for i in range(n):
        if material >= 0 and mat[i] != material:
            continue
        x, y = pos[i, 0], pos[i, 1]
        if box[0] <= x <= box[2] and box[1] <= y <= box[3]:
            vel[i, 0] += dv[0]
            vel[i, 1] += dv[1]


@njit(cache=True)
def swirl(pos, vel, n, cx, cy, radius, speed, k, inward):  # pragma: no cover - numba
    """Relax particles within ``radius`` of the centre towards a solid-body rotation whose rim
    moves at ``speed`` (counter-clockwise for > 0), plus an ``inward`` pull (units/s per s)."""
    r2max = radius * radius
    for i in range(n):
        dx = pos[i, 0] - cx
        dy = pos[i, 1] - cy
        r2 = dx * dx + dy * dy
        if r2 > r2max or r2 == 0.0:
            continue
        r = math.sqrt(r2)
        w = speed / radius
        tx, ty = -w * dy, w * dx
        vel[i, 0] += k * (tx - vel[i, 0]) - inward * dx / r
        vel[i, 1] += k * (ty - vel[i, 1]) - inward * dy / r


Check = Callable[[str, Any], Any]
_IMMUTABLE = (tuple, int, float, str, np.generic)  # a field holding one cannot change unseen


def _numbers(label: str, value: Any, n: int, shape: str) -> tuple[float, ...]:
    """``value`` as ``n`` finite floats, else a TypeError/ValueError naming ``label``."""
    if (isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray)
            or np.ndim(value) != 1):
        raise TypeError(f"{label} must be {shape}, got {value!r}")
    if len(value) != n:
        raise ValueError(f"{label} must be {shape}, got {value!r}")
    return tuple(finite_number(label, v) for v in value)


def _box(label: str, region: Any) -> np.ndarray:
    x0, y0, x1, y1 = _numbers(label, region, 4, "(x0, y0, x1, y1)")
    if not (x0 < x1 and y0 < y1):
        raise ValueError(f"{label} must have x0 < x1 and y0 < y1, got {region!r}")
    return np.array([x0, y0, x1, y1])


def _pair(label: str, value: Any) -> np.ndarray:
    return np.array(_numbers(label, value, 2, "a pair (x, y)"))


def _positive(label: str, value: Any) -> float:
    v = finite_number(label, value)
    if v <= 0:
        raise ValueError(f"{label} must be > 0, got {value!r}")
    return v


def _material(label: str, value: Any) -> int | str | None:
    """A material (None, a name, an id >= 0); a name is looked up in the world at each call."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{label} must be a material name (str), an int id or None, "
                        f"got {value!r}")
    if value < 0:
        raise ValueError(f"{label} must be an id >= 0, got {value!r}")
    return int(value)


def _name(label: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{label} must be a non-empty str, got {value!r}")
    return value


class _Checked:
    """Validates each public field whenever it is set (the dataclass ``__init__`` included)
    and keeps the converted value beside it, which ``update`` reads: a change made after
    creation -- a new ``velocity``, a moved ``region`` -- takes effect at the next substep.

    A field holding a mutable object (a list, an array) may be edited in place, unseen by
    ``__setattr__``: such a field is converted (and checked) again at each use, a microsecond.
    """

    _checks: ClassVar[dict[str, Check]] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        check = self._checks.get(name)
        if check is not None:
            object.__setattr__(self, f"_{name}_value", check(self._label(name), value))
        object.__setattr__(self, name, value)

    def _label(self, name: str) -> str:
        return f"{type(self).__name__}.{name}"

    def _get(self, name: str) -> Any:
        """A field's converted value (converted again when it may have been edited in place)."""
        raw = getattr(self, name)
        if raw is None or isinstance(raw, _IMMUTABLE):
            return getattr(self, f"_{name}_value")
        return self._checks[name](self._label(name), raw)

    def _material_id(self, world: Any) -> int:
        """The id of ``material`` in ``world`` (-1: all), or a ValueError naming the system."""
        material = self._get("material")
        if material is None:
            return -1
        try:
            return int(world.material_id(material))
        except ValueError as err:
            raise ValueError(f"{type(self).__name__} {self._get('name')!r}: {err}") from err


@dataclass
class Current(_Checked):
    """A river: the fluid in ``region`` is drawn towards ``velocity`` at ``rate`` per second
    (``v += (1 - exp(-rate h)) (velocity - v)``; 1/rate is the time it takes to catch up).

    Every field may be changed at any time (checked when set; used from the next substep).

    Args:
        region: ``(x0, y0, x1, y1)``.
        velocity: The stream's velocity (units/s).
        rate: How strongly it drags the fluid along (1/s). The water it draws also drags the
            water beside it, so a weak rate leaves the stream slower than ``velocity``: a
            boat on a surface current of 40 over a closed tank 1,200 wide (the top 30 of 70
            units of water) drifts at 0.71 / 0.87 / 0.92 / 0.96 of it at rates 4 / 12 / 20 / 40.
        material: Only this material (name or id); ``None``: all. A name is looked up in
            the world's table at each call (an unknown one raises then).
        name: The name :meth:`World.add_system` gives it by default.

    Raises:
        TypeError / ValueError: naming the field, for a bad value (at creation or when set).
    """

    _checks: ClassVar[dict[str, Check]] = {
        "region": _box, "velocity": _pair, "rate": _positive, "material": _material,
        "name": _name}

    region: Any
    velocity: Any
    rate: float = 20.0
    material: int | str | None = None
    name: str = "current"

    def update(self, world: Any, h: float) -> None:
        """Drag the particles in the region along (a system's step)."""
        f = world.fluid
        k = 1.0 - math.exp(-self._get("rate") * h)
        relax_in_box(f.pos, f.vel, f.mat, f.count, self._get("region"), self._get("velocity"),
                     k, self._material_id(world))


@dataclass
class ForceField(_Checked):
    """A uniform acceleration (wind, a fan, anti-gravity) on the fluid in ``region``.

    Every field may be changed at any time (checked when set; used from the next substep).

    Args:
        region: ``(x0, y0, x1, y1)``.
        acceleration: Units/s² added to the particles inside.
        material: Only this material (name or id); ``None``: all. A name is looked up in
            the world's table at each call (an unknown one raises then).
        name: The name :meth:`World.add_system` gives it by default.

    Raises:
        TypeError / ValueError: naming the field, for a bad value (at creation or when set).
    """

    _checks: ClassVar[dict[str, Check]] = {
        "region": _box, "acceleration": _pair, "material": _material, "name": _name}

    region: Any
    acceleration: Any
    material: int | str | None = None
    name: str = "force_field"

    def update(self, world: Any, h: float) -> None:
        """Accelerate the particles in the region (a system's step)."""
        f = world.fluid
        accelerate_in_box(f.pos, f.vel, f.mat, f.count, self._get("region"),
                          self._get("acceleration") * h, self._material_id(world))


@dataclass
class Vortex(_Checked):
    """A whirlpool: within ``radius`` of ``center`` the fluid is drawn into a rotation whose
    rim moves at ``speed`` (counter-clockwise when positive), and pulled in by ``inward``.

    Every field may be changed at any time (checked when set; used from the next substep).

    Args:
        center: ``(x, y)``.
        radius: Units.
        speed: Rim speed (units/s).
        rate: How strongly the fluid is drawn into the rotation (1/s): at rate 4 the water
            near the rim of a vortex of radius 60 in a deep pool turned at 0.63 of the set
            speed after 3 s, at 20 at 0.89.
        inward: Pull towards the centre (units/s²).
        name: The name :meth:`World.add_system` gives it by default.

    Raises:
        TypeError / ValueError: naming the field, for a bad value (at creation or when set).
    """

    _checks: ClassVar[dict[str, Check]] = {
        "center": _pair, "radius": _positive, "speed": finite_number, "rate": _positive,
        "inward": finite_number, "name": _name}

    center: Any
    radius: float
    speed: float
    rate: float = 20.0
    inward: float = 0.0
    name: str = "vortex"

    def update(self, world: Any, h: float) -> None:
        """Swirl the particles around the centre (a system's step)."""
        f = world.fluid
        cx, cy = self._get("center")
        k = 1.0 - math.exp(-self._get("rate") * h)
        swirl(f.pos, f.vel, f.count, float(cx), float(cy), self._get("radius"),
              self._get("speed"), k, self._get("inward") * h)
