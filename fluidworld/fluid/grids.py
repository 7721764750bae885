"""The grids a :class:`~fluidworld.fluid.FluidSystem` keeps beside its particles: the neighbour
grid of ``r_L`` cells (the sort, the neighbour lists), the SRD grid of ``a0`` cells with its
spare row and column for the random shift, and the pressure grid of ``a0`` cells with the wall
cover and the cut cells the coupling layer sets. :class:`GridStore` builds their buffers once,
from the system's ``params``; the stages fill them every substep."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from . import neighbour_lists, pressure_walls, viscosity
from .params import FluidParams

__all__ = ["GridStore"]


class GridStore:
    """Mixin of :class:`~fluidworld.fluid.FluidSystem`: its grids' buffers."""

    params: FluidParams
    ny: int
    nx: int
    cell_count: NDArray[np.float64]

    def _init_neighbour_grid(self, cutoff: float) -> None:
        """The neighbour grid: cells a little over ``cutoff`` (the 3x3 block around a particle
        holds all its neighbours; half the candidates of cells nested in ``a0``), its sort's
        starts and spans, and the stripes that share its rows among threads."""
        p = self.params
        self.r_l = p.r_l
        self.nb_cutoff = cutoff
        self.nb_h = self.nb_cutoff * (1.0 + 1e-9)
        self.nb_nx = max(1, math.ceil(p.width / self.nb_h))
        self.nb_ny = max(1, math.ceil(p.height / self.nb_h))
        self._nb_start = np.zeros(self.nb_nx * self.nb_ny + 1, np.int64)
        # occupied cells of the last sort, (first, last, count): see binning.sort_particles
        self._nb_span = np.array([0, self.nb_nx * self.nb_ny - 1, -1], np.int64)
        self._s_start = np.zeros(self.nb_nx * self.nb_ny + 1, np.int64)
        self._s_span = np.array([0, self.nb_nx * self.nb_ny - 1, -1], np.int64)
        self._stripes = np.zeros(neighbour_lists.N_STRIPES + 1, np.int64)
        # pairs listed per neighbour-grid row in the last substep: balances the stripes
        self._row_work = np.zeros(self.nb_ny, np.int64)

    def _init_srd_grid(self) -> None:
        """The SRD collision's cell sums, one extra row and column for the random shift (its
        cells and the pressure grid's are ``a0``: ``ny`` x ``nx``)."""
        self.ny, self.nx = self.params.grid_shape
        ncell_srd = (self.nx + 1) * (self.ny + 1)
        self._srd_m = np.zeros(ncell_srd)
        self._srd_p = np.zeros((ncell_srd, 2))
        self._srd_a = np.zeros(ncell_srd)
        self._srd_nu = np.zeros(ncell_srd)
        self._srd_cs = np.zeros((ncell_srd, 2))
        self._srd_signs = np.zeros(ncell_srd, np.int8)
        self._srd_shift = (0.0, 0.0)
        self._visc_cells = viscosity.cell_buffers(self.nx + 1, self.ny + 1)

    def _init_pressure_grid(self) -> None:
        """The pressure stage's cells: counts, velocities, potentials, the variable-density
        coefficients, the bodies' solid cover and the walls' cover."""
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
        #: How far the bodies' samples over-cover each cell, past the cap of 1 that
        #: :attr:`solid_fraction` keeps (set by the coupling layer): the coupling pushes every
        #: sample, so the free-drift fix weighs the cover by it (``free_drift``).
        self.cover_excess = np.zeros(shape)
        #: Bit 0 where a wall (a shape that does not move) covers part of the cell, bits 1 and
        #: 2 where one stands across its face to the right and upwards (set by the coupling
        #: layer); :attr:`wall_cover_count` says how many cells have bit 0.
        self.wall_cover = np.zeros(shape, np.uint8)
        self.wall_cover_count = 0
        #: The pressure solve's wall cells: wall cover and no fluid particle (Neumann, as the
        #: domain's border; see ``pressure_walls.py``).
        self.wall_cells = np.zeros(shape, np.uint8)
        self._wall_cell_count = 0
        #: The ghost-fluid surface distances (``FluidParams.surface_ghost``), made at first use.
        self._theta_grid: NDArray[np.float64] | None = None
        self._theta_heights: NDArray[np.float64] | None = None  # its columns' surfaces
        self._theta_tops: NDArray[np.float64] | None = None  # its cells' highest particles
        self._init_cut_cells()

    def _init_cut_cells(self) -> None:
        """The sub-point labels of the cells walls cut (set by the coupling layer, see
        ``coupling/cut_cells.py``) and the pressure stage's counts with their air as cover."""
        shape = self.cell_count.shape
        self.wall_parts = np.zeros((*shape, pressure_walls.SUB ** 2), np.int8)
        self._cut_seen = np.zeros(shape, np.uint16)
        self._cut_touched = np.zeros(shape[0] * shape[1], np.int64)
        self._cut_saved = np.zeros((shape[0] * shape[1], 5))

    @property
    def grid_shape(self) -> tuple[int, int]:
        """Pressure grid shape ``(ny, nx)``."""
        return (self.ny, self.nx)

    @property
    def cell_density(self) -> NDArray[np.float64]:
        """Density ratio per cell (particles + solid cover) / gamma, from the last step."""
        return self.cell_count / self.params.gamma

    def free_area(self) -> float:
        """The domain's area less the solid cover of its pressure cells (:attr:`solid_fraction`,
        walls and bodies as the coupling last laid it; no cover before its first step): the
        room the fluid has."""
        p = self.params
        return max(p.width * p.height - float(self.solid_fraction.sum()) * p.a0 * p.a0, 0.0)
