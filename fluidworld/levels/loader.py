"""Finding, loading and hot-reloading levels, and running one without ever dying on its errors.

A level is named by a file path (``my_level.py``), a module (``fluidworld.demos.harbor``) or
the name of a built-in demo (``harbor``). Whatever the name, the level's *file* is executed
afresh on every (re)load with ``importlib`` (``spec_from_file_location`` + ``exec_module``), so
editing the file and pressing the reload key picks up the change; modules the level imports
are not reloaded. A level given by its path imports the modules beside it (``from helpers
import pool``): its folder goes first on ``sys.path``, once, as Python does for a script.

Errors in level code -- a syntax error, bad metadata (:mod:`~fluidworld.levels.metadata`), an
exception in ``build``, ``update``, a timer, a key action or a system the level added to the
world -- become a :class:`LevelError` that names the level file and line.
:class:`LevelSession` catches them: the previous level keeps running (or an empty world, if there
is none), ``session.error`` holds the message for the screen, and the next reload tries again.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import pkgutil
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import Level
from .metadata import MetadataError, check_metadata, check_pour_material
from .saves import record_session

__all__ = [
    "DEFAULT_LEVEL",
    "LevelError",
    "LevelInfo",
    "LevelSession",
    "LevelSource",
    "builtin_levels",
    "find_level_class",
    "load_level",
    "resolve_level",
]

#: The level ``fluidworld play`` and ``scripts/play`` start by default.
DEFAULT_LEVEL = "floating_crates"

#: The package holding the built-in demo levels.
DEMOS_PACKAGE = "fluidworld.demos"


class LevelError(Exception):
    """An error in level code, located in the level's file.

    Attributes:
        path: The file the error points at (the level file when the traceback passes through
            it, else the innermost file).
        line: Line number in ``path`` (``None`` if unknown).
        summary: ``"ExceptionType: message"``.
        details: The full formatted traceback (for a console), or ``""``.
    """

    def __init__(
        self, summary: str, path: str | Path | None = None, line: int | None = None,
        details: str = "",
    ) -> None:
        self.summary = summary
        self.path = str(path) if path is not None else None
        self.line = line
        self.details = details
        super().__init__(str(self))

    @property
    def location(self) -> str:
        """``"path:line"`` (or what is known of it)."""
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def __str__(self) -> str:
        loc = self.location
        return f"{loc}: {self.summary}" if loc else self.summary

    @classmethod
    def from_exception(cls, exc: BaseException, level_file: str | Path | None) -> LevelError:
        """Locate ``exc`` in ``level_file``: a syntax error's own position, else the deepest
        traceback frame inside that file, else the deepest frame."""
        if isinstance(exc, LevelError):
            return exc
        details = "".join(traceback.format_exception(exc))
        summary = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, SyntaxError):
            summary = f"{type(exc).__name__}: {exc.msg}"
            return cls(summary, exc.filename or level_file, exc.lineno, details)
        frames = traceback.extract_tb(exc.__traceback__)
        target = _samefile_key(level_file) if level_file is not None else None
        in_level = [f for f in frames if target is not None and _samefile_key(f.filename) == target]
        frame = in_level[-1] if in_level else (frames[-1] if frames else None)
        if frame is None:
            return cls(summary, level_file, None, details)
        return cls(summary, frame.filename, frame.lineno, details)


def _samefile_key(path: str | Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path)


# -------------------------------------------------------------------------------- resolving
@dataclass(frozen=True)
class LevelSource:
    """Where a level's code lives.

    Attributes:
        spec: What the user typed.
        path: The level's Python file.
        module: The importable module name, or ``None`` for a plain file.
        name: Short display name (``floating_crates``).
    """

    spec: str
    path: Path
    module: str | None
    name: str


def builtin_levels() -> list[str]:
    """Names of the built-in demo levels (modules of ``fluidworld.demos``), default first."""
    try:
        pkg = importlib.import_module(DEMOS_PACKAGE)
    except ImportError:
        return []
    names = sorted(
        m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_")
    )
    if DEFAULT_LEVEL in names:
        names.remove(DEFAULT_LEVEL)
        names.insert(0, DEFAULT_LEVEL)
    return names


def _unknown(spec: str) -> LevelError:
    names = builtin_levels()
    hint = f"built-in levels: {', '.join(names)}" if names else "no built-in levels found"
    return LevelError(
        f"unknown level {spec!r} ({hint}; or give a path to a .py file, or a module name)"
    )


def _find_spec(module: str) -> importlib.machinery.ModuleSpec | None:
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def resolve_level(spec: str | Path) -> LevelSource:
    """Find a level's file from a path, a module name or a built-in demo name.

    Raises:
        LevelError: If nothing matches; the message lists the built-in levels.
    """
    text = str(spec)
    path = Path(text).expanduser()
    looks_like_path = text.endswith(".py") or os.sep in text or "/" in text
    if looks_like_path or path.is_file():
        if path.is_dir():
            raise LevelError(f"{text} is a folder: give a level's .py file")
        if not path.is_file():
            raise LevelError(f"level file not found: {text}")
        return LevelSource(text, path.resolve(), None, path.stem)
    module = text
    if "." not in text and text in builtin_levels():
        module = f"{DEMOS_PACKAGE}.{text}"
    found = _find_spec(module)
    if found is None and module.startswith("demos."):  # the checkout's name for the demos
        module = f"{DEMOS_PACKAGE}.{module.removeprefix('demos.')}"
        found = _find_spec(module)
    if found is None or found.origin is None or not found.origin.endswith(".py"):
        raise _unknown(text)
    origin = Path(found.origin)
    if origin.name == "__init__.py":
        raise LevelError(f"{module!r} is a package; name one of its level modules")
    return LevelSource(text, origin.resolve(), module, module.rsplit(".", 1)[-1])


def _add_folder_to_path(folder: Path) -> None:
    """Put a level file's folder first on ``sys.path`` unless it is there already (``""`` is
    the working folder), so the level imports the modules beside it as a script would."""
    key = _samefile_key(folder)
    if not any(isinstance(p, str) and _samefile_key(p) == key for p in sys.path):
        sys.path.insert(0, str(folder))


def _exec_file(source: LevelSource) -> ModuleType:
    """Execute the level file as a fresh module (raises whatever the file raises)."""
    if source.module is None:  # a module level's folder is a package: never on sys.path
        _add_folder_to_path(source.path.parent)
    name = source.module or f"_fluidworld_level_{source.name}"
    spec = importlib.util.spec_from_file_location(name, source.path)
    if spec is None or spec.loader is None:
        raise LevelError(f"cannot load {source.path}", source.path)
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(name)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        if previous is not None:
            sys.modules[name] = previous
        else:
            sys.modules.pop(name, None)
        raise
    return module


def find_level_class(module: ModuleType) -> type[Level]:
    """The level class a module defines: its ``LEVEL`` attribute, or its one ``Level`` subclass.

    Raises:
        LevelError: If there is none, or several and no ``LEVEL``.
    """
    chosen = getattr(module, "LEVEL", None)
    if chosen is not None:
        if isinstance(chosen, type) and issubclass(chosen, Level):
            return chosen
        raise LevelError(f"LEVEL must be a Level subclass, got {chosen!r}", module.__file__)
    own = [
        v for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, Level) and v is not Level
        and v.__module__ == module.__name__
    ]
    leaves = [c for c in own if not any(o is not c and issubclass(o, c) for o in own)]
    if not leaves:
        raise LevelError(
            "no Level subclass found (define `class MyLevel(Level):` with a build method)",
            module.__file__,
        )
    if len(leaves) > 1:
        names = ", ".join(c.__name__ for c in leaves)
        raise LevelError(f"several levels ({names}); set LEVEL = one of them", module.__file__)
    return leaves[0]


def load_level(spec: str | Path | LevelSource) -> tuple[LevelSource, type[Level]]:
    """Resolve ``spec``, execute its file afresh and return the level class.

    Raises:
        LevelError: For unknown names, syntax errors and exceptions while importing, located in
            the level file.
    """
    source = spec if isinstance(spec, LevelSource) else resolve_level(spec)
    try:
        module = _exec_file(source)
    except LevelError:
        raise
    except Exception as exc:
        raise LevelError.from_exception(exc, source.path) from exc
    return source, find_level_class(module)


@dataclass(frozen=True)
class LevelInfo:
    """A level's name, title and one-line description (for ``fluidworld levels``)."""

    name: str
    title: str
    description: str


def level_info(name: str) -> LevelInfo:
    """Load a level's class (without building it) and describe it.

    Raises:
        LevelError: If the level cannot be loaded.
    """
    source, cls = load_level(name)
    module = sys.modules.get(cls.__module__)
    doc = (module.__doc__ if module is not None else None) or cls.__doc__ or ""
    lines = doc.strip().splitlines()
    return LevelInfo(source.name, cls.title, lines[0].strip() if lines else "")


# -------------------------------------------------------------------------------- the runner
WorldFactory = Callable[[Level], Any]


def default_world_factory(level: Level) -> Any:
    """``level.make_world()``: by default ``World(width, height, params=make_params())``."""
    return level.make_world()


class LevelSession:
    """Runs one level: builds its world, steps it, reloads it, and contains its errors.

    Nothing a level does can raise out of this class: errors land in :attr:`error` (a
    :class:`LevelError` with file and line) and the physics goes on -- with the previous level
    after a failed reload, with an empty world if the very first load fails, and without the
    level's scripts after a scripting error.

    Args:
        spec: A level name, module, file path, or a ``Level`` subclass (a class is rebuilt
            on reload, not re-read).
        world_factory: Makes the world for a level (default: :func:`default_world_factory`).
        load: Load immediately.

    Attributes:
        level: The running level (``None`` until one loaded).
        world: The running world (an empty one when no level could be built).
        error: The last error, or ``None``.
        scripts_stopped: True after level code raised during play; cleared by reset/reload.
        paused: When True, :meth:`step` does nothing (single steps use ``step(force=True)``);
            set by an error in the world's step that stopping the level's systems cannot
            cure (:meth:`_step_error`).
        reloads: How many successful (re)builds happened.

    Raises:
        TypeError: ``spec`` is none of those (a caller's mistake, not the level's).
    """

    def __init__(
        self,
        spec: str | Path | type[Level],
        *,
        world_factory: WorldFactory | None = None,
        load: bool = True,
    ) -> None:
        if not (isinstance(spec, str | os.PathLike)
                or (isinstance(spec, type) and issubclass(spec, Level))):
            raise TypeError(f"spec must be a level name, a module name, a path to a .py file "
                            f"or a Level subclass, got {spec!r}")
        self.spec = spec
        self.world_factory = world_factory or default_world_factory
        self.source: LevelSource | None = None
        self.level_class: type[Level] | None = None
        self.level: Level | None = None
        self.world: Any = None
        self.error: LevelError | None = None
        self.scripts_stopped = False
        self.paused = False
        self.reloads = 0
        self._mtime: float | None = None
        self._record_next = False  # keep the next step's start as the replay origin
        if load:
            self.reload()

    # ------------------------------------------------------------------ metadata
    @property
    def name(self) -> str:
        """Short name of the level (file stem or class name)."""
        if self.source is not None:
            return self.source.name
        if isinstance(self.spec, type):
            return self.spec.__name__
        return Path(str(self.spec)).stem

    @property
    def title(self) -> str:
        """The level's title, or its name while none is loaded."""
        return self.level.title if self.level is not None else self.name

    @property
    def level_file(self) -> Path | None:
        """The level's source file, if it has one (also while that file fails to load)."""
        if self.source is not None:
            return self.source.path
        if isinstance(self.spec, str | Path) and str(self.spec).endswith(".py"):
            path = Path(self.spec)
            return path.resolve() if path.is_file() else None
        return None

    # ------------------------------------------------------------------ (re)building
    def reload(self) -> bool:
        """Re-read the level's file and rebuild it. Returns whether it succeeded."""
        try:
            if isinstance(self.spec, type):  # a class cannot be re-read: rebuild it
                cls = self.spec
                file = getattr(sys.modules.get(cls.__module__), "__file__", None)
                self.source = (
                    LevelSource(cls.__module__, Path(file).resolve(), cls.__module__,
                                cls.__name__)
                    if file else None
                )
            else:
                self.source, cls = load_level(self.spec)
            self._mtime = self._file_mtime()
        except LevelError as exc:
            # remember the broken version too: watch mode retries once the file changes again,
            # not every poll (which would also drop whatever the player is dragging)
            self._mtime = self._file_mtime()
            self._fail(exc)
            return False
        return self._build(cls)

    def reset(self) -> bool:
        """Rebuild the current level class without re-reading the file."""
        if self.level_class is None:
            return self.reload()
        return self._build(self.level_class)

    def _build(self, cls: type[Level]) -> bool:
        try:
            level = cls()
            check_metadata(level)
            world = self.world_factory(level)
            check_pour_material(level, world)
            level.start(world)
        except MetadataError as exc:  # located at the attribute, not in the checking code
            self._fail(LevelError(f"{type(exc).__name__}: {exc}", exc.path or self.level_file,
                                  exc.line, "".join(traceback.format_exception(exc))))
            return False
        except Exception as exc:
            self._fail(LevelError.from_exception(exc, self.level_file))
            return False
        self.level_class, self.level, self.world = cls, level, world
        self.error = None
        self.scripts_stopped = False
        self.reloads += 1
        # the session records the world with its level (a world alone would replay without
        # the level's scripts)
        world._replay_external, world._replay_off, world._replay = True, True, None
        self._record_next = True
        return True

    def _fail(self, error: LevelError) -> None:
        self.error = error
        if self.world is None:  # nothing to keep running: an empty world of the default size
            self.world = self.world_factory(Level())

    def _file_mtime(self) -> float | None:
        path = self.level_file
        try:
            return path.stat().st_mtime if path is not None else None
        except OSError:
            return None

    def file_changed(self) -> bool:
        """Whether the level file was modified since it was last (re)loaded."""
        mtime = self._file_mtime()
        return mtime is not None and self._mtime is not None and mtime != self._mtime

    def reload_if_changed(self) -> bool:
        """Reload when the file changed (for an automatic "watch" mode)."""
        if self.file_changed():
            self._mtime = self._file_mtime()
            return self.reload()
        return False

    # ------------------------------------------------------------------ saving
    def save(self, path: str | os.PathLike[str]) -> None:
        """Save the running level and its world: :meth:`load` resumes it exactly there, the
        timers, triggers, goals, key bindings, messages and the level's own attributes
        included (:mod:`fluidworld.levels.saves`).

        The save also carries the level as it was before its first step and the keys pressed
        since: :meth:`load` plays them again to the saved step, so the loaded game continues
        bit for bit like the game that never saved, pymunk's contact and joint warm-start
        impulses included (:mod:`fluidworld.replay`). After a change the session did not see
        (:meth:`note_input`; the play window's drag and pour), or past
        :attr:`World.replay_limit <fluidworld.world.World.replay_limit>` steps, the save loads
        as saved, and the session plays on from that saved copy itself, so that the game played
        on and the game loaded later stay bit-identical.

        Raises:
            RuntimeError: No level is running.
            SaveError: Something in the level does not pickle (the message names it).
        """
        from .saves import save_session

        save_session(self, path)

    def load(self, path: str | os.PathLike[str]) -> None:
        """Resume a level saved with :meth:`save` in this session (its level file is loaded
        again first); the running level is left as it was if the save cannot be read.

        Raises:
            FileNotFoundError: No such file.
            SaveError: Not a level save, truncated, corrupt, of a newer format or another
                Python version, or its level file no longer loads.
        """
        from .saves import load_session

        load_session(self, path)

    # ------------------------------------------------------------------ running
    def step(self, *, force: bool = False) -> bool:
        """One physics step plus the level's scripts. Returns whether it stepped.

        An exception in the step (in a system the level added, or in the library) is contained
        as in the scripts: see :meth:`_step_error`.

        Args:
            force: Step even when paused (the single-step key).
        """
        if self.paused and not force:
            return False
        world = self.world
        level = self.level
        if self._record_next and level is not None and not self.scripts_stopped:
            record_session(self)
            self._record_next = False
        try:
            world.step()
        except Exception as exc:
            self._step_error(exc)
            return False
        if level is not None and not self.scripts_stopped:
            world._in_call = True  # the scripts' calls are the level's: a replay runs them
            try:
                level.advance(world)
            except Exception as exc:
                self._script_error(exc)
            finally:
                world._in_call = False
        return True

    def note_input(self) -> None:
        """Tell the session that something outside the level changed its world between
        steps (the play window's drag, pour and solver key do): a save then loads as it was
        saved, without pymunk's warm-start state, instead of by replaying the level
        (:mod:`fluidworld.replay`). Key presses through :meth:`press` need no such call."""
        self._record_next = False
        if self.world is not None:
            self.world._replay = None

    def press(self, key: str) -> bool:
        """Run the level's binding for ``key``; returns whether the level handled it."""
        level = self.level
        if level is None or self.scripts_stopped:
            return False
        world = self.world
        rec = getattr(world, "_replay", None)
        if rec is not None:
            rec.inputs.append([rec.steps, "press", (key,), {}])
        world._in_call = True
        try:
            return level.press(key, world)
        except Exception as exc:
            self._script_error(exc)
            return True
        finally:
            world._in_call = False

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Call level code with error containment; returns its result or ``None`` on error."""
        try:
            return fn(*args)
        except Exception as exc:
            self._script_error(exc)
            return None

    def _script_error(self, exc: Exception) -> None:
        self.error = LevelError.from_exception(exc, self.level_file)
        self.scripts_stopped = True
        self.note_input()  # a replay would run the scripts on

    def _step_error(self, exc: Exception) -> None:
        """``world.step()`` raised: report it (at the level file's line when the traceback
        passes through it) and stop the scripts, the world's game systems included
        (``enabled = False``), so the physics goes on without them. When none was left to stop
        the error is the library's and would come back every step: pause instead (the player
        can step on, or reload)."""
        self._script_error(exc)
        running = [s for s in getattr(self.world, "systems", ()) if s.enabled]
        for system in running:
            system.enabled = False
        if not running:
            self.paused = True
