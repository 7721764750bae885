"""The World's step: one pipeline of named, timed stages (a mixin of :class:`~fluidworld.World`).

Every substep runs ``sync_bodies``, then the fluid's own stages exactly as a fluid-only
:meth:`FluidSystem.step <fluidworld.fluid.FluidSystem.step>` runs them (one list,
:func:`~fluidworld.fluid.solver.substep_stages`), the last of them (``advect``) followed by the
containment of particles out of the shapes, then ``exchange``; after the last substep, ``settle``
and the once-per-step tail (the built-in ``drains`` and ``emitters`` systems, then ``events``).
A game's systems run where :meth:`~fluidworld.World.add_system` put them: one placed after
``advect`` sees the particles moved and contained, before the exchange.

Containment is timed under its own name in :attr:`World.profile_detail` (``contain``; it is
part of the ``advect`` stage so that nothing can run between a particle's move and its
containment), as is pymunk's step (``space_step``, inside ``exchange``).
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pymunk

from ._args import warn_caller
from .fluid.params import _finite, _positive
from .fluid.solver import Solver, substep_stages
from .fluid.solvers import make_solver
from .replay import Replay, capture, needs_origin, recorded
from .world_systems import System

if TYPE_CHECKING:
    from .coupling import Coupler
    from .fluid import FluidSystem

__all__ = ["StepHelpers", "MAX_STEP_SUBSTEPS", "SUBSTEP_STAGES", "STEP_STAGES", "SETTLE_RATE",
           "MAX_SETTLE_SECONDS"]

#: Most substeps one ``World.step(dt)`` call may run (a larger ``dt`` is refused: a typo like
#: ``step(60)`` for one frame would otherwise freeze the game for minutes).
MAX_STEP_SUBSTEPS = 1024

#: The World's stages around the fluid's in every substep: before, and after.
SUBSTEP_STAGES = (("sync_bodies",), ("exchange",))
#: The World's stages once per step, after the last substep (``drains`` and ``emitters`` run
#: as built-in systems right before ``events``).
STEP_STAGES = ("settle", "events")

#: The settle's damping, per time unit: velocities keep ``exp(-SETTLE_RATE h)`` of themselves
#: each substep (0.905 at the game preset's ``h``). Measured on ``ddr`` pools after 1 s of it (% of
#: ``sqrt(g d)`` at 0.5 / 1 / 2 s): keeping 0.9 a substep, 200 x 50 0.77 / 0.45 / 0.18, 320 x 100
#: 0.90 / 0.50 / 0.26, 320 x 300 0.43 / 0.43 / 0.32; zeroing the velocities every substep (an
#: overdamped settle, which converges by diffusion) 2 s of it left 320 x 100 at 1.9 / 1.5 / 0.5.
SETTLE_RATE = 12.0

#: The longest settle :meth:`StepHelpers.settle_fluid` runs, in time units.
MAX_SETTLE_SECONDS = 10.0


class StepHelpers:
    """The step pipeline of :class:`~fluidworld.World`."""

    fluid: FluidSystem
    coupler: Coupler
    space: pymunk.Space
    bounds: tuple[pymunk.Shape, ...]
    profile: dict[str, float]
    profile_detail: dict[str, float]
    particles_removed: int
    time: float
    steps: int
    _stepping: bool
    _systems: list[System]
    _step_impulse: np.ndarray
    _step_time: float
    replay_limit: int
    _replay: Replay | None
    _replay_off: bool

    if TYPE_CHECKING:
        def _flush(self) -> None: ...
        def _adopt_static_shapes(self) -> None: ...
        def _follow_space_gravity(self) -> None: ...
        def _warn_if_no_buoyancy(self) -> None: ...
        def _with_systems(self, stages: tuple[str, ...]) -> tuple[str, ...]: ...
        def _water_events(self, dt: float) -> None: ...
        def _run_drains(self, world: Any, dt: float) -> None: ...
        def _run_emitters(self, world: Any, dt: float) -> None: ...
        def _stage(self, stage: str, h: float, first: bool, dt: float,
                   fn: Callable[..., Any], args: tuple[Any, ...]) -> None: ...

    def step(self, dt: float | None = None) -> None:
        """Advance the world by ``dt`` (default ``params.dt``) in substeps of at most
        ``params.h``, each running the coupled stages; then ``settle`` and the events.

        Raises:
            ValueError: ``dt`` is not a finite positive number or needs more than
                :data:`MAX_STEP_SUBSTEPS` substeps, or a body has a NaN pose.
            RuntimeError: called during a step (from a system).
        """
        self._not_stepping("world.step()")
        asked = dt
        n, dt = self._substeps_of(dt)
        self._record_origin()
        h = dt / n
        self._begin_step()
        f = self.fluid
        *fluid_stages, (last, advect) = substep_stages(f, f.solver)
        self._stepping = True
        f.threads.begin()
        try:
            for sub in range(n):
                run = functools.partial(self._stage, h=h, first=sub == 0, dt=dt)
                run("sync_bodies", fn=self.coupler.sync, args=(h, sub == 0))
                for name, fn in fluid_stages:
                    run(name, fn=fn, args=(h,))
                run(last, fn=self._advect_and_contain, args=(advect, h))
                run("exchange", fn=self._exchange, args=(h, sub == 0))
            self._stage("settle", h, True, dt, self.coupler.settle, (h,))
            self._stage("events", dt, True, dt, self._water_events, (dt,))
        finally:
            self._stepping = False
            f.threads.end()
        self.time += dt
        self.steps += 1
        f.steps += 1
        self._flush()
        self.coupler.report_motion(f.params.gravity)  # velocities as the bodies move
        self._warn_if_no_buoyancy()
        self._record_step(asked)

    def _record_origin(self) -> None:
        """Keep the world as it is before this step as its replay origin, if it records and
        has none (:mod:`fluidworld.replay`)."""
        if (self._replay is None and not self._replay_off and self.replay_limit > 0
                and needs_origin(self)):  # type: ignore[arg-type]
            self._replay = capture(self)  # type: ignore[arg-type]
            self._replay_off = self._replay is None

    def _record_step(self, dt: float | None) -> None:
        rec = self._replay
        if rec is None:
            return
        rec.note(dt)
        if self.steps - rec.start > self.replay_limit:  # too long to replay: let it go
            self._replay, self._replay_off = None, True

    @recorded
    def settle_fluid(self, seconds: float = 1.0) -> int:
        """Let the fluid come to rest where it was put, before play: the fluid's substeps run
        alone for ``seconds``, every velocity damped (by :data:`SETTLE_RATE`) and zero at the
        end. Bodies hold still and take no impulses; emitters, drains and systems do not run;
        :attr:`time` and :attr:`steps` do not advance.

        Fluid that nothing holds (a dam-break column, a block in the air) flows while it settles
        (at most ~``g h / (1 - exp(-SETTLE_RATE h))``, ~75 units/s at the game preset): add it
        after settling. Settle once, before the first step: it also stops whatever moves.

        Args:
            seconds: How long to settle, in (0, :data:`MAX_SETTLE_SECONDS`].

        Returns:
            The number of substeps run.

        Raises:
            ValueError: ``seconds`` out of range.
            RuntimeError: Called during a step.
        """
        self._not_stepping("settle_fluid()")
        seconds = _finite("seconds", seconds)
        if not 0.0 < seconds <= MAX_SETTLE_SECONDS:
            raise ValueError(f"seconds must be in (0, {MAX_SETTLE_SECONDS:g}], got {seconds}")
        self._begin_step()  # removals, the Space's new static shapes and gravity, as a step
        f = self.fluid
        h = f.params.h
        substeps = max(1, math.ceil(seconds / h - 1e-9))
        if f.count == 0:
            return 0
        keep = math.exp(-SETTLE_RATE * h)
        c = self.coupler
        c.sync(h, True, hold=True)
        f.threads.begin()
        try:
            for _ in range(substeps):
                f.substep()
                c.contain()  # as the step's advect stage: nothing ends inside a shape
                f.vel[: f.count] *= keep
        finally:
            f.threads.end()
        f.vel[: f.count] = 0.0
        c.impulse[:] = 0.0  # the bodies take nothing from the settle
        c.angular_impulse[:] = 0.0
        return substeps

    def _substeps_of(self, dt: float | None) -> tuple[int, float]:
        p = self.fluid.params
        if dt is None:
            return p.substeps, p.dt
        dt = _positive("dt", dt)
        if not 1e-6 * p.h <= dt <= MAX_STEP_SUBSTEPS * p.h:
            raise ValueError(f"dt must be in [{1e-6 * p.h:g}, {MAX_STEP_SUBSTEPS * p.h:g}] "
                             f"(at most {MAX_STEP_SUBSTEPS} substeps of {p.h:g}), got {dt!r}")
        return max(1, math.ceil(dt / p.h - 1e-9)), dt

    def _begin_step(self) -> None:
        self.coupler.restore_velocities()  # pymunk's own, as the last step left them
        self._flush()
        self._zero_non_finite_velocities()
        self._adopt_static_shapes()
        self._follow_space_gravity()
        if list(self.profile) != list(self.stages):  # the solver or the systems changed
            self.profile = dict.fromkeys(self.stages, 0.0)
        for k in self.profile:
            self.profile[k] = 0.0
        for k in self.profile_detail:
            self.profile_detail[k] = 0.0

    def _zero_non_finite_velocities(self) -> None:
        """Zero a non-finite particle velocity written into ``fluid.velocities`` between steps,
        and remove a particle whose position is not finite (each with a ``RuntimeWarning``):
        one NaN spread through its cell into the pressure field, whose warm start kept it, and
        every step after froze the fluid and put the bodies at NaN; a NaN position stayed NaN
        for good. A sum over the velocities and positions when all is well (~0.07 ms at 30,000
        particles)."""
        f = self.fluid
        v = f.vel[: f.count]
        x = f.pos[: f.count]
        with np.errstate(over="ignore", invalid="ignore"):
            if np.isfinite(v.sum() + x.sum()):
                return
            bad = ~np.isfinite(v).all(axis=1)
            lost = ~np.isfinite(x).all(axis=1)
        if bad.any():
            v[bad] = 0.0
            warnings.warn(f"{int(bad.sum())} fluid particles had a non-finite velocity (written "
                          "into fluid.velocities?); set to zero", RuntimeWarning, stacklevel=3)
        if lost.any():  # no place to put it back: it stayed NaN for good
            self.particles_removed += f.remove_particles(np.flatnonzero(lost))
            warnings.warn(f"{int(lost.sum())} fluid particles had a non-finite position "
                          "(written into fluid.positions?); removed", RuntimeWarning,
                          stacklevel=3)

    @property
    def stages(self) -> tuple[str, ...]:
        """The step's stages in order (:data:`~fluidworld.world.STAGES` with SRD):
        ``sync_bodies``, the fluid's shared and solver stages, ``exchange``,
        ``settle``, the built-in ``drains`` and ``emitters`` systems and ``events``, with the
        game's systems (:meth:`add_system`) where they run."""
        return self._with_systems(self._base_stages)

    @property
    def _base_stages(self) -> tuple[str, ...]:
        before, after = SUBSTEP_STAGES
        return (*before, *self.fluid.stages, *after, *STEP_STAGES)

    def _make_builtin_systems(self) -> tuple[System, ...]:
        return (System("drains", self._run_drains, "events", "before", False, builtin=True),
                System("emitters", self._run_emitters, "events", "before", False, builtin=True))

    @property
    def solver(self) -> str:
        """The name of the fluid solver the step runs."""
        return self.fluid.solver.name

    @recorded
    def set_solver(self, solver: str | Solver) -> None:
        """Switch the fluid solver (by name or object) on the running world; particles, bodies
        and everything else are kept.

        A system placed at a stage the new solver does not have stops running (until a solver
        with that stage comes back): a ``RuntimeWarning`` names it.

        Raises:
            ValueError: an unknown solver name, or a solver that refuses this world's fluid
                (``ddr``: materials more than 128x apart in density); the world keeps its
                solver. TypeError: not a name or a Solver. RuntimeError: called during a step
                (from a system).
        """
        self._not_stepping("set_solver()")
        self.fluid.set_solver(make_solver(solver))
        self.coupler.solver_changed()  # the solid particles sit where this solver wants them
        self.profile = dict.fromkeys(self.stages, 0.0)
        stages = self._base_stages
        idle = [f"{s.name!r} ({s.where} {s.anchor!r})" for s in self._systems
                if s.anchor not in stages]
        if idle:
            warn_caller(f"the {self.solver!r} solver has no stage for the systems "
                        f"{', '.join(idle)}: they do not run while it is set (its stages: "
                        f"{', '.join(stages)})")

    def _not_stepping(self, what: str) -> None:
        if getattr(self, "_stepping", False):
            raise RuntimeError(f"{what} was called during a step (from a system); call it "
                               f"between steps, e.g. from the game loop")

    def _advect_and_contain(self, advect: Callable[[float], None], h: float) -> None:
        advect(h)
        t0 = time.perf_counter()
        self.coupler.contain()
        self.profile_detail["contain"] += (time.perf_counter() - t0) * 1e3

    def _timed(self, name: str, fn: Callable[..., Any], *args: Any) -> None:
        t0 = time.perf_counter()
        fn(*args)
        self.profile[name] += (time.perf_counter() - t0) * 1e3

    def _exchange(self, h: float, measure: bool) -> None:
        c = self.coupler
        c.exchange(h, measure)
        acc = self._step_impulse
        if measure or acc.shape != c.impulse.shape:  # the step's first substep
            self._step_impulse = acc = np.zeros_like(c.impulse)
            self._step_time = 0.0
        acc += c.impulse
        self._step_time += h
        t0 = time.perf_counter()
        self.space.step(h)
        if self.bounds:
            self._keep_bodies_inside()
        self.profile_detail["space_step"] += (time.perf_counter() - t0) * 1e3

    def fluid_impulse_of_step(self, k: int) -> tuple[float, float]:
        """The fluid's mean force on coupled body ``k`` (``coupler.body_index``) over the last
        step: the exchange impulses of its substeps over their time
        (:attr:`BodyHandle.fluid_force`)."""
        acc = self._step_impulse
        if not 0 <= k < len(acc) or self._step_time <= 0.0:
            return (0.0, 0.0)
        return (float(acc[k, 0] / self._step_time), float(acc[k, 1] / self._step_time))

    def _space_positions(self) -> np.ndarray | None:
        """Every body's position in one ``pymunk.batch`` call, ``(n, 2)``; None without batch.
        The buffer is kept: pymunk 6.9 does not free a ``batch.Buffer`` (~1 KB each)."""
        buf = getattr(self, "_pos_buf", None)
        if buf is None:
            try:
                import pymunk.batch as batch
            except ImportError:
                return None
            buf = self._pos_buf = batch.Buffer()
        import pymunk.batch as batch

        buf.clear()
        batch.get_space_bodies(self.space, batch.BodyFields.POSITION, buf)
        return np.frombuffer(buf.float_buf(), np.float64).reshape(-1, 2)


    def _keep_bodies_inside(self) -> None:
        """pymunk has no continuous collision: a body fast enough to cross the boundary walls
        in one substep (10,000 units/s did) would leave the world. A dynamic body whose centre
        left the domain is put back just inside it, its outward velocity removed."""
        p = self.fluid.params
        pos = self._space_positions()
        if pos is not None and ((pos >= 0.0).all() and (pos[:, 0] <= p.width).all()
                                and (pos[:, 1] <= p.height).all()):
            return  # every body inside (the common case): one batch read, no body by body
        for b in self.space.bodies:
            if b.body_type != pymunk.Body.DYNAMIC:
                continue
            x, y = b.position
            if 0.0 <= x <= p.width and 0.0 <= y <= p.height:
                continue
            vx, vy = b.velocity
            if not 0.0 <= x <= p.width:
                x = min(max(x, 0.0), p.width)
                vx = 0.0
            if not 0.0 <= y <= p.height:
                y = min(max(y, 0.0), p.height)
                vy = 0.0
            # as far in as the body's own extent allows (at most to the middle of the domain)
            hw = hh = 0.0
            for s in b.shapes:
                if s.sensor:  # a trigger's reach is not the body's extent
                    continue
                bb = s.cache_bb()
                hw = max(hw, 0.5 * (bb.right - bb.left))
                hh = max(hh, 0.5 * (bb.top - bb.bottom))
            hw = min(hw, 0.5 * p.width)
            hh = min(hh, 0.5 * p.height)
            b.position = (min(max(x, hw), p.width - hw), min(max(y, hh), p.height - hh))
            b.velocity = (vx, vy)
