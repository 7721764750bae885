"""SRD (Crespin et al. 2020) as a :class:`~fluidworld.fluid.solver.Solver`: the stages that
:class:`~fluidworld.fluid.FluidSystem` has always run, now behind the solver interface.

The kernels stay where they were (``repulsion``, ``collision``, ``viscosity``, ``pressure``,
``advection``) and so does their state (the fluid's grids); this adapter only names the stages
and dispatches them, so SRD loses no speed and keeps its bit-exact results. ``advect`` starts
with the walls' hold on viscous materials (:mod:`.wall_shear`), after the pressure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .system import FluidSystem

__all__ = ["SRDSolver", "SRD_STAGES"]

#: SRD's stages after the shared ``external_forces`` and ``bin``.
SRD_STAGES = ("local_repulsion", "srd_collision", "viscosity", "cell_pressure", "advect")


class SRDSolver:
    """Stochastic Rotation Dynamics with local repulsion, a cell-pressure projection and an
    explicit viscosity stage (the default solver; its knobs live in :class:`FluidParams`)."""

    name = "srd"
    stages: tuple[str, ...] = SRD_STAGES
    #: The solid particles' impulses are contacts only: the coupler adds the buoyancy and the
    #: cell pressure's push (see :attr:`fluidworld.fluid.solver.Solver.contacts_carry_pressure`).
    contacts_carry_pressure = False

    def __init__(self) -> None:
        self.fluid: FluidSystem | None = None

    def attach(self, fluid: FluidSystem) -> None:
        """Bind to ``fluid`` (SRD's scratch lives in the fluid itself)."""
        self.fluid = fluid

    def run_stage(self, stage: str, h: float) -> None:
        """Run one of :data:`SRD_STAGES`."""
        f = self.fluid
        if f is None:
            raise RuntimeError("SRDSolver.run_stage before attach(fluid)")
        if stage == "local_repulsion":
            f.repulse(h)
        elif stage == "srd_collision":
            f.collide(h)
        elif stage == "viscosity":
            f.apply_viscosity(h)
        elif stage == "cell_pressure":
            f.solve_pressure(h)
        elif stage == "advect":
            f.push_springs(h)  # a jelly's springs, as velocities (none in a liquid)
            f.shear_walls(h)  # the walls' hold on viscous materials, after the pressure
            f.advect(h)
        else:
            raise ValueError(f"stage must be one of {SRD_STAGES}, got {stage!r}")
