"""The solver interface: what a fluid solver is to the particle store, the World and the coupling.

A :class:`~fluidworld.fluid.FluidSystem` owns the particle store (``pos``, ``vel``, ``mat``, the
material tables, the neighbour-cell sort, the solid particles of walls and bodies) and the two
stages every solver shares, ``external_forces`` and ``bin``. A *solver* runs the rest of a
substep as its own named stages, each timed under its name. SRD's are ``local_repulsion``,
``srd_collision``, ``viscosity``, ``cell_pressure`` and ``advect``; double density relaxation
and the constraint solver (issue 14) bring their own lists.

The contract a solver keeps, so that coupling, containment, emitters, drains and rendering work
with any of them (they see particles and impulses, never a solver's internals):

* after its last stage every live particle is inside the domain box and ``pos``/``vel`` hold the
  end-of-substep state; particles are not reordered after ``bin`` (containment of bodies reads
  ``fluid.start_positions``, the positions the sort left);
* ``fluid.cell_count`` and ``fluid.cell_velocity`` hold the cell deposit of the substep (density
  ratio = count / gamma, used by renderers and the coupling's drag), ``fluid.cell_grad`` the
  velocity correction per unit material density that a pressure field gave (zeros if the solver
  has none);
* ``fluid.solid_impulse`` holds, per solid particle, the momentum the fluid received from it in
  this substep (so that bodies get the equal and opposite push), and ``fluid.solid_marked`` which
  solid particles touched fluid;
* ``contacts_carry_pressure`` (a class attribute, False if absent) says whether those impulses
  hold the fluid's whole pressure on a body (the body's solids are neighbours inside the
  pressure solve, as in the constraint solver): the coupler then leaves out its explicit
  hydrostatic buoyancy and the cell pressure's push, which would count the pressure twice;
* a particle of material ``k`` has mass ``fluid._mass[k]``: heavier materials must sink under
  lighter ones in a solver that claims multiphase behaviour; ``rest_fill`` (optional, 1 if
  absent) is the number density the solver's fluid rests at where bodies float, in units of the
  fill lattice's, and sets those masses (:meth:`FluidSystem.set_rest_fill
  <fluidworld.fluid.FluidSystem.set_rest_fill>`) so that the fluid has its material's mass
  density;
* ``fluid.solid_wet`` says which solid particles belong to moving bodies (the coupler sets it):
  a solver may let its fluid wet those;
* the same seed and inputs give bit-identical results (no unordered parallel reductions).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numba

if TYPE_CHECKING:
    from .system import FluidSystem

__all__ = ["Solver", "SHARED_STAGES", "SWEEPS_PARALLEL_MIN_PARTICLES", "VISCOUS_MATERIAL_NU",
           "DDR_VISCOSITY_SCALE", "CONSTRAINT_VISCOSITY_SCALE",
           "substep_stages", "sweeps_in_parallel", "substep_with"]

#: Materials at least this viscous (units^2/s: honey) get their ``viscosity`` as momentum
#: diffusion on top of a non-SRD solver's own (its ``viscosity`` stage,
#: :meth:`~fluidworld.fluid.FluidSystem.apply_material_viscosity`); thinner ones (water's 100)
#: are left to the solver's own viscosity, which its knobs set (with water's knob added, a 0.8
#: ball in ddr water floated at 0.88 instead of 0.82).
VISCOUS_MATERIAL_NU = 1_000.0

#: How much of a viscous material's ``viscosity`` ``ddr`` and the constraint solver diffuse, per
#: unit of the knob: their water's own viscosity over SRD's water's, so that honey is about as
#: many times as viscous as water whichever solver runs it (the knob is SRD's: honey's 5,500
#: over SRD water's ~610 px^2/s). Measured 2026-12-01 with the vortex decay of
#: ``fidelity/viscosity.py`` at the game preset: water ~5,800 (``ddr``) and ~2,560
#: (constraint) px^2/s against SRD's ~610.
DDR_VISCOSITY_SCALE = 9.5
CONSTRAINT_VISCOSITY_SCALE = 4.2

#: The stages the particle store runs for every solver, before the solver's own.
SHARED_STAGES = ("external_forces", "bin")

#: From this many particles ``ddr``'s and the constraint solver's pair sweeps run in parallel
#: when numba has more than one thread (the results are the same). Each particle costs a few
#: microseconds a substep there, so a parallel region pays from far fewer particles than
#: SRD's kernels (5,000 and 12,000, which they used until 2026-11-30). Measured on two
#: threads, same state hashes: ``ddr`` 1,512 particles 7.1 -> 5.1 ms/step, 3,000 13.3 -> 8.5;
#: constraint 1,512 5.0 -> 4.1, 6,000 18-19 -> 13.5; at 150-600 serial and parallel cost the
#: same.
SWEEPS_PARALLEL_MIN_PARTICLES = 1_000


def sweeps_in_parallel(n: int) -> bool:
    """Whether a heavy solver's sweeps over ``n`` particles run in parallel
    (:data:`SWEEPS_PARALLEL_MIN_PARTICLES`)."""
    return n >= SWEEPS_PARALLEL_MIN_PARTICLES and numba.get_num_threads() > 1


@runtime_checkable
class Solver(Protocol):
    """A fluid solver: named stages over a :class:`FluidSystem`'s particle store."""

    #: Short name (``"srd"``, ``"ddr"``, ``"constraint"``).
    name: str
    #: The stages run each substep after :data:`SHARED_STAGES`, in order.
    stages: tuple[str, ...]
    # Optional (not protocol members, so that a solver without them still is one):
    # ``contacts_carry_pressure: bool``, whether ``fluid.solid_impulse`` carries the fluid's
    # whole pressure on the bodies (the coupler reads it with ``getattr``, False if absent);
    # ``rest_fill: float``, the number density its fluid rests at (1 if absent);
    # ``solid_inset: float``, how far inside a body's surface the coupler puts its solid
    # particles, in ``r_L`` (0.75 if absent; ``CouplingParams.solid_inset`` overrides it);
    # ``solid_rest_distance: float``, how far from a row of solids its fluid rests, in ``r_L``:
    # the coupler then counts the solids of arcs and sharp corners for it
    # (``coupling.sampling.arc_count_radius``; the surface's own count if absent);
    # ``solid_kernel(d) -> weight`` and ``solid_kernel_reach: float`` (``d`` in ``r_L``), the
    # weight a solid adds to a fluid particle's density: arcs are then counted by that sum
    # (``coupling.sampling.kernel_arc_count``);
    # ``emit_packing: float``, how many times as dense as the fluid at rest an emitter's jet may
    # be: the World spreads a denser one wider (no limit if absent).

    def attach(self, fluid: FluidSystem) -> None:
        """Bind to ``fluid`` and allocate scratch for its grids and capacity (called again if
        the capacity grows)."""
        ...

    def run_stage(self, stage: str, h: float) -> None:
        """Run one of :attr:`stages` for a substep of length ``h``."""
        ...


def substep_stages(fluid: FluidSystem,
                   solver: Solver) -> tuple[tuple[str, Callable[[float], None]], ...]:
    """The one list of a substep's fluid stages, as ``(name, fn(h))`` in order: the shared
    stages, then the solver's. Both drivers run it: :func:`substep_with` (a fluid alone) and
    :meth:`World.step <fluidworld.World.step>` (with the coupling stages around it)."""

    def shared_bin(h: float) -> None:
        fluid.bin_particles()

    own = tuple((stage, functools.partial(solver.run_stage, stage)) for stage in solver.stages)
    return (("external_forces", fluid.apply_external_forces), ("bin", shared_bin), *own)


def substep_with(fluid: FluidSystem, solver: Solver, h: float) -> None:
    """One substep of ``fluid`` with ``solver``: :func:`substep_stages`, each timed into
    ``fluid.profile`` under its name. A fluid-only driver."""
    for name, fn in substep_stages(fluid, solver):
        fluid._timed(name, fn, h)
