"""FluidSystem: the particle store and the SRD step as a short list of named stages.

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
knows nothing of pymunk. Data is struct-of-arrays: ``pos``/``vel`` (capacity, 2) float64 and
``mat`` (capacity,) uint8, the first :attr:`count` rows live. The step reorders particles (the
sort), so particle indices are not stable across steps.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import (
    advection,
    binning,
    collision,
    neighbour_lists,
    pressure,
    pressure_converged,
    pressure_variable,
    repulsion,
    viscosity,
)
from .params import FluidParams, Material, default_materials
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

_SOR_OMEGA = 1.6

#: Fraction of the velocity relative to the SRD cell mean that a viscous material
#: (``Material.viscosity > 0``) loses per substep in the collision (Eq. 3's ``nu``): it damps
#: the sub-cell noise that the cell-scale viscosity stage does not see. 0 for inviscid ones.
SRD_DAMPING = 0.05

#: Neighbour lists are built once per substep with cutoff ``r_L * (1 + skin)`` and reused by the
#: repulsion passes (a pass moves a particle by at most ``r_L / 2``, usually far less).
NEIGHBOUR_SKIN = 0.1


class FluidSystem:
    """A 2D SRD particle fluid in the box ``[0, width] x [0, height]``.

    Args:
        params: Simulation parameters (default :class:`FluidParams` ()).
        materials: Material table; particle ``mat`` values index it (at most 256).

    Example:
        >>> from fluidworld.fluid import FluidSystem, FluidParams
        >>> fs = FluidSystem(FluidParams.paper())
        >>> fs.fill_rect(0, 0, 100, 100)
        248
        >>> fs.step(5)
        >>> fs.count
        248
    """

    # scratch arrays that are resized keeping their width (declared for the type checker)
    _nbr: NDArray[np.uint32]
    _s_nbr: NDArray[np.uint32]
    _near: NDArray[np.uint8]
    _near_marked: NDArray[np.int64]
    _n_near: int

    def __init__(
        self, params: FluidParams | None = None, materials: Sequence[Material] | None = None
    ) -> None:
        self.params = params if params is not None else FluidParams()
        if not isinstance(self.params, FluidParams):
            raise TypeError(f"params must be a FluidParams, got {type(params).__name__}")
        mats = tuple(materials) if materials is not None else default_materials()
        if not 1 <= len(mats) <= 256 or not all(isinstance(m, Material) for m in mats):
            raise ValueError("materials must be 1 to 256 Material objects")
        self.material_table: tuple[Material, ...] = mats
        p = self.params
        self.rng = np.random.default_rng(p.seed)
        self.count = 0
        self._cap = 0
        self.pos = np.zeros((0, 2))
        self.vel = np.zeros((0, 2))
        self.mat = np.zeros(0, np.uint8)
        self._reserve(1024)

        # material tables
        area = p.particle_area
        self._mass = np.array([m.density * area for m in mats])
        self._alpha = np.array([m.srd_alpha for m in mats])
        # viscous materials also damp the velocities relative to their SRD cell's mean
        self._visc = np.array([SRD_DAMPING if m.viscosity > 0.0 else 0.0 for m in mats])
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

        # neighbour grid: cells of r_L (the 3x3 block around a particle holds all its neighbours;
        # twice fewer candidates than cells nested in a0)
        self.r_l = p.r_l
        self.nb_cutoff = self.r_l * (1.0 + NEIGHBOUR_SKIN)
        self.nb_h = self.nb_cutoff * (1.0 + 1e-9)
        self.ny, self.nx = p.grid_shape
        self.nb_nx = max(1, math.ceil(p.width / self.nb_h))
        self.nb_ny = max(1, math.ceil(p.height / self.nb_h))
        self._nb_start = np.zeros(self.nb_nx * self.nb_ny + 1, np.int64)
        # occupied cells of the last sort, (first, last, count): see binning.sort_particles
        self._nb_span = np.array([0, self.nb_nx * self.nb_ny - 1, -1], np.int64)
        self._s_start = np.zeros(self.nb_nx * self.nb_ny + 1, np.int64)
        self._stripes = np.zeros(neighbour_lists.N_STRIPES + 1, np.int64)
        # pairs listed per neighbour-grid row in the last substep: balances the stripes
        self._row_work = np.zeros(self.nb_ny, np.int64)

        # SRD grid (one extra row/column for the random shift)
        ncell_srd = (self.nx + 1) * (self.ny + 1)
        self._srd_m = np.zeros(ncell_srd)
        self._srd_p = np.zeros((ncell_srd, 2))
        self._srd_a = np.zeros(ncell_srd)
        self._srd_nu = np.zeros(ncell_srd)
        self._srd_cs = np.zeros((ncell_srd, 2))
        self._srd_signs = np.zeros(ncell_srd, np.int8)
        self._srd_shift = (0.0, 0.0)
        self._visc_cells = viscosity.cell_buffers(self.nx + 1, self.ny + 1)

        # pressure grid
        shape = (self.ny, self.nx)
        self.cell_count = np.zeros(shape)
        self.cell_velocity = np.zeros((*shape, 2))
        # the potentials live inside a zero border (see pressure_converged.solve_padded)
        self._phi_pad = np.zeros((self.ny + 2, self.nx + 2))
        self._dpot_pad = np.zeros((self.ny + 2, self.nx + 2))
        self.cell_pressure = self._phi_pad[1:-1, 1:-1]
        self._invk = np.zeros(shape)
        self._row_sums = np.zeros(shape)  # scratch of the right-hand side's 3x3 statistics
        self._row_air = np.zeros(shape, np.int64)
        self.cell_grad = np.zeros((*shape, 2))
        self._div = np.zeros(shape)
        self._rhs_density = np.zeros(shape)
        self._spans = np.zeros((self.ny, 2), np.int64)
        self._rows = np.zeros(self.ny, np.int64)
        self._rows_was_active = np.zeros(self.ny, np.bool_)
        self._flood = np.zeros(self.ny * self.nx, np.int64)
        self._flood_seen = np.zeros(self.ny * self.nx, np.bool_)
        self.cell_density_potential = self._dpot_pad[1:-1, 1:-1]
        self._grad_density = np.zeros((*shape, 2))
        self._p_tmp = np.zeros(shape)
        # variable density (pressure_variable): cell specific volume and face coefficients
        self._beta = np.ones(shape)
        self._face_x = np.zeros((self.ny, self.nx + 1))
        self._face_y = np.zeros((self.ny + 1, self.nx))
        self._invd = np.zeros(shape)
        #: Solid cover of each cell in [0, 1] and its velocity (set by the coupling layer).
        self.solid_fraction = np.zeros(shape)
        self.solid_cell_velocity = np.zeros((*shape, 2))

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
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self.cell_pressure = self._phi_pad[1:-1, 1:-1]
        self.cell_density_potential = self._dpot_pad[1:-1, 1:-1]

    # ------------------------------------------------------------------ storage
    def _reserve(self, cap: int) -> None:
        if cap <= self._cap:
            return
        cap = max(cap, 2 * self._cap)
        cap = min(cap, self.params.max_particles)
        for name, shape, dtype in (("pos", (cap, 2), np.float64), ("vel", (cap, 2), np.float64),
                                   ("mat", (cap,), np.uint8)):
            new = np.zeros(shape, dtype)
            new[: self.count] = getattr(self, name)[: self.count]
            setattr(self, name, new)
        self._pos2 = np.zeros((cap, 2))
        self._vel2 = np.zeros((cap, 2))
        self._mat2 = np.zeros(cap, np.uint8)
        self._cell_of = np.zeros(cap, np.int64)
        self._start_pos = np.zeros((cap, 2))
        self.start_count = -1
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
        self._cap = cap
        if hasattr(self, "solver"):  # the solver's per-particle scratch follows the capacity
            self.solver.attach(self)

    @property
    def positions(self) -> NDArray[np.float64]:
        """Live particle positions, shape (count, 2) (a view)."""
        return self.pos[: self.count]

    @property
    def velocities(self) -> NDArray[np.float64]:
        """Live particle velocities, shape (count, 2) (a view)."""
        return self.vel[: self.count]

    @property
    def materials(self) -> NDArray[np.uint8]:
        """Live particle material ids, shape (count,) (a view)."""
        return self.mat[: self.count]

    @property
    def grid_shape(self) -> tuple[int, int]:
        """Pressure grid shape ``(ny, nx)``."""
        return (self.ny, self.nx)

    @property
    def cell_density(self) -> NDArray[np.float64]:
        """Density ratio per cell (particles + solid cover) / gamma, from the last step."""
        return self.cell_count / self.params.gamma

    def add_particles(
        self, positions: ArrayLike, velocities: ArrayLike | None = None, material: int = 0
    ) -> int:
        """Add particles; returns how many were added.

        Raises:
            ValueError: on non-finite values, positions outside the domain, an unknown material
                or more particles than ``params.max_particles``.
        """
        pos = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
        k = len(pos)
        if velocities is None:
            vel = np.zeros((k, 2))
        else:
            vel = np.broadcast_to(np.asarray(velocities, dtype=np.float64), (k, 2))
        if not np.isfinite(pos).all():
            raise ValueError("positions must be finite (found NaN or inf)")
        if not np.isfinite(vel).all():
            raise ValueError("velocities must be finite (found NaN or inf)")
        p = self.params
        if k and ((pos[:, 0] < 0).any() or (pos[:, 0] > p.width).any()
                  or (pos[:, 1] < 0).any() or (pos[:, 1] > p.height).any()):
            raise ValueError(
                f"positions must lie inside the domain [0, {p.width}] x [0, {p.height}]"
            )
        if isinstance(material, bool) or not isinstance(material, int | np.integer):
            raise TypeError(f"material must be an int id, got {material!r}")
        if not 0 <= material < len(self.material_table):
            top = len(self.material_table) - 1
            raise ValueError(f"material must be in [0, {top}], got {material}")
        if self.count + k > p.max_particles:
            raise ValueError(
                f"cannot add {k} particles: {self.count + k} exceeds max_particles="
                f"{p.max_particles}"
            )
        self._reserve(self.count + k)
        n0 = self.count
        self.pos[n0: n0 + k] = pos
        self.vel[n0: n0 + k] = vel
        self.mat[n0: n0 + k] = material
        self.count += k
        self.start_count = -1
        return k

    def remove_particles(self, mask_or_indices: ArrayLike) -> int:
        """Remove particles given a boolean mask over live particles or their indices.

        Order of the survivors is kept (then the next sort reorders anyway). Returns the number
        removed.
        """
        sel = np.asarray(mask_or_indices)
        n = self.count
        if sel.dtype == bool:
            if sel.shape != (n,):
                raise ValueError(f"mask must have shape ({n},), got {sel.shape}")
            keep = ~sel
        else:
            idx = sel.astype(np.int64).ravel()
            if len(idx) and (idx.min() < 0 or idx.max() >= n):
                raise IndexError(f"particle index out of range [0, {n})")
            keep = np.ones(n, bool)
            keep[idx] = False
        m = int(keep.sum())
        removed = n - m
        if removed:
            self.pos[:m] = self.pos[:n][keep]
            self.vel[:m] = self.vel[:n][keep]
            self.mat[:m] = self.mat[:n][keep]
            self.count = m
            self.start_count = -1
        return removed

    def hex_lattice(
        self, x0: float, y0: float, x1: float, y1: float, spacing: float | None = None
    ) -> NDArray[np.float64]:
        """Points of a hexagonal lattice filling ``[x0, x1) x [y0, y1)`` at rest density.

        The default spacing is ``r_L`` (Eq. 5): a hexagonal lattice at ``r_L`` has exactly
        ``gamma`` particles per ``a0^2``.
        """
        s = self.r_l if spacing is None else float(spacing)
        if not s > 0:
            raise ValueError(f"spacing must be > 0, got {spacing}")
        dy = s * math.sqrt(3.0) / 2.0
        ys = np.arange(y0 + dy / 2, y1, dy)
        pts = []
        for row, y in enumerate(ys):
            off = s / 2 if row % 2 else s / 4
            xs = np.arange(x0 + off, x1, s)
            pts.append(np.column_stack([xs, np.full(len(xs), y)]))
        return np.concatenate(pts) if pts else np.zeros((0, 2))

    def fill_rect(
        self, x0: float, y0: float, x1: float, y1: float, material: int = 0,
        velocity: tuple[float, float] = (0.0, 0.0), spacing: float | None = None,
    ) -> int:
        """Fill a rectangle with particles on a hexagonal lattice; returns how many were added."""
        for name, v in (("x0", x0), ("y0", y0), ("x1", x1), ("y1", y1)):
            if not math.isfinite(v):
                raise ValueError(f"{name} must be finite, got {v}")
        if x1 <= x0 or y1 <= y0:
            raise ValueError(f"empty rectangle ({x0}, {y0})-({x1}, {y1})")
        p = self.params
        x0, x1 = max(x0, 0.0), min(x1, p.width)
        y0, y1 = max(y0, 0.0), min(y1, p.height)
        pts = self.hex_lattice(x0, y0, x1, y1, spacing)
        return self.add_particles(pts, velocity, material)

    def fill_circle(
        self, cx: float, cy: float, radius: float, material: int = 0,
        velocity: tuple[float, float] = (0.0, 0.0), spacing: float | None = None,
    ) -> int:
        """Fill a disc with particles on a hexagonal lattice; returns how many were added."""
        if not (math.isfinite(radius) and radius > 0):
            raise ValueError(f"radius must be > 0, got {radius}")
        pts = self.hex_lattice(cx - radius, cy - radius, cx + radius, cy + radius, spacing)
        inside = ((pts[:, 0] - cx) ** 2 + (pts[:, 1] - cy) ** 2) < radius * radius
        pts = pts[inside]
        p = self.params
        ok = (pts[:, 0] >= 0) & (pts[:, 0] <= p.width) & (pts[:, 1] >= 0) & (pts[:, 1] <= p.height)
        return self.add_particles(pts[ok], velocity, material)

    @property
    def start_positions(self) -> NDArray[np.float64] | None:
        """Positions of the live particles at the start of the substep: as the last sort left
        them (if :attr:`keep_start_positions` is on) or as :meth:`mark_start_positions` copied
        them. ``None`` if neither, or if particles were added or removed since."""
        if self.start_count != self.count:
            return None
        return self._start_pos[: self.count]

    def mark_start_positions(self) -> None:
        """Copy the current positions to :attr:`start_positions` (the sort does it on its own
        when :attr:`keep_start_positions` is on)."""
        self._start_pos[: self.count] = self.pos[: self.count]
        self.start_count = self.count

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

    def set_body_solids(self, pos: ArrayLike, vel: ArrayLike, owner: ArrayLike) -> None:
        """Set the solid particles of bodies and shapes (the coupling layer calls this each step).

        Args:
            pos: (m, 2) world positions. vel: (m, 2) velocities. owner: (m,) int owner ids (>= 0).
        """
        pos = np.ascontiguousarray(pos, dtype=np.float64).reshape(-1, 2)
        vel = np.ascontiguousarray(vel, dtype=np.float64).reshape(-1, 2)
        owner = np.ascontiguousarray(owner, dtype=np.int32).ravel()
        if not len(pos) == len(vel) == len(owner):
            raise ValueError("pos, vel and owner must have the same length")
        nw = len(self._wall_pos)
        self.solid_pos = np.concatenate([self._wall_pos, pos])
        # solid particles outside the box still act where they are, but bin to edge cells
        self.solid_vel = np.concatenate([np.zeros((nw, 2)), vel])
        self.solid_owner = np.concatenate([np.full(nw, -1, np.int32), owner])
        m = len(self.solid_pos)
        self.solid_impulse = np.zeros((m, 2))
        self.solid_marked = np.zeros(m, bool)
        self._s_order = np.zeros(m, np.int64)
        self._solids_binned = False
        if hasattr(self, "_near"):  # clear the old flags before the marker list is replaced
            self._near[self._near_marked[: self._n_near]] = 0
        else:
            self._near = np.zeros(self.nb_nx * self.nb_ny, np.uint8)
        self._near_marked = np.zeros(9 * m + 1, np.int64)
        self._n_near = 0

    @property
    def solid_positions(self) -> NDArray[np.float64]:
        """All solid particle positions (walls first), shape (m, 2)."""
        return self.solid_pos

    # ------------------------------------------------------------------ stepping
    def step(self, n: int = 1) -> None:
        """Advance ``n`` steps of ``params.dt`` (each ``params.substeps`` substeps)."""
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
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
            TypeError: ``solver`` does not implement :class:`~fluidworld.fluid.solver.Solver`.
        """
        if not isinstance(solver, Solver):
            raise TypeError(f"solver must implement fluidworld.fluid.solver.Solver, got "
                            f"{type(solver).__name__}")
        solver.attach(self)
        self.solver = solver
        self.profile = dict.fromkeys(self.stages, 0.0)

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
    def parallel_repulsion(self) -> bool:
        """Whether this step runs the parallel local-repulsion kernels."""
        return self.count >= PARALLEL_REPULSION_MIN_PARTICLES and numba.get_num_threads() > 1

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
        binning.sort_particles(self.pos, self.vel, self.mat, n, inv, self.nb_nx, self.nb_ny,
                               self._pos2, self._vel2, self._mat2, self._nb_start, self._cell_of,
                               self._nb_span, self._start_pos if keep else self._start_pos[:0])
        self.start_count = n if keep else -1
        self.pos, self._pos2 = self._pos2, self.pos
        self.vel, self._vel2 = self._vel2, self.vel
        self.mat, self._mat2 = self._mat2, self.mat
        # walls alone never move: bin them once (the coupling layer moves body solids in place,
        # so with bodies they are binned every substep)
        if not self._solids_binned or len(self.solid_pos) != len(self._wall_pos):
            binning.bin_points(self.solid_pos, len(self.solid_pos), inv, self.nb_nx, self.nb_ny,
                               self._s_start, self._s_order)
            self._n_near = binning.mark_near_cells(self.solid_pos, len(self.solid_pos), inv,
                                                   self.nb_nx, self.nb_ny, self._near,
                                                   self._near_marked, self._n_near)
            self._solids_binned = len(self.solid_pos) == len(self._wall_pos)

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
        args = (self.pos, self.vel, self.mat, self._mass, n, self._nb_start, self.nb_nx,
                self._stripes, nst, self._row_work, self._nbr, self._nbr_count, self._touch,
                n_touch, self.solid_pos, self.solid_vel, self._s_nbr, self._s_nbr_count,
                p.repulsion_iterations, self.r_l, p.repulsion_dv, self._disp, self._inel,
                self._wsum, self.solid_impulse, self.solid_marked)
        # materials of different masses or miscibility groups: the multiphase pair pass
        mp = repulsion.material_mix(self.mat, n, self._mass, self._group)
        tables = (self._pair_half, self._pair_inv, self._pair_share) if mp else ()
        if self.parallel_repulsion:
            repulsion.repulse_passes_parallel(*args, numba.get_num_threads(), *tables)
        else:
            repulsion.repulse_passes(*args, *tables)

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
        while True:
            args = (self.pos, self._nb_start, nx, ny, self._stripes, nst, self._row_work,
                    self.solid_pos, self._s_start, self._s_order, self._near, self.nb_cutoff,
                    self._nbr, self._nbr_count, self._s_nbr, self._s_nbr_count)
            if self.parallel_repulsion:
                lists.build_half_lists_parallel(*args, numba.get_num_threads())
            else:
                lists.build_half_lists(*args)
            k, ks, n_touch = lists.list_stats(self._nbr_count, self._s_nbr_count, n, self._touch)
            # the fluid list is written branch-free (see _half_list_row): it needs a spare slot
            if k < self._nbr.shape[1] and ks <= self._s_nbr.shape[1]:
                break
            if k >= self._nbr.shape[1]:
                self._nbr = np.zeros((self._cap, k + 2), np.uint32)
            if ks > self._s_nbr.shape[1]:
                self._s_nbr = np.zeros((self._cap, ks + 8), np.uint32)
        lists.row_pairs(self._nb_start, nx, ny, self._nbr_count, self._s_nbr_count,
                        self._row_work)
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
        collide(self.pos, self.vel, self.mat, self.count, self._mass, self._alpha, self._visc, p.a0,
                sx, sy, ncx, ncy, self._srd_signs, self._srd_m, self._srd_p, self._srd_a,
                self._srd_nu, self._srd_cs, int(u[2] * 2.0**53), self._cell_of, self._group,
                self._group_present)

    def apply_viscosity(self, h: float) -> None:
        """Each material's kinematic viscosity as momentum diffusion between the cells of the
        last SRD collision's grid (``viscosity.py``); nothing when no particle is viscous. Runs
        right after :meth:`collide`, whose cell sums it reads."""
        sx, sy = self._srd_shift
        diffuse = (viscosity.diffuse_cell_velocities_parallel if self.parallel
                   else viscosity.diffuse_cell_velocities)
        # the collision's cell masses and mean velocities (its rotation keeps them) are reused
        diffuse(self.pos, self.vel, self.mat, self.count, self._mass, self._nu, self._group,
                self.params.a0, sx, sy, self.nx + 1, self.ny + 1, h, viscosity.MAX_SWEEPS,
                self._srd_m, self._srd_p, self._cell_of, *self._visc_cells)

    def solve_pressure(self, h: float) -> None:
        """Eq. 7-10: the velocity correction from the cell pressure (see ``pressure.py`` and
        ``pressure_converged.py``)."""
        p = self.params
        par = self.parallel
        pc = pressure_converged
        deposit = pressure.deposit_cells_parallel if par else pressure.deposit_cells
        deposit(self.pos, self.vel, self.count, p.a0, self.nx, self.ny, p.gamma,
                self.solid_fraction, self.solid_cell_velocity, self.cell_count, self.cell_velocity,
                self._cell_of)
        if p.pressure_solver == "none":
            self.cell_grad[:] = 0.0
            return
        # both solvers work on the rows that hold something (and those that did in the last
        # substep): the rest of a level is air and keeps its air values
        pressure.row_spans(self.cell_count, self._spans)
        rows = self._rows[: pressure.active_rows(self._spans, self._rows_was_active, self._rows)]
        self.variable_density = False
        if p.pressure_solver == "converged" and pressure_variable.mixed_densities(
                self.mat, self.count, self._inv_rho):
            self._solve_variable(h, rows)
            return
        if p.pressure_solver == "paper":
            pressure.paper_pressure(self.cell_count, self.cell_velocity, p.a0, p.gamma, h,
                                    p.pressure_iterations, p.pressure_clamp, self._div,
                                    self.cell_pressure, self._p_tmp, self.cell_grad, rows)
        else:
            rhs = pc.converged_rhs_parallel if par else pc.converged_rhs
            rhs(self.cell_count, self.cell_velocity, p.a0, p.gamma, h, p.density_correction,
                self._div, self._rhs_density, rows, self._row_sums, self._row_air)
            pc.solver_coefficients(self.cell_count, self._invk, rows)
            shift = p.density_correction > 0.0
            if shift:  # both potentials in the same sweeps (same coefficients, same rows)
                solve2 = pc.solve_padded_pair_parallel if par else pc.solve_padded_pair
                solve2(self._phi_pad, self._div, self._dpot_pad, self._rhs_density,
                       self.cell_count, self._invk, p.pressure_iterations, _SOR_OMEGA,
                       self._spans, rows)
                pc.converged_correction(self.cell_density_potential, self.cell_count, p.a0,
                                        self._grad_density, rows)
            else:
                solve = pc.solve_padded_parallel if par else pc.solve_padded
                solve(self._phi_pad, self._div, self.cell_count, self._invk,
                      p.pressure_iterations, _SOR_OMEGA, self._spans, rows)
            pc.converged_correction(self.cell_pressure, self.cell_count, p.a0, self.cell_grad,
                                    rows)
            # one flood fill for both fields: neither may move a free body of water as a whole
            pc.remove_free_drift(self.cell_count, self.cell_grad, self._grad_density, shift,
                                 self.solid_fraction, p.gamma, self._flood, self._flood_seen,
                                 rows)
            if shift:
                shift_by = pc.apply_cell_shift_parallel if par else pc.apply_cell_shift
                shift_by(self.pos, self.count, self._cell_of, self._grad_density, self.nx, h)
        correct = (pressure.apply_cell_correction_parallel if par
                   else pressure.apply_cell_correction)
        correct(self.vel, self.count, self._cell_of, self.cell_grad, self.nx)

    def _solve_variable(self, h: float, rows: NDArray[np.int64]) -> None:
        """The converged solver when the fluid holds materials of different densities: the
        pressure per unit mass on a variable-coefficient operator (``pressure_variable.py``),
        the density correction volumetric as in the single-density path."""
        p = self.params
        par = self.parallel
        pc = pressure_converged
        pv = pressure_variable
        self.variable_density = True
        rhs = pc.converged_rhs_parallel if par else pc.converged_rhs
        rhs(self.cell_count, self.cell_velocity, p.a0, p.gamma, h, p.density_correction,
            self._div, self._rhs_density, rows, self._row_sums, self._row_air)
        pv.cell_specific_volume(self.mat, self.count, self._cell_of, self._inv_rho,
                                self.cell_count, self.solid_fraction, p.gamma, self._beta, rows)
        pv.face_coefficients(self.cell_count, self._beta, self._face_x, self._face_y, self._invd,
                             rows)
        solve = pv.solve_padded_var_parallel if par else pv.solve_padded_var
        solve(self._phi_pad, self._div, self.cell_count, self._face_x, self._face_y, self._invd,
              p.pressure_iterations, _SOR_OMEGA, self._spans, rows)
        pv.converged_correction_var(self.cell_pressure, self.cell_count, p.a0, self._face_x,
                                    self._face_y, self._beta, self.cell_grad, rows)
        shift = p.density_correction > 0.0
        if shift:
            pc.solver_coefficients(self.cell_count, self._invk, rows)
            solve1 = pc.solve_padded_parallel if par else pc.solve_padded
            solve1(self._dpot_pad, self._rhs_density, self.cell_count, self._invk,
                   p.pressure_iterations, _SOR_OMEGA, self._spans, rows)
            pc.converged_correction(self.cell_density_potential, self.cell_count, p.a0,
                                    self._grad_density, rows)
        pc.remove_free_drift(self.cell_count, self.cell_grad, self._grad_density, shift,
                             self.solid_fraction, p.gamma, self._flood, self._flood_seen, rows)
        if shift:
            shift_by = pc.apply_cell_shift_parallel if par else pc.apply_cell_shift
            shift_by(self.pos, self.count, self._cell_of, self._grad_density, self.nx, h)
        correct = (pv.apply_cell_correction_var_parallel if par
                   else pv.apply_cell_correction_var)
        correct(self.vel, self.mat, self.count, self._cell_of, self.cell_grad, self._inv_rho)

    def advect(self, h: float) -> None:
        """Eq. 4 and containment in the domain box."""
        p = self.params
        advect = (advection.advect_and_contain_parallel if self.parallel
                  else advection.advect_and_contain)
        self.put_back = advect(
            self.pos, self.vel, self.mat, self.count, h, p.width, p.height, 1e-6 * p.a0,
            self._bounce, self._rest, self._keep)

    # ------------------------------------------------------------------ queries
    def cell_of_points(
        self, pts: NDArray[np.float64]
    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Pressure-grid indices ``(j, i)`` of points (clamped to the grid)."""
        a0 = self.params.a0
        i = np.clip((pts[:, 0] / a0).astype(np.intp), 0, self.nx - 1)
        j = np.clip((pts[:, 1] / a0).astype(np.intp), 0, self.ny - 1)
        return j, i

    def _particle_cells(self) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Each live particle's pressure cell, computed once per step (renderers ask twice)."""
        key = (self.steps, self.count)
        if getattr(self, "_cells_key", None) != key:
            self._cells = self.cell_of_points(self.positions)
            self._cells_key = key
        return self._cells

    def particle_density(self) -> NDArray[np.float64]:
        """Density ratio of each live particle's cell (1 = rest density)."""
        j, i = self._particle_cells()
        return self.cell_density[j, i]

    def particle_pressure_gradient(self) -> NDArray[np.float64]:
        """Pressure gradient (pointing towards increasing pressure) at each particle's cell."""
        j, i = self._particle_cells()
        return self.cell_grad[j, i]

    def material_colors(self) -> NDArray[np.uint8]:
        """RGBA colour of each material, shape (n_materials, 4)."""
        return np.array([m.color for m in self.material_table], np.uint8)

    def kinetic_energy(self) -> float:
        """Total kinetic energy of the fluid."""
        m = self._mass[self.mat[: self.count]]
        return float(0.5 * (m * (self.velocities ** 2).sum(axis=1)).sum())

    def momentum(self) -> NDArray[np.float64]:
        """Total linear momentum of the fluid."""
        m = self._mass[self.mat[: self.count]]
        return (m[:, None] * self.velocities).sum(axis=0)

    def state_hash(self) -> str:
        """SHA-256 of the live particle arrays (determinism checks)."""
        import hashlib

        hsh = hashlib.sha256()
        for a in (self.positions, self.velocities, self.materials):
            hsh.update(np.ascontiguousarray(a).tobytes())
        return hsh.hexdigest()
