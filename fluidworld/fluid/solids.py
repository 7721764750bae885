"""The solid particles of a fluid: the domain's walls and the bodies' points, binned for the
neighbour search (:class:`SolidStore`, a part of :class:`~fluidworld.fluid.FluidSystem`).

The walls never move: binned once. The bodies' points move every substep (the coupling layer
writes them in place); they are binned over the walls' bins, so that a substep rewrites only the
cells the bodies reach, not the whole grid that the walls span (:func:`.binning.bin_points_over`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import binning

__all__ = ["SolidStore"]


class SolidStore:
    """Solid particles (walls first, then the bodies'), their bins and near-cell flags."""

    # set by FluidSystem (declared for the type checker)
    nb_nx: int
    nb_ny: int
    _wall_pos: NDArray[np.float64]
    _s_start: NDArray[np.int64]
    _s_span: NDArray[np.int64]
    _solids_binned: bool
    _near: NDArray[np.uint8]
    _near_marked: NDArray[np.int64]
    _n_near: int

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
        #: Which solid particles belong to moving (dynamic) bodies: a solver may let the fluid
        #: wet those (double density relaxation does); the coupler sets it, walls stay False.
        self.solid_wet = np.zeros(m, bool)
        self._s_order = np.zeros(m, np.int64)
        self._solids_binned = False
        self._near = np.zeros(self.nb_nx * self.nb_ny, np.uint8)
        self._near_marked = np.zeros(9 * m + 1, np.int64)
        self._n_near = 0
        self._solid_bin_mode = ""  # none yet: the next binning starts afresh
        self._wall_bins: tuple[NDArray[Any], NDArray[Any], NDArray[Any]] | None = None
        self._body_span = np.array([0, self.nb_nx * self.nb_ny - 1, -1], np.int64)

    @property
    def solid_positions(self) -> NDArray[np.float64]:
        """All solid particle positions (walls first), shape (m, 2)."""
        return self.solid_pos

    def _bin_solids(self, inv: float) -> None:
        """Bin the solid particles and flag the cells near them. With bodies beside the walls,
        the walls (which never move) keep bins and flags made once, and only the cells the
        bodies reach are rewritten (:func:`.binning.bin_points_over`): the same bins."""
        nw, m = len(self._wall_pos), len(self.solid_pos)
        nx, ny = self.nb_nx, self.nb_ny
        over = 0 < nw < m
        if over and self._wall_bins is None:
            w_start = np.zeros(nx * ny + 1, np.int64)
            w_order = np.zeros(nw, np.int64)
            binning.bin_points(self._wall_pos, nw, inv, nx, ny, w_start, w_order)
            w_near = np.zeros(nx * ny, np.uint8)
            binning.mark_near_cells(self._wall_pos, nw, inv, nx, ny, w_near,
                                    np.zeros(9 * nw, np.int64), 0)
            self._wall_bins = (w_start, w_order, w_near)
        mode = "over" if over else "all"
        if mode != self._solid_bin_mode:  # the first binning, or a switch: start afresh
            self._near[:] = 0
            if self._wall_bins is not None and over:
                self._near[:] = self._wall_bins[2]
            self._n_near = 0
            self._s_span[2] = -1
            self._body_span[2] = -1
            self._solid_bin_mode = mode
        if not over:
            binning.bin_points(self.solid_pos, m, inv, nx, ny, self._s_start, self._s_order,
                               self._s_span)
            self._n_near = binning.mark_near_cells(self.solid_pos, m, inv, nx, ny, self._near,
                                                   self._near_marked, self._n_near)
            self._solids_binned = m == nw
            return
        assert self._wall_bins is not None
        w_start, w_order, w_near = self._wall_bins
        binning.bin_points_over(self.solid_pos, nw, m, inv, nx, ny, (w_start, w_order),
                                self._s_start, self._s_order, self._body_span)
        self._n_near = binning.mark_near_cells(self.solid_pos, m, inv, nx, ny, self._near,
                                               self._near_marked, self._n_near, nw, w_near)
