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
from dataclasses import dataclass
from typing import Any

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


def _box(region: Any) -> np.ndarray:
    if isinstance(region, str | bytes) or len(region) != 4:
        raise ValueError(f"region must be (x0, y0, x1, y1), got {region!r}")
    x0, y0, x1, y1 = (finite_number("region", v) for v in region)
    if not (x0 < x1 and y0 < y1):
        raise ValueError(f"region must have x0 < x1 and y0 < y1, got {region!r}")
    return np.array([x0, y0, x1, y1])


def _pair(name: str, value: Any) -> np.ndarray:
    if isinstance(value, str | bytes) or len(value) != 2:
        raise ValueError(f"{name} must be a pair (x, y), got {value!r}")
    return np.array([finite_number(name, value[0]), finite_number(name, value[1])])


def _rate(value: Any) -> float:
    r = finite_number("rate", value)
    if r <= 0:
        raise ValueError(f"rate must be > 0 (1/s), got {value!r}")
    return r


def _material(world: Any, material: int | str | None) -> int:
    return -1 if material is None else int(world.material_id(material))


@dataclass
class Current:
    """A river: the fluid in ``region`` is drawn towards ``velocity`` at ``rate`` per second
    (``v += (1 - exp(-rate h)) (velocity - v)``; 1/rate is the time it takes to catch up).

    Args:
        region: ``(x0, y0, x1, y1)``.
        velocity: The stream's velocity (units/s).
        rate: How strongly it drags the fluid along (1/s).
        material: Only this material (name or id); ``None``: all.
    """

    region: Any
    velocity: Any
    rate: float = 4.0
    material: int | str | None = None
    name: str = "current"

    def __post_init__(self) -> None:
        self._box = _box(self.region)
        self._target = _pair("velocity", self.velocity)
        self._rate = _rate(self.rate)

    def update(self, world: Any, h: float) -> None:
        """Drag the particles in the region along (a system's step)."""
        f = world.fluid
        k = 1.0 - math.exp(-self._rate * h)
        relax_in_box(f.pos, f.vel, f.mat, f.count, self._box, self._target, k,
                     _material(world, self.material))


@dataclass
class ForceField:
    """A uniform acceleration (wind, a fan, anti-gravity) on the fluid in ``region``.

    Args:
        region: ``(x0, y0, x1, y1)``.
        acceleration: Units/s² added to the particles inside.
        material: Only this material (name or id); ``None``: all.
    """

    region: Any
    acceleration: Any
    material: int | str | None = None
    name: str = "force_field"

    def __post_init__(self) -> None:
        self._box = _box(self.region)
        self._acc = _pair("acceleration", self.acceleration)

    def update(self, world: Any, h: float) -> None:
        """Accelerate the particles in the region (a system's step)."""
        f = world.fluid
        accelerate_in_box(f.pos, f.vel, f.mat, f.count, self._box, self._acc * h,
                          _material(world, self.material))


@dataclass
class Vortex:
    """A whirlpool: within ``radius`` of ``center`` the fluid is drawn into a rotation whose
    rim moves at ``speed`` (counter-clockwise when positive), and pulled in by ``inward``.

    Args:
        center: ``(x, y)``.
        radius: Units.
        speed: Rim speed (units/s).
        rate: How strongly the fluid is drawn into the rotation (1/s).
        inward: Pull towards the centre (units/s²).
    """

    center: Any
    radius: float
    speed: float
    rate: float = 4.0
    inward: float = 0.0
    name: str = "vortex"

    def __post_init__(self) -> None:
        self._c = _pair("center", self.center)
        if not finite_number("radius", self.radius) > 0:
            raise ValueError(f"radius must be > 0, got {self.radius!r}")
        finite_number("speed", self.speed)
        finite_number("inward", self.inward)
        self._rate = _rate(self.rate)

    def update(self, world: Any, h: float) -> None:
        """Swirl the particles around the centre (a system's step)."""
        f = world.fluid
        k = 1.0 - math.exp(-self._rate * h)
        swirl(f.pos, f.vel, f.count, float(self._c[0]), float(self._c[1]), float(self.radius),
              float(self.speed), k, float(self.inward) * h)
