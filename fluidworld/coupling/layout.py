"""The coupler's flat arrays: every coupled shape's samples concatenated, grouped by body.

:class:`SampleLayout` is the part of :class:`~fluidworld.coupling.Coupler` that lays out what the
kernels read (the layouts are those of :mod:`fluidworld.coupling.kernels`): the outline's solid
particles, the interior samples and the surface quadrature of each shape in body frame, the
shapes' containment geometry, the per-body state and impulse arrays and the kernels' groups
over them. It is rebuilt whenever a shape is coupled or removed, or leaves its Space
(``_dirty``); each body's shapes are put together, so every sample array is grouped by body,
which the exchange's per-body parallel sums need (:mod:`.per_body`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pymunk
from numpy.typing import NDArray

from . import per_body as PB
from .sampling import ShapeGeometry, max_inset, moment_for, perimeter, push_anchors

if TYPE_CHECKING:
    from ..fluid import FluidSystem

__all__ = ["MASS_FLOOR", "MASS_FLOOR_BARE", "SampleLayout"]


@dataclass
class _ShapeRecord:
    shape: pymunk.Shape
    geometry: ShapeGeometry
    outline: NDArray[np.float64]
    interior: NDArray[np.float64]
    area: NDArray[np.float64]
    surface: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
    normals: NDArray[np.float64]


_EMPTY2 = np.zeros((0, 2))
#: The lightest a body answers to the fluid's impulses, as a share of a layer of water
#: particles along its surface (``MASS_FLOOR x rho x perimeter x particle spacing``, the moment
#: to match): the exchange is explicit, and a much lighter body overshoots at every contact,
#: more each time (pymunk's tutorial ball, mass 1, radius 14: ``OverflowError`` within 300
#: steps). Its gravity is scaled to match while it is wet (``BodyIO._added_mass``), so it
#: floats at its own draft. Usual densities lie above it (a 40 x 40 crate's is density 0.11).
MASS_FLOOR = 0.25
#: The floor of a shape without area (radius-0 segment or circle; no buoyancy to upset): under
#: water a 40-long bare segment of mass 2 overflowed within 9 steps at ``MASS_FLOOR``, at 1 not.
MASS_FLOOR_BARE = 1.0


def _cat(arrs: list[NDArray[Any]], empty: NDArray[Any]) -> NDArray[Any]:
    """The arrays one after the other (contiguous), or a copy of ``empty`` if there are none."""
    return np.ascontiguousarray(np.concatenate(arrs)) if arrs else empty.copy()


def _owners(owner_of: list[int], rows: list[int]) -> NDArray[np.int64]:
    """Each sample's body: ``owner_of[k]`` repeated ``rows[k]`` times for shape ``k``."""
    return np.repeat(np.asarray(owner_of, np.int64), np.asarray(rows, np.int64))


class SampleLayout:
    """Mixin of :class:`~fluidworld.coupling.Coupler`: its flat arrays, built by :meth:`_build`
    (declared here for the type checker)."""

    fluid: FluidSystem
    bodies: list[pymunk.Body]
    rho_fixed: float
    _dirty: bool
    _n_wall: int
    _rho_table: NDArray[np.float64]
    _tops: NDArray[np.float64]
    _cell_rho: NDArray[np.float64]
    _cell_n: NDArray[np.float64]
    _hits: NDArray[np.int64]
    _hit_flag: NDArray[np.uint8]
    _anchor: NDArray[np.float64]

    if TYPE_CHECKING:
        def _records_in_space(self) -> list[Any]: ...
        def _inset_of(self, g: ShapeGeometry) -> float: ...
        def _bind_bodies(self) -> None: ...

    def _build(self) -> None:
        """Concatenate the per-shape samples into the flat arrays the kernels read."""
        if not self._dirty:
            return
        recs = self._records_in_space()
        before = self._levels_by_body()
        bodies: list[pymunk.Body] = []
        idx: dict[pymunk.Body, int] = {}
        for r in recs:
            b = r.shape.body
            if b not in idx:
                idx[b] = len(bodies)
                bodies.append(b)
        self.bodies = bodies
        self._body_idx = idx
        # each body's shapes together (stable): every sample array is then grouped by body
        recs.sort(key=lambda r: idx[r.shape.body])
        owner_of = [idx[r.shape.body] for r in recs]
        self._build_samples(recs, owner_of)
        self._build_shapes(recs, owner_of)
        self._build_bodies(recs, owner_of)
        self._keep_levels(before)
        self._build_groups()
        self._group_scratch()
        self._bind_bodies()
        self._batch_vel = np.zeros((0, 3))
        # the fluid's solid arrays: walls first, then our outline particles
        f = self.fluid
        f.set_body_solids(np.zeros_like(self._out_local), np.zeros_like(self._out_local),
                          self._out_owner.astype(np.int32))
        self._n_wall = len(f.solid_pos) - len(self._out_local)
        self._dirty = False

    def _build_samples(self, recs: list[_ShapeRecord], owner_of: list[int]) -> None:
        """The outline's solid particles, the interior samples and the surface quadrature of
        every shape, body frame, with their bodies and scratch."""
        self._out_local = _cat([r.outline for r in recs], _EMPTY2)
        self._out_normal = _cat([r.normals for r in recs], _EMPTY2)
        self._out_inset = _cat([np.full(len(r.outline), self._inset_of(r.geometry))
                                for r in recs], np.zeros(0))
        # the drag's scratch: each sample's impulse along its tangent, its fluid's mass
        self._drag_jt, self._drag_m = np.zeros((2, len(self._out_local)))
        self._out_owner = _owners(owner_of, [len(r.outline) for r in recs])
        self._in_local = _cat([r.interior for r in recs], _EMPTY2)
        self._in_arm = _cat([push_anchors(r.geometry, r.interior) for r in recs], _EMPTY2)
        self._in_area = _cat([r.area for r in recs], np.zeros(0))
        self._in_owner = _owners(owner_of, [len(r.interior) for r in recs])
        self._surf_local = _cat([r.surface[0] for r in recs], _EMPTY2)
        self._surf_normal = _cat([r.surface[1] for r in recs], _EMPTY2)
        self._surf_len = _cat([r.surface[2] for r in recs], np.zeros(0))
        self._surf_owner = _owners(owner_of, [len(r.surface[2]) for r in recs])
        self._in_pos, self._in_vel = np.zeros((2, *self._in_local.shape))
        self._cover_area = np.zeros_like(self._in_area)
        self._out_vel = np.zeros_like(self._out_local)

    def _build_shapes(self, recs: list[_ShapeRecord], owner_of: list[int]) -> None:
        """The shapes' containment geometry: kinds, radii, thickness, vertices (body frame and
        posed), boxes and flags."""
        self._shape_kind = np.array([r.geometry.kind for r in recs], np.int64)
        self._shape_radius = np.array([r.geometry.radius for r in recs], np.float64)
        self._shape_thick = np.array([max_inset(r.geometry) for r in recs], np.float64)
        self._shape_body = np.array(owner_of, np.int64)
        counts = [len(r.geometry.points) for r in recs]
        self._shape_vstart = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._shape_vlocal = _cat([r.geometry.points for r in recs], _EMPTY2)
        self._shape_vowner = np.repeat(self._shape_body, counts).astype(np.int64)
        self._shape_verts = np.zeros_like(self._shape_vlocal)
        self._shape_vvel = np.zeros_like(self._shape_vlocal)
        self._shape_box = np.zeros((len(recs), 4))
        self._shape_active = np.ones(len(recs), np.bool_)
        self._shape_wall = np.zeros(len(recs), np.bool_)  # scratch: shapes that do not move

    def _levels_by_body(self) -> dict[pymunk.Body, tuple[NDArray[np.float64], ...]]:
        """Each coupled body's levels, kick levels and density profile, before a rebuild."""
        if not hasattr(self, "levels") or len(self.levels) != len(self.bodies):
            return {}
        return {b: (self.levels[k].copy(), self._kick_levels[k].copy(),
                    self.density_profile[k].copy()) for k, b in enumerate(self.bodies)}

    def _keep_levels(self, before: dict[pymunk.Body, tuple[NDArray[np.float64], ...]]) -> None:
        """After a rebuild: a body coupled before keeps the levels and the density profile its
        last exchange measured; a new one has none (NaN) and :attr:`_unmeasured` says so, for
        ``sync`` to measure them before it lays the cover. With no level the first substep's
        cover counts the whole body as water it displaces, and the pressure stage pushed on
        all of it: every floating body took a kick of ~1 unit/s down whenever a body was
        added anywhere, and a box of 0.5 put in the air 120 units over a pool left at 6.7
        units/s down."""
        self._unmeasured = False
        for k, b in enumerate(self.bodies):
            kept = before.get(b)
            if kept is None:
                self._unmeasured = True
            elif len(kept[2]) == self.density_profile.shape[1]:
                self.levels[k], self._kick_levels[k], self.density_profile[k] = kept

    def _build_bodies(self, recs: list[_ShapeRecord], owner_of: list[int]) -> None:
        """Per body: its state, impulses, levels, the density of the fluid beside it, its mass
        floor."""
        nb = len(self.bodies)
        self.state = np.zeros((nb, 9))
        self.impulse = np.zeros((nb, 2))
        self.angular_impulse = np.zeros(nb)
        self.submerged_area = np.zeros(nb)
        self.levels = np.full((nb, 4), np.nan)
        ny = self.fluid.grid_shape[0]
        #: Density of the fluid beside each body, per row of pressure cells (n_bodies, ny).
        self.density_profile = np.full((nb, ny), self.rho_fixed if self.rho_fixed > 0.0
                                       else float(self._rho_table[0]))
        self._prof_sum = np.zeros(ny)
        self._prof_n = np.zeros(ny)
        self._kick_levels = np.full((nb, 4), np.nan)
        self._kick = (0.0, 0.0)
        self.body_box = np.full((nb, 4), np.nan)
        self.dynamic = np.zeros(nb, np.bool_)
        self._inv_mass = np.zeros(nb)
        self._inv_moment = np.zeros(nb)
        self._set_mass_floor(recs, owner_of)
        self._cog_local = np.zeros((nb, 2))  # each body's centre of gravity, body frame
        self._raw = np.zeros((nb, 6))

    def _build_groups(self) -> None:
        """The kernels' groups of our own arrays (layouts: see .kernels), made with them, and
        where each body's samples start."""
        self._interior = (self._in_local, self._in_owner, self._in_area, self._in_pos,
                          self._in_vel, self._cover_area, self._in_arm)
        self._surface = (self._surf_local, self._surf_normal, self._surf_len, self._surf_owner)
        self._shapes = (self._shape_kind, self._shape_vstart, self._shape_verts,
                        self._shape_radius, self._shape_thick, self._shape_body, self._shape_box,
                        self._shape_active, self._shape_wall, self._shape_vlocal,
                        self._shape_vowner, self._shape_vvel)
        self._bodies = (self.state, self.dynamic, self.levels, self._kick_levels, self.body_box,
                        self.density_profile, self.impulse, self.angular_impulse,
                        self.submerged_area)
        nb = len(self.bodies)
        self._starts = tuple(self._body_runs(o, nb) for o in (self._out_owner, self._in_owner,
                                                              self._surf_owner))

    @staticmethod
    def _body_runs(owner: NDArray[np.int64], nb: int) -> NDArray[np.int64]:
        """Where each body's samples start in ``owner`` (grouped by body, see ``_build``)."""
        if not PB.grouped(owner):  # _build sorts the shapes by body: cannot happen
            raise AssertionError("coupling samples are not grouped by body")
        out = np.zeros(nb + 1, np.int64)
        PB.body_starts(owner, nb, out)
        return out

    def _set_mass_floor(self, recs: list[_ShapeRecord], owner_of: list[int]) -> None:
        """Each body's lightest mass and moment for the fluid's impulses (see
        :data:`MASS_FLOOR`): ``MASS_FLOOR`` x a layer of water particles along its surface, or
        around a ring ``r_L`` across for a shape smaller than that (a point: a circle of
        radius 0)."""
        nb = len(self.bodies)
        self._floor_mass = np.zeros(nb)
        self._floor_moment = np.zeros(nb)
        p = self.fluid.params
        layer = MASS_FLOOR * float(self._rho_table[0]) * p.a0 / math.sqrt(p.gamma)
        for r, o in zip(recs, owner_of, strict=True):
            share = MASS_FLOOR_BARE / MASS_FLOOR if float(r.area.sum()) <= 0.0 else 1.0
            m = share * layer * max(perimeter(r.geometry), math.pi * self.fluid.r_l)
            self._floor_mass[o] += m
            self._floor_moment[o] += moment_for(r.geometry, m)

    def _group_scratch(self) -> None:
        """The stages' scratch groups (see :func:`.kernels.exchange_impulses` and
        :func:`.containment.contain_particles`), made again whenever one of them grows."""
        self._exchange_scratch = (self._tops, self._cell_rho, self._cell_n, self._prof_sum,
                                  self._prof_n, self._drag_jt, self._drag_m)
        self._contain_scratch = (self._hits, self._hit_flag, self._anchor)
