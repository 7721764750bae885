"""Buoyancy: Archimedes in each fluid, calm water, displacement, at the game preset.

Scenes (each built from the public :class:`~fluidworld.World` API; pools 100 units deep):

* ``float`` -- a box 72 x 24 or a ball of radius 20 of density ``ratio x`` the fluid's, let
  down onto a pool of water, oil or honey; the submerged area fraction (geometric, below the
  surface measured from the particles beside the body, time-averaged) against ``ratio``
  (Archimedes), or, for ``ratio > 1``, where the body ends: two body heights under the
  surface or on the floor after :data:`SINK_SECONDS` (8 s; honey, ~11x water's viscosity,
  30 s: the body sinks at a viscous speed, in proportion to its excess density as Stokes drag
  gives, see :func:`sinks` and :func:`sinking_speed`).
* ``calm`` -- a ball or a box of density 0.5 or 0.8 set at its Archimedes draft on a settled
  pool of still water: the largest turn (degrees) and the largest drift of its centre (in units
  of its size: the ball's diameter, the box's width) over 10 s. Theory: 0 and 0.
* ``displacement`` -- the same pool with and without a floating body (same seed): the rise of
  the mean surface far from the body against the submerged area over the pool's width (volume
  conservation: ratio 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pymunk

from ..fluid import FluidParams
from ..world import BodyHandle, World
from . import Row

__all__ = [
    "rows",
    "pool",
    "add_body",
    "surface_beside",
    "submerged_fraction",
    "mean_fraction",
    "float_fraction",
    "sinks",
    "sinking_speed",
    "SINK_SECONDS",
    "calm_motion",
    "fill",
    "displacement_ratio",
    "FloatResult",
    "paper_wall_drop",
    "polygon_below",
]

DEPTH = 100.0
BOX = (72.0, 24.0)
BALL = 20.0
#: How long a body of 1.1x the fluid's density is given to sink, by fluid. Honey is ~11x
#: water's viscosity at this resolution (~6,600 units^2/s), so a body 0.1 heavier than it
#: sinks at a viscous speed (:func:`sinking_speed`): a ball of radius 20 at ~3.2 units/s, two
#: body heights under the surface of a pool 100 deep after ~15 s and on its floor by 30 s, a
#: 72 x 24 box two heights under by ~20 s (bottom 43.5) and at 4.3 after 45 s (water: within
#: 8 s). Measured 2026-12-01; with the honey of ~22x water's viscosity before it, 45 and 75 s.
SINK_SECONDS = {"water": 8.0, "oil": 8.0, "honey": 30.0}


def pool(width: float, height: float, material: str = "water", depth: float = DEPTH,
         seed: int = 0, fill: bool = True, solver: str = "srd") -> World:
    """A pool ``depth`` deep of ``material`` in a ``width x height`` world (game preset, fluid
    ``solver``); ``fill=False``: the world only (fill it with :func:`fill` once bodies are in:
    the fill leaves out the points inside them)."""
    w = World(width, height, params=FluidParams.game(width, height, seed=seed), solver=solver)
    if fill:
        w.add_fluid_rect(0.0, 0.0, width, depth, material=material)
    return w


def fill(world: World, material: str = "water", depth: float = DEPTH) -> None:
    """Fill the pool ``depth`` deep, around the bodies already in it."""
    world.add_fluid_rect(0.0, 0.0, world.fluid.params.width, depth, material=material)


def fluid_density(world: World, material: str) -> float:
    """Density of a material of the world's table, by name."""
    return float(world.fluid.material_table[world.material_id(material)].density)


def add_body(world: World, kind: str, x: float, y_bottom: float, density: float,
             size: float = 1.0) -> BodyHandle:
    """A box (``BOX`` x ``size``) or a ball (radius ``BALL`` x ``size``) whose lowest point is
    at ``y_bottom``."""
    if kind == "box":
        bw, bh = BOX[0] * size, BOX[1] * size
        return world.add_box((x, y_bottom + 0.5 * bh), (bw, bh), density=density)
    if kind == "ball":
        r = BALL * size
        return world.add_ball((x, y_bottom + r), r, density=density)
    raise ValueError(f"kind must be 'box' or 'ball', got {kind!r}")


def body_size(e: BodyHandle) -> float:
    """A body's size: a ball's diameter, a polygon's width (its bounding box)."""
    s = e.shape
    if isinstance(s, pymunk.Circle):
        return 2.0 * s.radius
    bb = s.cache_bb()
    return float(max(bb.right - bb.left, bb.top - bb.bottom))


def surface_beside(world: World, x0: float, x1: float, near: float = 5.0,
                   far: float = 40.0) -> float:
    """The free surface next to a body spanning ``[x0, x1]``: in 5-unit columns between
    ``near`` and ``far`` from it on both sides, the highest particle plus half a particle layer
    (the convention of :func:`fluidworld.scenes.fluid_area`), averaged. Only whole columns
    inside the domain count, the ones against its side walls left out: in a pool 120 wide the
    column by the wall (4 units of it in the band) read 75.7 where the water stood at ~84, and
    a box of 0.6 floating at 0.6 read 0.26-0.44."""
    pos = world.fluid.positions
    width = world.fluid.params.width
    tops: list[float] = []
    for lo, hi in ((x0 - far, x0 - near), (x1 + near, x1 + far)):
        lo, hi = max(lo, 5.0), min(hi, width - 5.0)
        cols = int((hi - lo) // 5.0)
        if cols < 1:
            continue
        sel = (pos[:, 0] >= lo) & (pos[:, 0] < lo + 5.0 * cols)
        if not sel.any():
            continue
        col = np.floor((pos[sel, 0] - lo) / 5.0).astype(np.int64)
        top = np.full(cols, -np.inf)
        np.maximum.at(top, col, pos[sel, 1])
        tops.extend(top[np.isfinite(top)])
    if not tops:
        raise ValueError(f"no fluid in whole 5-unit columns {near}-{far} beside [{x0}, {x1}]")
    return float(np.mean(tops)) + world.fluid.r_l * math.sqrt(3.0) / 4.0


def polygon_below(pts: np.ndarray, level: float) -> np.ndarray:
    """The part of a convex polygon (vertices in order) below the line ``y = level``."""
    out = []
    for i in range(len(pts)):
        p, q = pts[i], pts[(i + 1) % len(pts)]
        if p[1] < level:
            out.append(p)
        if (p[1] < level) != (q[1] < level):
            out.append(p + (level - p[1]) / (q[1] - p[1]) * (q - p))
    return np.array(out).reshape(-1, 2)


def _polygon_area_below(pts: np.ndarray, level: float) -> float:
    o = polygon_below(pts, level)
    if len(o) < 3:
        return 0.0
    return 0.5 * abs(float(np.dot(o[:, 0], np.roll(o[:, 1], -1))
                           - np.dot(np.roll(o[:, 0], -1), o[:, 1])))


#: Points per full turn of a rounded polygon's corner arcs in :func:`outline_polygon` (the
#: polygon's area within 1e-4 of the rounded shape's for radii up to a third of its size).
ARC_POINTS = 256


def outline_polygon(e: BodyHandle) -> np.ndarray:
    """A polygon body's outline in world coordinates, ``(k, 2)`` counter-clockwise; its corner
    rounding (pymunk's ``radius``, which adds to the shape) as arcs of :data:`ARC_POINTS` a
    turn."""
    body, s = e.body, e.shape
    v = np.array([tuple(p) for p in s.get_vertices()], np.float64)
    r = float(s.radius)
    if r > 0.0:
        edges = np.roll(v, -1, axis=0) - v
        ang = np.arctan2(-edges[:, 0], edges[:, 1])  # outward normal of each edge (CCW)
        pts = []
        for i in range(len(v)):
            a0, a1 = ang[i - 1], ang[i]
            a1 = a0 + (a1 - a0) % (2.0 * math.pi)
            t = np.linspace(a0, a1, max(2, int(math.ceil((a1 - a0) / (2 * math.pi) * ARC_POINTS))))
            pts.append(v[i] + r * np.column_stack([np.cos(t), np.sin(t)]))
        v = np.concatenate(pts)
    return np.array([tuple(body.local_to_world(tuple(p))) for p in v])


def submerged_area(e: BodyHandle, level: float) -> float:
    """Geometric area of a ball or a polygon (its rounding included) below ``level``."""
    body, s = e.body, e.shape
    if isinstance(s, pymunk.Circle):
        r = s.radius
        h = min(max(level - (body.position.y - r), 0.0), 2.0 * r)
        return r * r * math.acos((r - h) / r) - (r - h) * math.sqrt(max(2 * r * h - h * h, 0.0))
    return _polygon_area_below(outline_polygon(e), level)


def submerged_fraction(e: BodyHandle, level: float) -> float:
    """Geometric fraction of a ball or a polygon (its rounding included) below ``level``.
    (Until 2026-11-30 a rounded polygon's area below the level left its rounding out while
    the whole was pymunk's area with it: a box 72 x 24 of radius 6 read 0.395 for 0.6.)"""
    if isinstance(e.shape, pymunk.Circle):
        return submerged_area(e, level) / e.shape.area
    whole = outline_polygon(e)
    return _polygon_area_below(whole, level) / _polygon_area_below(whole, math.inf)


def mean_fraction(world: World, e: BodyHandle, steps: int, start: int) -> float:
    """Run ``steps`` steps; the mean submerged fraction of ``e`` from step ``start`` on (every
    third step, against the surface measured beside it)."""
    fr = []
    for i in range(steps):
        world.step()
        if i >= start and i % 3 == 0:
            x0, _, x1, _ = world.coupler.body_box[world.coupler.body_index(e.body)]
            fr.append(submerged_fraction(e, surface_beside(world, x0, x1)))
    return float(np.mean(fr))


def _draft(kind: str, fraction: float, size: float = 1.0) -> float:
    """Depth of the lowest point below the surface at which ``fraction`` of the body is under."""
    if kind == "box":
        return fraction * BOX[1] * size
    r = BALL * size
    lo, hi = 0.0, 2.0 * r
    for _ in range(50):  # bisection on the circular segment's area
        h = 0.5 * (lo + hi)
        seg = r * r * math.acos((r - h) / r) - (r - h) * math.sqrt(max(2 * r * h - h * h, 0.0))
        lo, hi = (h, hi) if seg < fraction * math.pi * r * r else (lo, h)
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class FloatResult:
    """What :func:`float_fraction` measured.

    Args:
        fraction: Time-averaged submerged area fraction.
        bottom: The body's lowest point at the end (0 = the floor).
        max_speed: The largest body speed seen (units/s).
    """

    fraction: float
    bottom: float
    max_speed: float


def float_fraction(kind: str, material: str, ratio: float, seed: int = 0,
                   seconds: float = 8.0, average: float = 3.0, width: float = 320.0,
                   solver: str = "srd", depth: float = DEPTH,
                   settle: float = 0.0) -> FloatResult:
    """Drop a body of density ``ratio x`` the fluid's onto a pool of ``material`` ``depth``
    deep (its lowest point a unit above the filled depth; fluid ``solver``) and run
    ``seconds``; the submerged fraction is averaged over the last ``average`` seconds.
    ``settle``: seconds the pool runs first, the body then dropped a unit above the surface
    it settled to (the 99th percentile of the particles' heights)."""
    w = pool(width, depth + 100.0, material, depth=depth, seed=seed, solver=solver)
    rho = ratio * fluid_density(w, material)
    for _ in range(int(round(settle * 60))):
        w.step()
    top = float(np.percentile(w.fluid.positions[:, 1], 99)) if settle > 0.0 else depth
    e = add_body(w, kind, 0.5 * width, top + 1.0, rho)
    n = int(round(seconds * 60))
    start = n - int(round(average * 60))
    fr = []
    vmax = 0.0
    for i in range(n):
        w.step()
        vmax = max(vmax, float(np.hypot(*e.body.velocity)))
        if i >= start and i % 3 == 0:
            x0, _, x1, _ = w.coupler.body_box[w.coupler.body_index(e.body)]
            fr.append(submerged_fraction(e, surface_beside(w, x0, x1)))
    bb = e.shape.cache_bb()
    return FloatResult(float(np.mean(fr)), float(bb.bottom), vmax)


def sinks(kind: str, material: str, ratio: float = 1.1, seed: int = 0) -> tuple[bool, FloatResult]:
    """Whether a body of ``ratio x`` the fluid's density (``ratio > 1``) dropped onto a pool of
    ``material`` (:func:`float_fraction`) has sunk after :data:`SINK_SECONDS`: wholly under the
    surface, and its lowest point two body heights under the fill depth or on the floor
    (within a particle spacing ``r_L`` of it: a flat body comes to rest on a layer of fluid)."""
    res = float_fraction(kind, material, ratio, seed=seed, seconds=SINK_SECONDS[material])
    height = BOX[1] if kind == "box" else 2.0 * BALL
    floor = FluidParams.game(320.0, DEPTH + 100.0).r_l
    deep = res.bottom < DEPTH - 2.0 * height or res.bottom < floor
    return res.fraction > 0.99 and deep, res


def sinking_speed(ratio: float, material: str = "honey", seed: int = 0,
                  band: tuple[float, float] = (70.0, 40.0), limit: float = 120.0) -> float:
    """How fast a ball of radius 20 and ``ratio x`` the fluid's density (``ratio > 1``) sinks
    through a pool of ``material`` 100 deep (:func:`float_fraction`'s scene): the slope of a
    line fitted to its centre's height over time while the centre passes through ``band`` (a
    radius under the surface to a radius over the floor), in units/s; NaN if it has not passed
    it within ``limit`` seconds. Stokes drag makes it proportional to the excess density
    ``ratio - 1`` (a yield stress would hold the lightest bodies)."""
    w = pool(320.0, DEPTH + 100.0, material, seed=seed)
    e = add_body(w, "ball", 160.0, DEPTH + 1.0, ratio * fluid_density(w, material))
    ts: list[float] = []
    ys: list[float] = []
    for i in range(1, int(round(limit * 60)) + 1):
        w.step()
        if i % 15:
            continue
        y = float(e.body.position.y)
        if band[1] < y < band[0]:
            ts.append(i / 60.0)
            ys.append(y)
        elif y <= band[1]:
            break
    if len(ts) < 3 or e.body.position.y > band[1]:
        return math.nan
    return float(-np.polyfit(ts, ys, 1)[0])


def calm_motion(kind: str, density: float, seed: int = 0, seconds: float = 10.0,
                width: float = 320.0, into_pool: bool = False,
                offset: float = 3.0) -> tuple[float, float]:
    """A body at its Archimedes draft in a pool of still water (the fill leaves its submerged
    part out), settled for a second: the largest turn (degrees) and the largest drift of its
    centre (fraction of its size) over the next ``seconds``. ``into_pool``: the body is put at
    its draft into a pool that has settled for a second instead (the particles inside it are
    thrown out, which stirs the water), and measured from then on. The body's centre is
    ``offset`` right of the pool's middle (a face of the pressure grid: where a ball lies on
    the grid changed how much it turned by tens of degrees until the drag read the particles'
    velocities; see ``docs/architecture.md``, Limits)."""
    w = pool(width, 200.0, "water", seed=seed, fill=False)
    if into_pool:
        fill(w)
        for _ in range(60):
            w.step()
        level = surface_beside(w, 0.5 * width - 1.0, 0.5 * width + 1.0, 0.0, 0.5 * width)
        e = add_body(w, kind, 0.5 * width + offset, level - _draft(kind, density), density)
    else:
        e = add_body(w, kind, 0.5 * width + offset, DEPTH - _draft(kind, density), density)
        fill(w)
        for _ in range(60):
            w.step()
    a0 = e.body.angle
    p0 = np.array(e.body.position)
    size = body_size(e)
    turn = drift = 0.0
    for _ in range(int(round(seconds * 60))):
        w.step()
        turn = max(turn, abs(e.body.angle - a0))
        drift = max(drift, float(np.hypot(*(np.array(e.body.position) - p0))))
    return math.degrees(turn), drift / size


def _mean_surface(world: World, exclude: tuple[float, float]) -> float:
    """Mean height of the free surface over 5-unit columns outside ``exclude`` (x range)."""
    pos = world.fluid.positions
    col = np.floor(pos[:, 0] / 5.0).astype(np.int64)
    top = np.full(int(world.fluid.params.width // 5.0) + 1, -np.inf)
    np.maximum.at(top, col, pos[:, 1])
    xs = (np.arange(len(top)) + 0.5) * 5.0
    keep = np.isfinite(top) & ((xs < exclude[0]) | (xs > exclude[1]))
    keep &= (xs > 15.0) & (xs < world.fluid.params.width - 15.0)  # away from the walls
    return float(top[keep].mean()) + world.fluid.r_l * math.sqrt(3.0) / 4.0


def displacement_ratio(kind: str, material: str, ratio: float = 0.8, seed: int = 0,
                       seconds: float = 12.0, average: float = 8.0,
                       width: float = 200.0, size: float = 1.5) -> float:
    """Rise of the surface (far from the body) caused by a floating body, over its submerged
    area / the pool's width: 1 if the water under the body is not compressed. The same pool
    and seed run with and without the body; heights are averaged over the last ``average``
    seconds. The body is ``size`` x the standard box or ball (:func:`add_body`). (Until
    2026-11-28: 6 s, the last 3 averaged. The drop sets the pool sloshing, and over 3 s that
    swung the ratio by +-0.04 with the seed; over 8 s the box 0.8 in oil, seeds 0-3, reads
    0.91-0.97, where 3 s read 0.895-0.965.)"""
    levels = []
    sub = []
    for with_body in (False, True):
        w = pool(width, 200.0, material, seed=seed)
        rho = ratio * fluid_density(w, material)
        e = None
        if with_body:
            e = add_body(w, kind, 0.5 * width, DEPTH + 1.0, rho, size)
        n = int(round(seconds * 60))
        hs = []
        for i in range(n):
            w.step()
            if i >= n - int(round(average * 60)) and i % 3 == 0:
                if e is None:
                    hs.append(_mean_surface(w, (0.5 * width, 0.5 * width)))
                    continue
                bb = e.shape.cache_bb()
                lev = _mean_surface(w, (bb.left - 10.0, bb.right + 10.0))
                hs.append(lev)
                sub.append(submerged_area(e, lev))
        levels.append(float(np.mean(hs)))
    return (levels[1] - levels[0]) / (float(np.mean(sub)) / width)


def paper_wall_drop(seed: int = 0, steps: int = 400) -> tuple[float, float, bool]:
    """Paper preset (:meth:`FluidParams.paper`, 640 x 640, dt 0.1): a ball of radius 20 and
    density 0.5 dropped from 150 units above a pool 200 deep, beside the left wall. Returns the
    ball's speed when it reaches the surface, the largest speed of the ball or of any particle
    after that, and whether anything went NaN."""
    params = FluidParams.paper(seed=seed)
    w = World(params.width, params.height, params=params)
    w.add_fluid_rect(0.0, 0.0, params.width, 200.0)
    e = w.add_ball((22.0, 370.0), 20.0, density=0.5)
    impact = 0.0
    vmax = 0.0
    nan = False
    for _ in range(steps):
        w.step()
        v = float(np.hypot(*e.body.velocity))
        nan |= not math.isfinite(v) or bool(np.isnan(w.fluid.velocities).any())
        if nan:
            break
        if impact == 0.0 and e.body.position.y - 20.0 <= 200.0:
            impact = v
        elif impact > 0.0:
            vp = float(np.hypot(*w.fluid.velocities.T).max()) if w.fluid.count else 0.0
            vmax = max(vmax, v, vp)
    return impact, vmax, nan


def _other_pools() -> list[Row]:
    """Archimedes off the table's 320 x 100 pool: a wider honey pool, and a box dropped on a
    pool 200 deep that settled for 2 s, with each solver (``docs/architecture.md``, "Archimedes
    in other pools")."""
    out = []
    res = float_fraction("ball", "honey", 0.6, width=400.0)
    out.append(Row("archimedes", "ball 0.6x honey, pool 400 wide: submerged fraction",
                   res.fraction, "0.6 +- 0.05", abs(res.fraction - 0.6) <= 0.05))
    for solver in ("srd", "ddr", "constraint"):
        res = float_fraction("box", "water", 0.8, solver=solver, depth=200.0, settle=2.0)
        out.append(Row("archimedes", f"box 0.8x water dropped on a settled pool 200 deep, "
                       f"{solver}: submerged fraction", res.fraction, "0.8 +- 0.05",
                       abs(res.fraction - 0.8) <= 0.05))
    return out


def rows(quick: bool) -> list[Row]:
    """The buoyancy table (``quick``: one seed, the box and ball at fewer densities)."""
    out: list[Row] = []
    ratios = (0.6, 0.9, 1.1) if quick else (0.4, 0.6, 0.8, 0.9, 1.1)
    for material in ("water", "oil", "honey"):
        for kind in ("box", "ball"):
            for r in ratios:
                if r < 1.0:
                    res = float_fraction(kind, material, r)
                    out.append(Row("archimedes", f"{kind} {r:g}x {material}: submerged fraction",
                                   res.fraction, f"{r:g} +- 0.05",
                                   abs(res.fraction - r) <= 0.05))
                    continue
                ok, res = sinks(kind, material, r)
                deep = DEPTH - 2.0 * (BOX[1] if kind == "box" else 2.0 * BALL)
                secs = SINK_SECONDS[material]
                out.append(Row("archimedes",
                               f"{kind} {r:g}x {material}: bottom height after {secs:g} s",
                               res.bottom, f"< {deep:g} or on the floor", ok))
    v1, v2 = sinking_speed(1.1), sinking_speed(1.2)
    out.append(Row("archimedes", f"ball in honey: sinking speed 1.2x / 1.1x ({v2:.2f} / "
                   f"{v1:.2f} units/s; Stokes: 2)", v2 / v1, "1.6 .. 2.5",
                   1.6 <= v2 / v1 <= 2.5))
    if not quick:
        out += _other_pools()
    for kind in ("ball", "box"):
        for d in (0.5, 0.8):
            turn, drift = calm_motion(kind, d)
            out.append(Row("calm water", f"{kind} {d:g}: largest turn in 10 s (deg)", turn,
                           "< 30", turn < 30.0))
            out.append(Row("calm water", f"{kind} {d:g}: largest drift in 10 s (/size)", drift,
                           "< 0.25", drift < 0.25))
    for d in (0.5, 0.8):  # put into a settled pool: the water it throws out stirs the pool
        turn, drift = calm_motion("ball", d, into_pool=True)
        out.append(Row("calm water", f"ball {d:g} put into the pool: largest turn (deg)", turn,
                       "< 30", turn < 30.0))
    for material in ("water", "oil", "honey") if not quick else ("water", "oil"):
        for kind in ("box", "ball"):
            r = displacement_ratio(kind, material)
            out.append(Row("displacement", f"{kind} 0.8x in {material}: rise / (A_sub / width)",
                           r, ">= 0.9", r >= 0.9))
    impact, vmax, nan = paper_wall_drop()
    out.append(Row("paper preset", "ball by a wall: largest speed / impact speed",
                   vmax / impact if impact > 0 else math.inf, "< 10, no NaN",
                   not nan and impact > 0 and vmax < 10.0 * impact))
    return out
