"""Saving a running level: its world and its script (timers, triggers, goals, keys, messages and
the level's own attributes, such as a score), resumed exactly where it was.

The level object is pickled together with its world, so the handles it keeps (``self.gate``)
point into the restored world. Level scripts are full of lambdas and closures (``self.after(3,
lambda w: self.say("go"))``), which pickle cannot store by name: functions defined in the
level's own file are stored by their code (``marshal``) and the values they close over, and
rebuilt against the level module, which is loaded again from its file before the script is
unpickled. Code objects are specific to the Python version: a save resumes on the same minor
version of Python (the header records it, and another version is refused clearly).

A level whose state does not pickle (an open file, a socket) overrides
:meth:`Level.save_state` / :meth:`Level.load_state`.
"""

from __future__ import annotations

import io
import marshal
import pickle
import sys
import types
from typing import TYPE_CHECKING, Any

from ..replay import Replay, exact_pair, records_kept
from ..saving import SaveError, pack, read_file, unpack, write_file

if TYPE_CHECKING:
    import os

    from .loader import LevelSession

__all__ = ["load_session", "pickle_script", "record_session", "save_session"]


def _rebuild_function(module: str, code: bytes, name: str, defaults: tuple[Any, ...] | None,
                      kwdefaults: dict[str, Any] | None, cells: tuple[Any, ...]) -> Any:
    mod = sys.modules.get(module)
    if mod is None:
        raise SaveError(f"the save needs the level module {module!r}, which is not loaded")
    closure = tuple(types.CellType(v) for v in cells) if cells else None
    fn = types.FunctionType(marshal.loads(code), mod.__dict__, name, defaults, closure)
    fn.__kwdefaults__ = kwdefaults
    return fn


class _LevelPickler(pickle.Pickler):
    """Pickles functions of the level's module by code and closure, everything else as usual."""

    def __init__(self, file: io.BytesIO, module: str) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.module = module

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, types.FunctionType) and obj.__module__ == self.module:
            cells = tuple(c.cell_contents for c in obj.__closure__ or ())
            return _rebuild_function, (self.module, marshal.dumps(obj.__code__), obj.__name__,
                                       obj.__defaults__, obj.__kwdefaults__, cells)
        return NotImplemented


def _python() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def pickle_script(session: LevelSession) -> bytes:
    """The running level and its world pickled together, as a save holds them.

    Raises:
        SaveError: Something in the level does not pickle (named).
    """
    assert session.level_class is not None
    buf = io.BytesIO()
    try:
        _LevelPickler(buf, session.level_class.__module__).dump(
            {"level": session.level, "world": session.world})
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise SaveError(
            f"level {session.name!r} cannot be saved: {exc} (override Level.save_state / "
            "load_state for what does not pickle)") from None
    return buf.getvalue()


def save_session(session: LevelSession, path: str | os.PathLike[str]) -> None:
    """Write the running level and its world to ``path`` (see :meth:`LevelSession.save`)."""
    level = session.level
    if level is None or session.level_class is None:
        raise RuntimeError("no level is running: nothing to save")
    script = pickle_script(session)
    spec = session.spec if isinstance(session.spec, str) else None
    source = session.source
    data = pack({
        "kind": "level", "python": _python(), "name": session.name,
        "spec": spec if spec is not None else (str(source.path) if source else None),
        "class": session.level_class.__qualname__, "module": session.level_class.__module__,
        "script": script,
    })
    write_file(path, data)
    if getattr(session.world, "_replay", None) is None:
        _resume(session, data, path)  # play on from the saved copy: saving changes nothing
    # else the save loads by replaying the level from its start to this very state


def record_session(session: LevelSession) -> None:
    """Keep the level and its world as they are now (before a step) as the world's replay
    origin (:mod:`fluidworld.replay`: a load of the world then replays the level's scripts
    with it); a level that does not pickle keeps none."""
    world = session.world
    world._replay = None
    try:
        world._replay = Replay(pickle_script(session), int(world.steps))
    except Exception:  # SaveError, or whatever else pickling a level's objects raises
        world._replay = None


def _replayed_session(level: Any, world: Any) -> tuple[Any, Any] | None:
    """The level and world that the unpickled ``world``'s record replays to, if they are the
    unpickled ``level`` and ``world`` (:func:`fluidworld.replay.fingerprint` and the level's
    plain state); else ``None``. The pair comes from one replay, so the level's references into
    its world (a joint it keeps, say) are the world's own objects."""
    rec = getattr(world, "_replay", None)
    if rec is None:
        return None
    plain = _level_print(level)
    return exact_pair(world, rec,
                      lambda lv: lv is not None and _level_print(lv) == plain)


def _level_print(level: Any) -> str:
    """The level's plain state: its numbers, strings and flags, the sizes of its lists and
    dicts (timers, triggers, goals, messages) and its messages' texts."""
    plain = sorted((k, v) for k, v in vars(level).items()
                   if isinstance(v, bool | int | float | str | type(None)))
    sizes = sorted((k, len(v)) for k, v in vars(level).items() if isinstance(v, list | dict))
    texts = [getattr(m, "text", None) for m in getattr(level, "messages", ())]
    return repr((plain, sizes, texts))


def load_session(session: LevelSession, path: str | os.PathLike[str]) -> None:
    """Replace ``session``'s level and world with the saved ones (see :meth:`LevelSession.load`).

    The running level is left untouched when the save cannot be read.
    """
    _resume(session, read_file(path), path)


def _resume(session: LevelSession, data: bytes, path: str | os.PathLike[str]) -> None:
    from .loader import LevelError, load_level, resolve_level

    payload = unpack(data)
    if payload.get("kind") != "level":
        raise SaveError(f"{path} is a save of a world, not of a level (use World.load)")
    if payload.get("python") != _python():
        raise SaveError(f"{path} was saved by Python {payload.get('python')}; this is "
                        f"Python {_python()} (level code is stored as bytecode)")
    module = payload["module"]
    if module not in sys.modules or not hasattr(sys.modules[module], payload["class"]):
        spec = payload.get("spec")
        if spec is None:
            raise SaveError(f"the save's level {payload['name']!r} has no file to load it from")
        try:
            load_level(spec)
        except LevelError as exc:
            raise SaveError(f"the save's level {spec!r} does not load: {exc}") from None
    try:
        with records_kept():  # the world's record is replayed below, with the level
            state = pickle.loads(payload["script"])
    except SaveError:
        raise
    except Exception as exc:
        raise SaveError(f"the save's level state cannot be read: {exc}") from None
    level, world = state["level"], state["world"]
    exact = _replayed_session(level, world)
    if exact is not None:  # the saved game with pymunk's warm-start state: bit-exact
        level, world = exact
    else:
        world._replay = None  # as saved: records afresh from here
    if payload.get("name") != session.name:  # another level's save: the session runs it now
        spec = payload.get("spec")
        try:
            source = resolve_level(spec) if spec is not None else None
        except LevelError as exc:
            raise SaveError(f"the save's level {spec!r} cannot be found: {exc}") from None
        session.spec, session.source = (spec if spec is not None else type(level)), source
        session._mtime = session._file_mtime()  # R and --watch rebuild the loaded level
    session.level, session.world, session.level_class = level, world, type(level)
    session.error = None
    session.scripts_stopped = False
    world._replay_external, world._replay_off = True, True
    # recording goes on from the replayed origin, or starts afresh from the loaded state
    session._record_next = world._replay is None
