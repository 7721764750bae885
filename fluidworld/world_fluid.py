"""The World's fluid helpers: fills, drains, emitters and the events stage (a part of
:class:`~fluidworld.world.World`, split from it by concept)."""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pymunk
from numpy.typing import ArrayLike, NDArray

from ._args import _convex_vertices, _in_polygon, _points, _vec, warn_caller
from .coupling.sampling import ShapeGeometry, contains, geometry_of
from .entities import MAX_EMITTER_RATE as MAX_EMITTER_RATE
from .entities import (
    BodyEnteredWaterEvent,
    BodyHandle,
    BodyLeftWaterEvent,
    Drain,
    DrainEvent,
    Emitter,
    Entity,
    _drain_rect,
)
from .fluid.binning import near_points
from .fluid.params import _positive
from .replay import recorded

if TYPE_CHECKING:
    from .coupling import Coupler
    from .fluid import FluidSystem

__all__ = ["FluidHelpers", "MAX_EMITTER_RATE", "MAX_EVENTS", "MIN_FILL_SPACING", "WALL_FILL_MARGIN",
           "DRAIN_WALL_REACH", "FULL_DOMAIN"]

#: How far in from a domain wall a drain on it reaches at least, in ``r_L``: SRD's bottom
#: row rests 1.25 ``r_L`` off the floor under a pool, ~1.5 under a thin film (the wall solids
#: keep it there).
DRAIN_WALL_REACH = 2.0

_GOLDEN = 0.6180339887498949


#: Fills leave out the points within this many particle spacings (``r_L``) of a static shape's
#: surface, besides those inside any coupled shape: a particle placed closer is thrown off it by
#: the solvers that push particles apart (with ``ddr``, water filled into a funnel of thin
#: walls or across a thin floor reached 454-1,035 units/s in the first step; 224-573 with this).
WALL_FILL_MARGIN = 0.25

#: Events a world keeps for :meth:`~FluidHelpers.poll_events` (the newest; an hour of one drain
#: at 60 steps/s would otherwise hold ~216,000).
MAX_EVENTS = 4096

#: Fills leave out the points closer than this many particle spacings (``r_L``) to a particle
#: already in the fluid: a fill tops the fluid up, it never lays a second lattice over the
#: first. Two overlapping fills (a pool and a deeper part of it, filled as two rectangles) gave
#: the overlap twice the rest density, which SRD let rise gently but ``ddr`` threw apart at the
#: speed cap (1,853 particles past 500 units/s in the first two seconds) and the constraint
#: solver at 879 units/s. A second fill of a settled pool then keeps 0-6 % of its points (0.7
#: is past the covering radius of the fill lattice, 0.577, and of ``ddr``'s looser rest, 0.61).
FILL_CLEARANCE = 0.7

#: Emitters stop while the fluid holds this many times the particles that fill the domain's free
#: area (the box less the solid cover of its pressure cells) at the solver's rest density: a
#: closed box has no room for more. Poured on (a 200 x 150 box, an emitter at 400 particles/s,
#: 16 s), SRD packed 4.3x the box's particles into it, the constraint solver sprayed at the speed
#: cap from 1.3x (at 1.07x its fastest particle moved at 630 units/s), and ``ddr`` slowed to
#: minutes a step as its passes and neighbours grew with the packing.
FULL_DOMAIN = 1.0

#: The closest fill ``spacing`` the fill helpers take, in particle spacings (``r_L``): half the
#: fill lattice's, four times its density (``ddr`` already needs its fills at ~0.9 or looser).
MIN_FILL_SPACING = 0.5


class FluidHelpers:
    """Fills, drains, emitters and events of :class:`~fluidworld.world.World`."""

    fluid: FluidSystem
    coupler: Coupler
    space: pymunk.Space
    steps: int
    particles_added: int
    particles_removed: int
    _events: list[Any]
    events_dropped: int
    _drains: list[Drain]
    _emitters: list[Emitter]
    _slots: list[Entity | None]

    if TYPE_CHECKING:
        def _register(self, e: Entity) -> Entity: ...

    # ------------------------------------------------------------------ fluid helpers
    def material_id(self, material: int | str) -> int:
        """Material id from an id or a name ("water", "oil", ...).

        Raises:
            TypeError: not an int or str. ValueError: no such material.
        """
        table = self.fluid.material_table
        if isinstance(material, str):
            for k, m in enumerate(table):
                if m.name == material:
                    return k
            raise ValueError(
                f"material {material!r} is unknown; have {[m.name for m in table]}"
            )
        if isinstance(material, bool) or not isinstance(material, int | np.integer):
            raise TypeError(f"material must be a name or an int id, got {material!r}")
        if not 0 <= int(material) < len(table):
            raise ValueError(f"material must be in [0, {len(table) - 1}], got {material}")
        return int(material)

    def _add_points(self, pts: NDArray[np.float64], material: int | str,
                    velocity: Any) -> int:
        mat = self.material_id(material)
        vel = _vec("velocity", velocity)
        p = self.fluid.params
        limit = self.fluid.speed_limit()
        if math.hypot(*vel) > limit:
            raise ValueError(f"velocity must be at most {limit:g} units/s fast (the fluid's "
                             f"speed limit), got {velocity!r}")
        ok = ((pts[:, 0] >= 0) & (pts[:, 0] <= p.width) & (pts[:, 1] >= 0)
              & (pts[:, 1] <= p.height))
        pts = pts[ok]
        pts = pts[~self._inside_shapes(pts, WALL_FILL_MARGIN * self.fluid.r_l)]
        f = self.fluid
        if f.count:  # top up: not onto fluid already there (FILL_CLEARANCE)
            pts = pts[~near_points(pts, f.pos, f.count, FILL_CLEARANCE * f.r_l)]
        n = self.fluid.add_particles(pts, vel, mat)
        self.particles_added += n
        return n

    def _fill_spacing(self, spacing: float | None) -> float | None:
        """A fill's ``spacing`` checked: None (the fill lattice's), or at least
        :data:`MIN_FILL_SPACING` ``r_L`` (a spacing of 0.3 units packed 256 times the rest
        density into a box and threw it apart at 15,200 units/s)."""
        if spacing is None:
            return None
        s = _positive("spacing", spacing)
        least = MIN_FILL_SPACING * self.fluid.r_l
        if s < least:
            raise ValueError(f"spacing must be at least {least:.6g} ({MIN_FILL_SPACING:g} "
                             f"particle spacings; a denser fill packs over "
                             f"{1 / MIN_FILL_SPACING ** 2:g}x the fluid's rest density), got "
                             f"{spacing!r}")
        return s

    def _lattice(self, x0: float, y0: float, x1: float, y1: float,
                 spacing: float | None) -> NDArray[np.float64]:
        """The fill lattice of ``[x0, x1) x [y0, y1)`` clipped to the domain *before* it is
        built, so that a huge rectangle or a tiny spacing costs nothing; the clipped lattice keeps
        the points of the unclipped one (its origin moves by whole columns and row pairs).

        Raises:
            ValueError: the clipped box would hold far more particles than the fluid can take.
        """
        f = self.fluid
        p = f.params
        s = f.r_l if spacing is None else spacing
        dy = s * math.sqrt(3.0) / 2.0
        cx0, cy0 = max(x0, 0.0), max(y0, 0.0)
        cx1, cy1 = min(x1, p.width), min(y1, p.height)
        if cx1 <= cx0 or cy1 <= cy0:
            warn_caller(f"the fill ({x0:g}, {y0:g})-({x1:g}, {y1:g}) lies outside the domain "
                        f"(0, 0)-({p.width:g}, {p.height:g}): no particles added")
            return np.zeros((0, 2))
        x0 += s * math.floor((cx0 - x0) / s)
        y0 += 2.0 * dy * math.floor((cy0 - y0) / (2.0 * dy))
        return f.hex_lattice(x0, y0, cx1, cy1, spacing)  # refuses a box far past max_particles

    def _inside_shapes(self, pts: NDArray[np.float64], wall_margin: float = 0.0,
                       shapes: list[pymunk.Shape] | None = None) -> NDArray[np.bool_]:
        """Which world points lie inside a coupled shape in the Space (of ``shapes``, default
        all), or within ``wall_margin`` of a static one (set-up time and checks only)."""
        inside = np.zeros(len(pts), bool)
        for s in self.coupler.shapes if shapes is None else shapes:
            if s.space is None or s.sensor:  # out of the Space or a sensor: it holds no water
                continue
            g = geometry_of(s)
            b = s.body
            if wall_margin > 0.0 and b.body_type == pymunk.Body.STATIC:
                g = ShapeGeometry(g.kind, g.points, g.radius + wall_margin)
            c, sn = math.cos(b.angle), math.sin(b.angle)
            d = pts - (b.position.x, b.position.y)
            local = np.column_stack([c * d[:, 0] + sn * d[:, 1], -sn * d[:, 0] + c * d[:, 1]])
            inside |= contains(g, local)
        return inside

    @recorded
    def add_fluid_rect(
        self, x0: float, y0: float, x1: float, y1: float, material: int | str = 0,
        spacing: float | None = None, velocity: tuple[float, float] = (0.0, 0.0),
    ) -> int:
        """Fill a rectangle with fluid on the fill lattice (rest density by default, see
        :meth:`~fluidworld.fluid.FluidSystem.hex_lattice`), skipping points inside coupled
        shapes, within a quarter particle spacing of a static one (:data:`WALL_FILL_MARGIN`)
        and within 0.7 spacings of fluid already there (:data:`FILL_CLEARANCE`: a fill tops
        the fluid up, so overlapping fills give one fluid, not a doubly dense one); returns how
        many particles were added.

        Raises:
            ValueError: empty or non-finite rectangle, bad spacing (under
                :data:`MIN_FILL_SPACING` ``r_L``) or material, a velocity past the fluid's
                speed limit (4,800 units/s at the game preset), too many particles.
        """
        x0, y0 = _vec("(x0, y0)", (x0, y0))
        x1, y1 = _vec("(x1, y1)", (x1, y1))
        if x1 <= x0 or y1 <= y0:
            raise ValueError(f"empty rectangle ({x0}, {y0})-({x1}, {y1})")
        s = self._fill_spacing(spacing)
        return self._add_points(self._lattice(x0, y0, x1, y1, s), material, velocity)

    @recorded
    def add_fluid_circle(
        self, center: tuple[float, float], radius: float, material: int | str = 0,
        spacing: float | None = None, velocity: tuple[float, float] = (0.0, 0.0),
    ) -> int:
        """Fill a disc with fluid (skipping points as :meth:`add_fluid_rect` does); returns how
        many particles were added."""
        cx, cy = _vec("center", center)
        r = _positive("radius", radius)
        s = self._fill_spacing(spacing)
        pts = self._lattice(cx - r, cy - r, cx + r, cy + r, s)
        pts = pts[((pts[:, 0] - cx) ** 2 + (pts[:, 1] - cy) ** 2) < r * r]
        return self._add_points(pts, material, velocity)

    @recorded
    def add_fluid_polygon(
        self, vertices: ArrayLike, material: int | str = 0, spacing: float | None = None,
        velocity: tuple[float, float] = (0.0, 0.0),
    ) -> int:
        """Fill a simple polygon (any winding, convex or not) with fluid (skipping points as
        :meth:`add_fluid_rect` does); returns how many particles were added."""
        v = _points("vertices", vertices, 3)
        _convex_vertices("vertices", v)  # refuses collinear or identical points, by name
        s = self._fill_spacing(spacing)
        (x0, y0), (x1, y1) = v.min(axis=0), v.max(axis=0)
        pts = self._lattice(x0, y0, x1, y1, s)
        return self._add_points(pts[_in_polygon(pts, v)], material, velocity)

    # ------------------------------------------------------------------ drains, emitters
    @recorded
    def add_drain(self, rect: tuple[float, float, float, float]) -> Drain:
        """A drain: fluid particles inside ``rect = (x0, y0, x1, y1)`` are removed each step
        and counted (``drain.removed``, :class:`DrainEvent`). A side of ``rect`` on or beyond
        the domain's edge reaches at least :data:`DRAIN_WALL_REACH` ``r_L`` in from that edge:
        the fluid rests about that far off the domain's walls (a drain 6 tall along the floor
        left a layer 24 deep). The same holds against a static shape: a drain there should
        reach 2 ``r_L`` above it."""
        p = self.fluid.params
        d = Drain(rect=_drain_rect(rect, (p.width, p.height)), _domain=(p.width, p.height))
        self._drains.append(d)
        return self._register(d)  # type: ignore[return-value]

    @recorded
    def add_emitter(
        self, position: tuple[float, float], direction: tuple[float, float], speed: float,
        rate: float, material: int | str = 0, width: float | None = None,
    ) -> Emitter:
        """A nozzle: ``rate`` particles per second (exactly ``rate x time``, accumulated)
        leave ``position`` along ``direction`` at ``speed``, spread across ``width``
        (default one particle spacing). ``rate`` is at most :data:`MAX_EMITTER_RATE`, ``speed``
        the fluid's speed limit (4,800 units/s at the game preset). With
        ``solver="ddr"`` or ``"constraint"`` a jet that would be more than twice as dense as
        the fluid at rest (``rate * particle_area > 2 * speed * width``) is spread wider, to
        that density: their pressure would spray it apart (SRD compresses it and keeps the
        width).
        Particles that would start inside a shape that holds water (the nozzle in a wall, or a
        body passing over it) are not emitted: they count in ``Emitter.blocked``, and the first
        time a ``RuntimeWarning`` says so. Nor are particles past ``max_particles`` or past
        :meth:`domain_capacity` (a closed box poured full takes no more): they count in
        ``Emitter.dropped``, with a ``RuntimeWarning`` the first time."""
        pos = _vec("position", position)
        p = self.fluid.params
        if not (0.0 <= pos[0] <= p.width and 0.0 <= pos[1] <= p.height):
            raise ValueError(f"position {pos} is outside the domain")
        e = Emitter(position=pos, direction=direction, speed=speed, rate=rate,
                    material=self.material_id(material),
                    width=self.fluid.r_l if width is None else width,
                    _domain=(p.width, p.height),
                    _names=tuple(m.name for m in self.fluid.material_table),
                    _max_speed=self.fluid.speed_limit())
        e.speed = e.speed  # checked against the fluid's speed limit, known now
        self._emitters.append(e)
        return self._register(e)  # type: ignore[return-value]

    # ------------------------------------------------------------------ events
    @recorded
    def poll_events(self) -> list[Any]:
        """Events since the last poll (oldest first), and forget them.

        The world keeps the newest :data:`MAX_EVENTS` only: a game that never polls (a drain
        makes an event every step it eats) does not grow; the older ones are counted in
        ``events_dropped``."""
        ev, self._events = self._events, []
        return ev

    def _event(self, event: Any) -> None:
        """Queue an event for :meth:`poll_events`, dropping the oldest beyond MAX_EVENTS."""
        self._events.append(event)
        extra = len(self._events) - MAX_EVENTS
        if extra > 0:
            del self._events[:extra]
            # a world saved before the cap has no counter
            self.events_dropped = getattr(self, "events_dropped", 0) + extra

    def _run_drains(self, world: Any, dt: float) -> None:
        """The built-in ``drains`` system: remove the particles inside each drain."""
        f = self.fluid
        p = f.params
        reach = DRAIN_WALL_REACH * f.r_l
        for d in self._drains:
            if f.count == 0:
                break
            x0, y0, x1, y1 = d.rect
            if x0 <= 0.0:  # against a domain wall: reach the fluid resting off it
                x1 = max(x1, reach)
            if x1 >= p.width:
                x0 = min(x0, p.width - reach)
            if y0 <= 0.0:
                y1 = max(y1, reach)
            if y1 >= p.height:
                y0 = min(y0, p.height - reach)
            pos = f.positions
            mask = (pos[:, 0] >= x0) & (pos[:, 0] <= x1) & (pos[:, 1] >= y0) & (pos[:, 1] <= y1)
            k = int(mask.sum())
            if k:
                f.remove_particles(mask)
                d.removed += k
                self.particles_removed += k
                self._event(DrainEvent(d.id, k, self.steps))

    def _run_emitters(self, world: Any, dt: float) -> None:
        """The built-in ``emitters`` system: each enabled emitter adds its particles."""
        for e in self._emitters:
            if e.enabled:
                self._emit(e, dt)

    def _water_events(self, dt: float) -> None:
        """The ``events`` stage: bodies entering and leaving the water."""
        cp = self.coupler
        for h in self._slots:
            if not isinstance(h, BodyHandle) or getattr(h, "_dead", False):
                continue
            k = cp.body_index(h.body)
            if k < 0 or not cp.dynamic[k] or h.area <= 0:
                continue
            frac = cp.submerged_area[k] / h.area
            if not h.in_water and frac > 0.02:
                h.in_water = True
                v = h.body.velocity
                self._event(BodyEnteredWaterEvent(h.id, float(v.length), self.steps))
            elif h.in_water and frac < 0.01:
                h.in_water = False
                self._event(BodyLeftWaterEvent(h.id, self.steps))

    def _emit(self, e: Emitter, dt: float) -> None:
        material = self.material_id(e.material)  # a name or id set since is checked here
        e._acc += e.rate * dt
        k = int(math.floor(e._acc + 1e-9))
        if k <= 0:
            return
        e._acc -= k
        f = self.fluid
        room = f.params.max_particles - f.count
        why = f"max_particles {f.params.max_particles}"
        at_rest = self.domain_capacity()
        if at_rest - f.count < room:
            room = int(at_rest - f.count)
            why = (f"it fills the domain's free area at rest density: {f.count} particles, room "
                   f"for {at_rest:.0f}; World.domain_capacity")
        if k > room:
            if e.dropped == 0:
                warnings.warn(
                    f"emitter {e.id}: the fluid is full ({why}); particles not emitted are "
                    "counted in Emitter.dropped", RuntimeWarning, stacklevel=2)
            e.dropped += k - max(room, 0)
            k = max(room, 0)
            if k == 0:
                return
        dx, dy = e.direction
        t = (np.arange(k) + 0.5) / k  # emission times within the step
        lateral = (e._slot + _GOLDEN * np.arange(1, k + 1)) % 1.0 - 0.5
        e._slot = float((e._slot + _GOLDEN * k) % 1.0)
        along = e.speed * dt * (1.0 - t)
        width = self._jet_width(e)
        pts = np.column_stack([
            e.position[0] + dx * along - dy * lateral * width,
            e.position[1] + dy * along + dx * lateral * width,
        ])
        p = f.params
        eps = 1e-6 * p.a0
        pts[:, 0] = np.clip(pts[:, 0], eps, p.width - eps)
        pts[:, 1] = np.clip(pts[:, 1], eps, p.height - eps)
        blocked = self._inside_near(pts)
        if blocked.any():
            self._block(e, int(blocked.sum()))
            pts = pts[~blocked]
            k = len(pts)
        f.add_particles(pts, (dx * e.speed, dy * e.speed), material)
        e.emitted += k
        self.particles_added += k

    def domain_capacity(self) -> float:
        """The particles that fill the domain's free area at the fluid's rest density: the
        box less the solid cover of its pressure cells (walls and bodies, as the coupling last
        laid it) over the particle area, times the solver's ``rest_fill`` (the number density
        it rests at, in units of the fill lattice's: 0.9 for ``ddr``) and :data:`FULL_DOMAIN`.
        Emitters stop adding particles while the fluid holds this many (they count the rest in
        ``Emitter.dropped``): a closed box poured full takes no more."""
        f = self.fluid
        return FULL_DOMAIN * f.rest_fill * f.free_area() / f.params.particle_area

    def _jet_width(self, e: Emitter) -> float:
        """The width ``e``'s particles are spread across: its own, or, where the solver takes
        a jet at most ``emit_packing`` times as dense as its fluid at rest (a solver attribute;
        SRD has none) and ``e.rate`` would pack it denser, the width that packing needs:
        ``rate`` particles a second at ``speed`` fill ``rate * particle_area / speed`` of width
        at rest. A jet slower than a particle that fell one spacing, ``sqrt(2 g r_L)``, counts
        at that speed (gravity, not the nozzle, then draws it out). Spread to at most the
        domain's larger side."""
        packing = getattr(self.fluid.solver, "emit_packing", None)
        if packing is None or e.rate <= 0.0:
            return e.width
        f = self.fluid
        p = f.params
        speed = max(e.speed, math.sqrt(2.0 * math.hypot(*p.gravity) * f.r_l))
        if speed <= 0.0:  # no jet speed and no gravity: nothing draws it out
            return e.width
        need = e.rate * p.particle_area / (speed * packing)
        return max(e.width, min(need, max(p.width, p.height)))

    def _inside_near(self, pts: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Which of a few points lie inside a coupled shape: only the shapes whose boxes in
        the Space's index meet the points' box are tested (one query, whatever the level)."""
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        near = self.space.bb_query(pymunk.BB(lo[0], lo[1], hi[0], hi[1]), pymunk.ShapeFilter())
        shapes = [s for s in near if self.coupler.is_coupled(s)]
        return self._inside_shapes(pts, shapes=shapes) if shapes else np.zeros(len(pts), bool)

    def _block(self, e: Emitter, k: int) -> None:
        """Count ``k`` of an emitter's particles as blocked, and say so the first time."""
        if e.blocked == 0:
            warnings.warn(
                f"emitter {e.id} at ({e.position[0]:g}, {e.position[1]:g}) emits into a shape "
                "that holds water: particles that would start inside a shape are not emitted "
                "(counted in Emitter.blocked)", RuntimeWarning, stacklevel=2)
        e.blocked += k
