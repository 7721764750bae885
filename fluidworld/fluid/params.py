"""Fluid parameters and materials.

Everything a :class:`~fluidworld.fluid.FluidSystem` needs to know up front lives in two small
dataclasses, validated in ``__post_init__`` so that a bad value fails at construction with a message
that names the parameter and its allowed range -- never later as a numba crash or NaN particles.

Units: lengths are world units (pixels unless the caller says otherwise), time in the caller's unit.
:meth:`FluidParams.paper` is the set-up of Crespin et al. (2020), pixels with ``dt = 0.1``;
:meth:`FluidParams.game` works in seconds at 60 Hz with internal substeps.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

__all__ = ["FluidParams", "Material", "WATER", "INK", "OIL", "HONEY", "default_materials",
           "WATER_DAMPING", "wall_contact"]

PressureSolver = Literal["converged", "paper", "none"]

#: Upper bound on particles: 8 float64 + 1 byte + bookkeeping ~ 100 bytes each, two buffers.
MAX_PARTICLES_LIMIT = 20_000_000

#: Upper bound on ``Material.viscosity`` (world units^2 per time unit): far stiffer than the
#: viscosity stage's sweeps can follow at any sane step (it then saturates, it never blows up).
MAX_VISCOSITY = 1e7


def _scalar(value: object) -> object:
    """A zero-dimensional numpy array (what ``np.array(x)`` and some reductions give) as its
    numpy scalar; anything else as it is."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _finite(name: str, value: object) -> float:
    """``value`` as a finite float; TypeError for non-numbers (bools too), ValueError for NaN/inf.
    Numpy scalars and zero-dimensional arrays count as numbers. Shared by every validator in the
    package."""
    value = _scalar(value)
    if isinstance(value, bool | np.bool_) or not isinstance(
            value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def _flag(name: str, value: object) -> bool:
    """``value`` as a bool; a TypeError for anything but ``True`` / ``False`` (or numpy's),
    so that ``"no"`` is not taken as true."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _rgba(name: str, value: Any) -> tuple[int, int, int, int]:
    """``value`` as an RGBA colour: 3 or 4 whole numbers in 0..255 (alpha 255 when left out)."""
    iterable = isinstance(value, Iterable) and not isinstance(value, str | bytes)
    items = tuple(_scalar(c) for c in value) if iterable else ()
    if len(items) not in (3, 4):
        raise TypeError(f"{name} must be an RGB or RGBA tuple of 0..255, got {value!r}")
    channels = []
    for c in items:
        if (isinstance(c, bool | np.bool_)
                or not isinstance(c, int | float | np.integer | np.floating)
                or not math.isfinite(c) or int(c) != c):
            raise TypeError(f"{name} must be an RGB or RGBA tuple of 0..255, got {value!r}")
        channels.append(int(c))
    if min(channels) < 0 or max(channels) > 255:
        raise ValueError(f"{name} must have channels in 0..255, got {value!r}")
    r, g, b, *alpha = channels
    return r, g, b, alpha[0] if alpha else 255


def _positive(name: str, value: object) -> float:
    v = _finite(name, value)
    if v <= 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return v


def _int_in(name: str, value: int, lo: int, hi: int) -> int:
    value = _scalar(value)  # type: ignore[assignment]
    if (isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer)
            or not math.isfinite(value) or int(value) != value):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {v}")
    return v


@dataclass(frozen=True)
class Material:
    """A fluid material.

    Args:
        name: Human readable name.
        color: RGBA colour (0-255) used by renderers and the PNG helper.
        density: Mass density relative to water (1.0). Particle mass is ``density * a0**2 / gamma``.
        srd_alpha: SRD rotation angle in radians (paper Eq. 3), in [0, pi]. The sign is random per
            cell and step. Larger angles exchange more momentum between particles in a cell.
        viscosity: Kinematic viscosity ``nu`` added to the SRD fluid's own, in world units^2 per
            time unit (px^2/s at the game preset), in [0, 1e7]. The ``viscosity`` stage diffuses
            momentum with it (see ``fluid/viscosity.py``); a viscous material (``> 0``) also damps
            5 % of its sub-cell velocity per substep (unless ``damping`` says otherwise). 0 is
            the paper's energy-conserving SRD. With ``ddr`` and ``constraint`` it runs only from
            ``solver.VISCOUS_MATERIAL_NU`` (1,000) up: below, their own knobs set the flow.
            The measured ``nu`` is SRD's own (~1,060 px^2/s at ``srd_alpha = pi/2``, honey's;
            ~610 at ``pi/4``, water's; game preset) plus ~1.1-1.2x this value
            (``benchmarks/fidelity.py``, its table in docs/benchmarks.md).
        wall_mode: What a particle that crosses a wall does: ``"bounce"`` mirrors the normal
            velocity (scaled by ``restitution``), ``"adhere"`` keeps only ``1 - adhesion`` of the
            velocity.
        restitution: Normal velocity kept on a bounce, in [0, 1].
        adhesion: Velocity fraction lost on an adhering wall contact, in [0, 1].
        mix_group: Miscibility group (a non-empty name). Materials of the same group mix: the SRD
            collision exchanges momentum between all their particles in a cell. Materials of
            different groups are immiscible: the collision runs per group, so they meet only
            through the cell pressure and the contact repulsion (which pushes unlike pairs apart
            harder, see ``FluidSystem``) and keep a sharp interface. Built-in table:

            ======  =========  ========================================
            name    mix_group  mixes with
            ======  =========  ========================================
            water   water      ink
            ink     water      water
            oil     oil        (nothing else)
            honey   honey      (nothing else)
            ======  =========  ========================================

            The default ``"water"`` keeps a custom material miscible with water, as before.
        elasticity: A jelly: each fill of this material is one piece whose particles are
            joined by springs to their neighbours (:mod:`fluidworld.fluid.springs`); the
            fraction of a spring's length error removed per substep, in [0, 1]. 0 (the
            default) is a liquid. Every solver relaxes the springs.
        plasticity: How fast (per time unit) a jelly's springs take on a deformation beyond
            10 % of their length, in [0, 100]: 0 springs back to the filled shape, larger
            values keep the shape it is pressed into (Clavet's plasticity).
        cohesion: How strongly particles of this material pull those of its own mix group
            with double density relaxation (``solver="ddr"``; Madams' surface-tension term), in
            [0, 1]: a pair of them is pulled together as if the fluid were stretched by this
            share of the fill lattice's density. A cohesive fluid holds together in drops and
            strings and rests a little denser; pairs of different mix groups do not pull, so
            between immiscible cohesive materials the interface has a tension of its own and a
            drop of one in the other rounds up. 0 (the default): the solver's own surface
            tension only. SRD has no surface tension and the constraint solver's impulses only
            push: both ignore it.
        damping: Fraction of a particle's velocity relative to its SRD cell's mean removed per
            substep by the collision (Eq. 3's ``nu``), in [0, 1): it calms the particle-scale
            jiggle of a fluid at rest without the cost of the ``viscosity`` stage, and adds
            little viscosity of its own (water: :data:`WATER_DAMPING`, 0.3, measured nu ~1,140
            against ~1,120 at 0.05). ``None`` (the default): 0.05 for a material with
            ``viscosity > 0``, 0 otherwise.
    """

    name: str
    color: tuple[int, int, int, int] = (40, 110, 220, 255)
    density: float = 1.0
    srd_alpha: float = math.pi / 2
    viscosity: float = 0.0
    wall_mode: Literal["bounce", "adhere"] = "bounce"
    restitution: float = 0.0
    adhesion: float = 0.0
    mix_group: str = "water"
    elasticity: float = 0.0
    plasticity: float = 0.0
    damping: float | None = None
    cohesion: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"Material.name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "color", _rgba("Material.color", self.color))
        _positive("Material.density", self.density)
        a = _finite("Material.srd_alpha", self.srd_alpha)
        if not 0.0 <= a <= math.pi:
            raise ValueError(f"Material.srd_alpha must be in [0, pi], got {a}")
        v = _finite("Material.viscosity", self.viscosity)
        if not 0.0 <= v <= MAX_VISCOSITY:
            raise ValueError(
                f"Material.viscosity (kinematic, world units^2 per time unit) must be in "
                f"[0, {MAX_VISCOSITY:g}], got {v}"
            )
        if self.wall_mode not in ("bounce", "adhere"):
            raise ValueError(
                f"Material.wall_mode must be 'bounce' or 'adhere', got {self.wall_mode!r}"
            )
        for nm in ("restitution", "adhesion"):
            x = _finite(f"Material.{nm}", getattr(self, nm))
            if not 0.0 <= x <= 1.0:
                raise ValueError(f"Material.{nm} must be in [0, 1], got {x}")
        for nm, hi in (("elasticity", 1.0), ("plasticity", 100.0), ("cohesion", 1.0)):
            x = _finite(f"Material.{nm}", getattr(self, nm))
            if not 0.0 <= x <= hi:
                raise ValueError(f"Material.{nm} must be in [0, {hi:g}], got {x}")
        if self.damping is not None:
            d = _finite("Material.damping", self.damping)
            if not 0.0 <= d < 1.0:
                raise ValueError(f"Material.damping must be in [0, 1) or None, got {d}")
        if not isinstance(self.mix_group, str) or not self.mix_group:
            raise TypeError(
                f"Material.mix_group must be a non-empty string, got {self.mix_group!r}"
            )

    def __setstate__(self, state: dict[str, object]) -> None:
        """Unpickle (saves, copies): a material saved before a field existed gets its
        default (``cohesion``, added 2026-11-28)."""
        for f in dataclasses.fields(self):
            if f.name not in state and f.default is not dataclasses.MISSING:
                state = {**state, f.name: f.default}
        for name, value in state.items():
            object.__setattr__(self, name, value)


#: Water's and ink's sub-cell damping (``Material.damping``). Shallow SRD pools at rest, mean
#: speed over seconds 5-10, % of ``sqrt(g d)`` (2026-11-29): 0.05 -> 0.3: 600 x 30 1.43 -> 0.67,
#: 200 x 30 1.20 -> 0.78, 200 x 50 1.15 -> 0.76, 100 x 50 1.37 -> 0.78, 300 x 30 1.31 -> 0.64;
#: water's measured nu 1,123 / 1,085 -> 1,143 / 1,090 (seeds 0 / 1: the cells' mean flow,
#: which the vortex measures, keeps its momentum and nearly its energy).
WATER_DAMPING = 0.3

#: Water's (and ink's) SRD rotation angle. SRD's own viscosity falls with the angle (vortex
#: decay at the game preset, water's damping on: ~1,060 px^2/s at pi/2, 745 at pi/3, 610 at
#: pi/4, 536 at pi/5, 495 at pi/6; ~434 + 622 (1 - cos alpha)). Since 2026-12-01 pi/4 (it was
#: pi/2): issue 13 asks honey >= 10x water's viscosity *and* a flat honey layer laid on water
#: under it within 15 s, and the viscous Rayleigh-Taylor overturn is as slow as honey is viscous
#: (the test tank's fastest mode ~0.28/s at honey's nu 24,000, ~0.69/s at 6,640: its theory), so
#: thinner water is what lets honey be 10x it and still overturn. Thinner water turns small
#: floating balls a little more in calm water (radius 20, 18 places and densities: largest 25
#: degrees in 10 s at pi/4, 38 at pi/5, 36 at pi/6, ~10 at pi/2); docs/architecture.md,
#: "Viscosity".
WATER_ALPHA = math.pi / 4

# viscosity in px^2/s (game preset); measured nu (fidelity/viscosity.py): water ~610 (SRD's own
# with its damping; no viscosity stage), oil ~600, honey ~6,640 (10.9x water's)
WATER = Material("water", (40, 110, 220, 255), srd_alpha=WATER_ALPHA, damping=WATER_DAMPING)
# same density as water: the mixing scene's second fluid
INK = Material("ink", (40, 190, 90, 255), srd_alpha=WATER_ALPHA, damping=WATER_DAMPING)
OIL = Material("oil", (220, 170, 40, 255), density=0.8, srd_alpha=math.pi / 3, mix_group="oil")
HONEY = Material("honey", (230, 150, 20, 255), density=1.4, viscosity=5_000.0,
                 wall_mode="adhere", adhesion=0.5, mix_group="honey")


def default_materials() -> tuple[Material, ...]:
    """The built-in material table: ids 0 water, 1 ink, 2 oil, 3 honey."""
    return (WATER, INK, OIL, HONEY)


def _cell_size(width: object, nominal: float) -> float:
    """The cell size nearest ``nominal`` that divides ``width`` into whole cells (``nominal``
    where ``width`` is not a finite number or holds fewer than two: validation says why)."""
    width = _scalar(width)
    if (not isinstance(width, int | float | np.integer | np.floating)
            or isinstance(width, bool | np.bool_) or not math.isfinite(width)):
        return nominal
    cells = round(float(width) / nominal)
    return float(width) / cells if cells >= 2 else nominal


@dataclass(frozen=True)
class FluidParams:
    """Parameters of a fluid simulation.

    Args:
        width: Domain width in world units; the domain is ``[0, width] x [0, height]``.
        height: Domain height in world units.
        a0: SRD / pressure cell size (paper ``a_0``). ``width`` and ``height`` must hold >= 2 cells.
        gamma: Desired mean number of particles per cell (paper ``gamma``), in (0, 100].
        dt: Time step of one call to ``step()``.
        substeps: Internal substeps per ``step()``; each advances ``h = dt / substeps``.
        gravity: Gravity acceleration ``(gx, gy)`` in world units per time unit squared.
        repulsion_iterations: Local-repulsion passes per substep (paper: 3), in [0, 20].
        repulsion_dv: Paper's ``Delta v``: velocity change per unit repulsion displacement, per
            unit time (paper 0.1 with dt 0.1).
        pressure_iterations: Pressure-solver sweeps per substep (paper ``k`` = 10), in [0, 500].
        pressure_solver: ``"converged"`` (default: warm-started red-black Gauss-Seidel on a compact
            stencil with density correction; holds hydrostatic pressure at depth) or ``"paper"``
            (Eq. 7-10 exactly: Jacobi from zero on the +-2 stencil) or ``"none"`` (no cell
            pressure stage: local repulsion only, the paper's Fig. 3 bottom row).
        density_correction: Fraction of a cell's excess density ratio removed per substep by the
            converged solver, in [0, 1].
        pressure_clamp: Upper bound on the density ratio ``r`` used in Eq. 7/10 ("paper" solver);
            the paper itself uses no clamp (set ``inf``).
        grid_shift: Random SRD grid translation each step (Ihle & Kroll), as in SRD practice.
        seed: Seed of the random generator (grid shifts, rotation signs). Same seed, same run.
        max_particles: Capacity limit; adding more raises ``ValueError``.
        wall_solids: Put solid particles along the domain walls (paper Sec. 3.3).
        wall_inelastic: Share of a fluid particle's velocity into a *still* solid (the domain
            walls, static shapes, a kinematic body at rest) that the contact removes, in
            [0, 1], or ``None`` (the game preset; :func:`wall_contact`): all of it while the
            fluid holds materials of different densities or mix groups, and in a fluid of one
            material the speed beyond the substep's gravity kick. Solids of dynamic bodies and
            of moving ones always remove all of it. All of it (1, the paper's contact and its
            preset) takes the gravity kick off the rows on the floor every substep, and they
            jiggle: SRD water at rest moved at 1.2-1.3 % of ``sqrt(g d)`` 30 deep (leaving the
            kick: 0.13-0.24 %). That noise is what starts an unstable layering (with 0.25 oil
            laid under water in thin layers did not overturn within 15 s), hence all of it
            where materials differ (``docs/architecture.md``, "Local repulsion").
        surface_ghost: Put the free surface of the converged solver's single-density solve inside
            its top cells, half a particle layer over their highest particle (Gibou's ghost
            fluid; :mod:`.surface_ghost`), instead of at the centre of the air cell above them.
            Opt-in (default ``False``): connected water then comes level within a cell (the gap
            between two bodies 34 apart stood 3-4 units under the water outside them for 20 s
            and comes level within ~3 s; the water beside a floating body stands with the
            pool's, not a unit under it; two bodies side by side float at their draft). Columns
            with a body's cover and no water in their top cells take the surface of the
            columns beside them. Pools rest with it (0.16-0.43 % of ``sqrt(g d)`` 15-75 deep;
            0.0-0.3 % without). Not the default because floating bodies bob more on the
            surface it frees (a crate's height swings 0.66 units against 0.24), raised the
            level less (0.81 of their submerged area over the width against 0.92, before the
            cells that hold cover corrected their own count) and it costs a pass over the
            particles a substep. Only with gravity mostly along ``-y``, and not
            while materials of different densities share the fluid (that solve keeps the
            surface at the air cell). ``docs/architecture.md``, Limits, "Surfaces to the
            cell".
        viscous_walls: Let the walls (the domain's sides and floor, static shapes, kinematic
            bodies) hold materials with ``viscosity`` by its shear stress (no slip:
            :mod:`.wall_shear`), so that honey runs down a chute or a channel at the speed its
            viscosity allows (a channel 60 wide: ~94 units/s, against 614 after a second with
            free-slip walls). Opt-in (default ``False``: every material slides along walls, as
            water and oil always do): the hold slows a flat honey layer's overturn through
            water (0.62-0.87 of it under the water's median at 15 s against 0.93-0.97).
    """

    width: float = 640.0
    height: float = 640.0
    a0: float = 10.0
    gamma: float = 5.0
    dt: float = 0.1
    substeps: int = 1
    gravity: tuple[float, float] = (0.0, -9.81)
    repulsion_iterations: int = 3
    repulsion_dv: float = 0.1
    pressure_iterations: int = 10
    pressure_solver: PressureSolver = "converged"
    density_correction: float = 0.3
    pressure_clamp: float = math.inf
    grid_shift: bool = True
    seed: int = 0
    max_particles: int = 2_000_000
    wall_solids: bool = True
    wall_inelastic: float | None = None
    surface_ghost: bool = False
    viscous_walls: bool = False

    def __post_init__(self) -> None:
        a0 = _positive("a0", self.a0)
        _positive("gamma", self.gamma)
        if self.gamma > 100:
            raise ValueError(f"gamma must be in (0, 100], got {self.gamma}")
        _positive("dt", self.dt)
        w = _positive("width", self.width)
        h = _positive("height", self.height)
        if w < 2 * a0 or h < 2 * a0:
            raise ValueError(
                f"the domain ({w} x {h}) must be at least 2 cells of a0={a0} in each direction"
            )
        if (w / a0) * (h / a0) > 16_000_000:
            raise ValueError(f"width x height / a0^2 = {(w / a0) * (h / a0):.3g} cells; at most "
                             "16e6 allowed (a larger a0, or a smaller width or height)")
        _int_in("substeps", self.substeps, 1, 64)
        if (isinstance(self.gravity, str | bytes | set | frozenset | dict)
                or not hasattr(self.gravity, "__len__") or len(self.gravity) != 2):
            raise ValueError(f"gravity must be a pair (gx, gy), got {self.gravity!r}")
        object.__setattr__(
            self, "gravity", (_finite("gravity[0]", self.gravity[0]),
                              _finite("gravity[1]", self.gravity[1]))
        )
        _int_in("repulsion_iterations", self.repulsion_iterations, 0, 20)
        dv = _finite("repulsion_dv", self.repulsion_dv)
        if dv < 0:
            raise ValueError(f"repulsion_dv must be >= 0, got {dv}")
        _int_in("pressure_iterations", self.pressure_iterations, 0, 500)
        if self.pressure_solver not in ("converged", "paper", "none"):
            raise ValueError(
                "pressure_solver must be 'converged', 'paper' or 'none', "
                f"got {self.pressure_solver!r}"
            )
        dc = _finite("density_correction", self.density_correction)
        if not 0.0 <= dc <= 1.0:
            raise ValueError(f"density_correction must be in [0, 1], got {dc}")
        if isinstance(self.pressure_clamp, bool) or not isinstance(
                self.pressure_clamp, int | float | np.integer | np.floating):
            raise TypeError(f"pressure_clamp must be a real number (inf for none), got "
                            f"{self.pressure_clamp!r}")
        if not (self.pressure_clamp > 0):  # NaN fails too
            raise ValueError(
                f"pressure_clamp must be > 0 (inf for none), got {self.pressure_clamp}"
            )
        if not isinstance(self.surface_ghost, bool | np.bool_):
            raise TypeError(f"surface_ghost must be True or False, got {self.surface_ghost!r}")
        object.__setattr__(self, "surface_ghost", bool(self.surface_ghost))
        if not isinstance(self.viscous_walls, bool | np.bool_):
            raise TypeError(f"viscous_walls must be True or False, got {self.viscous_walls!r}")
        object.__setattr__(self, "viscous_walls", bool(self.viscous_walls))
        if self.wall_inelastic is not None:
            wi = _finite("wall_inelastic", self.wall_inelastic)
            if not 0.0 <= wi <= 1.0:
                raise ValueError(f"wall_inelastic must be in [0, 1] or None, got {wi}")
        _int_in("seed", self.seed, 0, 2**63 - 1)
        _int_in("max_particles", self.max_particles, 1, MAX_PARTICLES_LIMIT)
        # Speed limit sanity: a particle falling for one step must not cross more than a cell.
        g = math.hypot(*self.gravity)
        if g * self.h * self.h > a0:
            raise ValueError(
                f"dt/substeps too large for gravity {g:g} and a0={a0:g}: one substep moves a "
                f"particle more than a cell (g*h^2={g * self.h**2:.3g}); raise substeps or lower dt"
            )

    # ------------------------------------------------------------------ derived quantities
    @property
    def h(self) -> float:
        """Substep length ``dt / substeps``."""
        return self.dt / self.substeps

    @property
    def r_l(self) -> float:
        """Repulsion radius, paper Eq. 5: ``sqrt(2 a0^2 / (gamma sqrt 3))``."""
        return math.sqrt(2.0 * self.a0 * self.a0 / (self.gamma * math.sqrt(3.0)))

    @property
    def grid_shape(self) -> tuple[int, int]:
        """Pressure grid ``(ny, nx)``; cell ``(j, i)`` covers ``[i a0, (i+1) a0) x [j a0, ...)``."""
        return (math.ceil(self.height / self.a0 - 1e-9), math.ceil(self.width / self.a0 - 1e-9))

    @property
    def particle_area(self) -> float:
        """Rest area of one particle, ``a0^2 / gamma``."""
        return self.a0 * self.a0 / self.gamma

    def replace(self, **changes: object) -> FluidParams:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ presets
    @classmethod
    def paper(cls, a0: float = 10.0, gamma: float = 5.0, **changes: object) -> FluidParams:
        """Crespin et al. (2020) set-up: pixels, 640x640 box, dt 0.1, g 9.81, 3 repulsion passes,
        k = 10 Jacobi iterations from zero on the paper's stencil (Eq. 7-10)."""
        base = dict(
            width=640.0, height=640.0, a0=a0, gamma=gamma, dt=0.1, substeps=1,
            gravity=(0.0, -9.81), repulsion_iterations=3, repulsion_dv=0.1,
            pressure_iterations=10, pressure_solver="paper", grid_shift=True,
            wall_inelastic=1.0,
        )
        base.update(changes)
        return cls(**base)  # type: ignore[arg-type]

    @classmethod
    def game(cls, width: float = 1280.0, height: float = 720.0, **changes: object) -> FluidParams:
        """A game preset in seconds: ``dt = 1/60`` with 2 substeps, gravity 900 px/s^2, a0 = 10 px.

        The paper's dimensionless step ``g h^2 / a0`` is ~0.01; 900 px/s^2 at 120 Hz substeps gives
        0.006, and ``repulsion_dv`` is scaled so that ``dv * h`` matches the paper's 0.01.

        Where ``width`` is not a whole number of 10-px cells, ``a0`` is the nearest size that
        divides it (``width / round(width / 10)``: 10.13 for 314), so that the right wall lies
        on a cell face: a last column of cells cut by the wall (0.4 of a cell at 314) held only
        a particle or two at rest, and the pressure stage's density correction kept a pool
        circulating at 2.6-2.9 % of ``sqrt(g d)`` (0.5 % 320 wide) and floating bodies drifting
        by up to 0.6 of their size in 10 s. An ``a0`` given in ``changes`` is kept.
        """
        substeps = _int_in("substeps", changes.pop("substeps", 2), 1, 64)  # type: ignore[arg-type]
        dt = _positive("dt", changes.pop("dt", 1.0 / 60.0))
        base = dict(
            width=width, height=height, a0=_cell_size(width, 10.0), gamma=5.0,
            dt=dt, substeps=substeps,
            gravity=(0.0, -900.0), repulsion_iterations=3,
            repulsion_dv=0.01 / (dt / substeps), pressure_iterations=16,
            pressure_solver="converged",
        )
        base.update(changes)
        return cls(**base)  # type: ignore[arg-type]


def wall_contact(params: FluidParams, layered: bool, h: float) -> tuple[float, float, float]:
    """What the inelastic contact of a still solid removes (the repulsion's ``still``):
    ``(share, kx, ky)``, ``share`` of a particle's speed into the solid beyond the gravity kick
    ``(kx, ky)`` of a substep ``h`` along the contact's normal.

    :attr:`FluidParams.wall_inelastic` when set: that share of all of it (no kick). By default
    (``None``): all of it where the fluid holds materials of different densities or mix groups
    (``layered``: the floor's kicks are the noise an unstable layering starts to overturn from),
    and in a fluid of one material the speed beyond the kick, which the pressure stage takes
    off the rows on the floor with the rest of the column (all of it made them jiggle)."""
    if params.wall_inelastic is not None:
        return float(params.wall_inelastic), 0.0, 0.0
    if layered:
        return 1.0, 0.0, 0.0
    gx, gy = params.gravity
    return 1.0, float(gx) * h, float(gy) * h
