"""Exact resume by replay: what a loaded world needs from pymunk that pymunk cannot save.

pymunk pickles every body, shape and joint, but not all of chipmunk's warm-start state, the
impulses that contacts and joints accumulated over the last steps and start the next solve
from: a joint's accumulated impulse is not in its pickle at all, and the contacts' cached
impulses come back keyed by hashes that the loaded Space does not always match again (its
public API neither reads nor writes either). A world loaded from a save therefore drifts from a
run that never saved within a few steps wherever bodies touch or are jointed (measured: a crate
and a ball pinned together, touching the water and a wall, differ in the state hash within
500 steps of a load at step 500).

What a save *can* carry is the world as it was before its first step, when no contact or joint
had accumulated anything yet (its **origin**), and the ``dt`` of every step since. Stepping
that origin again gives the saved world bit for bit, now with the warm-start state it had, as
long as nothing but the world's own step changed it in between (same seed, same inputs: the
determinism :meth:`World.state_hash <fluidworld.world.World.state_hash>` is built for). So
loading a save (:meth:`World.restore`, :meth:`World.load`, ``pickle``, ``copy.deepcopy``):

1. unpickles the saved world (exact but for the warm-start state);
2. if the save carries an origin, steps a copy of it as the saved world was stepped and
   compares the two (:func:`fingerprint`: the state hash, the Space's bodies, shapes and
   joints, the emitters, drains, parameters and entities);
3. takes the replayed world if they are the same, the unpickled one otherwise (something
   outside the step changed the world after its first step: a body added, a velocity set from
   a game loop; the replay cannot know it).

A world records (keeps its origin) for its first :attr:`World.replay_limit
<fluidworld.world.World.replay_limit>` steps (default :data:`REPLAY_LIMIT`); after that it
drops the origin, and a later save loads as in step 1. A loaded world that could not be
replayed records afresh from where it was loaded (unpickled again, it continues as itself, so
it is as good an origin as a new world). A :class:`~fluidworld.levels.LevelSession` records its
level with its world, and the keys it pressed (:mod:`fluidworld.levels.saves`).

Costs: the origin is one pickle of the world, taken at its first step (measured: 0.1 s and
10 MB for 25,600 particles, once) and carried in every save; a load replays as many steps as
the saved world had taken since its origin, at the world's own speed.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .world import World

__all__ = ["REPLAY_LIMIT", "Replay", "fingerprint", "replaying_disabled"]

#: Steps a world keeps its origin for (two minutes at 60 steps/s): a save within them loads
#: bit-exact, by stepping the origin again (:mod:`fluidworld.replay`); a load costs at most
#: this many steps.
REPLAY_LIMIT = 7200

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


@dataclass
class Replay:
    """A world's origin and the steps taken since (what :func:`replayed` needs).

    Attributes:
        origin: The world pickled before the step ``start`` (no warm-start state in it).
        start: The world's step counter at the origin.
        dts: The ``dt`` argument of every step since, run-length coded: ``[dt, count]`` pairs
            (``dt`` ``None`` for the default).
        inputs: ``[steps, key]`` for each key a :class:`~fluidworld.levels.LevelSession`
            pressed, after that many steps since the origin (its origin holds the level too).
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
    try:
        with replaying_disabled():
            state = pickle.loads(rec.origin)
        level: Any = state["level"] if isinstance(state, dict) else None
        world = state["world"] if isinstance(state, dict) else state
        world._replay, world._replay_off = None, True  # the copy records nothing meanwhile
        presses = sorted((int(k), str(key)) for k, key in rec.inputs)
        done = 0
        for dt, count in rec.dts:
            for _ in range(int(count)):
                while presses and presses[0][0] <= done:
                    level.press(presses.pop(0)[1], world)
                world.step(dt)
                if level is not None:
                    level.advance(world)
                done += 1
        for _, key in presses:
            level.press(key, world)
    except Exception:
        return None
    world._replay_off = world._replay_external
    world._replay = Replay(rec.origin, rec.start, [list(p) for p in rec.dts],
                           [list(p) for p in rec.inputs])
    return world


def fingerprint(world: World) -> bytes:
    """A digest of what a replay must reproduce: the state hash (particles, bodies' motion,
    step, time, random state), the Space as pymunk pickles it (every body, shape and joint
    with its properties), the emitters, drains, fluid, coupling and solver parameters, the
    material table, the particle books and every entity's kind, id and data."""
    h = hashlib.blake2b(digest_size=16)
    h.update(world.state_hash().encode())
    f = world.fluid
    parts = (_space_state(world.space), world._emitters, world._drains, f.params,
             tuple(f.material_table), world.coupler.params, getattr(f.solver, "params", None),
             world.particles_added, world.particles_removed, world._gens, world._free,
             [None if e is None else (e.kind, e.id, getattr(e, "data", None))
              for e in world._slots],
             [getattr(s, "name", None) for s in world._systems])
    for part in parts:  # one by one: objects shared between parts must not change the bytes
        h.update(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
    return h.digest()


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
    if _disabled or rec.steps > max(world.replay_limit, 0):
        return None
    twin = replayed(rec)
    if twin is None:
        return None
    try:
        same = fingerprint(twin) == fingerprint(world)
    except Exception:
        return None
    return twin if same else None


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
