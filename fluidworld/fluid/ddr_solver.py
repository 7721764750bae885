"""Double density relaxation as a :class:`~fluidworld.fluid.solver.Solver` (``"ddr"``).

Per substep, after the shared ``external_forces`` (gravity) and ``bin`` (the sort):

0. ``viscosity``     -- each material's ``viscosity`` (honey's), the momentum diffusion of SRD's
                        stage of that name (:meth:`FluidSystem.apply_material_viscosity`);
1. ``ddr_viscosity`` -- Clavet's linear and quadratic viscosity impulses between neighbours;
2. ``ddr_predict``   -- remember the positions, move by ``v h``;
3. ``ddr_relax``     -- double density relaxation of the positions (pressure, near pressure;
                        solids push, their momentum recorded for the coupling);
4. ``advect``        -- velocities from the positions' change, the domain box, the cell deposit;
                        then the walls' hold on viscous materials (:mod:`.wall_shear`).

What it gives that SRD does not: surface tension (the density term pulls a sparse surface in, so
a blob without gravity rounds up) and stringy, blobby fluids by its knobs (:class:`DDRParams`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from . import advection, binning, ddr, pressure
from .params import Material, _finite
from .solver import DDR_VISCOSITY_SCALE, VISCOUS_MATERIAL_NU, sweeps_in_parallel

if TYPE_CHECKING:
    from .system import FluidSystem

__all__ = ["CONTRAST_PER_PASSES", "DDRParams", "DDRSolver", "KERNELS", "MAX_CONTRAST",
           "MAX_PASSES", "REF_SUBSTEPS", "WEIGHT_PER_PASSES", "WEIGHT_SPACING", "cohesion_table",
           "relax_schedule"]

#: Share of the near pressure's push at the fill lattice that the rest density takes back
#: (:func:`~fluidworld.fluid.ddr.rest_density`, ``near_ratio``). 0: the lattice's own density,
#: and the near pressure expanded the top of a 100-deep pool to 0.82 of the nominal number
#: density (bodies floated low); 1: the lattice at zero pressure in theory, but the tension
#: it leaves in the bulk clumped and blew up a tank; 0.5: top 0.96, bottom 1.27, rest speed
#: 0.83 % of sqrt(g d), boxes and balls of 0.4-0.8 float within 0.01 of Archimedes (0.4: a box
#: of 0.8 floated 0.07 low; measured at the defaults).
NEAR_REST_SHARE = 0.5

#: The density kernels :class:`DDRParams` offers.
KERNELS = ("quadratic", "cubic")


@dataclass(frozen=True)
class DDRParams:
    """Knobs of double density relaxation, in units of the fluid's particle spacing ``r_L`` and
    of half a frame (``dt / 2``, the game preset's substep) so that one set works at any
    resolution and substep count (:func:`relax_schedule`).

    Args:
        radius: Interaction radius ``H`` in particle spacings, in [1.5, 4].
        stiffness: Pressure stiffness: a pair's displacement per unit density error in a
            substep of ``dt / 2`` (summed over the passes), as a fraction of the spacing, in
            (0, 1]; a substep ``h`` moves ``(2 h / dt)^2`` of it, as an acceleration does.
        near_stiffness: Near-pressure stiffness (keeps particles apart, and with the pressure
            term gives the surface tension), same units, in [0, 2].
        passes: Jacobi relaxation passes per substep of ``dt / 2``, in [1, 16]; the
            stiffnesses are split evenly among them, so more passes change the rest state
            little and only make the relaxation stable deeper (see the module docstring of
            ``ddr``). Longer substeps and materials over 8x apart in density run more of
            them (:func:`relax_schedule`; one substep a frame: 4x).
        viscosity_linear: Clavet's linear viscosity ``sigma`` in 1/time, >= 0.
        viscosity_quadratic: Clavet's quadratic viscosity ``beta`` in 1/length, >= 0.
        kernel: ``"quadratic"`` (Clavet: density ``(1 - r/H)^2``, near ``(1 - r/H)^3``) or
            ``"cubic"`` (Madams: ``(1 - r/H)^3`` and ``(1 - r/H)^4``, a less compressible fluid
            for the same stiffness).
        anti_stick: Speed, in spacings per substep, at which a particle that the domain box
            held leaves the wall (the blog's anti-stick containment), in [0, 0.5].
        wetting: How strongly the solids of moving bodies pull the fluid beside them where it
            is in tension, as a share of a fluid neighbour's pull, in [0, 1]. 0: a solid only
            pushes, the fluid does not wet it, and the surface tension holds small light
            bodies up (a ball of radius 15 at 0.4 x water's density floated 0.10 too high); 1:
            it wets it like fluid, and draws small bodies in (+0.16). 0.35: boxes 40-80 wide
            and balls of radius 15-32 at 0.4-0.8 float within 0.05 of Archimedes in pools 100
            and 120 deep (36 cases; 0.3 and 0.45 left them 0.007 high and 0.019 deep on
            average). Walls are not wetted (see ``ddr``).
        rest_fill: The number density the fluid rests at where bodies float, in units of the
            ``r_L`` fill lattice's, at these knobs (measured 0.86-0.93 in the top 40 units of
            pools 50-250 deep at the defaults; the near pressure keeps the fluid looser than the
            lattice, so a pool filled 120 deep stands ~133). Particles weigh their material's
            density times ``1 / rest_fill`` of the lattice's area
            (:meth:`~fluidworld.fluid.FluidSystem.set_rest_fill`), so that the fluid at rest has
            its material's mass density and bodies float by their density relative to it
            (with the lattice's mass, a 40 x 40 box of 0.8 floated 0.067 deep). In (0.5, 1];
            measure it again if you change the other knobs.
    """

    radius: float = 2.2
    stiffness: float = 0.16
    near_stiffness: float = 0.8
    passes: int = 4
    viscosity_linear: float = 200.0
    viscosity_quadratic: float = 0.01
    kernel: str = "quadratic"
    anti_stick: float = 0.05
    wetting: float = 0.35
    rest_fill: float = 0.9

    def __post_init__(self) -> None:
        for name, (lo, hi, shown) in _RANGES.items():
            v = _finite(f"DDRParams.{name}", getattr(self, name))
            if not (lo < v if shown[0] == "(" else lo <= v) or v > hi:
                raise ValueError(f"DDRParams.{name} must be in {shown}, got {v}")
        for name in ("viscosity_linear", "viscosity_quadratic"):
            v = _finite(f"DDRParams.{name}", getattr(self, name))
            if v < 0.0:
                raise ValueError(f"DDRParams.{name} must be >= 0, got {v}")
        if self.kernel not in KERNELS:
            raise ValueError(f"DDRParams.kernel must be one of {KERNELS}, got {self.kernel!r}")
        if not isinstance(self.passes, int) or not 1 <= self.passes <= 16:
            raise ValueError(f"DDRParams.passes must be an int in [1, 16], got {self.passes!r}")


#: :class:`DDRParams`' bounded float knobs: ``(low, high, the interval as the error shows it)``;
#: a ``(`` excludes the low end.
_RANGES = {
    "radius": (1.5, 4.0, "[1.5, 4] spacings"),
    "stiffness": (0.0, 1.0, "(0, 1]"),
    "near_stiffness": (0.0, 2.0, "[0, 2]"),
    "anti_stick": (0.0, 0.5, "[0, 0.5]"),
    "wetting": (0.0, 1.0, "[0, 1]"),
    "rest_fill": (0.5, 1.0, "(0.5, 1]"),
}


#: The substeps per frame that :class:`DDRParams`' stiffnesses are given for (the game
#: preset's): the fluid is as stiff, in units of the frame ``dt``, whatever the world's
#: substep count (:func:`relax_schedule`).
REF_SUBSTEPS = 2


#: The density contrast (heaviest over lightest material present) that ``DDRParams.passes``
#: hold (:func:`relax_schedule`): a block of a fluid of 8x water's density laid on water ran
#: at most 817 units/s with 4 passes (water alone 479), one of 10x at 1,785.
CONTRAST_PER_PASSES = 8.0
#: The load that ``DDRParams.passes`` hold (:func:`relax_schedule`): gravity times the height of
#: fluid the most loaded column holds up (:func:`~fluidworld.fluid.ddr.column_height`), in
#: units²/s². Pools of water 60 wide at gravity 900 with 4 passes: 400, 450 and 500 deep rest,
#: 550 deep grows a checkerboard near the floor (its densest particle at 2.5x the lattice's)
#: and 600, 800 and 1,000 deep blow up to the speed cap within 3 / 1 / 1 s; with 8 passes
#: 1,000 deep does not. Set at 400 deep.
WEIGHT_PER_PASSES = 900.0 * 400.0
#: The particle spacing ``r_L`` :data:`WEIGHT_PER_PASSES` was measured at (the game preset's:
#: ``a0`` 10, ``gamma`` 5). The compression under a column grows as its height over ``r_L^2``
#: (each of its ``height / r_L`` rows weighs ``g h^2 / r_L`` spacings of relaxation), so a
#: finer fluid weighs ``(WEIGHT_SPACING / r_L)^2`` more: a pool 50 deep at ``gamma`` 65 is
#: one 650 deep at 5, and blew up to the speed cap with 4 passes.
WEIGHT_SPACING = math.sqrt(2.0 * 10.0 * 10.0 / (5.0 * math.sqrt(3.0)))
#: The most passes :func:`relax_schedule` runs in a substep, whatever the contrast and the
#: substep: a material of 0.001 x water's density beside water would otherwise ask for 500,
#: a step ~100x as slow (measured at the cap: see ``docs/architecture.md``, DDR).
MAX_PASSES = 64
#: The largest density contrast between two materials of a fluid's table that ``ddr`` takes
#: (:meth:`DDRSolver.attach` refuses more): what :data:`MAX_PASSES` holds at the game preset.
MAX_CONTRAST = MAX_PASSES * CONTRAST_PER_PASSES / 4.0


def relax_schedule(dt: float, substeps: int, passes: int,
                   contrast: float = 1.0, weight: float = 0.0) -> tuple[float, int]:
    """The reference substep ``h_ref = dt / REF_SUBSTEPS`` that the stiffnesses are per, and
    the Jacobi passes to run per substep of ``dt / substeps`` with materials whose densities
    differ by up to ``contrast`` (the heaviest present over the lightest) under a load
    ``weight`` (gravity times the tallest column of fluid, in units²/s²).

    A pair's relaxation moves it by ``stiffness (h / h_ref)^2`` spacings per unit density
    error in a substep ``h``: the pressure is an acceleration, so the fluid rests at the same
    compression with 1, 2 or 3 substeps (a stiffness per world substep made one substep 4x
    softer, and bodies of 0.8 floated at 0.72). A longer substep than ``h_ref`` moves
    further, so it runs more passes, ``ceil(passes (h / h_ref)^2)``, and no pass moves more
    than the tuned ``stiffness / passes`` (one pass at the whole stiffness blew up pools
    deeper than ~150); a shorter one keeps ``passes``. A heavy particle's pressure is its
    density ``mu`` times water's at the same compression, so it moves a light neighbour ``mu``
    times as far per pass: beyond :data:`CONTRAST_PER_PASSES` the passes grow in proportion
    (a fluid of 50x water's density laid on water blew it to the ceiling with 4 passes; with
    20 it runs at ~1,200 units/s). The fluid under a tall column is compressed further, and a
    pass's most unstable mode (a checkerboard, led by the near pressure) grows with the
    compression: beyond :data:`WEIGHT_PER_PASSES` the passes grow in proportion too (a pool
    600 deep blew up with 4). Whichever of the two asks for more, up to :data:`MAX_PASSES`.
    The stiffness is split among the passes, so the rest state stays."""
    h = dt / substeps
    h_ref = dt / REF_SUBSTEPS
    load = (h / h_ref) ** 2 * max(1.0, contrast / CONTRAST_PER_PASSES,
                                  weight / WEIGHT_PER_PASSES)
    return h_ref, max(passes, min(math.ceil(passes * load - 1e-9), MAX_PASSES))


def cohesion_table(materials: Sequence[Material], lattice_density: float) -> NDArray | None:
    """Per pair of material ids, the tension two such particles pull each other with
    (:func:`~fluidworld.fluid.ddr.relax_positions`' ``cohesion``): the geometric mean of the
    materials' :attr:`~fluidworld.fluid.Material.cohesion` times ``lattice_density`` (the fill
    lattice's density sum) and the two material densities summed, zero between mix groups;
    ``None`` when no material coheres (the kernels then skip the term)."""
    c = np.array([m.cohesion for m in materials], np.float64)
    if not (c > 0.0).any():
        return None
    mu = np.array([m.density for m in materials], np.float64)
    groups = [m.mix_group for m in materials]
    same = np.array([[ga == gb for gb in groups] for ga in groups])
    return np.where(same, np.sqrt(np.outer(c, c)) * lattice_density * (mu[:, None] + mu[None, :]),
                    0.0)


class DDRSolver:
    """Double density relaxation (Clavet et al. 2005) over a FluidSystem's particle store.

    Args:
        params: The knobs (default :class:`DDRParams` ()).
    """

    name = "ddr"
    stages: tuple[str, ...] = ("viscosity", "ddr_viscosity", "ddr_predict", "ddr_relax",
                               "advect")
    #: The solid particles' contacts carry the fluid's whole pressure on bodies (hydrostatic and
    #: dynamic): the coupler adds no buoyancy or cover push of its own (measured, a 0.6 box on
    #: ddr water: submerged fraction 0.30 with them, 0.60 without).
    contacts_carry_pressure = True
    #: Emitters spread their jets at least wide enough to be at most this many times as dense
    #: as the fluid at rest (``World`` reads it; SRD, which compresses, has no limit): the
    #: pressure of an overpacked jet pushes it apart in a substep (packed 16x, a jet was
    #: thrown apart at the speed cap as it left the nozzle; 8x: sprayed at 2,300 units/s; 2x:
    #: it plunged into a pool at the speed it fell at).
    emit_packing = 2.0
    #: Per pair of material ids, the cohesion pull (:func:`cohesion_table`), set by
    #: :meth:`attach`; ``None`` (also for a solver saved before cohesion existed): none.
    _cohesion: NDArray | None = None

    def __init__(self, params: DDRParams | None = None) -> None:
        self.params = params if params is not None else DDRParams()
        if not isinstance(self.params, DDRParams):
            raise TypeError(f"params must be a DDRParams, got {type(params).__name__}")
        self.fluid: FluidSystem | None = None
        self._prev = np.zeros((0, 2))
        self._columns = np.zeros(0)  # column_height's bins (sized to the domain on first use)
        # the predicted positions' binning (:meth:`_predicted_grid`; sized on first use)
        self._p_start = np.zeros(0, np.int64)
        self._p_order = np.zeros(0, np.int64)
        self._p_span = np.zeros(3, np.int64)

    @property
    def rest_fill(self) -> float:
        """The number density this fluid rests at where bodies float
        (:attr:`DDRParams.rest_fill`): the particle store weighs particles by it
        (:meth:`~fluidworld.fluid.FluidSystem.set_rest_fill`)."""
        return self.params.rest_fill

    def attach(self, fluid: FluidSystem) -> None:
        """Bind to ``fluid``; scratch for its capacity.

        Raises:
            ValueError: the fluid's materials differ in density by more than
                :data:`MAX_CONTRAST` (128x): more relaxation passes than :data:`MAX_PASSES`
                would be needed to keep such a pair from blowing up.
        """
        dens = [m.density for m in fluid.material_table]
        if max(dens) > MAX_CONTRAST * min(dens):
            light = min(fluid.material_table, key=lambda m: m.density)
            heavy = max(fluid.material_table, key=lambda m: m.density)
            raise ValueError(
                f"solver 'ddr' takes materials within {MAX_CONTRAST:g}x of each other in "
                f"density; {heavy.name!r} ({heavy.density:g}) is "
                f"{heavy.density / light.density:.3g}x {light.name!r} ({light.density:g}): "
                f"use solver='srd' or 'constraint'")
        self.fluid = fluid
        cap = len(fluid.pos)
        if len(self._prev) < cap:
            self._prev = np.zeros((cap, 2))
            self._disp = np.zeros((cap, 2))
            self._rho = np.zeros(cap)
            self._rho_near = np.zeros(cap)
            self._wsum = np.zeros(cap)
        prm = self.params
        self._radius = prm.radius * fluid.r_l
        self._cubic = prm.kernel == "cubic"
        self._rho0 = ddr.rest_density(fluid.r_l, self._radius,
                                      NEAR_REST_SHARE * prm.near_stiffness / prm.stiffness,
                                      self._cubic)
        self._mu = np.array([m.density for m in fluid.material_table], np.float64)
        self._cohesion = cohesion_table(fluid.material_table,
                                        ddr.lattice_sums(fluid.r_l, self._radius, self._cubic)[0])

    def run_stage(self, stage: str, h: float) -> None:
        """Run one of :attr:`stages`."""
        f = self.fluid
        if f is None:
            raise RuntimeError("DDRSolver.run_stage before attach(fluid)")
        if len(self._prev) < len(f.pos):
            self.attach(f)
        n = f.count
        prm = self.params
        par = sweeps_in_parallel(n)
        if stage == "viscosity":  # the materials' own (honey), as SRD's stage of that name
            f.apply_material_viscosity(h, VISCOUS_MATERIAL_NU, DDR_VISCOSITY_SCALE)
        elif stage == "ddr_viscosity":
            ddr.viscosity_impulses(
                self._fluid_group(n), self._grid_group(),
                (self._radius, prm.viscosity_linear, prm.viscosity_quadratic, h),
                (self._wsum, self._disp), par)
        elif stage == "ddr_predict":
            f.cap_speeds(h)
            self._prev[:n] = f.pos[:n]
            f.pos[:n] += h * f.vel[:n]
            f.relax_springs(h)  # a jelly's springs (none in a liquid), before the density's
        elif stage == "ddr_relax":
            # per the reference substep (:func:`relax_schedule`): a shorter substep
            # (world.step(dt) with a small dt) moves by (h / h_ref)^2 of it, as an acceleration
            # does; a fixed move per substep became a velocity move / h (a pool at rest thrown
            # to 34,000 units/s at dt 1e-5)
            h_ref, passes = relax_schedule(f.params.dt, f.params.substeps, prm.passes,
                                           self._contrast(n), self._weight(n))
            k = prm.stiffness * f.r_l / (h_ref * h_ref * passes)
            k_near = prm.near_stiffness * f.r_l / (h_ref * h_ref * passes)
            ddr.relax_positions(
                self._fluid_group(n), self._predicted_grid(n), self._radius,
                (f.solid_pos, f._s_start, f._s_order, f.solid_impulse, f.solid_marked,
                 f.solid_wet), 0,
                (self._radius, self._cubic, self._rho0, k, k_near, h, 1.0, prm.wetting),
                (self._rho, self._rho_near, self._disp), par, passes, self._cohesion,
                lambda: self._predicted_grid(n))
        elif stage == "advect":
            self._finish(h)
            # the walls' hold on viscous materials, on the velocities the moves gave
            f.shear_walls(h, VISCOUS_MATERIAL_NU, DDR_VISCOSITY_SCALE)
        else:
            raise ValueError(f"stage must be one of {self.stages}, got {stage!r}")

    def _contrast(self, n: int) -> float:
        """The heaviest material density among the first ``n`` particles over the lightest
        (1 for one material; a pass over the material ids)."""
        f = self.fluid
        assert f is not None
        if n == 0 or len(self._mu) < 2:
            return 1.0
        present = self._mu[np.bincount(f.mat[:n], minlength=len(self._mu)) > 0]
        return float(present.max() / present.min())

    def _weight(self, n: int) -> float:
        """Gravity times the height of fluid the most loaded column holds up (columns four
        spacings wide across gravity; :func:`~fluidworld.fluid.ddr.column_height`), in units
        of the game preset's spacing (:data:`WEIGHT_SPACING`)."""
        f = self.fluid
        assert f is not None
        gx, gy = f.params.gravity
        p = f.params
        bin_w = 4.0 * f.r_l
        bins = int(math.hypot(p.width, p.height) / bin_w) + 2
        if len(getattr(self, "_columns", ())) < bins:  # the bins' scratch (older saves: none)
            self._columns = np.zeros(bins)
        height = ddr.column_height(f.pos, f.mat, self._mu, n, float(gx), float(gy), bin_w,
                                   p.a0 * p.a0 / p.gamma, self._columns)
        return math.hypot(gx, gy) * height * (WEIGHT_SPACING / f.r_l) ** 2

    def _fluid_group(self, n: int) -> tuple:
        """The kernels' ``fluid`` group (:mod:`~fluidworld.fluid.ddr`) of the first ``n``."""
        f = self.fluid
        assert f is not None
        return (f.pos, f.vel, f.mat, f._mass, self._mu, n)

    def _grid_group(self) -> tuple:
        """The kernels' ``grid`` group: the store's sort."""
        f = self.fluid
        assert f is not None
        return (f._nb_start, f.nb_nx, f.nb_ny, 1.0 / f.nb_h)

    def _predicted_grid(self, n: int) -> tuple:
        """The relaxation's ``grid`` group: the predicted positions of the first ``n`` binned
        on the store's neighbour grid without moving them, ``(start, nx, ny, 1 / nb_h,
        order)`` (:func:`~fluidworld.fluid.binning.bin_points`).

        On the store's sort, made before the prediction, a pair is seen from both sides only
        if every search reaches the radius plus the farthest prediction move (``v h``): one
        particle thrown at the speed cap widened every particle's search by ~40 units: a pool
        of 10k with one particle at 3,000 units/s stepped at 2.4x its calm cost (now 1.05x)."""
        f = self.fluid
        assert f is not None
        cells = f.nb_nx * f.nb_ny + 1
        if (len(getattr(self, "_p_start", ())) != cells  # (a solver saved before it: none)
                or len(self._p_order) < len(f.pos)):
            self._p_start = np.zeros(cells, np.int64)
            self._p_order = np.zeros(len(f.pos), np.int64)
            self._p_span = np.array([0, cells - 2, -1], np.int64)
        inv = 1.0 / f.nb_h
        binning.bin_points(f.pos, n, inv, f.nb_nx, f.nb_ny, self._p_start, self._p_order,
                           self._p_span)
        return (self._p_start, f.nb_nx, f.nb_ny, inv, self._p_order)

    def _finish(self, h: float) -> None:
        """Velocities from the moves, the box (no move, so no velocity, out of it; particles it
        held leave the wall), the cell deposit the coupling and the renderers read."""
        f = self.fluid
        assert f is not None
        n = f.count
        p = f.params
        f.vel[:n] = (f.pos[:n] - self._prev[:n]) / h
        margin = 1e-6 * p.a0
        f.put_back = advection.advect_and_contain(
            f.pos, f.vel, f.mat, n, 0.0, p.width, p.height, margin, f._bounce, f._rest, f._keep,
            f.speed_limit(h))
        if f.put_back and self.params.anti_stick > 0.0:
            ddr.anti_stick(f.pos, f.vel, n, margin, p.width - margin, margin, p.height - margin,
                           2.0 * margin, self.params.anti_stick * f.r_l / p.h)
        pressure.deposit_cells(f.pos, f.vel, n, p.a0, f.nx, f.ny, p.gamma, f.solid_fraction,
                               f.solid_cell_velocity, f.cell_count, f.cell_velocity, f._cell_of)
        f.cell_grad[:] = 0.0
