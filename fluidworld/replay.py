"""Exact resume by replay: what a loaded world needs from pymunk that pymunk cannot save.

pymunk pickles every body, shape and joint, but not all of chipmunk's warm-start state, the
impulses that contacts and joints accumulated over the last steps and start the next solve
from: a joint's accumulated impulse is not in its pickle at all, and the contacts' cached
impulses come back keyed by hashes that the loaded Space does not always match again (its
public API neither reads nor writes either). A world loaded from a save therefore drifts from a
run that never saved within a few steps wherever bodies touch or are jointed (measured: a crate
and a ball pinned together, touching the water and a wall, differ in the state hash within
500 steps of a load at step 500).

What a save *can* carry is the world as it was before the first step that had a dynamic body
or a joint in it (its **origin**: until then an unpickled copy continues bit for bit, and from
then on nothing has accumulated yet), the ``dt`` of every step since, and the calls of the
World's own methods that changed it between steps (:func:`recorded`: ``add_box``, ``remove``,
``add_fluid_rect``, ``poll_events``, ...). Stepping that origin again, making the same calls
at the same steps, gives the saved world bit for bit, now with the warm-start state it had
(same seed, same inputs: the determinism :meth:`World.state_hash
<fluidworld.world.World.state_hash>` is built for). So loading a save (:meth:`World.restore`,
:meth:`World.load`, ``pickle``, ``copy.deepcopy``):

1. unpickles the saved world (exact but for the warm-start state);
2. if the save carries an origin, replays a copy of it and compares the two
   (:func:`fingerprint`: the state hash, the Space's bodies, shapes and joints, the emitters,
   drains, parameters, events and entities);
3. takes the replayed world if they are the same, the unpickled one otherwise (something the
   record does not hold changed the world between steps: a velocity or a friction set through
   a handle, a body added to the Space with pymunk's own ``space.add``).

A world records for :attr:`World.replay_limit <fluidworld.world.World.replay_limit>` steps
from its origin (default :data:`REPLAY_LIMIT`); after that it drops the record, and a later
save loads as in step 1. A loaded world that could not be replayed records afresh from where it
was loaded (unpickled again, it continues as itself, so it is as good an origin as a new
world). A :class:`~fluidworld.levels.LevelSession` records its level with its world, and the
keys it pressed (:mod:`fluidworld.levels.saves`): the replay runs the level's scripts too, and
a session's load takes the replayed level with the replayed world, so that what the level
keeps of the world (a handle, a joint of its own) is the loaded world's.

:meth:`World.restore` and :meth:`World.load` return the replayed world itself. ``pickle`` and
``copy.deepcopy``, which cannot hand back another object than the one they unpickle into, take
the replayed state into it (:func:`adopt`): entity handles pickled with the world stay linked,
but a pymunk object pickled with it outside them (a body or joint your game state keeps
directly) is the unpickled save's, not the replayed Space's: reach bodies through their handles
(``handle.body``), or set ``World.replay_limit = 0`` before the first step.

Costs: the origin is one pickle of the world, taken at that first step (measured: 0.1 s and
10 MB for 25,600 particles, 0.18 s and 35 MB for 102,000, once) and carried in every save; a
load replays as many steps as the saved world had taken since its origin, at the world's own
speed (measured: ``floating_crates`` saved after 1,800 steps, 2.4 ms each, loads in 4.7 s; at
the 7,200-step limit that is ~19 s). ``copy.deepcopy`` replays too: a game that copies its world
often (undo, rewind) copies inside :func:`replaying_disabled`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from .world import World

__all__ = ["REPLAY_LIMIT", "Replay", "exact_pair", "fingerprint", "recorded", "records_kept",
           "replayed_pair", "replaying_disabled"]

#: Steps a world keeps its origin for (two minutes at 60 steps/s): a save within them loads
#: bit-exact, by stepping the origin again (:mod:`fluidworld.replay`); a load costs at most
#: this many steps.
REPLAY_LIMIT = 7200

_F = TypeVar("_F", bound=Callable[..., Any])
_disabled = 0  # > 0 inside replaying_disabled(): loads take the unpickled world as it is


@contextlib.contextmanager
def replaying_disabled() -> Iterator[None]:
    """Load (unpickle, deepcopy, restore) without replaying inside this block: fast, exact
    but for pymunk's warm-start state (used for throwaway copies, such as the warm-up's)."""
    global _disabled
    _disabled += 1
    try:
        yield
    finally:
        _disabled -= 1


_kept = 0  # > 0 inside records_kept(): loads neither replay nor drop the record


@contextlib.contextmanager
def records_kept() -> Iterator[None]:
    """Unpickle worlds as saved, their records left in place for the caller to replay (a
    :class:`~fluidworld.levels.LevelSession` replays its level and world together, so that the
    level's own references into the world stay one graph)."""
    global _kept
    _kept += 1
    try:
        yield
    finally:
        _kept -= 1


def keeping_records() -> bool:
    """Inside :func:`records_kept`."""
    return _kept > 0


@dataclass
class Replay:
    """A world's origin and the steps taken since (what :func:`replayed` needs).

    Attributes:
        origin: The world pickled before the step ``start`` (no warm-start state in it).
        start: The world's step counter at the origin.
        dts: The ``dt`` argument of every step since, run-length coded: ``[dt, count]`` pairs
            (``dt`` ``None`` for the default).
        inputs: ``[steps, name, args, kwargs]`` for each change made between steps, after
            that many steps since the origin: a call of a :func:`recorded` World method, or
            ``"press"`` for a key a :class:`~fluidworld.levels.LevelSession` pressed (its
            origin holds the level too).
    """

    origin: bytes
    start: int
    dts: list[list[Any]] = field(default_factory=list)
    inputs: list[list[Any]] = field(default_factory=list)

    @property
    def steps(self) -> int:
        """Steps recorded since the origin."""
        return sum(int(c) for _, c in self.dts)

    def note(self, dt: float | None) -> None:
        """Record one step of ``dt``."""
        if self.dts and self.dts[-1][0] == dt:
            self.dts[-1][1] += 1
        else:
            self.dts.append([dt, 1])


def capture(world: World) -> Replay | None:
    """The world's origin as it is now (``None`` if it does not pickle: a system that pickle
    cannot save, say; such a world is never replayed)."""
    try:
        origin = pickle.dumps(world, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None
    return Replay(origin, world.steps)


def replayed(rec: Replay) -> World | None:
    """The world ``rec`` starts from, stepped (and its level advanced, its keys pressed) as
    recorded; ``None`` if that raised. An origin is a pickled world, or a level and its world
    pickled together (``{"level": ..., "world": ...}``, a :class:`LevelSession`'s)."""
    pair = replayed_pair(rec)
    return None if pair is None else pair[1]


def replayed_pair(rec: Replay) -> tuple[Any, World] | None:
    """:func:`replayed`, with the level of a session's origin (``None`` for a world's)."""
    try:
        with replaying_disabled():
            state = pickle.loads(rec.origin)
        level: Any = state["level"] if isinstance(state, dict) else None
        world = state["world"] if isinstance(state, dict) else state
        world._replay, world._replay_off = None, True  # the copy records nothing meanwhile
        inputs = sorted(rec.inputs, key=lambda item: int(item[0]))  # stable: in call order
        done = 0
        for dt, count in rec.dts:
            for _ in range(int(count)):
                while inputs and int(inputs[0][0]) <= done:
                    _apply(inputs.pop(0), level, world)
                world.step(dt)
                if level is not None:
                    level.advance(world)
                done += 1
        for item in inputs:
            _apply(item, level, world)
    except Exception:
        return None
    world._replay_off = world._replay_external
    world._replay = Replay(rec.origin, rec.start, [list(p) for p in rec.dts],
                           [list(p) for p in rec.inputs])
    return level, world


def _apply(item: list[Any], level: Any, world: World) -> None:
    _, name, args, kwargs = item
    if name == "press":
        level.press(*args, world)
    else:
        getattr(world, name)(*args, **kwargs)


def recorded(method: _F) -> _F:
    """Mark a World method that changes the world as an input: called between steps while
    the world records, the call goes into the record (after it returned) for the replay to
    make again. Calls from inside a step, from another recorded call or from a level's
    scripts (the replay runs those itself) are not recorded; a call whose arguments do not
    pickle ends the record (the save then loads as it was saved)."""
    name = method.__name__

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        own = self.__dict__
        rec = own.get("_replay")
        if rec is None or own.get("_stepping") or own.get("_in_call"):
            return method(self, *args, **kwargs)
        from .entities import Entity

        args = tuple(a.id if isinstance(a, Entity) else a for a in args)  # entities by id
        kwargs = {k: v.id if isinstance(v, Entity) else v for k, v in kwargs.items()}
        try:  # a copy: the game may change a list it passed after the call
            kept = pickle.loads(pickle.dumps((args, kwargs), protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:
            kept = None
        own["_in_call"] = True
        try:
            out = method(self, *args, **kwargs)
        finally:
            own["_in_call"] = False
        if kept is None:
            self._replay = None
        else:
            rec.inputs.append([rec.steps, name, *kept])
        return out

    return cast(_F, call)


def needs_origin(world: World) -> bool:
    """Whether the world holds what a load could not continue exactly without a replay: a
    dynamic body (contacts) or a joint. Until it does, an unpickled copy continues bit for bit
    (fluid, static walls), so the origin waits for the first step that has one."""
    space = world.space
    return bool(space.constraints) or any(
        b.body_type == b.DYNAMIC for b in space.bodies)


def fingerprint(world: World) -> bytes:
    """A digest of what a replay must reproduce: the state hash (particles, bodies' motion,
    step, time, random state), the Space as pymunk pickles it (every body, shape and joint
    with its properties), the emitters, drains, fluid, coupling and solver parameters, the
    material table, the particle books, the events waiting to be polled, every entity's fields
    (kind, id, data, sprite, ...), and the systems (with the state of a system object)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(world.state_hash().encode())
    f = world.fluid
    parts = (_space_state(world.space), world._emitters, world._drains, f.params,
             tuple(f.material_table), world.coupler.params, getattr(f.solver, "params", None),
             world.particles_added, world.particles_removed, world._gens, world._free,
             len(world._events), world.events_dropped,
             [None if e is None else _entity_state(e) for e in world._slots],
             [_system_state(s) for s in world._systems])
    for part in parts:
        h.update(_canonical(part))
    return h.digest()


def _entity_state(entity: Any) -> Any:
    """An entity as the fingerprint sees it: its fields (kind, id, data, sprite, ...) but its
    world and its pymunk objects, which the Space's state holds."""
    skip = ("_world", "body", "shapes", "_sensors")
    return type(entity).__name__, sorted(
        (k, v) for k, v in vars(entity).items() if k not in skip)


def _system_state(system: Any) -> Any:
    """A system as the fingerprint sees it: its place and flags, and the state of the object
    whose ``update`` it runs (a game's wind that the game turned up between steps), or the
    function itself (pickled by name)."""
    if system.builtin:
        return system.name, system.enabled
    owner = getattr(system.fn, "__self__", None)
    body = system.fn if owner is None else getattr(owner, "__dict__", repr(owner))
    return (system.name, system.anchor, system.where, system.every_substep, system.enabled,
            body)


def _stub(*_: Any) -> None:  # pragma: no cover - named in canonical pickles, never called
    """Stands for a polygon in :func:`_canonical` bytes."""


class _Canon(pickle.Pickler):
    """A pickler for comparing, not loading: no memo (the same value pickles the same whether
    or not it is shared, as a string or a dict can be after a load), and a polygon's vertices
    in sorted order (chipmunk starts a loaded polygon's vertex list at another vertex)."""

    def reducer_override(self, obj: Any) -> Any:
        import pymunk

        if isinstance(obj, pymunk.Poly):
            state = obj.__getstate__()
            init = [(k, sorted(tuple(p) for p in v) if k == "vertices" else v)
                    for k, v in state["init"]]
            return _stub, (init, state["general"], state["custom"], state["special"])
        return NotImplemented


def _canonical(obj: Any) -> bytes:
    import io

    buf = io.BytesIO()
    pickler = _Canon(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(obj)
    return buf.getvalue()


def _space_state(space: Any) -> Any:
    """What pymunk pickles of a Space, less the contacts' cached impulses (pymunk keeps them
    keyed by shape ids that a load renumbers: the replay is there to get them right)."""
    state = space.__getstate__()
    if isinstance(state, dict) and isinstance(state.get("special"), list):
        state = dict(state)
        state["special"] = [item for item in state["special"]
                            if not (isinstance(item, tuple) and item and item[0] == "arbiters")]
    return state


def exact_or_none(world: World, rec: Replay) -> World | None:
    """The replay of ``rec`` if it reproduces ``world`` (just unpickled from the same save),
    else ``None``."""
    pair = exact_pair(world, rec)
    return None if pair is None else pair[1]


def exact_pair(world: World, rec: Replay,
               same_level: Callable[[Any], bool] | None = None) -> tuple[Any, World] | None:
    """:func:`replayed_pair` of ``rec`` if its world has ``world``'s :func:`fingerprint` (and,
    with ``same_level``, its level passes that check), else ``None``; ``None`` too inside
    :func:`replaying_disabled` or past ``world.replay_limit``."""
    if _disabled or rec.steps > max(world.replay_limit, 0):
        return None
    pair = replayed_pair(rec)
    if pair is None:
        return None
    try:
        same = fingerprint(pair[1]) == fingerprint(world) and (
            same_level is None or same_level(pair[0]))
    except Exception:
        return None
    return pair if same else None


def adopt(world: World, twin: World) -> None:
    """Make ``world`` (just unpickled, its entities maybe referenced from outside it) take
    ``twin``'s state: ``world`` gets ``twin``'s attributes, and each of ``world``'s entities
    the attributes of ``twin``'s entity in the same slot, pointed back at ``world``; so the
    handles that came out of the same pickle keep working."""
    mine = list(world._slots)
    world.__dict__ = twin.__dict__
    slots = world._slots
    swap: dict[int, Any] = {}  # id of twin's entity -> the handle from the save
    for i, e in enumerate(mine):
        other = slots[i] if i < len(slots) else None
        if e is None or other is None or type(e) is not type(other):
            continue
        e.__dict__ = other.__dict__
        slots[i] = swap[id(other)] = e
    for group in (world._emitters, world._drains, world._pending):
        group[:] = [swap.get(id(x), x) for x in group]
    for e in slots:
        if e is not None and getattr(e, "_world", None) is twin:
            e.__dict__["_world"] = world
