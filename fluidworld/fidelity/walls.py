"""Walls under load: particles that end up on the wrong side of thin walls, and volume drift.

Each scene is built from the public API at the game preset (``World(w, h)``, with the seed set
in :class:`~fluidworld.fluid.FluidParams`) and comes with a test that counts the particles on
the wrong side of its walls. :func:`crossings` runs a scene and counts them every few steps and
at the end; the tests (``tests/test_walls.py``) and ``benchmarks/fidelity.py`` use the same
scenes and functions.

Scenes: a thin floor under deep water; closed triangles and squares of thin segments full of
water with a heavy ball inside; a 45-degree ramp meeting a floor with ~1,600 particles dammed
against the joint; the same walls at radius 0; a heavy box sunk onto a thin floor and a light
ball held under a thin ceiling (particles inside a dynamic body count as across); polygons
and segments meeting at joints (a tank, a ramp). The rest depth of water in tanks standing in
the air, and a box floating in them (:func:`tank_depth`), a box dropped into a pool on a thin
floor (:func:`dropped_box`); a lock at rest (:func:`lock_rest_speed`). Then the
fluid area of a dam break after settling against before (:func:`volume_drift`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..coupling.sampling import geometry_of
from ..fluid.params import FluidParams
from ..scenes import fluid_area
from ..world import BodyHandle, World
from . import Row

__all__ = ["Scene", "SCENES", "crossings", "raised_tank", "tank_depth", "dropped_box",
           "lock_rest_speed", "volume_drift", "rows"]

Positions = NDArray[np.float64]


@dataclass
class Scene:
    """A world and the count of its particles on the wrong side of its walls."""

    world: World
    across: Callable[[Positions], int]


def _world(width: float, height: float, seed: int) -> World:
    p = dataclasses.replace(FluidParams.game(width, height), seed=seed)
    return World(width, height, params=p)


def thin_floor(seed: int, radius: float = 1.0, depth: float = 150.0) -> Scene:
    """A floor segment across the whole domain, ``depth`` units of water resting on it."""
    y = 30.0
    w = _world(200.0, y + depth + 40.0, seed)
    w.add_static_segment((-10.0, y), (210.0, y), radius=radius)
    w.add_fluid_rect(0.0, y + radius, 200.0, depth)
    return Scene(w, lambda pos: int((pos[:, 1] < y).sum()))


def _outside_polygon(v: NDArray[np.float64]) -> Callable[[Positions], int]:
    """Count of points right of any edge of the counter-clockwise polygon ``v``."""
    def across(pos: Positions) -> int:
        out = np.zeros(len(pos), bool)
        for i in range(len(v)):
            a, d = v[i], v[(i + 1) % len(v)] - v[i]
            out |= d[0] * (pos[:, 1] - a[1]) - d[1] * (pos[:, 0] - a[0]) < 0.0
        return int(out.sum())
    return across


def closed_shape(seed: int, sides: int = 4, radius: float = 1.0) -> Scene:
    """A closed triangle or square of thin segments (radius ``radius``) full of water, a heavy
    ball (density 3) dropped in; across = outside the shape's centre lines or more than 0.5
    units inside the ball."""
    c = np.array([100.0, 95.0])
    a0 = math.pi / 2.0 if sides == 3 else math.pi / 4.0
    v = np.array([c + 70.0 * np.array([math.cos(a0 + 2.0 * math.pi * i / sides),
                                       math.sin(a0 + 2.0 * math.pi * i / sides)])
                  for i in range(sides)])
    w = _world(200.0, 200.0, seed)
    for i in range(sides):
        w.add_static_segment(tuple(v[i]), tuple(v[(i + 1) % sides]), radius=radius)
    ball = w.add_ball(tuple(c + (0.0, 10.0)), 12.0, density=3.0)
    w.add_fluid_polygon(v)
    outside, inside = _outside_polygon(v), _inside_body(ball, 0.5)
    return Scene(w, lambda pos: outside(pos) + inside(pos))


def ramp(seed: int, radius: float = 1.0) -> Scene:
    """A 45-degree ramp rising from the end of a floor, ~1,600 particles dammed against the
    joint; across = under the floor or the ramp."""
    y, xj = 30.0, 200.0
    w = _world(400.0, 280.0, seed)
    w.add_static_segment((-10.0, y), (xj, y), radius=radius)
    w.add_static_segment((xj, y), (xj + 250.0, y + 250.0), radius=radius)
    w.add_fluid_rect(0.0, y + radius, 190.0, 200.0)

    def across(pos: Positions) -> int:
        lim = np.where(pos[:, 0] <= xj, y, y + (pos[:, 0] - xj))
        return int((pos[:, 1] < lim).sum())
    return Scene(w, across)


def mixed_tank(seed: int) -> Scene:
    """A tank: a polygon floor slab and two segment walls (radius 2) standing on its ends,
    water 100 deep; across = outside the walls' centre lines or under the slab's top. (Before
    the fix over a fifth of the water left through the joints within 3 s: a move from the
    inner corner cut the slab's corner and the segment's round end.)"""
    w = _world(400.0, 300.0, seed)
    w.add_static_poly([(100.0, 0.0), (300.0, 0.0), (300.0, 20.0), (100.0, 20.0)])
    for x in (100.0, 300.0):
        w.add_static_segment((x, 20.0), (x, 250.0), radius=2.0)
    w.add_fluid_rect(102.0, 22.0, 298.0, 122.0)
    return Scene(w, lambda pos: int(((pos[:, 0] < 100.0) | (pos[:, 0] > 300.0)
                                     | (pos[:, 1] < 20.0)).sum()))


def poly_ramp(seed: int) -> Scene:
    """A polygon ramp rising from the end of a polygon floor (both static, air below), water
    dammed against the joint; across = under the floor or the ramp, or past the segment wall on
    the left."""
    w = _world(400.0, 300.0, seed)
    w.add_static_poly([(100.0, 20.0), (300.0, 20.0), (300.0, 25.0), (100.0, 25.0)])
    w.add_static_poly([(300.0, 25.0), (300.0, 20.0), (390.0, 110.0), (385.0, 115.0)])
    w.add_static_segment((100.0, 25.0), (100.0, 250.0), radius=1.0)
    w.add_fluid_rect(101.0, 25.0, 300.0, 95.0)  # below the ramp's top: nothing spills

    def across(pos: Positions) -> int:
        # under the floor, or under the ramp's lower face (x < 390: beyond the ramp's outer
        # edge a particle is in the open air, where a splash over the ramp's top lands; the
        # bound ran on under it until 2026-11-30, and such a drop counted as across)
        x, y = pos[:, 0], pos[:, 1]
        under = np.where(x <= 300.0, y < 20.0, (x < 390.0) & (y < 20.0 + (x - 300.0)))
        return int((under | (x < 100.0)).sum())
    return Scene(w, across)


def _inside_body(body: BodyHandle, depth: float) -> Callable[[Positions], int]:
    """Count of points more than ``depth`` inside the body's (circle or convex polygon) shape."""
    g = geometry_of(body.shapes[0])

    def across(pos: Positions) -> int:
        b = body.body
        c, s = math.cos(b.angle), math.sin(b.angle)
        d = pos - (b.position.x, b.position.y)
        local = np.column_stack([c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]])
        if g.kind == 0:
            return int((np.hypot(*(local - g.points[0]).T) < g.radius - depth).sum())
        v = g.points
        inner = np.ones(len(pos), bool)
        for i in range(len(v)):
            e = v[(i + 1) % len(v)] - v[i]
            n = np.array([e[1], -e[0]]) / np.hypot(*e)
            inner &= (local - v[i]) @ n < g.radius - depth
        return int(inner.sum())
    return across


def sunk_box(seed: int) -> Scene:
    """A heavy box (density 3) sinking through 120 units of water onto a thin floor: across =
    under the floor or more than 0.5 units inside the box."""
    y = 30.0
    w = _world(200.0, 200.0, seed)
    w.add_static_segment((-10.0, y), (210.0, y), radius=1.0)
    w.add_fluid_rect(0.0, y + 1.0, 200.0, 120.0)
    box = w.add_box((100.0, 140.0), (40.0, 20.0), density=3.0)
    inside = _inside_body(box, 0.5)
    return Scene(w, lambda pos: int((pos[:, 1] < y).sum()) + inside(pos))


def held_ball(seed: int) -> Scene:
    """A light ball (density 0.2) pressed by the water against a thin ceiling: across = above
    the ceiling or more than 0.5 units inside the ball."""
    y = 130.0
    w = _world(200.0, 200.0, seed)
    w.add_static_segment((-10.0, y), (210.0, y), radius=1.0)
    ball = w.add_ball((100.0, 60.0), 15.0, density=0.2)
    w.add_fluid_rect(0.0, 0.0, 200.0, 110.0)
    inside = _inside_body(ball, 0.5)
    return Scene(w, lambda pos: int((pos[:, 1] > y).sum()) + inside(pos))


#: The scenes by name: each takes a seed.
SCENES: dict[str, Callable[[int], Scene]] = {
    "thin floor r1, 150 deep": lambda s: thin_floor(s, 1.0, 150.0),
    "thin floor r1, 250 deep": lambda s: thin_floor(s, 1.0, 250.0),
    "closed triangle r1 + ball": lambda s: closed_shape(s, 3, 1.0),
    "closed square r1 + ball": lambda s: closed_shape(s, 4, 1.0),
    "ramp joint r1": lambda s: ramp(s, 1.0),
    "ramp joint r2": lambda s: ramp(s, 2.0),
    "ramp joint r0": lambda s: ramp(s, 0.0),
    "closed square r0 + ball": lambda s: closed_shape(s, 4, 0.0),
    "box density 3 on a thin floor": sunk_box,
    "ball density 0.2 under a thin ceiling": held_ball,
    "polygon floor + segment walls": mixed_tank,
    "polygon ramp on a polygon floor": poly_ramp,
}


def crossings(scene: Callable[[int], Scene], seed: int, seconds: float,
              every: int = 10) -> tuple[int, int, bool]:
    """Run a scene for ``seconds`` (game steps of 1/60 s) and count the particles across its
    walls every ``every`` steps and at the end.

    Returns:
        ``(largest count seen, particles lost or not finite, whether all stayed finite)``.
    """
    sc = scene(seed)
    f = sc.world.fluid
    n0 = f.count
    worst = sc.across(f.positions)
    steps = int(round(seconds * 60.0))
    for i in range(steps):
        sc.world.step()
        if (i + 1) % every == 0 or i == steps - 1:
            worst = max(worst, sc.across(f.positions))
    finite = bool(np.isfinite(f.positions).all() and np.isfinite(f.velocities).all())
    return worst, n0 - f.count, finite


#: The top of :func:`raised_tank`'s floor.
TANK_FLOOR = 50.0


def raised_tank(seed: int, floor: str = "1", box: float | None = None,
                top: float = TANK_FLOOR) -> tuple[World, BodyHandle | None]:
    """A tank standing in the air: a floor from x 90 to 310 with its top at y ``top`` (50: on a
    cell edge) and air below it (a segment of radius ``floor``, or ``"poly"``: a polygon slab
    10 thick), segment walls (radius 2) at x 100 and 300, water filled 100 deep; a 40 x 30 box
    of density ``box`` dropped in from above it."""
    w = _world(400.0, 300.0, seed)
    if floor == "poly":
        w.add_static_poly([(90.0, top - 10.0), (310.0, top - 10.0), (310.0, top), (90.0, top)])
    else:
        r = float(floor)
        w.add_static_segment((90.0, top - r), (310.0, top - r), radius=r)
    for x in (100.0, 300.0):
        w.add_static_segment((x, top), (x, 280.0), radius=2.0)
    w.add_fluid_rect(102.0, top, 298.0, top + 100.0)
    body = w.add_box((200.0, 230.0), (40.0, 30.0), density=box) if box else None
    return w, body


def tank_depth(seed: int, floor: str, box: float | None = None, seconds: float = 10.0,
               top: float = TANK_FLOOR, average: float = 0.0) -> tuple[float, float]:
    """:func:`raised_tank` after ``seconds``: the water's depth over the floor between x 110 and
    160 (99th percentile of the heights; with ``average``, its mean over that many last
    seconds, every step) and the box's submerged fraction (NaN without one). Water filled 100
    deep rests 100 deep (more with a floating box in it)."""
    w, body = raised_tank(seed, floor, box, top)
    steps = int(round(seconds * 60.0))
    first = steps - max(int(round(average * 60.0)), 1)
    depths = []
    for i in range(steps):
        w.step()
        if i >= first:
            p = w.fluid.positions
            side = (p[:, 0] > 110.0) & (p[:, 0] < 160.0)
            depths.append(float(np.percentile(p[side, 1], 99)) - top)
    return float(np.mean(depths)), (body.submerged_area / body.area if body else math.nan)


def dropped_box(seed: int, density: float = 0.7, seconds: float = 10.0) -> float:
    """A pool 118 deep on a thin floor: a segment of radius 0.5 across the domain with its
    centre line on a cell edge (y = 20) and air below it; a 40 x 30 box of ``density`` dropped
    from y = 300 (it plunges to the floor). Returns its submerged fraction averaged over the
    last 3 s of ``seconds`` (before the floor's wall cells were found from its surface, the
    cells under it were air and the box stayed on the floor, 1.00)."""
    w = _world(400.0, 320.0, seed)
    w.add_static_segment((0.0, 20.0), (400.0, 20.0), radius=0.5)
    w.add_fluid_rect(0.0, 20.5, 400.0, 138.5)
    box = w.add_box((200.0, 300.0), (40.0, 30.0), density=density)
    steps = int(round(seconds * 60.0))
    fractions = []
    for i in range(steps):
        w.step()
        if i >= steps - 180:
            fractions.append(box.submerged_area / box.area)
    return float(np.mean(fractions))


def lock_rest_speed(seed: int, seconds: float = 10.0) -> float:
    """A lock: a thin divider (a segment of radius 1) from the floor to above the water, a pool
    150 deep on its left and 50 deep on its right, both at rest. Returns the high pool's mean
    particle speed over the second half of ``seconds`` over ``sqrt(g 150)`` (0 at rest; a
    divider that passes pressure from one pool to the other keeps it sloshing)."""
    w = _world(400.0, 300.0, seed)
    w.add_static_segment((200.0, 0.0), (200.0, 250.0), radius=1.0)
    w.add_fluid_rect(0.0, 0.0, 199.0, 150.0)
    w.add_fluid_rect(201.0, 0.0, 400.0, 50.0)
    steps = int(round(seconds * 60.0))
    speeds = []
    for i in range(steps):
        w.step()
        if i >= steps // 2:
            left = w.fluid.positions[:, 0] < 200.0
            speeds.append(float(np.linalg.norm(w.fluid.velocities[left], axis=1).mean()))
    return float(np.mean(speeds)) / math.sqrt(math.hypot(*w.fluid.params.gravity) * 150.0)


def _tank_rows(quick: bool) -> list[Row]:
    """Rest depth in tanks standing in the air, and a box of 0.5 floating in two of them."""
    seeds = range(1) if quick else range(2)
    seconds = 5.0 if quick else 10.0
    out = []
    for floor, name in (("1", "a thin floor (r 1)"), ("10", "a thick floor (r 10)"),
                        ("poly", "a polygon slab")):
        d = [tank_depth(s, floor, None, seconds)[0] for s in seeds]
        worst = max(d, key=lambda v: abs(v - 100.0))
        out.append(Row("walls", f"tank on {name}, air below, filled 100 deep: rest depth "
                                f"(worst of {len(seeds)} seeds)", worst, "100 +- 3",
                       abs(worst - 100.0) <= 3.0))
    for floor, name in (("2", "a thin floor (r 2)"), ("poly", "a polygon slab")):
        f = [tank_depth(s, floor, 0.5, seconds)[1] for s in seeds]
        worst = max(f, key=lambda v: abs(v - 0.5))
        out.append(Row("walls", f"box 0.5 in a tank on {name}, air below: submerged fraction",
                       worst, "0.5 +- 0.05", abs(worst - 0.5) <= 0.05))
    for what, box in (("rest depth", None), ("box 0.5: submerged fraction", 0.5)):
        v = [tank_depth(s, "1", box, seconds, top=45.0)[0 if box is None else 1] for s in seeds]
        aim, tol = (100.0, 3.0) if box is None else (0.5, 0.05)
        worst = max(v, key=lambda x: abs(x - aim))
        out.append(Row("walls", f"tank on a thin floor (r 1) across its cells' middle, air "
                                f"below: {what}", worst, f"{aim:g} +- {tol:g}",
                       abs(worst - aim) <= tol))
    f = [dropped_box(s, 0.7, seconds) for s in seeds]
    worst = max(f, key=lambda v: abs(v - 0.7))
    out.append(Row("walls", "box 0.7 dropped into a pool on a thin floor (r 0.5, on a cell edge), "
                            "air below: submerged fraction", worst, "0.7 +- 0.05",
                   abs(worst - 0.7) <= 0.05))
    r = max(lock_rest_speed(s, seconds) for s in seeds)
    out.append(Row("walls", "lock, pools 150 and 50 deep either side of a thin divider: high "
                            "pool's mean speed / sqrt(g d)", r, "< 0.01", r < 0.01))
    return out


def _half_full_area(world: World) -> float:
    """Area of the cells (``a0`` squares) holding at least half of ``gamma`` particles."""
    p = world.fluid.params
    nx, ny = math.ceil(p.width / p.a0), math.ceil(p.height / p.a0)
    counts, _, _ = np.histogram2d(world.fluid.positions[:, 0], world.fluid.positions[:, 1],
                                  bins=(nx, ny), range=((0.0, nx * p.a0), (0.0, ny * p.a0)))
    return float((counts >= 0.5 * p.gamma).sum()) * p.a0 * p.a0


def volume_drift(seed: int = 0, seconds: float = 10.0) -> tuple[float, float]:
    """Fluid area of a dam break (a 100 x 160 column in a 400 x 200 tank) after ``seconds`` of
    settling over the area before, measured twice: under the free surface
    (:func:`fluidworld.scenes.fluid_area`, columns of ``a0``) and as the area of the cells at
    least half full (a density-based estimate)."""
    w = _world(400.0, 200.0, seed)
    w.add_fluid_rect(0.0, 0.0, 100.0, 160.0)
    before = fluid_area(w.fluid), _half_full_area(w)
    for _ in range(int(round(seconds * 60.0))):
        w.step()
    return fluid_area(w.fluid) / before[0], _half_full_area(w) / before[1]


def floor_overlap(solver: str, density: float = 3.0,
                  seconds: float = 10.0) -> tuple[float, float]:
    """A 40 x 40 box of ``density`` let down onto the floor under water 100 deep (320 x 240):
    its lowest bottom over the second half of ``seconds`` (below 0: into the floor; on a dry
    floor pymunk's slop leaves -0.1) and the fluid's mean force on it along y there
    (:attr:`~fluidworld.world.BodyHandle.fluid_force`)."""
    w = World(320.0, 240.0, solver=solver)
    w.add_fluid_rect(0.0, 0.0, 320.0, 100.0)
    box = w.add_box((160.0, 125.0), (40.0, 40.0), density=density)
    steps = int(round(seconds * 60.0))
    lowest = math.inf
    force = []
    for i in range(steps):
        w.step()
        if i >= steps // 2:
            lowest = min(lowest, box.shape.cache_bb().bottom)
            force.append(box.fluid_force[1])
    return lowest, float(np.mean(force))


def shelf_overlap(solver: str, seconds: float = 10.0) -> float:
    """A 40 x 30 box of 0.5 floats up from under water 150 deep into a static shelf (a slab
    200 x 10 whose underside is at 75): how far into the shelf its top reaches, at most, from
    the third second on (the body tilts and meets it with a corner)."""
    w = World(320.0, 240.0, solver=solver)
    w.add_static_poly([(60.0, 75.0), (260.0, 75.0), (260.0, 85.0), (60.0, 85.0)])
    w.add_fluid_rect(0.0, 0.0, 320.0, 150.0)
    box = w.add_box((160.0, 60.0), (40.0, 30.0), density=0.5)
    deepest = -math.inf
    for i in range(int(round(seconds * 60.0))):
        w.step()
        if i >= 180:
            deepest = max(deepest, box.shape.cache_bb().top - 75.0)
    return deepest


def deck_overlap(solver: str, seconds: float = 8.0) -> float:
    """A 40 x 40 crate of water's density on a raft 200 x 20 of 0.5 floating on water 100 deep
    (400 wide): how far the crate reaches into the raft, at most, from the third second on."""
    w = World(400.0, 240.0, solver=solver)
    w.add_fluid_rect(0.0, 0.0, 400.0, 100.0)
    raft = w.add_box((200.0, 105.0), (200.0, 20.0), density=0.5)
    crate = w.add_box((200.0, 136.0), (40.0, 40.0), density=1.0)
    deepest = 0.0
    for i in range(int(round(seconds * 60.0))):
        w.step()
        if i >= 180:
            points = raft.shape.shapes_collide(crate.shape).points
            deepest = max([deepest, *(-p.distance for p in points)])
    return deepest


def rows(quick: bool) -> list[Row]:
    """Crossings per scene (largest over seeds, counted every 10 steps), tanks standing in the
    air (:func:`tank_depth`) and the volume drift.

    Full: 10 seeds x 10 s per scene; quick: 3 seeds x 3 s. The dam break settles 10 s in both."""
    seeds = range(3) if quick else range(10)
    seconds = 3.0 if quick else 10.0
    out = []
    for name, scene in SCENES.items():
        worst = lost = 0
        finite = True
        for s in seeds:
            a, gone, ok = crossings(scene, s, seconds)
            worst, lost, finite = max(worst, a), max(lost, gone), finite and ok
        out.append(Row("walls", f"{name}: across, max of {len(seeds)} seeds x {seconds:g} s",
                       float(worst), "0", worst == 0 and lost == 0 and finite))
    out += _tank_rows(quick)
    for solver in ("srd", "ddr", "constraint"):
        low = floor_overlap(solver, 3.0, 5.0 if quick else 10.0)[0]
        out.append(Row("walls", f"box 40 x 40 of 3x water on the floor under 100 of it, {solver}: "
                                "lowest bottom (dry: -0.1)", low, "> -0.25", low > -0.25))
        up = shelf_overlap(solver, 5.0 if quick else 10.0)
        out.append(Row("walls", f"box 40 x 30 of 0.5 floated up under a static shelf, {solver}: "
                                "deepest into it", up, "< 1", up < 1.0))
        deck = deck_overlap(solver, 5.0 if quick else 8.0)
        out.append(Row("walls", f"crate 40 x 40 of 1 on a floating raft, {solver}: deepest into "
                                "it (dry: 0.1)", deck, "< 0.3", deck < 0.3))
    surface, cells = volume_drift(0, 10.0)  # small and quick: settled in both modes
    # this measure reads 1.017 for a pool laid flat and left at rest (tests/test_walls.py)
    out.append(Row("walls", "dam break 100 x 160: area under the surface, settled / initial",
                   surface, "1 +- 0.07", abs(surface - 1.0) <= 0.07))
    out.append(Row("walls", "dam break 100 x 160: area of half-full cells, settled / initial",
                   cells, "1 +- 0.05", abs(cells - 1.0) <= 0.05))
    return out
