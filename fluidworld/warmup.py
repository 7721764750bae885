"""Compiling the physics kernels before the first step, with its own progress.

The step's ~120 numba kernels compile on first use and are cached on disk (``cache=True``): the
first run of a fresh install spends tens of seconds compiling (a minute on a slow 2-core
machine), later runs load the cache in about a second. :func:`compile_kernels` does that work up
front, so that a game or ``fluidworld render`` can say what is happening ("compiling physics
kernels (first run only)", a bar counting kernels) instead of a frozen first frame, and so that
timings of the steps that follow leave compilation out.

It steps a copy of the caller's world (which compiles exactly the kernels and variants that
world needs: its solver, its parallel variants at large particle counts) and a small scene with
every material, body kind, wall kind, emitter and drain (so that pouring honey or dropping a
crate later does not stall the game). The bar appears only when some kernel has no cache yet.

Example::

    from fluidworld import World
    from fluidworld.warmup import compile_kernels

    world = World(400, 300)
    world.add_fluid_rect(0, 0, 400, 100)
    report = compile_kernels(world)  # prints a progress bar on stderr on the first run only
    print(f"{report.compiled} kernels compiled in {report.seconds:.1f} s")
"""

from __future__ import annotations

import copy
import importlib
import pkgutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .world import World

__all__ = ["CompileReport", "compile_kernels", "kernel_dispatchers", "uncached_kernels",
           "warm_scene"]

#: Text of the progress bar's stage.
STAGE = "compiling physics kernels (first run only)"

#: Packages whose modules hold the step's kernels.
_KERNEL_PACKAGES = ("fluidworld.fluid", "fluidworld.coupling")


@dataclass(frozen=True)
class CompileReport:
    """What :func:`compile_kernels` did.

    Attributes:
        seconds: Wall time of the whole warm-up (compiling or loading the cache, and the steps).
        compiled: Kernels compiled (not loaded from the cache) during the warm-up.
        uncached: Kernels that had no cache on disk when the warm-up started.
    """

    seconds: float
    compiled: int
    uncached: int


def kernel_dispatchers() -> list[Any]:
    """Every numba kernel of the simulation (fluid and coupling modules), once each."""
    from numba.core.registry import CPUDispatcher

    found: dict[int, Any] = {}
    for pkg_name in _KERNEL_PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.iter_modules(pkg.__path__):
            module = importlib.import_module(f"{pkg_name}.{info.name}")
            for value in vars(module).values():
                if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                    found[id(value)] = value
    return list(found.values())


def _has_cache(dispatcher: Any) -> bool:
    """Whether numba's on-disk cache holds an index for this kernel (any signature)."""
    cache_path = dispatcher.stats.cache_path
    if not cache_path:
        return False
    func = dispatcher.py_func
    stem = Path(func.__code__.co_filename).stem
    return any(Path(cache_path).glob(f"{stem}.{func.__qualname__}-*.nbi"))


def uncached_kernels() -> list[str]:
    """Names (``module.function``) of the kernels with no on-disk cache yet: compiled on first
    use (all of them on a fresh install, or after numba or the kernel's source changed)."""
    return sorted(f"{d.py_func.__module__}.{d.py_func.__qualname__}" for d in _uncached())


def _uncached() -> list[Any]:
    # inlined helpers (inline="always") are compiled into their callers and never cached
    return [d for d in kernel_dispatchers()
            if d.targetoptions.get("inline") != "always" and not _has_cache(d)]


def warm_scene() -> World:
    """A small world that uses every material, body kind, wall kind, an emitter and a drain."""
    from .world import World

    world = World(240, 160)
    world.add_fluid_rect(0, 0, 120, 50, material="water")
    world.add_fluid_rect(120, 0, 240, 30, material="honey")
    world.add_fluid_rect(120, 30, 240, 50, material="oil")
    world.add_fluid_rect(40, 50, 80, 70, material="ink")
    world.add_static_segment((20, 90), (100, 80), radius=2)
    world.add_static_poly([(150, 70), (200, 70), (200, 80), (150, 80)])
    world.add_box((60, 60), (20, 20), density=0.5)
    world.add_ball((180, 60), 8, density=0.8)
    world.add_emitter((30, 120), (0, -1), 100, rate=300)
    world.add_drain((200, 0, 240, 20))
    return world


class _Progress:
    """Counts the kernels of ``cold`` (no cache) as numba compiles them, while registered as a
    listener of numba's compile events (which also fire for kernels loaded from the cache).
    The bar opens when the first of them starts compiling: a warm run shows nothing."""

    def __init__(self, cold: list[Any], expected: int, stream: IO[str] | None) -> None:
        from numba.core import event

        class Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                if id(ev.data["dispatcher"]) in outer.pending:
                    outer.open_bar()

            def on_end(self, ev: Any) -> None:
                key = id(ev.data["dispatcher"])
                if key in outer.pending:
                    outer.pending.discard(key)
                    outer.compiled += 1
                    if outer.bar is not None:
                        outer.bar.set_postfix_str(ev.data["dispatcher"].py_func.__qualname__,
                                                  refresh=False)
                        outer.bar.update(1)

        outer = self
        self.pending = {id(d) for d in cold}
        self.expected = max(expected, 1)
        self.stream = stream
        self.bar: Any = None
        self.compiled = 0
        self.listener = Listener()

    def open_bar(self) -> None:
        if self.bar is None and self.stream is not None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.expected, desc=STAGE, unit="kernel", file=self.stream,
                            dynamic_ncols=True, mininterval=0.5)

    def __enter__(self) -> _Progress:
        from numba.core import event

        event.register("numba:compile", self.listener)
        return self

    def __exit__(self, *exc: Any) -> None:
        from numba.core import event

        event.unregister("numba:compile", self.listener)
        if self.bar is not None:
            self.bar.total = max(self.bar.n, 1)  # kernels this world never uses stay cold
            self.bar.set_postfix_str("done", refresh=False)
            self.bar.refresh()
            self.bar.close()


def _expected(cold: list[Any], world: World | None) -> int:
    """How many of the cold kernels a warm-up will likely compile: not the inlined helpers
    (compiled into their callers), the parallel variants only for a large world, the DDR and
    constraint solvers' kernels only for a world that runs them, the springs' only for a world
    with a jelly."""
    parallel = world is not None and (world.fluid.parallel or world.fluid.parallel_repulsion)
    solver = world.solver if world is not None else ""
    own = {"ddr": (".ddr",), "constraint": (".constraint", ".constraint_solver")}
    jelly = world is not None and any(m.elasticity > 0 for m in world.fluid.material_table)

    def likely(d: Any) -> bool:
        mod = d.py_func.__module__
        if any(mod.endswith(m) for name, mods in own.items() if name != solver for m in mods):
            return False
        if mod.endswith(".springs") and not jelly:
            return False
        return parallel or not d.py_func.__name__.endswith("_parallel")

    return sum(1 for d in cold if likely(d))


def _step_copy(world: World, steps: int) -> None:
    from .replay import replaying_disabled

    try:
        with replaying_disabled():  # a throwaway copy: no replay of the world's steps
            twin = copy.deepcopy(world)
    except Exception:  # a level may hold something that does not copy: warm up without it
        return
    twin.replay_limit = 0  # and it keeps no origin
    _add_jelly(twin)
    for _ in range(steps):
        twin.step()


def _add_jelly(world: World) -> None:
    """A small piece of the world's first jelly material (if its table has one) at the top
    of the copy, so that filling one later compiles nothing (linking a fill is ~3 s cold)."""
    elastic = [m for m in world.fluid.material_table if m.elasticity > 0.0]
    if not elastic:
        return
    p = world.fluid.params
    side = 3.0 * world.fluid.r_l
    x0, y0 = 0.5 * (p.width - side), p.height - 1.5 * side
    try:
        world.add_fluid_rect(x0, y0, x0 + side, y0 + side, material=elastic[0].name)
    except ValueError:  # full (max_particles) or no room: the first fill compiles it then
        pass


def compile_kernels(world: World | None = None, *, progress: IO[str] | None = sys.stderr,
                    steps: int = 2) -> CompileReport:
    """Compile (or load from the cache) every kernel a world's steps need, before stepping it.

    Args:
        world: The world about to be stepped; a copy of it is stepped (the world itself is left
            as it was). ``None``: only the built-in warm-up scene.
        progress: Stream for the progress bar, shown only when some kernel has no cache yet
            (``None``: silent).
        steps: Steps of each warm-up world (2 covers the first-step and later-step paths).

    Returns:
        A :class:`CompileReport`.
    """
    from .world import World

    if world is not None and not isinstance(world, World):
        raise TypeError(f"world must be a World or None, got {type(world).__name__}")
    t0 = time.perf_counter()
    cold = _uncached()
    with _Progress(cold, _expected(cold, world), progress) as counter:
        if world is not None:
            _step_copy(world, steps)
        scene = warm_scene()
        for _ in range(steps):
            scene.step()
    return CompileReport(time.perf_counter() - t0, counter.compiled, len(cold))
