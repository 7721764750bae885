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
9. ``exchange``         impulses, buoyancy and drag -> bodies; ``space.step(h)``
10. ``settle``          (once per step) containment once more against the moved bodies
11. ``drains``, ``emitters``  (once per step) built-in systems
12. ``events``          (once per step) bodies entering/leaving water

Stages 2-8 are the fluid's (another solver has its own after ``bin``), run from the same list
as a fluid-only step (:func:`~fluidworld.fluid.solver.substep_stages`); the step itself lives in
:mod:`fluidworld.world_step`.

The class is split by concept: the fluid helpers (fills, drains, emitters, events) live in
:mod:`fluidworld.world_fluid`, the body helpers in :mod:`fluidworld.world_bodies`, the entity
and event types in :mod:`fluidworld.entities`; this module keeps construction, the step, the
entity registry and the debugging views.

Entities (bodies, static shapes, drains, emitters) have integer ids that carry a generation:
an id goes stale when its entity is removed, and using a stale id raises ``KeyError``. Removing
during a step (from a pymunk callback, say) is deferred to the end of the step.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import os
import pickle
import warnings
import weakref
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
import pymunk

from . import replay, saving
from .coupling import Coupler, CouplingParams
from .entities import (
    BodyEnteredWaterEvent,
    BodyHandle,
    BodyLeftWaterEvent,
    Drain,
    DrainEvent,
    Emitter,
    Entity,
    EntityQuery,
    WorldCheck,
)
from .fluid import FluidParams, FluidSystem, Material
from .fluid.params import _flag, _positive
from .fluid.solver import Solver
from .fluid.solvers import make_solver
from .replay import REPLAY_LIMIT, Replay, recorded
from .world_bodies import REACH, BodyHelpers
from .world_fluid import MAX_EMITTER_RATE, FluidHelpers
from .world_step import MAX_STEP_SUBSTEPS, StepHelpers
from .world_systems import System, SystemHelpers

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
    "MAX_EMITTER_RATE",
    "MAX_STEP_SUBSTEPS",
    "REACH",
]

#: The stages of a default (SRD) World's step, in order (:attr:`World.stages`).
STAGES = ("sync_bodies", "external_forces", "bin", "local_repulsion", "srd_collision",
          "viscosity", "cell_pressure", "advect", "exchange", "settle", "drains", "emitters",
          "events")

E = TypeVar("E", bound=Entity)

#: The World each user Space belongs to (weakly: a World that is gone frees its Space).
_SPACE_OWNERS: weakref.WeakKeyDictionary[pymunk.Space, weakref.ref[Any]] = (
    weakref.WeakKeyDictionary())


def _claim_space(space: pymunk.Space, world: Any) -> None:
    """Refuse a Space that a live World uses already: both would step it (bodies falling twice
    as fast) and hold two fluids that do not see each other."""
    owner = _SPACE_OWNERS.get(space)
    if owner is not None and owner() is not None:
        gc.collect()  # a World dropped but still in a reference cycle is not in use
        if owner() is not None:
            raise ValueError(
                "space is the Space of another World already; one World per Space (each World "
                "steps its Space): add the water to that World, or give this one its own Space")
    _SPACE_OWNERS[space] = weakref.ref(world)


_SLOT_BITS = 20
_SLOT_MASK = (1 << _SLOT_BITS) - 1



def _params_for(width: float, height: float, params: FluidParams | None,
                space: pymunk.Space | None) -> FluidParams:
    """The fluid's parameters: ``params`` checked against the domain, or the game preset for
    it (with ``space``'s gravity when one is given)."""
    if params is None:
        params = FluidParams.game(width, height)
        if space is not None:
            params = dataclasses.replace(params, gravity=_gravity_of(space))
    elif not isinstance(params, FluidParams):
        raise TypeError(f"params must be a FluidParams, got {type(params).__name__}")
    elif (params.width, params.height) != (width, height):
        raise ValueError(
            f"params describe a {params.width} x {params.height} domain, "
            f"but the world is {width} x {height}"
        )
    return params

class World(StepHelpers, FluidHelpers, BodyHelpers, SystemHelpers):
    """A fluid and a pymunk Space, coupled two ways, with an entity registry.

    Args:
        width: Domain width (world units; pixels by default).
        height: Domain height.
        params: Fluid parameters; default :meth:`FluidParams.game` ``(width, height)``. Its size
            must match ``width`` x ``height``.
        space: A pymunk Space to add water to (yours). By default the world makes one with
            the fluid's gravity and keeps the two equal: set ``world.space.gravity`` (or give
            the fluid new params, ``world.fluid.params = dataclasses.replace(
            world.fluid.params, gravity=(0, -500))``) and water and bodies both follow at the
            next step. One World per Space: each World steps its Space. On
            your Space, the water takes its gravity from the Space
            (every step, unless ``params`` sets it: then the Space's gravity is left alone),
            no boundary walls are added unless ``bounds=True``, and the static shapes in it
            hold water (see ``attach_static``).
        materials: Fluid material table (default: water, ink, oil, honey).
        coupling: Coupling knobs (:class:`~fluidworld.coupling.CouplingParams`).
        bounds: Put static pymunk walls just outside the domain box so that bodies stay in it
            (and put back any dynamic body a step too fast for pymunk's walls carried out).
            Default: on when the world makes its Space, off on yours.
        solver: The fluid solver, by name (``"srd"``, the default; see
            :data:`~fluidworld.fluid.solvers.SOLVER_NAMES`) or a
            :class:`~fluidworld.fluid.solver.Solver` object.
        attach_static: Couple every static, non-sensor shape of the Space as a wall that holds
            water: those already in it when the world is made, and those added later (picked
            up at the start of the next step). Dynamic and kinematic bodies are coupled only
            when you :meth:`attach` them (or make them with ``add_box`` and friends).
        seed: The fluid's random seed (:attr:`FluidParams.seed
            <fluidworld.fluid.FluidParams.seed>`, in place of the one of ``params``): the same
            seed and the same calls give the same run bit for bit. Default: that of
            ``params`` (0).

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
        bounds: bool | None = None,
        solver: str | Solver = "srd",
        attach_static: bool = True,
        seed: int | None = None,
    ) -> None:
        width = _positive("width", width)
        height = _positive("height", height)
        own_space = space is None
        if space is not None and not isinstance(space, pymunk.Space):
            raise TypeError(f"space must be a pymunk.Space, got {type(space).__name__}")
        if coupling is not None and not isinstance(coupling, CouplingParams):
            raise TypeError(f"coupling must be a CouplingParams, got {type(coupling).__name__}")
        if bounds is not None:
            _flag("bounds", bounds)
        _flag("attach_static", attach_static)
        #: Whether each step copies the Space's gravity into the fluid's parameters: a World
        #: that made its Space (there a change of the fluid's gravity goes to the Space too), or
        #: one on your Space made without ``params``.
        self.gravity_from_space = own_space or params is None
        self._own_space = own_space
        self._warned_gravity = False  # told once that bodies get no buoyancy (gravity not -y)
        params = _params_for(width, height, params, space)
        if seed is not None:
            params = dataclasses.replace(params, seed=seed)  # (FluidParams checks it)
        if space is None:
            space = pymunk.Space()
            space.gravity = params.gravity
        _claim_space(space, self)  # the World's own too: ``World(space=other.space)``
        self.fluid = FluidSystem(params, materials)
        self.fluid.set_solver(make_solver(solver))
        self.space = space
        self._gravity_seen = _gravity_of(space)
        self.coupler = Coupler(self.fluid, coupling)
        self._systems: list[System] = []
        self._step_impulse = np.zeros((0, 2))  # the fluid's impulse on each body, this step
        self._step_time = 0.0
        self.profile: dict[str, float] = dict.fromkeys(self.stages, 0.0)
        #: Finer timings inside stages (ms per step): ``contain`` (containment out of shapes,
        #: the end of ``advect``) and ``space_step`` (pymunk's step, inside ``exchange``).
        self.profile_detail: dict[str, float] = {"contain": 0.0, "space_step": 0.0}
        self.time = 0.0
        self.steps = 0
        #: Steps after its first (or after a load) for which the world keeps what a save needs
        #: to load bit-exact (:mod:`fluidworld.replay`: loading then replays as many steps);
        #: 0 keeps nothing, and saves load exact but for pymunk's warm-start state.
        self.replay_limit = REPLAY_LIMIT
        self._replay: Replay | None = None
        self._replay_off = False  # True: record nothing (unpicklable, past the limit, replaying)
        self._replay_external = False  # a LevelSession records its world with the level
        self._init_registry()
        self.bounds: tuple[pymunk.Shape, ...] = ()
        if own_space if bounds is None else bounds:
            self.bounds = self._make_bounds()
        self.attach_static = bool(attach_static)
        self._shapes_seen: frozenset[int] = frozenset()
        self._waiting: list[pymunk.Shape] = []
        self._refused: set[pymunk.Shape] = set()
        self._adopt_static_shapes()

    def _init_registry(self) -> None:
        """The entities' slots, the particle books, events, drains and emitters: empty."""
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
        self.events_dropped = 0  # events older than the newest MAX_EVENTS, never polled
        self._drains: list[Drain] = []
        self._emitters: list[Emitter] = []

    def __getstate__(self) -> dict[str, Any]:
        if self._stepping:  # the copy would be half a step, and never step again
            raise RuntimeError("a World cannot be copied or pickled during a step (from a "
                               "system): copy it after step() returns")
        state = self.__dict__.copy()
        state.pop("_pos_buf", None)  # a per-process pymunk buffer: made again on use
        # pymunk pickles a body before its shapes and sums their masses again as they are added
        # back: a body of several shapes came back with its centre of gravity (and so its
        # position) off in the last bit. The exact values go along and are put back on load.
        state["_exact_bodies"] = [
            (b, tuple(b.center_of_gravity), tuple(b.position), b.angle, tuple(b.velocity),
             b.angular_velocity)
            for b in self.space.bodies if len(b.shapes) > 1]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        exact = state.pop("_exact_bodies", ())
        self.__dict__.update(state)
        for b, cog, pos, angle, vel, spin in exact:
            b.center_of_gravity, b.position, b.angle = cog, pos, angle
            b.velocity, b.angular_velocity = vel, spin
        for key, value in (("replay_limit", REPLAY_LIMIT), ("_replay", None),
                           ("_replay_off", False), ("_replay_external", False)):
            self.__dict__.setdefault(key, value)  # saves of fluidworld before the replay
        rec = self._replay
        if rec is not None and replay.keeping_records():
            return  # the caller replays it (a LevelSession's load)
        twin = replay.exact_or_none(self, rec) if rec is not None else None
        if twin is not None:
            replay.adopt(self, twin)  # the saved world, pymunk's warm-start state included
        else:  # as unpickled: no warm-start state, so it can be an origin itself
            self._replay = None
            self._replay_off = self._replay_external

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
    def entities(self) -> EntityQuery:
        """All live entities, in id order: iterate them, or call it as a component query,
        ``world.entities(with_=Score)`` (:class:`~fluidworld.entities.EntityQuery`)."""
        return EntityQuery(e for e in self._slots
                           if e is not None and not getattr(e, "_dead", False))

    def entities_with(self, *keys: Any, of: type[E] = Entity) -> Iterator[E]:  # type: ignore[assignment]
        """Live entities whose :attr:`~fluidworld.entities.Entity.data` holds every key (a
        component query: ``for e in world.entities_with(Score): ...``), of type ``of`` (e.g.
        ``of=BodyHandle`` for bodies only, typed as such)."""
        return self.entities(*keys, of=of)

    @recorded
    def remove(self, entity: Entity | int) -> None:
        """Remove an entity (by handle or id). Its id goes stale at once; the bodies and shapes
        leave the space now, or at the end of the step if called during one (a body you added
        to the Space yourself stays in it while it has shapes there that were not coupled,
        such as its sensors, and a mass without the coupled ones). A body that leaves takes
        its joints (pymunk constraints) with it: one left behind would turn the body at its
        other end NaN.

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
                for s in e._sensors:
                    if s.space is self.space:
                        self.space.remove(s)
                b = e.body
                if b.body_type != pymunk.Body.STATIC or b is not self.space.static_body:
                    self._body_refs[b] = self._body_refs.get(b, 1) - 1
                    if self._body_refs[b] <= 0:
                        del self._body_refs[b]
                        # a game's body left without shapes, or with only massless ones (its
                        # sensors), would turn NaN at the next step: it goes with them
                        rest = [s for s in b.shapes if s.space is self.space]
                        massless = (b.body_type == pymunk.Body.DYNAMIC
                                    and not (b.mass > 0.0 and b.moment > 0.0))
                        if (e._owns_body or not rest or massless) and b in self.space.bodies:
                            # a joint left to a body out of the Space turns its partner NaN
                            # at pymunk's next step: the body's joints go with it
                            joints = [c for c in b.constraints if c in self.space.constraints]
                            self.space.remove(b, *rest, *joints)
            elif isinstance(e, Drain):
                self._drains.remove(e)
            elif isinstance(e, Emitter):
                self._emitters.remove(e)

    # ------------------------------------------------------------------ the user's Space
    def _follow_space_gravity(self) -> None:
        """One gravity for water and bodies: the fluid takes a change of the Space's; on the
        World's own Space, the Space takes a change of ``fluid.params.gravity``."""
        if not self.gravity_from_space:
            return
        g, fg = _gravity_of(self.space), self.fluid.params.gravity
        if g != fg:
            if getattr(self, "_own_space", False) and g == self._gravity_seen:
                self.space.gravity = g = fg  # the fluid's gravity was changed: bodies follow
            else:
                self.fluid.params = dataclasses.replace(self.fluid.params, gravity=g)
        self._gravity_seen = g

    def _warn_if_no_buoyancy(self) -> None:
        """Warn once when bodies are coupled but gravity does not point along -y: water levels
        are heights along +y, so the coupler gives such bodies no buoyancy (a y-down Space, as
        pygame users set it up, sank a box of 0.6 without a word). Not where the coupler adds
        no buoyancy anyway (:meth:`Coupler.adds_buoyancy`): solvers whose contacts carry the
        pressure (``ddr``, ``constraint``) float bodies in any direction."""
        gx, gy = self.fluid.params.gravity
        if (gy < 0.0 or (gx == 0.0 and gy == 0.0) or getattr(self, "_warned_gravity", False)
                or not len(self.coupler.bodies) or not self.coupler.adds_buoyancy()):
            return
        self._warned_gravity = True
        warnings.warn(
            f"gravity is ({gx:g}, {gy:g}): floating bodies get no buoyancy. fluidworld works in "
            f"y-up coordinates (as arcade does) and measures water levels upward along +y, so "
            f"the {self.solver!r} solver needs gravity along -y, e.g. space.gravity = "
            f"(0, -900) (solver='ddr' or 'constraint' float bodies by their contacts in any "
            f"direction)", RuntimeWarning,
            stacklevel=3)

    # ------------------------------------------------------------------ saving
    def snapshot(self) -> bytes:
        """The whole world as bytes: particles, materials, parameters and RNG state, the Space
        (bodies, shapes, constraints, also ones you added to your own Space), entities with
        their ids, emitters, drains, time and step counter (see :mod:`fluidworld.saving`).

        Raises:
            RuntimeError: Called during a step.
            TypeError: A system or an entity's data that pickle cannot save (a lambda, or a
                function defined inside another), named.
        """
        if self._stepping:
            raise RuntimeError("snapshot() cannot be called during a step")
        try:
            return saving.pack({"world": self})
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            for s in self._systems:
                try:
                    pickle.dumps(s.fn)
                except Exception:
                    raise TypeError(
                        f"the system {s.name!r} cannot be saved ({exc}): pickle saves "
                        "functions by name, so a lambda or a function defined inside another "
                        "cannot be; use a module-level function or an object with "
                        "update(world, h)") from exc
            for e in self.entities:
                for key, value in getattr(e, "data", {}).items():
                    try:
                        pickle.dumps(value)
                    except Exception:
                        raise TypeError(
                            f"the {e.kind} entity {e.id}'s data[{key!r}] cannot be saved "
                            f"({exc}): keep what pickle can save in entity data (a lambda or a "
                            "function defined inside another cannot be)") from exc
            raise

    @classmethod
    def restore(cls, data: bytes) -> World:
        """A world from :meth:`snapshot` bytes; it continues as the saved one would have, bit
        for bit, pymunk's contact and joint warm-start impulses included: the save carries the
        world as it was before its first step, and loading steps it again to the saved step
        (:mod:`fluidworld.replay`; at most :attr:`replay_limit` steps). If something outside
        the step changed the world since (a velocity your game set between steps), the replay
        differs from the save and the world loads as saved, without pymunk's warm-start state.

        Raises:
            SaveError: Foreign, truncated, corrupt or newer-format data (a ``ValueError``).
        """
        with replay.records_kept():  # replayed below, whole: no adopt needed
            payload = saving.unpack(data)
        if payload.get("kind") == "level":
            raise saving.SaveError("this is a save of a level, not of a world (use "
                                   "LevelSession.load)")
        world = payload.get("world")
        if not isinstance(world, cls):
            raise saving.SaveError(f"the save holds a {type(world).__name__}, not a World")
        rec = world._replay
        twin = replay.exact_or_none(world, rec) if rec is not None else None
        if twin is not None:
            return twin
        world._replay, world._replay_off = None, world._replay_external
        return world

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`snapshot` to ``path`` (through a temporary file: a crash mid-write leaves
        the previous save intact). Load it with :meth:`load`."""
        saving.write_file(path, self.snapshot())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> World:
        """A world saved with :meth:`save`.

        Raises:
            FileNotFoundError: No such file.
            SaveError: Not a fluidworld save, truncated, corrupt or of a newer format.
        """
        return cls.restore(saving.read_file(path))

    # ------------------------------------------------------------------ determinism
    def state_hash(self) -> str:
        """A hex digest of the simulation state: the live particles (positions, velocities,
        materials, in storage order), every body of the Space (pose and velocities, in the
        Space's order), the step counter, the time, the gravity and the state of the fluid's
        random draws (worlds of different seeds differ even before their first step).

        Two worlds built the same way with the same seed and inputs give the same hash after the
        same steps, in one process or across processes and thread counts; any bit of difference
        in the state changes it. Meant for tests, replays and network checks.
        """
        import hashlib

        f = self.fluid
        h = hashlib.blake2b(digest_size=16)
        h.update(np.array([f.count, self.steps], np.int64).tobytes())
        h.update(np.array([self.time, *f.params.gravity]).tobytes())
        h.update(repr(f.rng.bit_generator.state).encode())  # the next steps' random draws
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


def _gravity_of(space: pymunk.Space) -> tuple[float, float]:
    g = space.gravity
    return (float(g[0]), float(g[1]))

