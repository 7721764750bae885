"""FluidSystem: the particle store's grids and solids, and the SRD step as named stages.

One substep (``h = dt / substeps``), each stage timed into :attr:`FluidSystem.profile` (ms):

1. ``external_forces`` -- gravity (and user accelerations) on fluid particles.
2. ``bin``             -- counting sort of the particle arrays by neighbour cell; solids binned.
3. ``local_repulsion`` -- Eq. 5-6, Jacobi, fluid-fluid and fluid-solid, momentum to solids.
4. ``srd_collision``   -- Eq. 3 on a randomly shifted grid.
5. ``viscosity``       -- each material's shear viscosity: momentum diffusion between the cells of
   that grid (``viscosity.py``); skipped when no particle is viscous.
6. ``cell_pressure``   -- Eq. 7-10 ("paper") or the warm-started compact projection ("converged";
   per unit mass where materials of different densities are present, ``pressure_variable``).
7. ``advect``          -- Eq. 4 and containment in the domain box.

The World (``fluidworld.world``) runs the same stages with body solids in between; this class
knows nothing of pymunk. The particles' arrays, their growth, the fills and the whole-fluid
queries are the :class:`~fluidworld.fluid.particles.ParticleStore` it builds on
(``particles.py``); the ``cell_pressure`` stage's driver is ``pressure_stage.py``. The step
reorders particles (the sort), so particle indices are not stable across steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from . import (
    advection,
    bands,
    binning,
    collision,
    neighbour_lists,
    pressure_stage,
    repulsion,
    viscosity,
    wall_shear,
)
from .grids import GridStore
from .params import FluidParams, Material, default_materials, wall_contact
from .particles import ParticleStore
from .solids import SolidStore
from .solver import SHARED_STAGES, Solver, substep_with
from .srd_solver import SRDSolver
from .threads import ThreadPolicy

__all__ = [
    "FluidSystem",
    "STAGES",
    "PARALLEL_MIN_PARTICLES",
    "PARALLEL_REPULSION_MIN_PARTICLES",
]

STAGES = ("external_forces", "bin", "local_repulsion", "srd_collision", "viscosity",
          "cell_pressure", "advect")

#: Below this many particles the kernels run serially: a parallel region costs more than it saves.
PARALLEL_MIN_PARTICLES = 12_000
#: The local repulsion (list build and passes, ~70 % of a step) pays from fewer particles, as
#: long as idle workers spin between its regions (see ``fluidworld/__init__.py``): the 6k row of
#: Table 1 went from 1.20-1.25 to 0.96-1.16 ms; at 4,000 particles it did not pay.
PARALLEL_REPULSION_MIN_PARTICLES = 5_000
#: The pressure stage runs its parallel kernels from this many particles, *also on one thread*:
#: numba compiles a parallel loop's body as a kernel whose arrays do not alias, which the
#: compiler vectorises, so on one thread they beat the serial kernels (the right-hand side: 1.92
#: -> 0.66 ms at 100k). Measured, game preset: 6k, 2 threads 1.61 -> 1.33 ms/step; 100k, 1
#: thread 26.3 -> 23.3; 100k, 2 threads unchanged. Results are identical either way.
PARALLEL_PRESSURE_MIN_PARTICLES = 3_000

#: Fraction of the velocity relative to the SRD cell mean that a viscous material
#: (``Material.viscosity > 0``) loses per substep in the collision (Eq. 3's ``nu``) unless its
#: ``damping`` says otherwise: it damps the sub-cell noise that the cell-scale viscosity stage
#: does not see. 0 for inviscid ones.
SRD_DAMPING = 0.05


def srd_damping(m: Material) -> float:
    """A material's Eq. 3 ``nu``: its ``damping``, or :data:`SRD_DAMPING` for a viscous one
    and 0 for an inviscid one when it gives none."""
    if m.damping is not None:
        return float(m.damping)
    return SRD_DAMPING if m.viscosity > 0.0 else 0.0

#: Neighbour lists are built once per substep with cutoff ``r_L * (1 + skin)`` and reused by the
#: repulsion passes (a pass moves a particle by at most ``r_L / 2``, usually far less).
NEIGHBOUR_SKIN = 0.1


class FluidSystem(ParticleStore, SolidStore, GridStore):
    """A 2D SRD particle fluid in the box ``[0, width] x [0, height]``.

    Args:
        params: Simulation parameters (default :class:`FluidParams` ()).
        materials: Material table; particle ``mat`` values index it (at most 256).

    Example:
        >>> from fluidworld.fluid import FluidSystem, FluidParams
        >>> fs = FluidSystem(FluidParams.paper())
        >>> fs.fill_rect(0, 0, 100, 100)
        504
        >>> fs.step(5)
        >>> fs.count
        504
    """

    # scratch arrays that are resized keeping their width (declared for the type checker)
    _nbr: NDArray[np.uint32]
    _s_nbr: NDArray[np.uint32]

    def __init__(
        self, params: FluidParams | None = None, materials: Sequence[Material] | None = None
    ) -> None:
        p = params if params is not None else FluidParams()
        if not isinstance(p, FluidParams):
            raise TypeError(f"params must be a FluidParams, got {type(params).__name__}")
        mats = tuple(materials) if materials is not None else default_materials()
        if not 1 <= len(mats) <= 256 or not all(isinstance(m, Material) for m in mats):
            raise ValueError("materials must be 1 to 256 Material objects")
        names = [m.name for m in mats]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"materials must have distinct names (a name picks a material), "
                             f"got {twice} more than once")
        super().__init__(p, mats)
        self.rng = np.random.default_rng(p.seed)

        # material tables (the masses: ParticleStore)
        self._alpha = np.array([m.srd_alpha for m in mats])
        # viscous materials also damp the velocities relative to their SRD cell's mean
        self._visc = np.array([srd_damping(m) for m in mats])
        self._nu = np.array([m.viscosity for m in mats])
        self._bounce = np.array([m.wall_mode == "bounce" for m in mats])
        self._rest = np.array([m.restitution for m in mats])
        self._keep = np.array([1.0 - m.adhesion for m in mats])
        # multiphase: specific volume 1/rho (pressure per unit mass) and miscibility groups
        self._inv_rho = np.array([1.0 / m.density for m in mats])
        names = list(dict.fromkeys(m.mix_group for m in mats))
        self._group = np.array([names.index(m.mix_group) for m in mats], np.uint8)
        self._group_present = np.zeros(256, np.bool_)
        self._pair_half, self._pair_inv, self._pair_share = repulsion.pair_tables(
            self._mass, self._group, p.r_l)
        #: Whether the last pressure stage ran the variable-density kernels (densities differ).
        self.variable_density = False

        self._init_neighbour_grid(p.r_l * (1.0 + NEIGHBOUR_SKIN))
        self._init_srd_grid()
        self._init_pressure_grid()

        # solids: domain walls (owner -1) then whatever the coupling layer sets
        self._wall_pos = self._make_wall_solids() if p.wall_solids else np.zeros((0, 2))
        self.set_body_solids(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int32))

        #: Keep the positions as the ``bin`` stage's sort leaves them (:attr:`start_positions`):
        #: the coupling layer's containment asks where each particle was when the substep began.
        self.keep_start_positions = False
        #: The solver that runs each substep after the shared stages (default SRD; see
        #: :meth:`set_solver` and :mod:`fluidworld.fluid.solver`).
        self.solver: Solver = SRDSolver()
        self.solver.attach(self)
        self.profile: dict[str, float] = dict.fromkeys(self.stages, 0.0)
        self.steps = 0
        self.put_back = 0  # particles put back into the box in the last step
        #: Extra acceleration per material (n_materials, 2): a simple user force field, e.g. the
        #: mixing scene pushes one fluid down. Added to gravity in ``external_forces``.
        self.material_accelerations = np.zeros((len(mats), 2))
        #: Chooses each step's numba thread count from measured step times (see
        #: :mod:`fluidworld.fluid.threads`; mode ``"fixed"`` leaves numba's setting alone).
        self.threads = ThreadPolicy()

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, object]:
        """Pickle/deepcopy support: the two potentials are views into their zero-bordered
        arrays; they are dropped here and made again from the copies of those arrays, so a
        copy keeps the link and continues exactly like the original."""
        state = self.__dict__.copy()
        state.pop("cell_pressure", None)
        state.pop("cell_density_potential", None)
        state.pop("_spring_pred", None)  # scratch of the springs' velocity form
        state.pop("_spring_mark", None)
        state.pop("_spring_touched", None)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        if "params" in state:  # saved before params became a checked property
            state = {**state, "_params": state["params"]}
            del state["params"]
        self.__dict__.update(state)
        if "spring_count" not in state:  # saved before jelly's springs
            self._init_springs()
        if "_solid_bin_mode" not in state:  # saved before the solids were binned over the walls
            self._solid_bin_mode = ""
            self._wall_bins = None
            self._body_span = np.array([0, self.nb_nx * self.nb_ny - 1, -1], np.int64)
        if "solid_wet" not in state:  # saved before bodies could be wetted
            self.solid_wet = np.zeros(len(self.solid_pos), bool)
        if "rest_fill" not in state:  # saved before a solver could rest at another density
            self.rest_fill = 1.0
        if "cover_excess" not in state:  # saved before the free-drift fix weighed it
            self.cover_excess = np.zeros_like(self.solid_fraction)
        if "wall_cells" not in state:  # saved before the pressure solve had wall cells
            shape = self.cell_count.shape
            self.wall_cover = np.zeros(shape, np.uint8)
            self.wall_cover_count = 0
            self.wall_cells = np.zeros(shape, np.uint8)
            self._wall_cell_count = 0
        if "wall_parts" not in state:  # saved before the cells that walls cut
            self._init_cut_cells()
        self.cell_pressure = self._phi_pad[1:-1, 1:-1]
        self.cell_density_potential = self._dpot_pad[1:-1, 1:-1]

    # ------------------------------------------------------------------ storage
    def _grow_scratch(self, cap: int) -> None:
        """The per-particle scratch of the repulsion and the solver, for capacity ``cap``
        (:meth:`ParticleStore._reserve` calls this when the capacity grows)."""
        self._disp = np.zeros((cap, 2))
        self._inel = np.zeros((cap, 2))  # inelastic contact velocity change (scratch)
        self._wsum = np.zeros(cap)
        k = self._nbr.shape[1] if hasattr(self, "_nbr") else 8
        ks = self._s_nbr.shape[1] if hasattr(self, "_s_nbr") else 8
        self._nbr = np.zeros((cap, k), np.uint32)
        self._s_nbr = np.zeros((cap, ks), np.uint32)
        self._nbr_count = np.zeros(cap, np.int64)
        self._touch = np.zeros(cap, np.int64)
        self._s_nbr_count = np.zeros(cap, np.int64)
        if hasattr(self, "solver"):  # the solver's per-particle scratch follows the capacity
            self.solver.attach(self)

    # ------------------------------------------------------------------ solids
    def _make_wall_solids(self) -> NDArray[np.float64]:
        """Solid particles along the box walls at ``r_L / 2`` spacing (paper Sec. 3.3)."""
        p = self.params
        s = self.r_l / 2
        xs = np.arange(0.0, p.width + 1e-9, s)
        ys = np.arange(s, p.height - 1e-9, s)
        return np.concatenate([
            np.column_stack([xs, np.zeros_like(xs)]),
            np.column_stack([xs, np.full_like(xs, p.height)]),
            np.column_stack([np.zeros_like(ys), ys]),
            np.column_stack([np.full_like(ys, p.width), ys]),
        ])

    # ------------------------------------------------------------------ stepping
    def step(self, n: int = 1) -> None:
        """Advance ``n`` steps of ``params.dt`` (each ``params.substeps`` substeps)."""
        if isinstance(n, bool) or not isinstance(n, int | np.integer):
            raise TypeError(f"n must be a non-negative int, got {n!r}")
        if n < 0:
            raise ValueError(f"n must be a non-negative int, got {n!r}")
        for _ in range(n):
            for k in self.profile:
                self.profile[k] = 0.0
            self.threads.begin()
            for _ in range(self.params.substeps):
                self.substep()
            self.threads.end()
            self.steps += 1

    def substep(self) -> None:
        """One substep: the shared stages, then the solver's, each timed into :attr:`profile`
        (with SRD: :data:`STAGES`)."""
        substep_with(self, self.solver, self.params.h)

    @property
    def stages(self) -> tuple[str, ...]:
        """The names of one substep's stages, in order: the shared ones, then the solver's."""
        return SHARED_STAGES + tuple(self.solver.stages)

    def set_solver(self, solver: Solver) -> None:
        """Run the substeps with ``solver`` from now on (the particles are kept).

        Raises:
            TypeError: ``solver`` does not implement :class:`~fluidworld.fluid.solver.Solver`
                (a solver class is not one: call it).
            ValueError: the solver runs another fluid already (one solver object per fluid),
                or it refuses this fluid (``ddr``: materials too far apart in density); the
                fluid keeps its solver.
        """
        if isinstance(solver, type) or not isinstance(solver, Solver):
            raise TypeError(f"solver must implement fluidworld.fluid.solver.Solver, got "
                            f"{_solver_kind(solver)}")
        other = getattr(solver, "fluid", None)
        if other is not None and other is not self:
            raise ValueError(
                f"solver is the {type(solver).__name__} of another fluid already (it keeps that "
                f"fluid's particles and scratch): give each World or FluidSystem its own, e.g. "
                f"{type(solver).__name__}({'solver.params' if hasattr(solver, 'params') else ''})")
        before = self.rest_fill
        self.set_rest_fill(getattr(solver, "rest_fill", 1.0))
        try:
            solver.attach(self)
        except Exception:
            self.set_rest_fill(before)
            raise
        self.solver = solver
        self.profile = dict.fromkeys(self.stages, 0.0)

    # ------------------------------------------------------------------ kernel groups
    @property
    def particle_group(self) -> tuple[Any, ...]:
        """The particles as a coupling kernel takes them: ``(pos, vel, mat, count, start_pos,
        cell_of)``, full-capacity arrays of which the first ``count`` are live; ``start_pos``
        is each particle's position at the start of the substep (see
        :attr:`start_positions`), ``cell_of`` its neighbour cell from the last sort."""
        return (self.pos, self.vel, self.mat, self.count, self._start_pos, self._cell_of)

    @property
    def material_group(self) -> tuple[Any, ...]:
        """Per material, as kernels take them: ``(mass, bounce, restitution, keep)``: a
        particle's mass, whether it bounces off walls, its restitution and the share of its
        tangential velocity a wall keeps (``1 - adhesion``)."""
        return (self._mass, self._bounce, self._rest, self._keep)

    @property
    def bin_group(self) -> tuple[Any, ...]:
        """The neighbour grid the last sort left, as kernels take it: ``(cell_start, 1 / cell
        size, nx, ny)``; the particles of cell ``c`` are ``cell_start[c]:cell_start[c + 1]``."""
        return (self._nb_start, 1.0 / self.nb_h, self.nb_nx, self.nb_ny)

    def _timed(self, name: str, fn: Callable[..., object], *args: object) -> None:
        t0 = time.perf_counter()
        fn(*args)
        self.profile[name] = self.profile.get(name, 0.0) + (time.perf_counter() - t0) * 1e3

    @property
    def parallel(self) -> bool:
        """Whether this step runs the parallel kernel variants (large particle counts, and more
        than one thread: a parallel kernel on one thread is slower than the serial one)."""
        return self.count >= PARALLEL_MIN_PARTICLES and numba.get_num_threads() > 1

    @property
    def parallel_pressure(self) -> bool:
        """Whether the pressure stage runs its parallel kernels (see
        :data:`PARALLEL_PRESSURE_MIN_PARTICLES`: on any number of threads)."""
        return self.count >= PARALLEL_PRESSURE_MIN_PARTICLES

    @property
    def parallel_repulsion(self) -> bool:
        """Whether this step runs the parallel local-repulsion kernels."""
        return self.count >= PARALLEL_REPULSION_MIN_PARTICLES and numba.get_num_threads() > 1

    def speed_limit(self, h: float | None = None) -> float:
        """The fastest a particle moves in a substep ``h`` (default ``params.h``): the advection
        moves it at most :data:`~fluidworld.fluid.advection.MAX_SPEED_CELLS` pressure cells
        (4,800 units/s at the game preset)."""
        return advection.MAX_SPEED_CELLS * self.params.a0 / (self.params.h if h is None else h)

    def cap_speeds(self, h: float) -> None:
        """Cut each particle's speed to the advection's limit (:data:`~fluidworld.fluid.
        advection.MAX_SPEED_CELLS` pressure cells a substep ``h``) and zero a non-finite
        velocity, for solvers that move particles by their velocities before the advection
        does (``ddr``, ``constraint``): a fill or a jet at an absurd speed (1e15 units/s)
        would put them 1e13 units off and their grids out of memory. Particles under the
        limit are left as they are."""
        n = self.count
        v = self.vel[:n]
        cap = self.speed_limit(h)
        with np.errstate(over="ignore", invalid="ignore"):
            fast = np.flatnonzero(~(np.einsum("ij,ij->i", v, v) <= cap * cap))
            if len(fast):
                speed = np.hypot(v[fast, 0], v[fast, 1])
                scale = np.where(np.isfinite(speed), cap / speed, 0.0)
                v[fast] = np.where(np.isfinite(v[fast]), v[fast] * scale[:, None], 0.0)

    def apply_external_forces(self, h: float) -> None:
        """Gravity and the uniform user acceleration on all fluid particles."""
        gx, gy = self.params.gravity
        acc = np.ascontiguousarray(self.material_accelerations, dtype=np.float64)
        if acc.shape != (len(self.material_table), 2):
            raise ValueError(f"material_accelerations must have shape "
                             f"({len(self.material_table)}, 2), got {acc.shape}")
        add = advection.add_accelerations_parallel if self.parallel else advection.add_accelerations
        add(self.vel, self.mat, self.count, gx, gy, acc,
                                    bool(acc.any()), h)

    def bin_particles(self) -> None:
        """Counting sort of the particles by neighbour cell; bin the solids."""
        n = self.count
        inv = 1.0 / self.nb_h
        keep = self.keep_start_positions
        args = ((self.pos, self.vel, self.mat, n), inv, self.nb_nx, self.nb_ny,
                (self._pos2, self._vel2, self._mat2), self._nb_start, self._cell_of,
                self._nb_span, self._start_pos if keep else self._start_pos[:0])
        if self.parallel:  # cell bands in parallel, bit-identical (see .bands)
            bands.sort_particles_parallel(*args, bands.BANDS)
        else:
            binning.sort_particles(*args)
        self.start_count = n if keep else -1
        self.pos, self._pos2 = self._pos2, self.pos
        self.vel, self._vel2 = self._vel2, self.vel
        self.mat, self._mat2 = self._mat2, self.mat
        self._springs_after_sort(n)
        # walls alone never move: bin them once (the coupling layer moves body solids in place,
        # so with bodies they are binned every substep)
        if not self._solids_binned or len(self.solid_pos) != len(self._wall_pos):
            self._bin_solids(inv)

    def repulse(self, h: float) -> None:
        """Eq. 5-6, ``repulsion_iterations`` Jacobi passes over half neighbour lists built once;
        accumulates :attr:`solid_impulse` (equal and opposite to what the fluid got)."""
        p = self.params
        n = self.count
        self.solid_impulse[:] = 0.0
        self.solid_marked[:] = False
        if p.repulsion_iterations == 0 or n == 0:
            return
        nst, n_touch = self._build_neighbour_lists()
        # materials of different masses or miscibility groups: the multiphase pair pass
        mix = repulsion.material_mix_parallel if self.parallel else repulsion.material_mix
        mp = mix(self.mat, n, self._mass, self._group)
        # the argument groups: see the repulsion module's docstring
        args = ((self.pos, self.vel, self.mat, n), self._mass, self._nb_grid(nst),
                self._nb_lists(),
                (self.solid_pos, self.solid_vel, self.solid_wet, self._touch, n_touch),
                (p.repulsion_iterations, self.r_l, p.repulsion_dv, wall_contact(p, mp, h)),
                (self._disp, self._inel, self._wsum), (self.solid_impulse, self.solid_marked))
        tables = ((self._pair_half, self._pair_inv, self._pair_share),) if mp else ()
        if self.parallel_repulsion:
            repulsion.repulse_passes_parallel(*args, numba.get_num_threads(), *tables)
        else:
            repulsion.repulse_passes(*args, *tables)

    def _nb_grid(self, nst: int) -> tuple[Any, ...]:
        """The neighbour grid's bins and ``nst`` stripes, as the list and repulsion kernels take
        them: ``(n_start, nx, ny, bounds, nstripes, row_work)``."""
        return (self._nb_start, self.nb_nx, self.nb_ny, self._stripes, nst, self._row_work)

    def _nb_lists(self) -> tuple[NDArray[Any], ...]:
        """The neighbour lists: ``(nbr, nbr_count, s_nbr, s_nbr_count)``."""
        return (self._nbr, self._nbr_count, self._s_nbr, self._s_nbr_count)

    def _build_neighbour_lists(self) -> tuple[int, int]:
        """Fill the half neighbour lists; widen them (and rebuild) if a particle has more
        neighbours than they hold, so no neighbour is ever dropped. Then cut the rows into the
        repulsion passes' stripes by the pairs just listed, so that threads get equal work (a
        compressed bottom layer has several times the pairs per particle of a splash). Returns
        the number of stripes and of particles with solid neighbours."""
        lists = neighbour_lists
        n = self.count
        nx, ny = self.nb_nx, self.nb_ny
        # the build's stripes: balanced by the last substep's pairs (any cut gives the same lists)
        nst = lists.stripe_rows(self._nb_start, nx, ny, lists.N_STRIPES, self._stripes,
                                self._row_work)
        solids = (self.solid_pos, self._s_start, self._s_order, self._near)
        while True:  # the lists are rebuilt wider, so the groups are taken afresh each time
            args = (self.pos, self._nb_grid(nst), solids, self.nb_cutoff, self._nb_lists())
            if self.parallel_repulsion:
                lists.build_half_lists_parallel(*args, numba.get_num_threads())
            else:
                lists.build_half_lists(*args)
            # the stats, and each row's pairs for the repulsion's stripes, in one pass
            k, ks, n_touch = lists.list_stats_rows(self._nb_start, nx, ny, self._nbr_count,
                                                   self._s_nbr_count, n, self._touch,
                                                   self._row_work)
            # the fluid list is written branch-free (see _half_list_row): it needs a spare slot
            if k < self._nbr.shape[1] and ks <= self._s_nbr.shape[1]:
                break
            if k >= self._nbr.shape[1]:
                self._nbr = np.zeros((self._cap, k + 2), np.uint32)
            if ks > self._s_nbr.shape[1]:
                self._s_nbr = np.zeros((self._cap, ks + 8), np.uint32)
        # (serial: a parallel count measured no faster, and the ordered touch list slower)
        nst = lists.stripe_rows(self._nb_start, nx, ny, lists.N_STRIPES, self._stripes,
                                self._row_work)
        return nst, n_touch

    def collide(self, h: float) -> None:
        """Eq. 3 on a grid shifted by a random vector (if ``grid_shift``)."""
        p = self.params
        u = self.rng.random(3)  # the grid shift and the seed of the cells' rotation signs
        sx, sy = (u[0] * p.a0, u[1] * p.a0) if p.grid_shift else (0.0, 0.0)
        self._srd_shift = (sx, sy)
        ncx, ncy = self.nx + 1, self.ny + 1
        collide = collision.srd_collide_parallel if self.parallel else collision.srd_collide
        # the kernel draws the signs of the rows in use from the seed (collision.random_signs)
        # the argument groups: see the collision module's docstring
        collide((self.pos, self.vel, self.mat, self.count), (self._mass, self._alpha, self._visc),
                (p.a0, sx, sy, ncx, ncy), (self._srd_signs, self._srd_m, self._srd_p, self._srd_a,
                                           self._srd_nu, self._srd_cs),
                int(u[2] * 2.0**53), self._cell_of, self._group, self._group_present)

    def apply_viscosity(self, h: float) -> None:
        """Each material's kinematic viscosity as momentum diffusion between the cells of the
        last SRD collision's grid (``viscosity.py``); nothing when no particle is viscous. Runs
        right after :meth:`collide`, whose cell sums it reads."""
        sx, sy = self._srd_shift
        diffuse = (viscosity.diffuse_cell_velocities_parallel if self.parallel
                   else viscosity.diffuse_cell_velocities)
        # the collision's cell masses and mean velocities (its rotation keeps them) are reused;
        # the argument groups: see the viscosity module's docstring
        diffuse((self.pos, self.vel, self.mat, self.count), (self._mass, self._nu, self._group),
                (self.params.a0, sx, sy, self.nx + 1, self.ny + 1), h, viscosity.MAX_SWEEPS,
                (self._srd_m, self._srd_p), self._cell_of, self._visc_cells)

    def apply_material_viscosity(self, h: float, min_nu: float = 0.0,
                                 scale: float = 1.0) -> None:
        """Each material's ``viscosity`` for a solver without SRD's collision (``ddr``,
        ``constraint``): the momentum diffusion of :meth:`apply_viscosity` on a grid shifted by
        a fresh random vector, with the cells' masses and velocities summed here. Materials
        below ``min_nu`` are left to the solver's own viscosity; the others diffuse with
        ``scale`` times their ``viscosity`` (the solver's water over SRD's water, so that a
        material keeps its ratio to water: :data:`~.solver.VISCOUS_MATERIAL_NU`). Nothing (and
        no random number drawn) when no particle is that viscous."""
        nu = self._nu if min_nu <= 0.0 else np.where(self._nu >= min_nu, self._nu, 0.0)
        if scale != 1.0:
            nu = nu * scale
        if self.count == 0 or not viscosity.any_viscous(self.mat, self.count, nu):
            return
        p = self.params
        u = self.rng.random(2)
        sx, sy = (u[0] * p.a0, u[1] * p.a0) if p.grid_shift else (0.0, 0.0)
        ncx, ncy = self.nx + 1, self.ny + 1
        viscosity.cell_means(self.pos, self.vel, self.mat, self.count, self._mass, p.a0, sx, sy,
                             ncx, ncy, self._srd_m, self._srd_p)
        # its own cell index scratch: ``_cell_of`` holds the deposit's cells, which the solver
        # and the coupling read across substeps
        if len(getattr(self, "_visc_of", ())) < self.count:
            self._visc_of = np.zeros(len(self.pos), np.int64)
        diffuse = (viscosity.diffuse_cell_velocities_parallel if self.parallel
                   else viscosity.diffuse_cell_velocities)
        diffuse((self.pos, self.vel, self.mat, self.count), (self._mass, nu, self._group),
                (p.a0, sx, sy, ncx, ncy), h, viscosity.MAX_SWEEPS, (self._srd_m, self._srd_p),
                self._visc_of, self._visc_cells)

    def shear_walls(self, h: float, min_nu: float = 0.0, scale: float = 1.0) -> None:
        """The walls' no-slip stress on the particles of materials with ``viscosity``
        (:mod:`.wall_shear`; ``min_nu`` and ``scale`` as in :meth:`apply_material_viscosity`),
        when ``params.viscous_walls`` is on. The solvers run it once a substep after their
        pressure, on the velocities the particles move by: before it, the wall took the row's
        gravity kick that the pressure was about to meet, and a honey tank at rest jiggled at
        twice its speed."""
        if not getattr(self.params, "viscous_walls", False) or len(self.solid_pos) == 0:
            return
        nu = self._nu if min_nu <= 0.0 else np.where(self._nu >= min_nu, self._nu, 0.0)
        if scale != 1.0:
            nu = nu * scale
        if self.count == 0 or not viscosity.any_viscous(self.mat, self.count, nu):
            return
        wall_shear.shear_at_walls(
            (self.pos, self.vel, self.mat, self.count), nu,
            (self.solid_pos, self.solid_vel, self.solid_wet, self._s_start, self._s_order),
            (self.nb_nx, self.nb_ny, 1.0 / self.nb_h),
            (wall_shear.REACH * self.r_l, wall_shear.wall_rate(h, self.r_l)), self.parallel)

    def solve_pressure(self, h: float) -> None:
        """Eq. 7-10: the velocity correction from the cell pressure (the driver:
        ``pressure_stage.py``; the kernels: ``pressure.py``, ``pressure_converged.py`` and
        ``pressure_variable.py``)."""
        pressure_stage.solve_pressure(self, h)

    def advect(self, h: float) -> None:
        """Eq. 4 and containment in the domain box."""
        p = self.params
        advect = (advection.advect_and_contain_parallel if self.parallel
                  else advection.advect_and_contain)
        self.put_back = advect(
            self.pos, self.vel, self.mat, self.count, h, p.width, p.height, 1e-6 * p.a0,
            self._bounce, self._rest, self._keep, self.speed_limit(h))

    # ------------------------------------------------------------------ queries
    def cell_of_points(
        self, pts: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Pressure-grid indices ``(j, i)`` of points (clamped to the grid)."""
        a0 = self.params.a0
        i = np.clip((pts[:, 0] / a0).astype(np.intp), 0, self.nx - 1)
        j = np.clip((pts[:, 1] / a0).astype(np.intp), 0, self.ny - 1)
        return j, i

    def particle_density(self) -> NDArray[np.float64]:
        """Density ratio of each live particle's cell (1 = rest density)."""
        return binning.gather_cells(self.positions, self.params.a0, self.cell_density)

    def particle_pressure_gradient(self) -> NDArray[np.float64]:
        """Pressure gradient (pointing towards increasing pressure) at each particle's cell."""
        return binning.gather_cells(self.positions, self.params.a0, self.cell_grad)


def _solver_kind(solver: object) -> str:
    """How a refused ``solver`` is named: a class is told to be called."""
    if isinstance(solver, type):
        return f"the class {solver.__name__} (call it: {solver.__name__}())"
    return type(solver).__name__
