"""Surface and interfacial tension: how round a blob of fluid pulls itself without gravity.

Scenes (game preset, gravity off, built from the public :class:`~fluidworld.World` API):

* ``blob`` -- a rectangle of water alone in a 320 x 320 box; after a few seconds, the
  circularity of the particles' convex hull (:func:`circularity`: ``4 pi A / P^2``, 1 for a
  disc, ``pi / 4`` for a square). Surface tension minimises the perimeter, so a fluid that has
  it rounds up; SRD has none (issue 14: a square blob rounds up above 0.9 within 5 s with
  `ddr`, and does not with SRD). ``Material.cohesion`` adds Madams' pull to `ddr`'s own.
* ``drop`` -- a square of an immiscible fluid as dense as water inside a block of water: with
  an interfacial tension (cohesive materials of different mix groups, `ddr`) it rounds up.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..fluid import WATER, FluidParams, Material
from ..world import World
from . import Row

__all__ = ["rows", "circularity", "blob_circularity", "drop_circularity", "cohesive_water",
           "weightless_world"]

#: The box the scenes run in (world units, gravity off).
BOX = 320.0


def circularity(pts: NDArray[np.float64]) -> float:
    """``4 pi A / P^2`` of the points' convex hull (1 for a disc, pi/4 for a square).

    Raises:
        ValueError: fewer than three points.
    """
    if len(pts) < 3:
        raise ValueError(f"circularity needs at least 3 points, got {len(pts)}")
    ps = sorted(map(tuple, np.asarray(pts, np.float64)))

    def half(seq: list) -> list:
        h: list = []
        for p in seq:
            while len(h) >= 2 and ((h[-1][0] - h[-2][0]) * (p[1] - h[-2][1])
                                   - (h[-1][1] - h[-2][1]) * (p[0] - h[-2][0])) <= 0:
                h.pop()
            h.append(p)
        return h

    hp = np.array(half(ps)[:-1] + half(ps[::-1])[:-1])
    x, y = hp[:, 0], hp[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    perimeter = np.linalg.norm(hp - np.roll(hp, -1, axis=0), axis=1).sum()
    return float(4.0 * math.pi * area / perimeter**2)


def cohesive_water(cohesion: float) -> Material:
    """Water (its colour and damping) with ``cohesion``."""
    return Material("water", WATER.color, damping=0.05, cohesion=cohesion)


def weightless_world(materials: tuple[Material, ...], solver: str = "ddr") -> World:
    """The scenes' ``BOX`` x ``BOX`` world with gravity off."""
    return World(BOX, BOX, params=FluidParams.game(BOX, BOX, gravity=(0.0, 0.0)), solver=solver,
                 materials=materials)


def blob_circularity(width: float = 100.0, height: float = 100.0, solver: str = "ddr",
                     cohesion: float = 0.0, seconds: float = 5.0) -> float:
    """A ``width x height`` blob of water (``cohesion``) centred in the box, gravity off, run
    ``seconds`` with ``solver``: the circularity of its hull."""
    w = weightless_world((cohesive_water(cohesion),), solver)
    c = 0.5 * BOX
    w.add_fluid_rect(c - 0.5 * width, c - 0.5 * height, c + 0.5 * width, c + 0.5 * height)
    for _ in range(int(round(seconds * 60))):
        w.step()
    return circularity(w.fluid.positions)


def drop_circularity(cohesion: float = 0.3, side: float = 80.0, seconds: float = 3.0) -> float:
    """A ``side`` square of an immiscible fluid as dense as water in the middle of a 240 x 240
    block of water, both of ``cohesion``, gravity off, `ddr`, run ``seconds``: the circularity
    of the square's particles' hull."""
    other = Material("other", (200, 60, 160, 255), damping=0.05, mix_group="other",
                     cohesion=cohesion)
    w = weightless_world((cohesive_water(cohesion), other), "ddr")
    w.add_fluid_rect(40.0, 40.0, BOX - 40.0, BOX - 40.0)
    f = w.fluid
    p = f.positions
    c = 0.5 * BOX
    inside = (np.abs(p[:, 0] - c) < 0.5 * side) & (np.abs(p[:, 1] - c) < 0.5 * side)
    f.mat[: f.count][inside] = w.material_id("other")
    for _ in range(int(round(seconds * 60))):
        w.step()
    return circularity(f.positions[f.materials == w.material_id("other")])


def rows(quick: bool) -> list[Row]:
    """The tension table (``quick``: the two square blobs only)."""
    out: list[Row] = []
    d = blob_circularity(solver="ddr")
    out.append(Row("tension", "ddr, square blob 100 x 100, no gravity, 5 s: circularity", d,
                   "> 0.9 (rounds up)", d > 0.9))
    s = blob_circularity(solver="srd")
    out.append(Row("tension", "srd, square blob 100 x 100, no gravity, 5 s: circularity", s,
                   "< 0.88 (no tension)", s < 0.88))
    if quick:
        return out
    plain = blob_circularity(60.0, 120.0, seconds=3.0)
    out.append(Row("tension", "ddr, blob 60 x 120, 3 s: circularity", plain, "> pi/4 = 0.785",
                   plain > math.pi / 4))
    coh = blob_circularity(60.0, 120.0, cohesion=0.3, seconds=3.0)
    out.append(Row("tension", "ddr, blob 60 x 120, cohesion 0.3, 3 s: circularity", coh,
                   f"> {plain:.3f} (rounder)", coh > plain))
    plain_drop = drop_circularity(0.0)
    drop = drop_circularity(0.3)
    out.append(Row("tension", "ddr, square drop of an immiscible fluid in water, 3 s: "
                   "circularity", plain_drop, f"< {drop:.3f} (no interfacial tension)",
                   plain_drop < drop))
    out.append(Row("tension", "ddr, the same drop, both cohesion 0.3: circularity", drop,
                   "> 0.95 (interfacial tension)", drop > 0.95))
    return out
