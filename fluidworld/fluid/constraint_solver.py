"""The velocity-constraint fluid (Sprinkle, ``shared/seeds``) as a
:class:`~fluidworld.fluid.solver.Solver` (``"constraint"``).

Per substep, after the shared ``external_forces`` (gravity) and ``bin`` (the sort):

0. ``viscosity``        -- each material's ``viscosity`` (honey's), the momentum diffusion of
   SRD's stage of that name (:meth:`FluidSystem.apply_material_viscosity`);
1. ``constraint_setup`` -- neighbour lists (capped), weights ``(1 - d^2)^3``, densities, the
   Baumgarte bias and each constraint's mass term; the starting impulses (warm start) applied;
2. ``constraint_solve`` -- Gauss-Seidel sweeps of sequential impulses (by coloured blocks, in
   parallel from ``solver.SWEEPS_PARALLEL_MIN_PARTICLES``): each particle's pressure pushes its
   neighbours apart until its density stops growing (pressure only pushes); solids are
   neighbours whose impulses go to the bodies, and they move with their body's mass inside the
   sweeps. The solver says ``contacts_carry_pressure``: the coupler adds no buoyancy of its
   own. Then the pairwise smoothing once more (``viscosity_after``: the noise the sweeps
   leave) and the position sweeps, whose pseudo-velocity moves the particles and is kept in
   part as velocity (``correction_velocity``, the bodies getting the reaction of that part).
   With both, pools of 60-300 deep rest under 1 % of ``sqrt(g d)`` (1.0-1.7 % and a 300-deep
   slosh without);
3. ``advect``           -- the walls' hold on viscous materials (:mod:`.wall_shear`), then
   positions from the velocities, the domain box, the cell deposit.

Why a warm start: a sweep carries a push about one radius down a column, so a deep pool
would need hundreds of sweeps from zero to hold its weight; the rigid-body answer is to start
from last substep's impulses. The store reorders particles every substep, so the impulses are
kept as an average per neighbour cell (about one particle each) and read back at the new
positions: the hydrostatic pressure carries over, and a few sweeps fix the rest.

What it gives that SRD does not: no grid pressure (nothing leaks between cells), a stiff fluid
whose compression is set by the bias, not by a cell count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from . import advection, pressure
from . import constraint as K
from .params import _finite, _int_in
from .solver import CONSTRAINT_VISCOSITY_SCALE, VISCOUS_MATERIAL_NU, sweeps_in_parallel

if TYPE_CHECKING:
    from .system import FluidSystem

__all__ = ["ConstraintParams", "ConstraintSolver"]

#: The largest pseudo-velocity the position correction asks of one constraint, in spacings
#: per substep (a deep, freshly filled pool compresses by half at the bottom before its
#: pressure builds: an unclamped correction threw particles across several spacings).
MAX_CORRECTION = 0.2
#: A particle's impulse per unit depth below its column's top, in ``m g h / r_L`` (measured:
#: a 100-deep pool solved to convergence from rest had 0.107 m g h per unit depth, r_L 4.8).
HYDROSTATIC = 0.5
#: How far inside a surface the solid rows lie, in particle spacings: the box walls' solids,
#: which lie on the edge, are moved out this far (the coupler sets the bodies' rows
#: :attr:`ConstraintSolver.solid_inset` in). A particle that reached a row of solids would be
#: held on it: its neighbours all on one side, its own pressure pushes it into the wall.
SOLID_INSET = 0.75
#: Where a fluid particle rests from a row of solids, in particle spacings: the inset plus the
#: distance of a fill's bottom row from its edge (0.43).
SOLID_DISTANCE = SOLID_INSET + 0.45
#: The under-dense particles' speculative margin in the velocity sweeps: their neighbours
#: may close in by ``SPECULATIVE (rho0 - rho) r_L / h`` per substep.
SPECULATIVE = 0.5


@dataclass(frozen=True)
class ConstraintParams:
    """Knobs of the constraint fluid, in units of the particle spacing ``r_L`` and the substep
    ``h`` so that one set works at any resolution.

    Args:
        radius: Smoothing radius ``H`` in particle spacings, in [1.5, 4].
        iterations: Gauss-Seidel sweeps of the velocities per substep, in [1, 100].
        position_iterations: Sweeps of the position correction (the bias alone, on a
            pseudo-velocity that moves the particles and is then dropped), in [0, 100].
        baumgarte: Fraction of a density error removed per substep by the position correction
            (the pseudo-velocity it asks for is ``baumgarte (rho - rho0) r_L / h``), in [0, 1].
        correction_velocity: Fraction of the position correction's pseudo-velocity kept as
            velocity, in [0, 1]: 0 is split impulses (the correction moves positions only and
            is dropped), 1 is position-based dynamics (``v = dx / h``). The bodies get the
            reaction of the part kept.
        warm_start: Fraction of last substep's impulses the solve starts from, in [0, 1].
        hydrostatic_floor: Share of the weight of the fluid above a particle whose stack of
            fluid stands on the floor or a solid that its warm-started impulse is raised to
            at least, in [0, 1] (0: only new particles start from it). The velocity sweeps
            cannot see a uniform fall, so without it the warm start carried ~57 % of a
            column's weight and compression the rest: a 300-deep pool settled at 285 and
            pools rested at 0.75-1.13 % of ``sqrt(g d)``; at 1: 300 and 0.45-0.80 %.
        viscosity: Fraction of a particle's velocity relative to its neighbourhood removed per
            substep (pairwise, momentum conserving) before the velocity sweeps, in [0, 1].
        viscosity_after: The same, after the velocity sweeps (the noise they leave), in [0, 1].
        max_neighbours: Fluid neighbours kept per particle (the density counts all), in
            [8, 64].
        max_solid_neighbours: Solid neighbours kept per particle, in [4, 64].
    """

    radius: float = 2.5
    iterations: int = 4
    position_iterations: int = 4
    baumgarte: float = 0.4
    correction_velocity: float = 0.5
    warm_start: float = 1.0
    hydrostatic_floor: float = 1.0
    viscosity: float = 0.6
    viscosity_after: float = 0.6
    max_neighbours: int = 32
    max_solid_neighbours: int = 16

    def __post_init__(self) -> None:
        r = _finite("ConstraintParams.radius", self.radius)
        if not 1.5 <= r <= 4.0:
            raise ValueError(f"ConstraintParams.radius must be in [1.5, 4] spacings, got {r}")
        _int_in("ConstraintParams.iterations", self.iterations, 1, 100)
        _int_in("ConstraintParams.position_iterations", self.position_iterations, 0, 100)
        _int_in("ConstraintParams.max_neighbours", self.max_neighbours, 8, 64)
        _int_in("ConstraintParams.max_solid_neighbours", self.max_solid_neighbours, 4, 64)
        for name in ("baumgarte", "correction_velocity", "warm_start", "hydrostatic_floor",
                     "viscosity", "viscosity_after"):
            v = _finite(f"ConstraintParams.{name}", getattr(self, name))
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"ConstraintParams.{name} must be in [0, 1], got {v}")


class ConstraintSolver:
    """Sprinkle's velocity-constraint fluid over a FluidSystem's particle store.

    Args:
        params: The knobs (default :class:`ConstraintParams` ()).
    """

    name = "constraint"
    #: How far inside a body's surface its solid particles sit, in ``r_L`` (the coupler reads
    #: it; ``CouplingParams.solid_inset`` overrides it). At SRD's 0.75 the fluid rested 0.45
    #: ``r_L`` off the surface (:data:`SOLID_DISTANCE` from the rows) and floating bodies rode
    #: high by a ~0.13 ``r_L`` layer along their wetted outline (a ball of radius 15 at 0.8x
    #: -0.068; mean -0.024 over boxes 40-80 wide and balls of radius 15-32 at 0.4-0.8); at
    #: 0.875 those came within -0.028..+0.016, at 1.0 +0.039 on average.
    solid_inset = 0.875
    #: How far from a row of solids the fluid rests, in ``r_L`` (:data:`SOLID_DISTANCE`): the
    #: coupler counts the solids of arcs (balls, capsule ends, rounded corners) so that a
    #: curved row looks like a straight one from there, and puts a cluster at sharp corners
    #: (``sampling.arc_count_radius``). With the surface's own count a ball's row, moved in to
    #: a smaller circle, looked denser than a face and a box's corner sparser: a ball of radius
    #: 12 at 0.6 floated at 0.545, a box 30 x 16 at 0.653 (now 0.586, 0.598).
    solid_rest_distance = SOLID_DISTANCE
    stages: tuple[str, ...] = ("viscosity", "constraint_setup", "constraint_solve", "advect")
    #: The bodies' solids are neighbours inside the solve: their impulses are the whole
    #: pressure on a body (the coupler adds no buoyancy or pressure push of its own).
    contacts_carry_pressure = True
    #: Emitters spread their jets at least wide enough to be at most this many times as dense
    #: as the fluid at rest (``World`` reads it; SRD, which compresses, has no limit): the
    #: pressure of an overpacked jet pushes it apart in a substep (packed 4x at 1,200
    #: particles/s, a jet plunging into a pool sprayed it at the speed cap after 2 s; 2x: at
    #: the speed it fell at).
    emit_packing = 2.0

    def __init__(self, params: ConstraintParams | None = None) -> None:
        self.params = params if params is not None else ConstraintParams()
        if not isinstance(self.params, ConstraintParams):
            raise TypeError(f"params must be a ConstraintParams, got {type(params).__name__}")
        self.fluid: FluidSystem | None = None
        #: Inverse mass of each body by solid owner id (``fluid.solid_owner``), set by the
        #: coupler: the solve moves a body's solids as its impulses move the body (0 or
        #: missing: an infinite mass, the solids keep their velocity).
        self.body_inv_mass: NDArray[np.float64] = np.zeros(0)
        self._cap = 0
        #: The last solve's largest impulse change in its final sweep (convergence).
        self.residual = 0.0

    @property
    def solid_kernel_reach(self) -> float:
        """Where :meth:`solid_kernel` falls to zero, in ``r_L``: the smoothing radius."""
        return self.params.radius

    def solid_kernel(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """The weight a solid at distance ``d`` (in ``r_L``) adds to a fluid particle's
        density, up to a constant factor: ``(1 - (d / H)^2)^3`` inside the radius ``H``. The
        coupler counts the solids of arcs by it (``sampling.kernel_arc_count``): a ball of
        radius 6 floated 0.18 high at 0.9 with the first-order count (``row + D / 2``)."""
        q = np.maximum(1.0 - (np.asarray(d, np.float64) / self.params.radius) ** 2, 0.0)
        return q * q * q

    def attach(self, fluid: FluidSystem) -> None:
        """Bind to ``fluid``; scratch for its capacity (kept, and the warm start with it, when
        the same fluid attaches again at the same capacity)."""
        prm = self.params
        if fluid is not self.fluid or len(fluid.pos) != self._cap:
            cap = len(fluid.pos)
            k, ks = prm.max_neighbours, prm.max_solid_neighbours
            f4 = np.float32
            self._lists = (np.zeros((cap, k), np.int32), np.zeros((cap, k), f4),
                           np.zeros((cap, k), f4), np.zeros((cap, k), f4),
                           np.zeros(cap, np.int64), np.zeros(cap))
            self._s_lists = (np.zeros((cap, ks), np.int32), np.zeros((cap, ks), f4),
                             np.zeros((cap, ks), f4), np.zeros((cap, ks), f4),
                             np.zeros(cap, np.int64))
            self._lam = np.zeros(cap)
            self._lam_b = np.zeros(cap)
            self._lam_old = np.zeros(cap)
            self._cursor = np.zeros(fluid.nb_nx * fluid.nb_ny, np.int64)
            self._vb = np.zeros((cap, 2))
            self._s_zero = np.zeros((0, 2))
            self._s_scratch = np.zeros((0, 2))
            self._bias = np.zeros(cap)
            self._spec = np.zeros(cap)
            self._a_inv = np.zeros(cap)
            self._cap = cap
            self._g_avg = np.full(fluid.nb_nx * fluid.nb_ny, -1.0)
            self._g_n = np.zeros(fluid.nb_nx * fluid.nb_ny)
        cells = fluid.nx * fluid.ny
        if len(getattr(self, "_columns", ((),))[0]) != cells:
            self._columns = (np.zeros(cells), np.zeros(cells, np.int64), np.zeros(cells, np.bool_),
                             np.zeros(cells), np.zeros(cells, np.bool_), np.zeros(cells),
                             np.zeros(cells))
        self.fluid = fluid
        self._n_kept = 0  # particles whose impulses the next setup carries through the sort
        r_l = fluid.r_l
        self._radius = prm.radius * r_l
        self._kb = int(math.ceil(self._radius / fluid.nb_h))
        self._rho0 = K.rest_density(r_l, self._radius)
        self._ws = K.solid_weight(r_l, self._radius, SOLID_DISTANCE * r_l)
        self._fill = K.surface_fill(r_l, self._radius)
        self._walls = _outward(fluid._wall_pos, fluid.params.width, fluid.params.height,
                               SOLID_INSET * r_l)
        self._s_pos = np.zeros((0, 2))
        self._inv_mass = 1.0 / fluid._mass
        self._blocks, self._col_start = K.block_layout(fluid.nb_nx, fluid.nb_ny, self._kb)
        self._worst = np.zeros(len(self._blocks))
        self._b_loc = np.zeros((0, 1, 2))
        self._b_hit = np.zeros(0, np.uint8)
        self._b_dv = np.zeros((1, 2))
        self._b_inv = np.zeros(1)

    def _bodies(self) -> np.ndarray:
        """Inverse mass per solid owner (0 where the coupler gave none: an infinite mass), and
        the scratch of the bodies' velocity changes sized to match."""
        f = self.fluid
        assert f is not None
        nb = int(f.solid_owner.max()) + 1 if len(f.solid_owner) else 0
        inv = np.zeros(max(nb, 1))
        k = min(nb, len(self.body_inv_mass))
        inv[:k] = self.body_inv_mass[:k]
        slots = int(np.diff(self._col_start).max()) if len(self._blocks) else 0
        if self._b_loc.shape != (slots, len(inv), 2):
            self._b_loc = np.zeros((slots, len(inv), 2))
            self._b_hit = np.zeros(slots, np.uint8)
        self._b_dv = np.zeros((len(inv), 2))
        return inv

    def run_stage(self, stage: str, h: float) -> None:
        """Run one of :attr:`stages`."""
        f = self.fluid
        if f is None:
            raise RuntimeError("ConstraintSolver.run_stage before attach(fluid)")
        if self._cap < len(f.pos):
            self.attach(f)
        if stage == "viscosity":  # the materials' own (honey), as SRD's stage of that name
            f.apply_material_viscosity(h, VISCOUS_MATERIAL_NU, CONSTRAINT_VISCOSITY_SCALE)
        elif stage == "constraint_setup":
            f.cap_speeds(h)
            self._setup(h)
        elif stage == "constraint_solve":
            self._solve(h)
        elif stage == "advect":
            # the walls' hold on viscous materials, after the solve's pressure
            f.shear_walls(h, VISCOUS_MATERIAL_NU, CONSTRAINT_VISCOSITY_SCALE)
            self._finish(h)
        else:
            raise ValueError(f"stage must be one of {self.stages}, got {stage!r}")

    def _setup(self, h: float) -> None:
        """Lists, densities, bias and mass terms; the warm start read and applied."""
        f = self.fluid
        assert f is not None
        n = f.count
        f.solid_impulse[:] = 0.0
        f.solid_marked[:] = False
        if self._s_pos.shape != f.solid_pos.shape:
            self._s_pos = np.zeros_like(f.solid_pos)
        self._s_pos[:] = f.solid_pos
        self._s_pos[: len(self._walls)] = self._walls  # (the sort binned them at the edge)
        grid = (f._nb_start, f.nb_nx, f.nb_ny, 1.0 / f.nb_h)
        solids = (self._s_pos, f._s_start, f._s_order, self._ws, *self._fill)
        par = sweeps_in_parallel(n)
        build = K.build_lists_parallel if par else K.build_lists
        build(f.pos, n, grid, solids, self._radius, self._lists, self._s_lists)
        s_nbr, s_cnt = self._s_lists[0], self._s_lists[4]
        touched = s_nbr[:n][np.arange(s_nbr.shape[1]) < s_cnt[:n, None]]
        f.solid_marked[touched] = True
        # last substep's impulses, per unit time: a substep shorter than the last (world.step
        # with a small dt) starts from its share of them (whole, the support of a 1/120 s
        # substep lifted a pool at rest by 7 units/s every 1e-4 s substep)
        ws = self.params.warm_start * min(h / getattr(self, "_h_warm", h), 1.0)
        self._h_warm = h
        K.read_warm_start(f.pos, n, 1.0 / f.nb_h, f.nb_nx, f.nb_ny, self._g_avg, ws, self._lam)
        if 0 < self._n_kept <= n:  # none removed since: each particle keeps its own impulse
            K.follow_sort(f._cell_of, self._n_kept, f._nb_start, self._cursor, ws,
                          self._lam_old, self._lam)
        gy = -f.params.gravity[1]
        h0 = f.params.h
        K.seed_hydrostatic(f.pos, n, f.mat, f._mass, self._s_pos, (f.params.a0, f.nx, f.ny),
                           ws * HYDROSTATIC * max(gy, 0.0) * h / f.r_l,
                           self.params.hydrostatic_floor, self._columns, self._lam)
        self._b_inv = self._bodies()
        K.setup_rows((f.vel, f.mat, self._inv_mass, n), self._lists, self._s_lists,
                     (f.solid_vel, f.solid_impulse, f.solid_owner, self._b_inv, self._b_dv),
                     # per the preset's substep: a shorter one fixes (h / h0) of the error
                     # (a fixed share of it per substep became a velocity of it / h: a pool at
                     # rest thrown to 4,100 units/s by world.step(1e-5))
                     (self._rest_density(n), self.params.baumgarte * f.r_l / h0,
                      MAX_CORRECTION * f.r_l / h0, SPECULATIVE * f.r_l / h0),
                     (self._lam, self._bias, self._spec, self._a_inv))
        self._sweep(0, 1, f.vel, f.solid_vel, self._lam, self._bias, 0.0, 0.0, f.solid_impulse,
                    self._b_inv)

    def _rest_density(self, n: int) -> float:
        """The density the constraints hold: :func:`~.constraint.rest_density`'s, or, where
        ``n`` particles overfill the domain (more than its free area holds at the fill
        lattice's density, :meth:`~fluidworld.fluid.FluidSystem.free_area`), that much more of
        its kernel sum. A closed box holds the fluid compressed, evenly: with constraints it
        cannot meet everywhere the solver pushed particles apart every substep (a 200 x 150
        box full of water with a 60 x 60 body of density 2 pushed in, 1.13x: 1,600-2,400
        units/s for 6 s and the body held near the top; now ~100-270 from the second second
        and the body on the floor)."""
        f = self.fluid
        assert f is not None
        free = f.free_area()
        over = n * f.params.particle_area / free if free > 0.0 else 1.0
        return self._rho0 if over <= 1.0 else 1.0 + (self._rho0 - 1.0) * over

    def _solve(self, h: float) -> None:
        """Velocity sweeps (no bias: the fluid's momentum), then position sweeps on a separate
        pseudo-velocity from zero with the bias alone (split impulses: a density error is
        fixed by moving particles, never by a velocity that stays and bounces), then the
        positions from both."""
        f = self.fluid
        assert f is not None
        n = f.count
        prm = self.params
        m = len(f.solid_pos)
        if len(self._s_zero) != m:
            self._s_zero = np.zeros((m, 2))
            self._s_scratch = np.zeros((m, 2))
        if prm.viscosity > 0.0:
            self._sweep(2, 1, f.vel, f.solid_vel, self._lam, self._bias, 0.0,
                        prm.viscosity / (self._rho0 - 1.0), f.solid_impulse, self._b_inv)
        self.residual = self._sweep(1, prm.iterations, f.vel, f.solid_vel, self._lam, self._spec,
                                    1.0, 0.0, f.solid_impulse, self._b_inv)
        if prm.viscosity_after > 0.0:
            self._sweep(2, 1, f.vel, f.solid_vel, self._lam, self._bias, 0.0,
                        prm.viscosity_after / (self._rho0 - 1.0), f.solid_impulse, self._b_inv)
        vb = self._vb
        vb[:n] = 0.0
        self._lam_b[:n] = 0.0
        if prm.position_iterations:
            self._b_dv[:] = 0.0
            self._s_scratch[:] = 0.0
            self._sweep(1, prm.position_iterations, vb, self._s_zero, self._lam_b, self._bias,
                        1.0, 0.0, self._s_scratch, np.zeros_like(self._b_inv))
        f.push_springs(h)  # a jelly's springs, as velocities (none in a liquid)
        f.pos[:n] += h * (f.vel[:n] + vb[:n])
        # a share per preset substep: kept whole in shorter substeps it lifted a pool at rest
        # at ~5 g under world.step(1e-4)
        keep = prm.correction_velocity * min(h / f.params.h, 1.0)
        if keep > 0.0 and prm.position_iterations:  # part of the correction stays as velocity,
            f.vel[:n] += keep * vb[:n]  # and the solids get its reaction (what they recorded)
            f.solid_impulse += keep * self._s_scratch

    def _sweep(self, mode: int, iters: int, vel: NDArray[np.float64], s_vel: NDArray[np.float64],
               lam: NDArray[np.float64], bias: NDArray[np.float64], use_bias: float,
               rate: float, solid_imp: NDArray[np.float64], b_inv: NDArray[np.float64]) -> float:
        """:func:`~.constraint.sweeps` (in parallel from
        ``solver.SWEEPS_PARALLEL_MIN_PARTICLES`` particles with more than one thread: the same
        results)."""
        f = self.fluid
        assert f is not None
        n = f.count
        par = sweeps_in_parallel(n)
        run = K.sweeps_parallel if par else K.sweeps
        return float(run(mode, iters, (self._blocks, self._col_start, f._nb_start, f.nb_nx),
                         (vel, f.mat, self._inv_mass, n), self._lists, self._s_lists,
                         (lam, bias, self._a_inv),
                         (s_vel, solid_imp, f.solid_owner, b_inv, self._b_dv),
                         (use_bias, rate), (self._b_loc, self._b_hit, self._worst)))

    def _finish(self, h: float) -> None:
        """Positions from the velocities, the box, the cell deposit the coupling and the
        renderers read; the impulses kept by cell for the next warm start."""
        f = self.fluid
        assert f is not None
        n = f.count
        p = f.params
        f.put_back = advection.advect_and_contain(
            f.pos, f.vel, f.mat, n, 0.0, p.width, p.height, 1e-6 * p.a0, f._bounce, f._rest,
            f._keep, f.speed_limit(h))
        pressure.deposit_cells(f.pos, f.vel, n, p.a0, f.nx, f.ny, p.gamma, f.solid_fraction,
                               f.solid_cell_velocity, f.cell_count, f.cell_velocity, f._cell_of)
        f.cell_grad[:] = 0.0
        K.store_warm_start(f.pos, n, self._lam, 1.0 / f.nb_h, f.nb_nx, f.nb_ny, self._g_avg,
                           self._g_n)
        self._lam_old[:n] = self._lam[:n]
        self._n_kept = n


def _outward(walls: np.ndarray, width: float, height: float, by: float) -> np.ndarray:
    """The box walls' solids moved ``by`` out of the box (corners diagonally)."""
    out = walls.copy()
    eps = 1e-6 * max(width, height)
    out[walls[:, 0] <= eps, 0] -= by
    out[walls[:, 0] >= width - eps, 0] += by
    out[walls[:, 1] <= eps, 1] -= by
    out[walls[:, 1] >= height - eps, 1] += by
    return out
