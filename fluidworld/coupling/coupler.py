"""Coupler: the one place that reads and writes pymunk bodies for the fluid.

Per substep ``h`` the World calls, in this order:

1. :meth:`Coupler.sync` (stage ``sync_bodies``) -- one Python loop over the coupled bodies
   (dozens) reads their poses into a ``(n_bodies, 9)`` array; numba kernels then re-pose the
   solid particles (outline samples at ``r_L / 2``, set ``0.75 r_L`` inside the surface) into the
   fluid's solid arrays, rasterise the submerged interior samples into
   ``fluid.solid_fraction`` / ``fluid.solid_cell_velocity`` and pose the shapes' geometry and
   bounding boxes for containment.
2. the fluid stages (forces, bin, repulsion, SRD collision, cell pressure, advect).
3. :meth:`Coupler.contain` (inside stage ``advect``) -- particles inside any shape are projected
   out (broad phase: the fluid's neighbour grid); the momentum change goes to the body.
4. :meth:`Coupler.exchange` (stage ``exchange``) -- per body, numba sums the contact impulses of
   its solid particles (``fluid.solid_impulse``), the containment impulses, buoyancy, drag and
   the pressure stage's dynamic push on its volume into a linear impulse J and an angular
   impulse about the centre of gravity; one Python loop writes ``v += J/m``, ``w += tau/I``
   (dynamic bodies). The World then steps pymunk by ``h``.

After the last substep, :meth:`Coupler.settle` contains the fluid once more against the bodies'
new poses. Buoyancy model (see ``docs/architecture.md``, "Coupling and buoyancy"): the
hydrostatic pressure of the fluid beside the body (its level measured just left and right of the
body, its density row by row in the same bands) integrated over the submerged surface
(Archimedes in any fluid or stack of fluids, with the righting torque and no torque on a circle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
import pymunk
from numpy.typing import NDArray

from ..fluid.params import _finite, _flag
from ..fluid.pressure import deposit_cells
from . import containment as C
from . import kernels as K
from . import placed as P
from .body_io import BodyIO
from .buoyancy import outline_normals, surface_quadrature
from .cut_cells import relabel
from .fluid_forces import cover_excess
from .layout import MASS_FLOOR, MASS_FLOOR_BARE, SampleLayout, _ShapeRecord
from .sampling import (
    CAPSULE,
    CIRCLE,
    ArcCount,
    ShapeGeometry,
    geometry_of,
    interior_points,
    kernel_arc_count,
    max_inset,
    outline_points,
)

if TYPE_CHECKING:
    from ..fluid import FluidSystem

__all__ = ["CouplingParams", "Coupler", "MASS_FLOOR", "MASS_FLOOR_BARE"]  # the floors: .layout


#: The range of :attr:`CouplingParams.interior_spacing`, in cells: 1e-6 asked for 65 TiB of
#: samples for a 30 x 30 box.
INTERIOR_SPACING_RANGE = (0.05, 1.0)


@dataclass(frozen=True)
class CouplingParams:
    """Knobs of the fluid-body coupling (defaults are the measured ones).

    Args:
        buoyancy: Apply Archimedes' buoyancy to dynamic bodies.
        drag: Shear drag rate (1/s) between a submerged outline sample and the fluid particles
            beside it (within ``r_L`` of the surface), along the surface, for a fluid layer
            half a cell thick; it brakes a body's spin and its slide through the fluid and
            carries bodies with currents. Equal and opposite impulses go to those particles.
        pressure_push: Give bodies the cell-pressure stage's push on their volume
            (``-rho grad`` per unit area); keeps momentum exchange equal and opposite when a body
            moves through the fluid.
        solid_inset: How far inside the surface the solid particles sit, as a fraction of
            ``r_L`` (capped at the shape's inradius); ``None``: the fluid solver's
            (``solid_inset`` of the solver, 0.75 if it has none; the constraint solver
            0.875). Fluid then rests against the true surface: solids on the surface leave a
            gap of ~r_L/2 around a body that the cell pressure sees as a low-density ring, and
            the fluid keeps falling in and bouncing out (measured: twice the kinetic energy of
            a calm pool with a box in it).
        interior_spacing: Body-local grid spacing of the interior (volume) samples, as a fraction
            of ``a0``.
        level_columns: Width, in cells, of the band on each side of a body where the water
            level is measured.
        containment_eps: Distance beyond the surface where containment puts a particle, as a
            fraction of ``a0``.
        fluid_density: A fixed density of the fluid for buoyancy, drag and the pressure push,
            overriding the local one (``None``: the density of the fluid particles beside each
            body, row by row, measured where its water level is).
    """

    buoyancy: bool = True
    drag: float = 6.0
    pressure_push: bool = True
    interior_spacing: float = 0.25
    solid_inset: float | None = None
    level_columns: int = 4
    containment_eps: float = 0.02
    fluid_density: float | None = None

    def __post_init__(self) -> None:
        _flag("CouplingParams.buoyancy", self.buoyancy)
        _flag("CouplingParams.pressure_push", self.pressure_push)
        for name in ("drag", "interior_spacing", "containment_eps", "solid_inset"):
            v = getattr(self, name)
            if v is None and name == "solid_inset":
                continue
            v = _finite(f"CouplingParams.{name}", v)
            if v < 0:
                raise ValueError(f"CouplingParams.{name} must be >= 0, got {v!r}")
        lo, hi = INTERIOR_SPACING_RANGE
        if not lo <= self.interior_spacing <= hi:
            raise ValueError(f"CouplingParams.interior_spacing must be in [{lo:g}, {hi:g}] cells "
                             f"(a finer one samples a body by the millions), got "
                             f"{self.interior_spacing!r}")
        v = self.level_columns
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"CouplingParams.level_columns must be an int >= 1, got {v!r}")
        rho = self.fluid_density
        if rho is not None and not (isinstance(rho, int | float) and rho > 0):
            raise ValueError(f"CouplingParams.fluid_density must be > 0, got {rho!r}")


#: Rounds of re-testing a pushed particle against every shape (a push can land in another).
_CONTAIN_ROUNDS = 3
#: How far inside a surface the solid particles sit, in ``r_L``, for a solver that names no
#: ``solid_inset`` of its own (SRD, ddr); ``CouplingParams.solid_inset`` overrides it.
DEFAULT_SOLID_INSET = 0.75
#: From this many bodies the exchange sums each body's samples in parallel (same results).
PARALLEL_BODIES = 8


class Coupler(SampleLayout, BodyIO):
    """Two-way coupling between a :class:`~fluidworld.fluid.FluidSystem` and pymunk shapes.

    Args:
        fluid: The fluid to couple.
        params: Coupling knobs (default :class:`CouplingParams` ()).

    Static shapes become walls, kinematic bodies push the fluid, dynamic bodies go both ways.
    """

    def __init__(self, fluid: FluidSystem, params: CouplingParams | None = None) -> None:
        self.fluid = fluid
        self.params = params if params is not None else CouplingParams()
        if not isinstance(self.params, CouplingParams):
            raise TypeError(f"params must be a CouplingParams, got {type(params).__name__}")
        p = fluid.params
        self.a0 = p.a0
        self.spacing_outline = fluid.r_l / 2.0
        self.spacing_interior = self.params.interior_spacing * p.a0
        rho = self.params.fluid_density
        #: The fixed fluid density of the buoyancy (0: the local fluid's, measured per body).
        self.rho_fixed = 0.0 if rho is None else float(rho)
        self._rho_table = np.array([m.density for m in fluid.material_table], np.float64)
        self._cell_rho = np.zeros(fluid.grid_shape)
        self._cell_n = np.zeros(fluid.grid_shape)
        self._records: dict[pymunk.Shape, _ShapeRecord] = {}
        self.bodies: list[pymunk.Body] = []
        self._dirty = True
        self._n_wall = 0
        # per-body outputs of the last substep (index = position in ``bodies``)
        self.state = np.zeros((0, 9))
        self.impulse = np.zeros((0, 2))
        self.angular_impulse = np.zeros(0)
        self.submerged_area = np.zeros(0)
        self.levels = np.zeros((0, 4))
        self.contained = 0  # pushes out of shapes in the last containment
        self.hit_count = 0  # particles the last containment moved
        self._hits = np.zeros(0, np.int64)  # containment scratch, sized to the fluid
        self._hit_flag = np.zeros(0, np.uint8)
        self._anchor = np.zeros((0, 2))
        # largest coordinate move of a particle since the bin stage (unknown: the whole domain)
        self._moved_since_bin = float(p.width + p.height)
        self._col_w = 0.5 * p.a0
        self._tops = np.zeros(max(1, math.ceil(p.width / self._col_w)))
        self._vmax = 0.0  # largest particle speed component seen in the last exchange
        self._margin = 0.0  # how far the shape boxes are grown (set with them)
        # containment asks where each particle was when the substep began: the fluid's sort
        # keeps those positions for us
        fluid.keep_start_positions = True
        self._build()

    # ------------------------------------------------------------------ registry
    def add_shape(self, shape: pymunk.Shape) -> None:
        """Couple a Circle, Segment or Poly (its body must be set); idempotent.

        Raises:
            TypeError: not a supported pymunk shape. ValueError: the shape has no body.
        """
        if not isinstance(shape, pymunk.Shape):
            raise TypeError(f"shape must be a pymunk.Shape, got {type(shape).__name__}")
        if shape.body is None:
            raise ValueError("shape has no body: attach it to a pymunk.Body first")
        if shape in self._records:
            return
        g = geometry_of(shape)
        interior, area = interior_points(g, self.spacing_interior)
        surface = surface_quadrature(g, self.spacing_interior)
        outline, normals = self._outline(g)
        self._records[shape] = _ShapeRecord(shape, g, outline, interior, area, surface, normals)
        self._dirty = True

    def _outline(self, g: ShapeGeometry,
                 rule: tuple[float | None, ArcCount | None] | None = None
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """A shape's solid particles (body frame, :attr:`solid_inset` inside) and their
        normals; ``rule``: :meth:`_arc_rule`'s answer, if the caller has it already."""
        rest, count = self._arc_rule() if rule is None else rule
        outline = outline_points(g, self.spacing_outline, self.solid_inset * self.fluid.r_l,
                                 rest, count)
        return outline, outline_normals(g, outline)

    def _arc_rule(self) -> tuple[float | None, ArcCount | None]:
        """The fluid solver's rest distance off a row of solids (``solid_rest_distance``, in
        length) and, if it names its kernel (``solid_kernel``, ``solid_kernel_reach``), the
        arcs' counts from it (:func:`~.sampling.kernel_arc_count`)."""
        solver = self.fluid.solver
        r_l = self.fluid.r_l
        rest = getattr(solver, "solid_rest_distance", None)
        rest = None if rest is None else float(rest) * r_l
        kernel = getattr(solver, "solid_kernel", None)
        reach = getattr(solver, "solid_kernel_reach", None)
        count = None
        if rest is not None and kernel is not None and reach is not None:
            reach = float(reach)
            if not (math.isfinite(reach) and reach > 0.0):
                raise ValueError(f"{type(solver).__name__}.solid_kernel_reach must be a positive "
                                 f"number of particle spacings, got {reach!r}")
            count = kernel_arc_count(lambda d: kernel(d / r_l), reach * r_l, rest,
                                     self.spacing_outline)
        return rest, count

    @property
    def solid_inset(self) -> float:
        """How far inside the surface the solid particles sit, in ``r_L``:
        ``CouplingParams.solid_inset``, or the fluid solver's if that is ``None``."""
        if self.params.solid_inset is not None:
            return float(self.params.solid_inset)
        return float(getattr(self.fluid.solver, "solid_inset", DEFAULT_SOLID_INSET))

    def solver_changed(self) -> None:
        """Place the solid particles again for the fluid's solver (its ``solid_inset``):
        :meth:`World.set_solver <fluidworld.World.set_solver>` calls this."""
        rule = self._arc_rule()  # the solver's, once for all shapes
        for r in self._records.values():
            r.outline, r.normals = self._outline(r.geometry, rule)
        self._dirty = True

    def reshape(self, shape: pymunk.Shape) -> None:
        """Sample a coupled shape again after its geometry changed (pymunk's
        ``unsafe_set_vertices``, ``unsafe_set_radius``, ``unsafe_set_endpoints``); the next
        step puts the fluid out of its new outline, as for a body put into water.

        Raises:
            TypeError: not a supported pymunk shape. ValueError: the shape is not coupled.
        """
        if not isinstance(shape, pymunk.Shape):
            raise TypeError(f"shape must be a pymunk.Shape, got {type(shape).__name__}")
        if shape not in self._records:
            raise ValueError("shape is not coupled: attach it first (World.attach)")
        geometry_of(shape)  # an unsupported change raises before the old samples go
        del self._records[shape]
        self.add_shape(shape)
        # its body counts as put somewhere (contain_placed): the fluid leaves the new outline
        self._pose_bodies = [b for b in getattr(self, "_pose_bodies", []) if b is not shape.body]

    def remove_shape(self, shape: pymunk.Shape) -> None:
        """Stop coupling a shape (no error if it was not coupled)."""
        if self._records.pop(shape, None) is not None:
            self._dirty = True

    @property
    def shapes(self) -> list[pymunk.Shape]:
        """The coupled shapes, in coupling order."""
        return list(self._records)

    def is_coupled(self, shape: pymunk.Shape) -> bool:
        """Whether ``shape`` is coupled (it holds water while it is in a Space)."""
        return shape in self._records

    def body_index(self, body: pymunk.Body) -> int:
        """Index of a coupled body in :attr:`bodies` and the per-body arrays (-1 if none)."""
        self._build()
        return self._body_idx.get(body, -1)

    def _inset_of(self, g: ShapeGeometry) -> float:
        """How far inside the surface a shape's solid particles sit (as :func:`outline_points`
        puts them: ``solid_inset * r_L``, at most the shape's inradius; a bare point or line
        keeps them on it)."""
        if g.radius <= 0.0 and g.kind in (CIRCLE, CAPSULE):
            return 0.0
        return min(max(self.solid_inset * self.fluid.r_l, 0.0), max_inset(g))

    # the kernels' groups of the fluid's arrays (layouts: see .kernels), made per call: the
    # fluid reallocates them as it grows and when its solids are set
    def _fluid_group(self) -> tuple[Any, ...]:
        return self.fluid.particle_group

    def _mats_group(self) -> tuple[Any, ...]:
        return (*self.fluid.material_group, self._rho_table)

    def _cells_group(self) -> tuple[Any, ...]:
        f = self.fluid
        return (f.cell_count, f.cell_velocity, f.cell_grad, f.solid_fraction,
                f.solid_cell_velocity, f.wall_cover)

    def _bins_group(self) -> tuple[Any, ...]:
        return self.fluid.bin_group

    def _outline_group(self) -> tuple[Any, ...]:
        """Our outline's solid particles: theirs in the fluid's solid arrays after the walls."""
        f = self.fluid
        nw = self._n_wall
        return (self._out_local, self._out_owner, self._out_normal, f.solid_pos[nw:],
                f.solid_vel[nw:], f.solid_impulse[nw:], self._out_inset)

    # ------------------------------------------------------------------ per substep
    def sync(self, h: float | None = None, full: bool = True, hold: bool = False) -> None:
        """Stage ``sync_bodies``: bodies -> solid particles, solid cover, containment geometry.

        Args:
            h: The coming substep (default ``params.h``); it scales the gravity kick that the
                submerged cover gets.
            full: Re-read body types and masses too, and put the fluid out of bodies that were
                put onto it (:meth:`contain_placed`): the first substep of a step.
            hold: The bodies take no impulse from that (``World.settle_fluid``).
        """
        f = self.fluid
        if len(f.solid_pos) != self._n_wall + len(self._out_local):  # fluid's solids were reset
            self._dirty = True
        bodies_before = self.bodies
        self.read_bodies(full or self._dirty)
        gx, gy = f.params.gravity
        h = f.params.h if h is None else h
        self._kick = (gx * h, gy * h)
        self._margin = self._box_margin(h)
        # one kernel call for the stage: the cover uses the levels of the last exchange
        params = (bool(gx or gy), self.spacing_interior, self._kick[0], self._kick[1], self.a0,
                  self._margin)
        f.wall_cover_count = K.sync_geometry(self._bodies, self._outline_group(), self._interior,
                                             self._shapes, self._cells_group(), params)
        if getattr(self, "_unmeasured", False) and f.count:  # new bodies: their levels first
            self._measure_new(h)
            K.sync_geometry(self._bodies, self._outline_group(), self._interior, self._shapes,
                            self._cells_group(), params)
        # the cover past the solve's cap, which the push still pushes (free_drift weighs it)
        cover_excess(self._in_pos, self._cover_area, len(self._cover_area), self.a0,
                     f.cover_excess)
        if f.wall_cover_count:  # the pieces of the cells walls cut, when the walls change
            relabel(self, f)
        if full:
            self.contain_placed(bodies_before, apply=not hold)

    def _measure_new(self, h: float) -> None:
        """The water levels beside every body now, for bodies new to the coupling (their
        cover is laid from them). Before a world's first substep the pressure cells hold no
        count yet: the particles are counted into scratch for it."""
        f = self.fluid
        self._unmeasured = False
        cells = self._cells_group()
        if not f.cell_count.any():
            cnt, vel_c = np.zeros_like(f.cell_count), np.zeros_like(f.cell_velocity)
            deposit_cells(f.pos, f.vel, f.count, self.a0, f.nx, f.ny, f.params.gamma,
                          f.solid_fraction, f.solid_cell_velocity, cnt, vel_c,
                          np.zeros(f.count, np.int64))
            cells = (cnt, vel_c, *cells[2:])
        self._vmax = K.measure_levels(
            self._fluid_group(), self._mats_group(), cells, self._bins_group(), self._bodies,
            self._outline_group(), self._interior, self._exchange_scratch,
            self._exchange_params(h, True), self._vmax)

    def contain_placed(self, bodies_before: list[pymunk.Body] | None = None,
                       apply: bool = True) -> int:
        """Put the particles inside the shapes of bodies that were put somewhere since the last
        step out of them, mirrored across the nearest surface (:mod:`.placed`): bodies added,
        and bodies whose position or angle changed since the end of the last step (set by
        hand: pymunk moves bodies only inside the step). The first substep's ``sync_bodies``
        runs it, before the fluid's stages; the impulses are applied at once.

        Args:
            bodies_before: :attr:`bodies` as it was before this substep's read; when the list
                was rebuilt since, each body is matched to the pose it had (a new one counts as
                placed).
            apply: Give the bodies the particles' momentum change (else it is dropped).

        Returns:
            How many particles moved.
        """
        nb = len(self.bodies)
        pose = self._raw[:, :3].copy()
        seen: NDArray[np.float64] = getattr(self, "_pose_seen", np.zeros((0, 3)))
        seen_bodies: list[pymunk.Body] = getattr(self, "_pose_bodies", [])
        self._pose_seen, self._pose_bodies = pose, self.bodies
        if nb == 0 or self.fluid.count == 0:
            return 0
        if bodies_before is self.bodies and seen.shape == pose.shape:
            moved = np.any(pose != seen, axis=1)
        else:  # rebuilt (a body added or removed): the bodies that were there and kept still
            row = {b: k for k, b in enumerate(seen_bodies)}
            moved = np.array([b not in row or bool(np.any(seen[row[b]] != pose[k]))
                              for k, b in enumerate(self.bodies)])
        if not moved.any():
            return 0
        f = self.fluid
        p = f.params
        self.impulse[:], self.angular_impulse[:] = 0.0, 0.0
        params = (False, 0.0, p.width, p.height, self.params.containment_eps * self.a0,
                  self._margin)
        count = P.contain_placed(self._fluid_group(), self._mats_group(), self._shapes,
                               self._bodies, moved[self._shape_body], params)
        if count and apply:
            self._apply(self.impulse, self.angular_impulse)
        self.impulse[:], self.angular_impulse[:] = 0.0, 0.0
        return int(count)

    def _exchange_params(self, h: float, measure: bool) -> tuple[Any, ...]:
        """:func:`~.kernels.exchange_impulses`' ``params`` for a substep ``h``."""
        f = self.fluid
        prm = self.params
        gy = f.params.gravity[1]
        layer = self.spacing_outline * 0.5 * self.a0  # the drag's fluid layer, per density
        # a solver whose contacts hold the whole pressure: no buoyancy or push on top of them
        own = not getattr(f.solver, "contacts_carry_pressure", False)
        return (
            f.params.gamma, self.a0, f.r_l * math.sqrt(3.0) / 4.0, self.spacing_interior,
            own and prm.pressure_push, self._kick[0], self._kick[1], measure,
            self._col_w, 0.5 * self._col_w, self.a0 * (0.5 + prm.level_columns), 0.5,
            # the pressure of the level's column acts along -y (the level is a height)
            bool(self.adds_buoyancy() and gy < 0.0), -gy * h, prm.drag * layer * h,
            f.r_l, self.rho_fixed, self._per_body(), f.params.width)

    def adds_buoyancy(self) -> bool:
        """Whether the exchange adds buoyancy of its own: ``params.buoyancy`` is on and the
        solver's contacts do not carry the pressure (it acts under gravity along -y only)."""
        return bool(self.params.buoyancy and not getattr(self.fluid.solver,
                                                         "contacts_carry_pressure", False))

    def _per_body(self) -> bool:
        """Whether the stages run their per-body (and per-sample) parts in parallel
        (:mod:`.per_body`): enough bodies to share and more than one thread. The results are
        the same either way."""
        return len(self.bodies) >= PARALLEL_BODIES and numba.get_num_threads() > 1

    def _box_margin(self, h: float) -> float:
        """How far the shapes' boxes are grown: as far as a particle can have moved since
        ``bin`` (twice the largest speed seen in the last exchange times ``h``, plus a cell)."""
        return 2.0 * self._vmax * h + self.a0

    def _pose_geometry(self, h: float) -> None:
        """World geometry and bounding boxes of every shape, from :attr:`state`, the boxes
        grown by :meth:`_box_margin`."""
        K.pose_points(self._shape_vlocal, self._shape_vowner, self.state, self._shape_verts,
                      self._shape_vvel)
        self._margin = self._box_margin(h)
        K.shape_bounds(self._shape_kind, self._shape_vstart, self._shape_verts,
                       self._shape_radius, self._margin, self._shape_box)

    def settle(self, h: float | None = None) -> int:
        """Containment against the bodies' current poses, impulses applied at once.

        The World calls it at the end of a step: pymunk moved the bodies after the last
        containment, and a fast body can have swept over particles. Returns how many moved."""
        self.read_bodies(full=False)
        if not len(self.bodies):
            return 0
        h = self.fluid.params.h if h is None else h
        self._pose_geometry(h)
        self._pose_seen = self._raw[:, :3].copy()  # where pymunk left them (contain_placed)
        self._pose_bodies = self.bodies
        self.impulse[:], self.angular_impulse[:] = 0.0, 0.0
        moved = self.contain(h)
        if moved:  # else every impulse is zero
            self._apply(self.impulse, self.angular_impulse)
        return moved

    def remember_positions(self) -> None:
        """Take the particles' current positions as where the substep began.

        Containment judges from them which side of a thin shape a particle came from, whatever
        moved it since (repulsion, density shift, advection). The fluid's ``bin`` stage keeps
        them on its own (the coupler turns :attr:`FluidSystem.keep_start_positions` on): call
        this only after moving particles yourself between ``bin`` and the containment, if the
        moved positions are to count as where they started.
        """
        self.fluid.mark_start_positions()

    def contain(self, h_body: float = 0.0) -> int:
        """Project fluid particles out of every coupled shape; returns how many pushes.

        Args:
            h_body: How long the bodies have moved since the fluid's positions were remembered
                (:meth:`remember_positions`): 0 right after advection (the bodies wait for
                ``space.step``), ``h`` in the settle pass after it.

        The momentum change is accumulated for the bodies. Uses the fluid's neighbour grid from
        this substep's ``bin`` stage as broad phase (particles keep their order until the next
        ``bin``), reaching as far as any particle has moved since, so call it between ``bin``
        and the next step's particle removals. Particles it moves are tested again against
        every shape, and none ends past a wall (a shape of a body that is neither dynamic nor
        moving) that it started on the right side of (see
        :func:`fluidworld.coupling.containment.contain_particles`); :attr:`hit_count` says how
        many particles it moved.
        """
        f = self.fluid
        if not len(self._shape_kind) or f.count == 0:
            self.contained = 0
            return 0
        p = f.params
        n = f.count
        start = f.start_positions
        use_old = h_body == 0.0 and start is not None
        # how far any particle is from the cell it was binned in: the broad phase reaches that
        # far (repulsion alone can move a particle further than its speed says)
        reach = self._margin
        if use_old:
            moved = C.max_displacement_parallel if f.parallel else C.max_displacement
            self._moved_since_bin = float(moved(f.pos, start, n))
            reach = max(reach, self._moved_since_bin)
        elif start is not None:  # the settle pass: the last containment knows (no full pass)
            reach = max(reach, self._moved_since_bin)
        if len(self._hits) < n:
            cap = max(n, len(f.pos))
            self._hits = np.zeros(cap, np.int64)
            self._hit_flag = np.zeros(cap, np.uint8)
            self._anchor = np.zeros((cap, 2))
            self._group_scratch()
        # pass 1 scans the cells within the largest move of the substep around each shape
        # (a particle further away cannot have met it), not within the whole margin
        scan = self._moved_since_bin + 1e-6 * self.a0 if use_old else reach
        params = (use_old, h_body, p.width, p.height, self.params.containment_eps * self.a0,
                  self._margin, reach, _CONTAIN_ROUNDS, scan)
        moved, self.hit_count, far = C.contain_particles(
            self._fluid_group(), self._mats_group(), self._shapes, self._bodies,
            self._bins_group(), self._contain_scratch, params)
        self.contained = int(moved)
        if use_old:  # pushes moved some particles further: settle has to reach them too
            self._moved_since_bin = max(self._moved_since_bin, float(far))
        return self.contained

    def exchange(self, h: float, measure: bool = True) -> None:
        """Stage ``exchange``: contact, containment, pressure, buoyancy and drag impulses ->
        bodies (``v += J/m``, ``w += tau/I``), drag reaction -> fluid.

        Args:
            h: The substep.
            measure: Measure the water level beside each body again (a pass over the
                particles; the World does it once per step).
        """
        f = self.fluid
        nb = len(self.bodies)
        if nb == 0:
            return
        if f.count == 0:  # no fluid, no fluid forces (the pressure stage did not run: its
            self.impulse[:] = 0.0  # correction is not there to cancel the cover's kick)
            self.angular_impulse[:] = 0.0
            self.submerged_area[:] = 0.0
            return
        J = self.impulse
        tau = self.angular_impulse
        if getattr(f.solver, "contacts_carry_pressure", False):  # its solve moves the bodies'
            setattr(f.solver, "body_inv_mass", self._inv_mass)  # noqa: B010  solids with them
        params = self._exchange_params(h, measure)
        self.remember_drift(h)
        # one kernel call for the whole stage, its arrays passed in groups (see .kernels)
        self._vmax = K.exchange_impulses(
            self._fluid_group(), self._mats_group(), self._cells_group(), self._bins_group(),
            self._bodies, self._outline_group(), self._interior, self._surface, self._starts,
            self._exchange_scratch, params, self._vmax)
        self._added_mass(J, self.submerged_area, self.density_profile, f.params.gravity, h)
        # what would drive a body into a shape it touches goes to pymunk as a force, under the
        # same speed limit as the rest (a packed fluid flung a box to 7e6 units/s through it)
        self._limit_speed(J, tau)
        J, tau, deferred = self.defer_into_contacts(J, tau)
        self._apply(J, tau)
        if deferred is not None:
            self.apply_deferred(deferred, h)
