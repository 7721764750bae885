"""World: a fluid, a pymunk Space and the entities in them, stepped as a short list of stages.

One ``World.step(dt)`` runs ``n`` substeps of ``h = dt / n`` (``n = params.substeps`` for the
default ``dt``). The coupling sits *inside* every substep and pymunk steps once per substep, so a
body feels the fluid at the fluid's own rate (a heavy crate hitting the water at 120 Hz substeps
instead of 60 Hz frames is what keeps it from tunnelling through the surface and bouncing).
Stages, each timed into :attr:`World.profile` (ms per step, summed over substeps):

1. ``sync_bodies``      body poses -> solid particles, solid cover of the pressure grid
2. ``external_forces``  gravity and material accelerations on fluid particles
3. ``bin``              counting sort of particles; solids binned
4. ``local_repulsion``  paper Eq. 5-6, fluid-fluid and fluid-solid (impulses recorded)
5. ``srd_collision``    paper Eq. 3
6. ``viscosity``        each material's shear viscosity (momentum diffusion between SRD cells)
7. ``cell_pressure``    paper Eq. 7-10 (or the converged solver), solid cover included
8. ``advect``           r += v h, containment in the box and out of every shape
9. ``exchange``         impulses, buoyancy and drag -> bodies; ``space.step(h)``; after the
                        last substep, containment once more against the moved bodies
10. ``events``          (once per step) drains, emitters, bodies entering/leaving water

Entities (bodies, static shapes, drains, emitters) have integer ids that carry a generation:
an id goes stale when its entity is removed, and using a stale id raises ``KeyError``. Removing
during a step (from a pymunk callback, say) is deferred to the end of the step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pymunk
from numpy.typing import ArrayLike, NDArray

from .coupling import Coupler, CouplingParams
from .coupling.sampling import contains, geometry_of, local_bounds, shape_area
from .fluid import FluidParams, FluidSystem, Material
from .fluid.params import _finite, _positive
from .fluid.solver import Solver
from .fluid.solvers import make_solver

__all__ = [
    "World",
    "STAGES",
    "Entity",
    "BodyHandle",
    "Drain",
    "Emitter",
    "BodyEnteredWaterEvent",
    "BodyLeftWaterEvent",
    "DrainEvent",
    "WorldCheck",
]

STAGES = ("sync_bodies", "external_forces", "bin", "local_repulsion", "srd_collision",
          "viscosity", "cell_pressure", "advect", "exchange", "events")

_SLOT_BITS = 20
_SLOT_MASK = (1 << _SLOT_BITS) - 1
_GOLDEN = 0.6180339887498949

#: Most particles per second one emitter may add (2,000 a step at 50 Hz): beyond this a
#: nozzle is no longer a jet, and a typo like ``rate=1e9`` would stall the step.
MAX_EMITTER_RATE = 100_000.0

#: Most substeps one ``World.step(dt)`` call may run (a larger ``dt`` is refused: a typo like
#: ``step(60)`` for one frame would otherwise freeze the game for minutes).
MAX_STEP_SUBSTEPS = 1024

#: How far beyond the domain a shape may reach, in domain sizes (its largest side).
REACH = 10.0


# ---------------------------------------------------------------------------- events
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
    """

    id: int = field(init=False, default=-1)
    kind: str = "entity"

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
    in_water: bool = False

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


@dataclass(eq=False)
class Drain(Entity):
    """A rectangle that removes the fluid particles that reach it.

    Attributes:
        rect: ``(x0, y0, x1, y1)``. removed: Particles removed so far.
    """

    rect: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    removed: int = 0
    kind: str = "drain"


@dataclass(eq=False)
class Emitter(Entity):
    """A nozzle that emits ``rate`` particles per second (exactly, via an accumulator).

    Attributes:
        position: Centre of the nozzle. direction: Unit vector of the jet.
        speed: Jet speed. rate: Particles per second. material: Material id.
        width: Nozzle width (particles spread across it). enabled: Switch it on and off.
        emitted: Particles emitted so far. dropped: Particles not emitted (fluid full).
    """

    position: tuple[float, float] = (0.0, 0.0)
    direction: tuple[float, float] = (1.0, 0.0)
    speed: float = 0.0
    rate: float = 0.0
    material: int = 0
    width: float = 0.0
    enabled: bool = True
    emitted: int = 0
    dropped: int = 0
    kind: str = "emitter"
    _acc: float = 0.0
    _slot: float = 0.0


# ---------------------------------------------------------------------------- helpers
def _vec(name: str, v: Any) -> tuple[float, float]:
    try:
        x, y = v
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a pair (x, y), got {v!r}") from None
    return (_finite(f"{name}[0]", x), _finite(f"{name}[1]", y))


def _points(name: str, v: Any, min_len: int) -> NDArray[np.float64]:
    try:
        a = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of (x, y) pairs") from None
    if a.ndim != 2 or a.shape[1] != 2 or len(a) < min_len:
        raise ValueError(f"{name} must be at least {min_len} (x, y) pairs, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite (found NaN or inf)")
    return a


def _convex_vertices(name: str, v: NDArray[np.float64]) -> list[tuple[float, float]]:
    """The vertices as tuples, checked to span an area (pymunk takes the convex hull; collinear
    or identical points would make a degenerate shape that fails only later, in the step)."""
    pts = [(float(x), float(y)) for x, y in v]
    hull = pymunk.Poly(None, pts)
    if len(hull.get_vertices()) < 3 or not hull.area > 0.0:
        raise ValueError(f"{name} must span an area (3 or more points, not all on one line), "
                         f"got {pts!r}")
    return pts


def _in_polygon(pts: NDArray[np.float64], poly: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Even-odd rule, vectorised over points (set-up time only)."""
    inside = np.zeros(len(pts), bool)
    x, y = pts[:, 0], pts[:, 1]
    k = len(poly)
    for i in range(k):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % k]
        cross = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= cross & (x < xc)
    return inside


# ---------------------------------------------------------------------------- world
class World:
    """A fluid and a pymunk Space, coupled two ways, with an entity registry.

    Args:
        width: Domain width (world units; pixels by default).
        height: Domain height.
        params: Fluid parameters; default :meth:`FluidParams.game` ``(width, height)``. Its size
            must match ``width`` x ``height``.
        space: A pymunk Space to add water to (yours: its gravity is left alone). By default the
            world makes one with the fluid's gravity.
        materials: Fluid material table (default: water, ink, oil, honey).
        coupling: Coupling knobs (:class:`~fluidworld.coupling.CouplingParams`).
        bounds: Put static pymunk walls just outside the domain box so that bodies stay in it.
        solver: The fluid solver, by name (``"srd"``, the default; see
            :data:`~fluidworld.fluid.solvers.SOLVER_NAMES`) or a
            :class:`~fluidworld.fluid.solver.Solver` object.

    Example:
        >>> from fluidworld import World
        >>> world = World(200, 150)
        >>> world.add_fluid_rect(0, 0, 200, 60)
        588
        >>> crate = world.add_box((100, 90), (30, 30), density=0.5)
        >>> world.step()
        >>> sorted(world.profile) == sorted(STAGES)
        True
    """

    def __init__(
        self,
        width: float = 1280.0,
        height: float = 720.0,
        params: FluidParams | None = None,
        space: pymunk.Space | None = None,
        materials: Sequence[Material] | None = None,
        coupling: CouplingParams | None = None,
        bounds: bool = True,
        solver: str | Solver = "srd",
    ) -> None:
        width = _positive("width", width)
        height = _positive("height", height)
        if params is None:
            params = FluidParams.game(width, height)
        elif not isinstance(params, FluidParams):
            raise TypeError(f"params must be a FluidParams, got {type(params).__name__}")
        elif (params.width, params.height) != (width, height):
            raise ValueError(
                f"params describe a {params.width} x {params.height} domain, "
                f"but the world is {width} x {height}"
            )
        if space is None:
            space = pymunk.Space()
            space.gravity = params.gravity
        elif not isinstance(space, pymunk.Space):
            raise TypeError(f"space must be a pymunk.Space, got {type(space).__name__}")
        self.fluid = FluidSystem(params, materials)
        self.fluid.set_solver(make_solver(solver))
        self.space = space
        self.coupler = Coupler(self.fluid, coupling)
        self.profile: dict[str, float] = dict.fromkeys(self.stages, 0.0)
        #: Finer timings inside stages (ms per step): ``contain`` (containment out of shapes:
        #: inside ``advect``, plus remembering positions for it inside ``bin``), ``settle`` (the
        #: end-of-step containment) and ``space_step`` (both inside ``exchange``).
        self.profile_detail: dict[str, float] = {"contain": 0.0, "settle": 0.0, "space_step": 0.0}
        self.time = 0.0
        self.steps = 0
        #: Particles added by the fill helpers and emitters, and removed by drains, since the
        #: world was made: ``fluid.count == particles_added - particles_removed`` unless the
        #: low-level ``fluid.add_particles``/``remove_particles`` were called directly.
        self.particles_added = 0
        self.particles_removed = 0
        self._slots: list[Entity | None] = []
        self._gens: list[int] = []
        self._free: list[int] = []
        self._body_refs: dict[pymunk.Body, int] = {}
        self._pending: list[Entity] = []
        self._stepping = False
        self._events: list[Any] = []
        self._drains: list[Drain] = []
        self._emitters: list[Emitter] = []
        self.bounds: tuple[pymunk.Shape, ...] = ()
        if bounds:
            self.bounds = self._make_bounds()

    # ------------------------------------------------------------------ stepping
    def step(self, dt: float | None = None) -> None:
        """Advance the world by ``dt`` (default ``params.dt``) in substeps of at most
        ``params.h``, each running the coupled stages; then the events stage.

        Raises:
            ValueError: ``dt`` is not a finite positive number or needs more than
                :data:`MAX_STEP_SUBSTEPS` substeps, or a body has a NaN pose.
        """
        p = self.fluid.params
        if dt is None:
            n, dt = p.substeps, p.dt
        else:
            dt = _positive("dt", dt)
            if not 1e-6 * p.h <= dt <= MAX_STEP_SUBSTEPS * p.h:
                raise ValueError(f"dt must be in [{1e-6 * p.h:g}, {MAX_STEP_SUBSTEPS * p.h:g}] "
                                 f"(at most {MAX_STEP_SUBSTEPS} substeps of {p.h:g}), "
                                 f"got {dt!r}")
            n = max(1, math.ceil(dt / p.h - 1e-9))
        h = dt / n
        self._flush()
        if list(self.profile) != list(self.stages):  # the solver was changed
            self.profile = dict.fromkeys(self.stages, 0.0)
        for k in self.profile:
            self.profile[k] = 0.0
        for k in self.profile_detail:
            self.profile_detail[k] = 0.0
        f = self.fluid
        self._stepping = True
        f.threads.begin()
        try:
            for sub in range(n):
                self._timed("sync_bodies", self.coupler.sync, h, sub == 0)
                self._timed("external_forces", f.apply_external_forces, h)
                # the sort also keeps the positions containment starts from (the coupler
                # turned keep_start_positions on)
                self._timed("bin", f.bin_particles)
                *inner, last = f.solver.stages
                for stage in inner:
                    self._timed(stage, f.solver.run_stage, stage, h)
                self._timed(last, self._advect, last, h)  # then containment out of shapes
                self._timed("exchange", self._exchange, h, sub == 0)
            self._timed("exchange", self._settle, h)
            self._timed("events", self._run_events, dt)
        finally:
            self._stepping = False
            f.threads.end()
        self.time += dt
        self.steps += 1
        f.steps += 1
        self._flush()

    @property
    def stages(self) -> tuple[str, ...]:
        """The step's stages in order (:data:`STAGES` with SRD): ``sync_bodies``, the fluid's
        shared and solver stages, ``exchange`` and ``events``."""
        return ("sync_bodies", *self.fluid.stages, "exchange", "events")

    @property
    def solver(self) -> str:
        """The name of the fluid solver the step runs."""
        return self.fluid.solver.name

    def set_solver(self, solver: str | Solver) -> None:
        """Switch the fluid solver (by name or object) on the running world; particles, bodies
        and everything else are kept.

        Raises:
            ValueError: an unknown solver name. TypeError: not a name or a Solver.
        """
        self.fluid.set_solver(make_solver(solver))
        self.profile = dict.fromkeys(self.stages, 0.0)

    def _timed(self, name: str, fn: Callable[..., Any], *args: Any) -> None:
        t0 = time.perf_counter()
        fn(*args)
        self.profile[name] += (time.perf_counter() - t0) * 1e3

    def _advect(self, stage: str, h: float) -> None:
        self.fluid.solver.run_stage(stage, h)
        t0 = time.perf_counter()
        self.coupler.contain()
        self.profile_detail["contain"] += (time.perf_counter() - t0) * 1e3

    def _settle(self, h: float) -> None:
        t0 = time.perf_counter()
        self.coupler.settle(h)
        self.profile_detail["settle"] += (time.perf_counter() - t0) * 1e3

    def _exchange(self, h: float, measure: bool) -> None:
        self.coupler.exchange(h, measure)
        t0 = time.perf_counter()
        self.space.step(h)
        self.profile_detail["space_step"] += (time.perf_counter() - t0) * 1e3

    # ------------------------------------------------------------------ registry
    def _register(self, e: Entity) -> Entity:
        if self._free:
            slot = self._free.pop()
            self._slots[slot] = e
        else:
            slot = len(self._slots)
            if slot > _SLOT_MASK:
                raise ValueError(f"too many entities (at most {_SLOT_MASK + 1})")
            self._slots.append(e)
            self._gens.append(0)
        e.id = (self._gens[slot] << _SLOT_BITS) | slot
        return e

    def get(self, entity_id: int) -> Entity:
        """The live entity with this id.

        Raises:
            TypeError: ``entity_id`` is not an int. KeyError: unknown or stale (removed) id.
        """
        if isinstance(entity_id, bool) or not isinstance(entity_id, int | np.integer):
            raise TypeError(f"entity_id must be an int, got {entity_id!r}")
        eid = int(entity_id)
        slot, gen = eid & _SLOT_MASK, eid >> _SLOT_BITS
        if eid < 0 or slot >= len(self._slots):
            raise KeyError(f"entity_id {eid} is unknown")
        e = self._slots[slot]
        if e is None or self._gens[slot] != gen or getattr(e, "_dead", False):
            raise KeyError(f"entity_id {eid} is stale: that entity was removed")
        return e

    def __contains__(self, entity: object) -> bool:
        eid = entity.id if isinstance(entity, Entity) else entity
        try:
            self.get(eid)  # type: ignore[arg-type]
        except (KeyError, TypeError):
            return False
        return True

    @property
    def entities(self) -> Iterator[Entity]:
        """All live entities."""
        return (e for e in self._slots if e is not None and not getattr(e, "_dead", False))

    def remove(self, entity: Entity | int) -> None:
        """Remove an entity (by handle or id). Its id goes stale at once; the bodies and shapes
        leave the space now, or at the end of the step if called during one.

        Raises:
            TypeError: not an entity or an int id. KeyError: unknown, stale or already removed.
        """
        if isinstance(entity, Entity):
            if entity.id < 0:
                raise KeyError("entity was never added to this world")
            eid = entity.id
        elif isinstance(entity, int | np.integer) and not isinstance(entity, bool):
            eid = int(entity)
        else:
            raise TypeError(f"entity must be an Entity or an int id, got {entity!r}")
        e = self.get(eid)
        if isinstance(entity, Entity) and e is not entity:
            raise KeyError(f"entity_id {eid} belongs to another entity")
        e._dead = True  # type: ignore[attr-defined]
        self._pending.append(e)
        if not self._stepping:
            self._flush()

    def _flush(self) -> None:
        """Apply deferred removals."""
        while self._pending:
            e = self._pending.pop()
            slot = e.id & _SLOT_MASK
            self._slots[slot] = None
            self._gens[slot] += 1
            self._free.append(slot)
            if isinstance(e, BodyHandle):
                for s in e.shapes:
                    self.coupler.remove_shape(s)
                    if s in self.space.shapes:
                        self.space.remove(s)
                b = e.body
                if b.body_type != pymunk.Body.STATIC or b is not self.space.static_body:
                    self._body_refs[b] = self._body_refs.get(b, 1) - 1
                    if self._body_refs[b] <= 0:
                        del self._body_refs[b]
                        if e._owns_body and b in self.space.bodies:
                            self.space.remove(b)
            elif isinstance(e, Drain):
                self._drains.remove(e)
            elif isinstance(e, Emitter):
                self._emitters.remove(e)

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
        ok = ((pts[:, 0] >= 0) & (pts[:, 0] <= p.width) & (pts[:, 1] >= 0)
              & (pts[:, 1] <= p.height))
        pts = pts[ok]
        pts = pts[~self._inside_shapes(pts)]
        n = self.fluid.add_particles(pts, vel, mat)
        self.particles_added += n
        return n

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
            return np.zeros((0, 2))
        x0 += s * math.floor((cx0 - x0) / s)
        y0 += 2.0 * dy * math.floor((cy0 - y0) / (2.0 * dy))
        estimate = (cx1 - x0) * (cy1 - y0) / (s * dy)
        room = p.max_particles - f.count
        if estimate > 2 * room + 1000:
            raise ValueError(
                f"this fill would add about {estimate:.3g} particles (spacing {s:g}) but the "
                f"fluid has room for {room} more (FluidParams.max_particles = {p.max_particles})"
            )
        return f.hex_lattice(x0, y0, cx1, cy1, spacing)

    def _inside_shapes(self, pts: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Which world points lie inside a coupled shape (set-up time only)."""
        inside = np.zeros(len(pts), bool)
        for s in self.coupler.shapes:
            g = geometry_of(s)
            b = s.body
            c, sn = math.cos(b.angle), math.sin(b.angle)
            d = pts - (b.position.x, b.position.y)
            local = np.column_stack([c * d[:, 0] + sn * d[:, 1], -sn * d[:, 0] + c * d[:, 1]])
            inside |= contains(g, local)
        return inside

    def add_fluid_rect(
        self, x0: float, y0: float, x1: float, y1: float, material: int | str = 0,
        spacing: float | None = None, velocity: tuple[float, float] = (0.0, 0.0),
    ) -> int:
        """Fill a rectangle with fluid on a hexagonal lattice (rest density by default),
        skipping points inside coupled shapes; returns how many particles were added.

        Raises:
            ValueError: empty or non-finite rectangle, bad spacing or material, too many
                particles.
        """
        x0, y0 = _vec("(x0, y0)", (x0, y0))
        x1, y1 = _vec("(x1, y1)", (x1, y1))
        if x1 <= x0 or y1 <= y0:
            raise ValueError(f"empty rectangle ({x0}, {y0})-({x1}, {y1})")
        s = None if spacing is None else _positive("spacing", spacing)
        return self._add_points(self._lattice(x0, y0, x1, y1, s), material, velocity)

    def add_fluid_circle(
        self, center: tuple[float, float], radius: float, material: int | str = 0,
        spacing: float | None = None, velocity: tuple[float, float] = (0.0, 0.0),
    ) -> int:
        """Fill a disc with fluid; returns how many particles were added."""
        cx, cy = _vec("center", center)
        r = _positive("radius", radius)
        s = None if spacing is None else _positive("spacing", spacing)
        pts = self._lattice(cx - r, cy - r, cx + r, cy + r, s)
        pts = pts[((pts[:, 0] - cx) ** 2 + (pts[:, 1] - cy) ** 2) < r * r]
        return self._add_points(pts, material, velocity)

    def add_fluid_polygon(
        self, vertices: ArrayLike, material: int | str = 0, spacing: float | None = None,
        velocity: tuple[float, float] = (0.0, 0.0),
    ) -> int:
        """Fill a simple polygon (any winding, convex or not) with fluid."""
        v = _points("vertices", vertices, 3)
        s = None if spacing is None else _positive("spacing", spacing)
        (x0, y0), (x1, y1) = v.min(axis=0), v.max(axis=0)
        pts = self._lattice(x0, y0, x1, y1, s)
        return self._add_points(pts[_in_polygon(pts, v)], material, velocity)

    # ------------------------------------------------------------------ bodies
    def _make_bounds(self) -> tuple[pymunk.Shape, ...]:
        p = self.fluid.params
        r = p.a0
        w, h = p.width, p.height
        sb = self.space.static_body
        segs = (((-r, -r), (w + r, -r)), ((-r, h + r), (w + r, h + r)),
                ((-r, -r), (-r, h + r)), ((w + r, -r), (w + r, h + r)))
        shapes = tuple(pymunk.Segment(sb, a, b, r) for a, b in segs)
        for s in shapes:
            s.friction = 0.6
        self.space.add(*shapes)
        return shapes

    def _check_reach(self, shapes: Sequence[pymunk.Shape]) -> None:
        """Refuse shapes that reach absurdly far (more than :data:`REACH` domain sizes beyond
        the domain): the coupling samples outlines and interiors, so a segment a billion units
        long would take all the memory there is."""
        p = self.fluid.params
        far = REACH * max(p.width, p.height)
        for s in shapes:
            bb = s.cache_bb()
            ext = (bb.left, bb.bottom, bb.right, bb.top)
            if not all(math.isfinite(v) for v in ext) or (
                    bb.left < -far or bb.bottom < -far or bb.right > p.width + far
                    or bb.top > p.height + far):
                raise ValueError(
                    f"the shape reaches {ext}, more than {far:g} beyond the domain "
                    f"(check its position, size, radius, a/b or vertices)")

    def _handle(self, body: pymunk.Body, shapes: Sequence[pymunk.Shape], kind: str,
                sprite: str | None, owns_body: bool) -> BodyHandle:
        to_add: list[Any] = []
        if body is not self.space.static_body and body not in self.space.bodies:
            to_add.append(body)
        to_add.extend(s for s in shapes if s not in self.space.shapes)
        geos = [geometry_of(s) for s in shapes]  # TypeError for unsupported shapes, first
        self._check_reach(shapes)
        if to_add:
            self.space.add(*to_add)
        for s in shapes:
            self.coupler.add_shape(s)
        boxes = np.array([local_bounds(g) for g in geos])
        size = (float(boxes[:, 2].max() - boxes[:, 0].min()),
                float(boxes[:, 3].max() - boxes[:, 1].min()))
        h = BodyHandle(kind=kind, body=body, shapes=tuple(shapes), sprite=sprite, size=size,
                       area=float(sum(shape_area(g) for g in geos)), _owns_body=owns_body)
        self._body_refs[body] = self._body_refs.get(body, 0) + 1
        return self._register(h)  # type: ignore[return-value]

    @staticmethod
    def _surface(shape: pymunk.Shape, friction: float, elasticity: float) -> None:
        # chipmunk aborts the whole process on a negative value: refuse it here, by name
        f = _finite("friction", friction)
        if f < 0.0:
            raise ValueError(f"friction must be >= 0, got {friction!r}")
        e = _finite("elasticity", elasticity)
        if not 0.0 <= e <= 1.0:
            raise ValueError(f"elasticity must be in [0, 1], got {elasticity!r}")
        shape.friction = f
        shape.elasticity = e

    def add_static_segment(
        self, a: tuple[float, float], b: tuple[float, float], radius: float = 2.0,
        friction: float = 0.8, elasticity: float = 0.0, kind: str = "wall",
    ) -> BodyHandle:
        """A static wall, floor or ramp from ``a`` to ``b`` with thickness ``2 * radius``."""
        a = _vec("a", a)
        b = _vec("b", b)
        r = _finite("radius", radius)
        if r < 0:
            raise ValueError(f"radius must be >= 0, got {radius!r}")
        s = pymunk.Segment(self.space.static_body, a, b, r)
        self._surface(s, friction, elasticity)
        return self._handle(self.space.static_body, [s], kind, None, False)

    def add_static_poly(
        self, vertices: ArrayLike, radius: float = 0.0, friction: float = 0.8,
        elasticity: float = 0.0, kind: str = "wall",
    ) -> BodyHandle:
        """A static convex polygon (world coordinates; pymunk takes the convex hull)."""
        v = _points("vertices", vertices, 3)
        r = _finite("radius", radius)
        if r < 0:
            raise ValueError(f"radius must be >= 0, got {radius!r}")
        s = pymunk.Poly(self.space.static_body, _convex_vertices("vertices", v), radius=r)
        self._surface(s, friction, elasticity)
        return self._handle(self.space.static_body, [s], kind, None, False)

    def _dynamic(self, shape_fn: Callable[[pymunk.Body], pymunk.Shape], position: Any,
                 angle: float, density: float, friction: float, elasticity: float,
                 sprite: str | None, kind: str | None) -> BodyHandle:
        pos = _vec("position", position)
        ang = _finite("angle", angle)
        dens = _positive("density", density)
        body = pymunk.Body()
        body.position = pos
        body.angle = ang
        s = shape_fn(body)
        s.density = dens
        # a vanishing or overflowing mass (a tiny shape, an absurd density) would give pymunk a
        # NaN pose at the first step: refuse it here, by the arguments that make it
        if not (1e-12 < s.mass < 1e30 and 0.0 < s.moment < 1e300):
            raise ValueError(
                f"the body's mass (density x area = {dens:g} x {s.area:g}) must lie in "
                "(1e-12, 1e30): check its size/radius and density")
        self._surface(s, friction, elasticity)
        return self._handle(body, [s], kind or sprite or "body", sprite, True)

    def add_box(
        self, position: tuple[float, float], size: tuple[float, float], density: float = 0.5,
        angle: float = 0.0, radius: float = 0.0, friction: float = 0.6,
        elasticity: float = 0.1, sprite: str | None = "crate", kind: str | None = None,
    ) -> BodyHandle:
        """A dynamic box of ``size = (w, h)`` centred at ``position``.

        Args:
            density: Mass per unit area, in the fluid's units (water is 1).
            radius: Corner rounding (adds to the size, as in pymunk).
            sprite: Texture name for renderers ("crate", "plank", "anvil", ...).
            kind: Entity kind (default: the sprite name).
        """
        w, h = _vec("size", size)
        if w <= 0 or h <= 0:
            raise ValueError(f"size must be positive, got {size!r}")
        r = _finite("radius", radius)
        if not 0.0 <= r <= 0.5 * min(w, h):
            raise ValueError(f"radius must be in [0, min(size) / 2 = {0.5 * min(w, h):g}], "
                             f"got {radius!r}")
        return self._dynamic(lambda b: pymunk.Poly.create_box(b, (w, h), radius=r), position,
                             angle, density, friction, elasticity, sprite, kind)

    def add_ball(
        self, position: tuple[float, float], radius: float, density: float = 0.5,
        angle: float = 0.0, friction: float = 0.6, elasticity: float = 0.2,
        sprite: str | None = "ball", kind: str | None = None,
    ) -> BodyHandle:
        """A dynamic ball of ``radius`` centred at ``position``."""
        r = _positive("radius", radius)
        return self._dynamic(lambda b: pymunk.Circle(b, r), position, angle, density, friction,
                             elasticity, sprite, kind)

    def add_poly(
        self, position: tuple[float, float], vertices: ArrayLike, density: float = 0.5,
        angle: float = 0.0, radius: float = 0.0, friction: float = 0.6,
        elasticity: float = 0.1, sprite: str | None = "boat", kind: str | None = None,
    ) -> BodyHandle:
        """A dynamic convex polygon; ``vertices`` are body-local (pymunk takes the hull)."""
        v = _points("vertices", vertices, 3)
        pts = _convex_vertices("vertices", v)
        r = _finite("radius", radius)
        if r < 0:
            raise ValueError(f"radius must be >= 0, got {radius!r}")
        return self._dynamic(lambda b: pymunk.Poly(b, pts, radius=r),
                             position, angle, density, friction, elasticity, sprite, kind)

    def attach(
        self, body_or_shape: pymunk.Body | pymunk.Shape, kind: str = "body",
        sprite: str | None = None,
    ) -> BodyHandle:
        """Couple a pymunk body (all its shapes) or one shape that you made yourself.

        Static bodies become walls, kinematic ones push the fluid, dynamic ones go both ways.
        The body and shapes are added to the space if they are not in it yet.

        Raises:
            TypeError: not a pymunk Body or Shape, or an unsupported shape type.
            ValueError: a shape without a body, a body without shapes, a non-finite pose,
                or a dynamic body without mass.
        """
        if isinstance(body_or_shape, pymunk.Shape):
            shapes = [body_or_shape]
            body = body_or_shape.body
            if body is None:
                raise ValueError("body_or_shape is a shape without a body; give it a pymunk.Body")
        elif isinstance(body_or_shape, pymunk.Body):
            body = body_or_shape
            shapes = sorted(body.shapes, key=id)
            if not shapes:
                raise ValueError("body_or_shape is a body without shapes; add a shape first")
        else:
            raise TypeError(
                f"body_or_shape must be a pymunk.Body or pymunk.Shape, got "
                f"{type(body_or_shape).__name__}"
            )
        for s in shapes:
            geometry_of(s)
        p = body.position
        v = body.velocity
        if not all(math.isfinite(x) for x in (p.x, p.y, body.angle, v.x, v.y,
                                               body.angular_velocity)):
            raise ValueError("body_or_shape has a non-finite position, angle or velocity")
        if body.body_type == pymunk.Body.DYNAMIC and body not in self.space.bodies:
            m = body.mass + sum(s.mass for s in shapes if s not in body.shapes)
            if not m > 0 and not any(s.density > 0 or s.mass > 0 for s in shapes):
                raise ValueError("body_or_shape is a dynamic body without mass or density")
            if not body.moment > 0 and not any(s.density > 0 or s.mass > 0 for s in shapes):
                raise ValueError(
                    f"body_or_shape is a dynamic body with moment {body.moment!r}; it must be "
                    "> 0 (pymunk.moment_for_box/circle/poly, inf for no rotation) or come "
                    "from its shapes' density")
        return self._handle(body, shapes, kind, sprite, body not in self.space.bodies)

    # ------------------------------------------------------------------ drains, emitters
    def add_drain(self, rect: tuple[float, float, float, float]) -> Drain:
        """A drain: fluid particles inside ``rect = (x0, y0, x1, y1)`` are removed each step
        and counted (``drain.removed``, :class:`DrainEvent`)."""
        try:
            x0, y0, x1, y1 = (_finite("rect", v) for v in rect)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, ValueError) and "finite" in str(exc):
                raise
            raise TypeError(f"rect must be (x0, y0, x1, y1), got {rect!r}") from None
        if x1 <= x0 or y1 <= y0:
            raise ValueError(f"rect must have x1 > x0 and y1 > y0, got {rect!r}")
        d = Drain(rect=(x0, y0, x1, y1))
        self._drains.append(d)
        return self._register(d)  # type: ignore[return-value]

    def add_emitter(
        self, position: tuple[float, float], direction: tuple[float, float], speed: float,
        rate: float, material: int | str = 0, width: float | None = None,
    ) -> Emitter:
        """A nozzle: ``rate`` particles per second (exactly ``rate x time``, accumulated)
        leave ``position`` along ``direction`` at ``speed``, spread across ``width``
        (default one particle spacing). ``rate`` is at most :data:`MAX_EMITTER_RATE`."""
        pos = _vec("position", position)
        p = self.fluid.params
        if not (0.0 <= pos[0] <= p.width and 0.0 <= pos[1] <= p.height):
            raise ValueError(f"position {pos} is outside the domain")
        d = _vec("direction", direction)
        ln = math.hypot(*d)
        if ln <= 0.0:
            raise ValueError("direction must be non-zero")
        spd = _finite("speed", speed)
        if spd < 0:
            raise ValueError(f"speed must be >= 0, got {speed!r}")
        r = _finite("rate", rate)
        if not 0 <= r <= MAX_EMITTER_RATE:
            raise ValueError(f"rate must be in [0, {MAX_EMITTER_RATE:g}] particles/s, "
                             f"got {rate!r}")
        w = self.fluid.r_l if width is None else _finite("width", width)
        if w < 0:
            raise ValueError(f"width must be >= 0, got {width!r}")
        e = Emitter(position=pos, direction=(d[0] / ln, d[1] / ln), speed=spd, rate=r,
                    material=self.material_id(material), width=w)
        self._emitters.append(e)
        return self._register(e)  # type: ignore[return-value]

    # ------------------------------------------------------------------ events
    def poll_events(self) -> list[Any]:
        """Events since the last poll (oldest first), and forget them."""
        ev, self._events = self._events, []
        return ev

    def _run_events(self, dt: float) -> None:
        f = self.fluid
        for d in self._drains:
            if f.count == 0:
                break
            x0, y0, x1, y1 = d.rect
            pos = f.positions
            mask = (pos[:, 0] >= x0) & (pos[:, 0] <= x1) & (pos[:, 1] >= y0) & (pos[:, 1] <= y1)
            k = int(mask.sum())
            if k:
                f.remove_particles(mask)
                d.removed += k
                self.particles_removed += k
                self._events.append(DrainEvent(d.id, k, self.steps))
        for e in self._emitters:
            if e.enabled:
                self._emit(e, dt)
        cp = self.coupler
        for e in self._slots:
            if not isinstance(e, BodyHandle) or getattr(e, "_dead", False):
                continue
            k = cp.body_index(e.body)
            if k < 0 or not cp.dynamic[k] or e.area <= 0:
                continue
            frac = cp.submerged_area[k] / e.area
            if not e.in_water and frac > 0.02:
                e.in_water = True
                v = e.body.velocity
                self._events.append(BodyEnteredWaterEvent(e.id, float(v.length), self.steps))
            elif e.in_water and frac < 0.01:
                e.in_water = False
                self._events.append(BodyLeftWaterEvent(e.id, self.steps))

    def _emit(self, e: Emitter, dt: float) -> None:
        e._acc += e.rate * dt
        k = int(math.floor(e._acc + 1e-9))
        if k <= 0:
            return
        e._acc -= k
        f = self.fluid
        room = f.params.max_particles - f.count
        if k > room:
            e.dropped += k - max(room, 0)
            k = max(room, 0)
            if k == 0:
                return
        dx, dy = e.direction
        t = (np.arange(k) + 0.5) / k  # emission times within the step
        lateral = (e._slot + _GOLDEN * np.arange(1, k + 1)) % 1.0 - 0.5
        e._slot = float((e._slot + _GOLDEN * k) % 1.0)
        along = e.speed * dt * (1.0 - t)
        pts = np.column_stack([
            e.position[0] + dx * along - dy * lateral * e.width,
            e.position[1] + dy * along + dx * lateral * e.width,
        ])
        p = f.params
        eps = 1e-6 * p.a0
        pts[:, 0] = np.clip(pts[:, 0], eps, p.width - eps)
        pts[:, 1] = np.clip(pts[:, 1], eps, p.height - eps)
        f.add_particles(pts, (dx * e.speed, dy * e.speed), e.material)
        e.emitted += k
        self.particles_added += k

    # ------------------------------------------------------------------ determinism
    def state_hash(self) -> str:
        """A hex digest of the simulation state: the live particles (positions, velocities,
        materials, in storage order), every body of the Space (pose and velocities, in the
        Space's order), the step counter and the time.

        Two worlds built the same way with the same seed and inputs give the same hash after the
        same steps, in one process or across processes and thread counts; any bit of difference
        in the state changes it. Meant for tests, replays and network checks.
        """
        import hashlib

        f = self.fluid
        h = hashlib.blake2b(digest_size=16)
        h.update(np.array([f.count, self.steps], np.int64).tobytes())
        h.update(np.array([self.time]).tobytes())
        h.update(f.state_hash().encode())  # the particle arrays
        bodies = [(b.position.x, b.position.y, b.angle, b.velocity.x, b.velocity.y,
                   b.angular_velocity) for b in self.space.bodies]
        h.update(np.array(bodies, np.float64).tobytes())
        return h.hexdigest()

    # ------------------------------------------------------------------ debugging
    def check(self) -> WorldCheck:
        """The invariants a healthy world keeps, counted now (for debugging and soak tests;
        costs a pass over the particles and the shapes, so not meant for every step).

        Returns:
            A :class:`WorldCheck`; ``check().ok`` is True when nothing is wrong.
        """
        f = self.fluid
        p = f.params
        pos, vel = f.positions, f.velocities
        finite = np.isfinite(pos).all(axis=1) & np.isfinite(vel).all(axis=1)
        box = ((pos[:, 0] >= 0) & (pos[:, 0] <= p.width) & (pos[:, 1] >= 0)
               & (pos[:, 1] <= p.height))
        inside = self._inside_shapes(pos[finite]) if len(pos) else np.zeros(0, bool)
        bodies_nan = bodies_out = 0
        for b in self.space.bodies:
            q = b.position
            vals = (q.x, q.y, b.angle, b.velocity.x, b.velocity.y, b.angular_velocity)
            if not all(math.isfinite(v) for v in vals):
                bodies_nan += 1
            elif self.bounds and not (-p.a0 <= q.x <= p.width + p.a0
                                      and -p.a0 <= q.y <= p.height + p.a0):
                bodies_out += 1
        return WorldCheck(particles=f.count, nan=int((~finite).sum()),
                          outside=int((finite & ~box).sum()), inside_shapes=int(inside.sum()),
                          bodies=len(self.space.bodies), bodies_nan=bodies_nan,
                          bodies_outside=bodies_out)


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
